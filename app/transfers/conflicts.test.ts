import { describe, expect, it } from "vitest";
import { candidateNames, namesByFolder, numberedName, pickFreeNames, resolveConflicts, splitExtension, splitPath } from "./conflicts";
import type { UploadItem } from "./types";

const item = (name: string, relativePath = ""): UploadItem => ({ file: new File([name], name), relativePath });

describe("upload name conflicts", () => {
  it("numbers a name before its extension, as people expect of a copy", () => {
    expect(numberedName("report.pdf", 1)).toBe("report (1).pdf");
    expect(numberedName("notes", 2)).toBe("notes (2)");
    expect(numberedName(".env", 1)).toBe(".env (1)");
    expect(numberedName("archive.tar.gz", 3)).toBe("archive (3).tar.gz");
    expect(numberedName("trailing.", 1)).toBe("trailing. (1)");
    expect(splitExtension("a.b.c")).toEqual(["a.b", ".c"]);
  });

  it("keeps a numbered name within the engine's 255-byte limit", () => {
    const long = `${"é".repeat(130)}.txt`;
    const numbered = numberedName(long, 12);
    expect(new TextEncoder().encode(numbered).length).toBeLessThanOrEqual(255);
    expect(numbered.endsWith(" (12).txt")).toBe(true);
    expect(numberedName(`${"a".repeat(255)}`, 1)).toHaveLength(255);
  });

  it("groups final paths by folder, for one exists call per folder", () => {
    expect(splitPath("/a.txt")).toEqual(["/", "a.txt"]);
    expect(splitPath("/docs/x/a.txt")).toEqual(["/docs/x", "a.txt"]);
    expect([...namesByFolder(["/a.txt", "/docs/b.txt", "/docs/c.txt", "/a.txt"])]).toEqual([
      ["/", ["a.txt"]],
      ["/docs", ["b.txt", "c.txt"]],
    ]);
  });

  it("picks the first number free on the server and in the batch", () => {
    const used = new Set(["a.txt", "a (2).txt", "b.txt"]);
    const taken = new Set(["a (1).txt", "b (1).txt", "b (2).txt"]);
    const picked = pickFreeNames(["a.txt", "b.txt"], taken, used, 1, 5);
    expect([...picked]).toEqual([
      ["a.txt", "a (3).txt"],
      ["b.txt", "b (3).txt"],
    ]);
    expect(used.has("a (3).txt")).toBe(true);
    // None free in the range: left for the next round.
    expect(pickFreeNames(["c.txt"], new Set(candidateNames(["c.txt"], 1, 3)), new Set(), 1, 3).size).toBe(0);
    expect(candidateNames(["c.txt"], 4, 2)).toEqual(["c (4).txt", "c (5).txt"]);
  });

  it("applies the choice to the clashing files only", () => {
    const items = [item("a.txt"), item("b.txt"), item("c.txt", "photos/2024/c.txt")];
    const clashes = new Set(["/docs/a.txt", "/docs/photos/2024/c.txt"]);
    expect(resolveConflicts(items, "/docs", clashes, "skip").map((i) => i.file.name)).toEqual(["b.txt"]);
    expect(resolveConflicts(items, "/docs", clashes, "overwrite").map((i) => [i.file.name, i.overwrite ?? false])).toEqual([
      ["a.txt", true],
      ["b.txt", false],
      ["c.txt", true],
    ]);
    const renamed = new Map([
      ["/docs/a.txt", "a (1).txt"],
      ["/docs/photos/2024/c.txt", "c (2).txt"],
    ]);
    expect(resolveConflicts(items, "/docs", clashes, "keep-both", renamed).map((i) => [i.file.name, i.relativePath, i.overwrite ?? false])).toEqual([
      ["a.txt", "a (1).txt", false],
      ["b.txt", "", false],
      ["c.txt", "photos/2024/c (2).txt", false],
    ]);
  });
});
