import { describe, expect, it } from "vitest";
import { pickedFromBatch } from "./picked";

const file = (name: string, size: number) => new File([new Uint8Array(size)], name);

describe("picked lines", () => {
  it("makes a line per loose file and per top folder, with the folder's files and empty folders", () => {
    const a = file("a.txt", 3);
    const b = file("b.jpg", 5);
    const c = file("c.jpg", 7);
    const lines = pickedFromBatch({
      items: [
        { file: a, relativePath: "" },
        { file: b, relativePath: "photos/b.jpg" },
        { file: c, relativePath: "photos/2024/c.jpg" },
      ],
      folders: ["photos/empty", "blank"],
    });
    expect(lines.map((l) => l.entry)).toEqual([
      { name: "a.txt", file_size: 3, file_type: 0, source: "local" },
      { name: "photos", file_size: 12, file_type: 1, source: "local" },
      { name: "blank", file_size: 0, file_type: 1, source: "local" },
    ]);
    expect(lines[1]!.items).toEqual([
      { path: "photos/b.jpg", file: b },
      { path: "photos/2024/c.jpg", file: c },
      { path: "photos/empty", folder: true },
    ]);
    expect(lines[2]!.items).toEqual([{ path: "blank", folder: true }]);
  });
});
