import type { FileServerPart } from "../fileserver/parts";

/** The file server's file commands: list, mkdir, rename, exists, move, copy, remove, attributes, tree, search (docs/file-server.md). Being built. */
export const fileCommandParts: FileServerPart = () => ({ handlers: [], commands: {} });
