import type { UploadItem } from "./types";

/**
 * Files and folders dropped on the page. Folders are read through `webkitGetAsEntry` (the only way a
 * drop exposes a folder's tree); every entry must be taken from the DataTransfer synchronously,
 * before the first await, because the browser empties it once the drop handler returns.
 */
export async function itemsFromDataTransfer(dt: DataTransfer): Promise<UploadItem[]> {
  const entries: FileSystemEntry[] = [];
  const plain: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== "file") continue;
    const entry = typeof item.webkitGetAsEntry === "function" ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const file = item.getAsFile();
      if (file) plain.push(file);
    }
  }
  if (entries.length === 0 && plain.length === 0) plain.push(...Array.from(dt.files ?? []));
  const nested = await Promise.all(entries.map((entry) => readEntry(entry, true)));
  return [...plain.map((file) => ({ file, relativePath: "" })), ...nested.flat()];
}

/** Files from an `<input type="file">`; a folder input (`webkitdirectory`) gives each file's path under the folder. */
export function itemsFromFileList(files: FileList | readonly File[]): UploadItem[] {
  return Array.from(files).map((file) => ({ file, relativePath: file.webkitRelativePath ?? "" }));
}

async function readEntry(entry: FileSystemEntry, topLevel: boolean): Promise<UploadItem[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    // A plain file dropped on its own goes straight into the target folder.
    return [{ file, relativePath: topLevel ? "" : entry.fullPath.replace(/^\/+/, "") }];
  }
  if (!entry.isDirectory) return [];
  const children = await readAllEntries((entry as FileSystemDirectoryEntry).createReader());
  if (children.length === 0) return [];
  const nested = await Promise.all(children.map((child) => readEntry(child, false)));
  return nested.flat();
}

/** `readEntries` answers in batches (100 in Chromium) and an empty batch at the end. */
async function readAllEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

/** The final path of an item uploaded into `folder`: its relative path (with its sub-folders) or its name. */
export function uploadPath(folder: string, item: UploadItem): string {
  const base = folder.replace(/\/+$/, "");
  return `${base}/${item.relativePath || item.file.name}`;
}
