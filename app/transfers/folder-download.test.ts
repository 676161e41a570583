import { describe, expect, it } from "vitest";
import type { Listing } from "../../contract/files";
import { folderBytes, FolderTooLarge, nextFiles, resumeRanges, SMALL_FILES_AT_ONCE, walkFolder, type FolderFileState } from "./folder-download";
import { chunkSizeFor } from "./page-download";

const MIB = 1024 * 1024;

/** A folder tree as the socket's `list` answers it, one level per call. */
function lister(tree: Record<string, [string, number, number][]>) {
  const asked: string[] = [];
  const list = async (path: string): Promise<Listing> => {
    asked.push(path);
    const rows = tree[path];
    if (!rows) throw new Error(`not listed: ${path}`);
    return { path, names: rows.map((r) => r[0]), types: rows.map((r) => r[1]), sizes: rows.map((r) => r[2]), times: rows.map(() => 0) };
  };
  return { list, asked };
}

const state = (relative: string, size: number, patch: Partial<FolderFileState> = {}): FolderFileState => ({ relative, size, hash: null, done: false, ranges: [], ...patch });

describe("folder downloads written by the page: planning", () => {
  it("walks the folder one level per list, breadth-first, with every file's relative path and size and every folder, empty ones too", async () => {
    const { list, asked } = lister({
      "/photos": [
        ["2024", 1, 0],
        ["empty", 1, 0],
        ["cover.jpg", 0, 12],
      ],
      "/photos/2024": [
        ["trip", 2, 0],
        ["a.jpg", 0, 70 * MIB],
      ],
      "/photos/empty": [],
      "/photos/2024/trip": [["b.jpg", 0, 3]],
    });
    const walk = await walkFolder(list, "/photos");
    expect(asked).toEqual(["/photos", "/photos/2024", "/photos/empty", "/photos/2024/trip"]);
    expect(walk.folders).toEqual(["2024", "empty", "2024/trip"]);
    expect(walk.files).toEqual([
      { relative: "cover.jpg", size: 12 },
      { relative: "2024/a.jpg", size: 70 * MIB },
      { relative: "2024/trip/b.jpg", size: 3 },
    ]);
  });

  it("gives up past the entry limit instead of holding an endless plan", async () => {
    const { list } = lister({ "/big": Array.from({ length: 11 }, (_v, i) => [`f${i}`, 0, 1] as [string, number, number]) });
    await expect(walkFolder(list, "/big", 10)).rejects.toBeInstanceOf(FolderTooLarge);
    await expect(walkFolder(list, "/big", 11)).resolves.toHaveProperty("files.length", 11);
  });

  it("counts finished files whole and a partly written large file by its committed ranges", () => {
    const files = [state("a", 5, { done: true }), state("b", 7), state("big", 72 * MIB, { ranges: [0, 3], chunk: chunkSizeFor(72 * MIB) })];
    expect(folderBytes(files)).toBe(5 + 2 * chunkSizeFor(72 * MIB));
  });

  it("counts and resumes a large file's ranges by the range size they were saved with, not today's", () => {
    // Saved when ranges were 8 MiB; today a 72 MiB file is cut in 3 MiB ranges.
    expect(chunkSizeFor(72 * MIB)).not.toBe(8 * MIB);
    const saved = state("big", 72 * MIB, { ranges: [0, 8], chunk: 8 * MIB });
    // Range 8 is the file's last 8 MiB, which today's cut has no index 8 of that size for.
    expect(folderBytes([saved])).toBe(16 * MIB);
    expect(resumeRanges(saved)).toEqual({ chunk: 8 * MIB, done: [0, 8] });
    // Saved without its range size (before it was kept): which bytes they hold is unknown, so nothing counts and the file starts over by today's cut.
    const unknown = state("big", 72 * MIB, { ranges: [0, 8] });
    expect(folderBytes([unknown])).toBe(0);
    expect(resumeRanges(unknown)).toEqual({ chunk: chunkSizeFor(72 * MIB), done: [] });
    expect(resumeRanges(state("new", 72 * MIB))).toEqual({ chunk: chunkSizeFor(72 * MIB), done: [] });
  });

  it("starts small files a few at a time, a large one alone, skips finished files and finishes a partly written one first", () => {
    const small = Array.from({ length: 6 }, (_v, i) => state(`s${i}`, 100));
    const large = state("big", 72 * MIB);
    // Small files first, up to the limit.
    expect(nextFiles([large, ...small], new Set()).map((f) => f.relative)).toEqual(small.slice(0, SMALL_FILES_AT_ONCE).map((f) => f.relative));
    expect(nextFiles([large, ...small], new Set(["s0", "s1", "s2"])).map((f) => f.relative)).toEqual(["s3"]);
    // Small files done: the large one, alone; nothing joins it while it runs.
    const doneSmall = small.map((f) => ({ ...f, done: true }));
    expect(nextFiles([large, ...doneSmall], new Set()).map((f) => f.relative)).toEqual(["big"]);
    expect(nextFiles([large, ...small], new Set(["big"]))).toEqual([]);
    // After a reload: a partly written large file before anything new.
    const partial = { ...large, ranges: [0] };
    expect(nextFiles([...small, partial], new Set()).map((f) => f.relative)).toEqual(["big"]);
    // Everything done: nothing to start.
    expect(nextFiles([{ ...large, done: true }, ...doneSmall], new Set())).toEqual([]);
  });
});
