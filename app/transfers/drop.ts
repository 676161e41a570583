import type { UploadBatch, UploadItem } from "./types";

/**
 * Files and folders dropped on the page. Folders are read through `webkitGetAsEntry` (the only way a
 * drop exposes a folder's tree); every entry must be taken from the DataTransfer synchronously,
 * before the first await, because the browser empties it once the drop handler returns.
 */
export async function itemsFromDataTransfer(dt: DataTransfer): Promise<UploadBatch> {
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
  return {
    items: [...plain.map((file) => ({ file, relativePath: "" })), ...nested.flatMap((tree) => tree.items)],
    folders: nested.flatMap((tree) => tree.folders),
  };
}

/**
 * Files from an `<input type="file">`; a folder input (`webkitdirectory`) gives each file's path under
 * the folder. It lists files only, so the empty folders of a chosen folder cannot be known (a drop can).
 */
export function itemsFromFileList(files: FileList | readonly File[]): UploadBatch {
  return { items: Array.from(files).map((file) => ({ file, relativePath: file.webkitRelativePath ?? "" })), folders: [] };
}

async function readEntry(entry: FileSystemEntry, topLevel: boolean): Promise<UploadBatch> {
  const relativePath = entry.fullPath.replace(/^\/+/, "");
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    // A plain file dropped on its own goes straight into the target folder.
    return { items: [{ file, relativePath: topLevel ? "" : relativePath }], folders: [] };
  }
  if (!entry.isDirectory) return { items: [], folders: [] };
  const children = await readAllEntries((entry as FileSystemDirectoryEntry).createReader());
  // Folders with files are made by the engine when a file under them is committed; only empty ones need a mkdir.
  if (children.length === 0) return { items: [], folders: [relativePath] };
  const nested = await Promise.all(children.map((child) => readEntry(child, false)));
  return { items: nested.flatMap((tree) => tree.items), folders: nested.flatMap((tree) => tree.folders) };
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

/**
 * The folders to create, in order, for `folders` (relative paths of empty folders) under `base`: each
 * one's parents first, every folder once, as `mkdir` arguments (the parent folder and the new name).
 */
export function folderSteps(base: string, folders: readonly string[]): { path: string; name: string }[] {
  const root = base.replace(/\/+$/, "");
  const seen = new Set<string>();
  const steps: { path: string; name: string }[] = [];
  for (const folder of folders) {
    let parent = root;
    for (const name of folder.split("/").filter(Boolean)) {
      const path = `${parent}/${name}`;
      if (!seen.has(path)) {
        seen.add(path);
        steps.push({ path: parent || "/", name });
      }
      parent = path;
    }
  }
  return steps;
}
