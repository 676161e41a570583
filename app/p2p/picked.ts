import type { UploadBatch } from "../transfers/types";
import type { P2pEntry } from "./file-group";

/** A file of the sender's Ferry space (read by ranged GETs when it is sent). */
export interface RemoteFile {
  groupId: number;
  path: string;
  size: number;
}

/** A file of this computer or of the Ferry space with its path in the transfer, or an empty folder. */
export type PickedItem = { path: string; file: File } | { path: string; remote: RemoteFile } | { path: string; folder: true };

/** One line of the sender's list: a file or a top folder, with what it sends. */
export interface Picked {
  entry: P2pEntry;
  items: PickedItem[];
}

/**
 * A pick or drop (drop.ts) as lines of the list: each loose file on its own, each top folder as one
 * line holding its files (paths from the folder's name down) and empty folders.
 */
export function pickedFromBatch(batch: UploadBatch): Picked[] {
  const lines = new Map<string, Picked>();
  const folderLine = (name: string) => {
    let line = lines.get(`d:${name}`);
    if (!line) {
      line = { entry: { name, file_size: 0, file_type: 1, source: "local" }, items: [] };
      lines.set(`d:${name}`, line);
    }
    return line;
  };
  for (const { file, relativePath } of batch.items) {
    if (!relativePath || !relativePath.includes("/")) {
      lines.set(`f:${file.name}`, { entry: { name: file.name, file_size: file.size, file_type: 0, source: "local" }, items: [{ path: file.name, file }] });
      continue;
    }
    const line = folderLine(relativePath.split("/")[0]!);
    line.items.push({ path: relativePath, file });
    line.entry.file_size += file.size;
  }
  for (const folder of batch.folders) {
    const top = folder.split("/")[0];
    if (!top) continue;
    const line = folderLine(top);
    if (folder !== top) line.items.push({ path: folder, folder: true });
  }
  // A top folder with nothing in it is itself the empty folder to send.
  for (const line of lines.values()) if (line.entry.file_type === 1 && line.items.length === 0) line.items.push({ path: line.entry.name, folder: true });
  return [...lines.values()];
}
