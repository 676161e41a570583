import { describe, expect, it } from "vitest";
import { itemsFromDataTransfer, itemsFromFileList, uploadPath } from "./drop";

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
    ]);
    const items = await itemsFromDataTransfer(transfer([fileEntry("/notes.txt"), tree]));
    expect(items.map((i) => [i.file.name, i.relativePath])).toEqual([
      ["notes.txt", ""],
      ["a.jpg", "photos/a.jpg"],
      ["b.jpg", "photos/b.jpg"],
      ["c.jpg", "photos/c.jpg"],
      ["d.jpg", "photos/2024/d.jpg"],
    ]);
    expect(items.map((i) => uploadPath("/docs/", i))).toEqual(["/docs/notes.txt", "/docs/photos/a.jpg", "/docs/photos/b.jpg", "/docs/photos/c.jpg", "/docs/photos/2024/d.jpg"]);
  });

  it("takes the files of a DataTransfer without entries", async () => {
    const file = new File(["x"], "x.txt");
    const items = await itemsFromDataTransfer({ items: [], files: [file] } as unknown as DataTransfer);
    expect(items).toEqual([{ file, relativePath: "" }]);
  });

  it("uses each file's path under the chosen folder from a folder input", () => {
    const inFolder = new File(["a"], "a.txt");
    Object.defineProperty(inFolder, "webkitRelativePath", { value: "project/src/a.txt" });
    const plain = new File(["b"], "b.txt");
    expect(itemsFromFileList([inFolder, plain]).map((i) => i.relativePath)).toEqual(["project/src/a.txt", ""]);
    expect(uploadPath("/", itemsFromFileList([inFolder])[0]!)).toBe("/project/src/a.txt");
  });
});
