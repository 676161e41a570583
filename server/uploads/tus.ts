import type { FileServerPart } from "../fileserver/parts";

/** The file server's tus uploads and the commit command (docs/file-server.md). Being built. */
export const uploadParts: FileServerPart = () => ({ handlers: [], commands: {} });
