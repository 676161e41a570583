import { describe, expect, it } from "vitest";
import { folderSteps, itemsFromDataTransfer, itemsFromFileList, uploadPath } from "./drop";

/** Just enough of the File and Directory Entries API; directories answer in batches, as browsers do. */
function fileEntry(fullPath: string): FileSystemFileEntry {
  const name = fullPath.split("/").pop()!;
  return { isFile: true, isDirectory: false, name, fullPath, file: (ok: (f: File) => void) => ok(new File([name], name)) } as unknown as FileSystemFileEntry;
}
function dirEntry(fullPath: string, children: FileSystemEntry[], batch = 2): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    name: fullPath.split("/").pop()!,
    fullPath,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (ok: (entries: FileSystemEntry[]) => void) => {
          const next = children.slice(at, at + batch);
          at += batch;
          setTimeout(() => ok(next));
        },
      };
    },
  } as unknown as FileSystemDirectoryEntry;
}
const transfer = (entries: FileSystemEntry[]) =>
  ({ items: entries.map((entry) => ({ kind: "file", webkitGetAsEntry: () => entry, getAsFile: () => null })), files: [] }) as unknown as DataTransfer;

describe("dropped files and folders", () => {
  it("reads whole folder trees (every batch) and keeps plain files at the top", async () => {
    const tree = dirEntry("/photos", [
      fileEntry("/photos/a.jpg"),
      fileEntry("/photos/b.jpg"),
      fileEntry("/photos/c.jpg"),
      dirEntry("/photos/2024", [fileEntry("/photos/2024/d.jpg")]),
      dirEntry("/photos/empty", []),
      dirEntry("/photos/only-folders", [dirEntry("/photos/only-folders/inner", [])]),
    ]);
    const { items, folders } = await itemsFromDataTransfer(transfer([fileEntry("/notes.txt"), tree, dirEntry("/blank", [])]));
    expect(items.map((i) => [i.file.name, i.relativePath])).toEqual([
      ["notes.txt", ""],
      ["a.jpg", "photos/a.jpg"],
      ["b.jpg", "photos/b.jpg"],
      ["c.jpg", "photos/c.jpg"],
      ["d.jpg", "photos/2024/d.jpg"],
    ]);
    expect(items.map((i) => uploadPath("/docs/", i))).toEqual(["/docs/notes.txt", "/docs/photos/a.jpg", "/docs/photos/b.jpg", "/docs/photos/c.jpg", "/docs/photos/2024/d.jpg"]);
    // Only the folders without any entry: the others come with their files or their sub-folders.
    expect(folders).toEqual(["photos/empty", "photos/only-folders/inner", "blank"]);
  });

  it("creates empty folders parents first, each folder once", () => {
    expect(folderSteps("/docs/", ["photos/empty", "photos/only-folders/inner", "blank"])).toEqual([
      { path: "/docs", name: "photos" },
      { path: "/docs/photos", name: "empty" },
      { path: "/docs/photos", name: "only-folders" },
      { path: "/docs/photos/only-folders", name: "inner" },
      { path: "/docs", name: "blank" },
    ]);
    expect(folderSteps("/", ["a/b"])).toEqual([
      { path: "/", name: "a" },
      { path: "/a", name: "b" },
    ]);
    expect(folderSteps("/", [])).toEqual([]);
  });

  it("takes the files of a DataTransfer without entries", async () => {
    const file = new File(["x"], "x.txt");
    const batch = await itemsFromDataTransfer({ items: [], files: [file] } as unknown as DataTransfer);
    expect(batch).toEqual({ items: [{ file, relativePath: "" }], folders: [] });
  });

  it("uses each file's path under the chosen folder from a folder input", () => {
    const inFolder = new File(["a"], "a.txt");
    Object.defineProperty(inFolder, "webkitRelativePath", { value: "project/src/a.txt" });
    const plain = new File(["b"], "b.txt");
    const batch = itemsFromFileList([inFolder, plain]);
    expect(batch.items.map((i) => i.relativePath)).toEqual(["project/src/a.txt", ""]);
    // A folder input lists files only: its empty folders cannot be known.
    expect(batch.folders).toEqual([]);
    expect(uploadPath("/", batch.items[0]!)).toBe("/project/src/a.txt");
  });
});
