import type { FileServerPart } from "./parts";

/** The file server's signed downloads (Range, zip) and previews; socket commands download and preview (docs/file-server.md). Being built. */
export const downloadParts: FileServerPart = () => ({ handlers: [], commands: {} });
