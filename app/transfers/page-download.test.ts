import { describe, expect, it } from "vitest";
import { adaptStreams, chunkRanges, chunkSizeFor, MAX_STREAMS, MIN_STREAMS, PAGE_DOWNLOAD_MIN_BYTES, RANGES_PER_STREAM, readDownloadMode, shouldCommit, wantsPageDownload, writeDownloadMode } from "./page-download";

const MIB = 1024 * 1024;

describe("page-written downloads", () => {
  it("cuts a file into ranges that cover every byte once, the last one short", () => {
    const size = 72 * MIB + 5;
    const ranges = chunkRanges(size, chunkSizeFor(size));
    expect(ranges).toHaveLength(25);
    expect(ranges[0]).toEqual([0, 3 * MIB]);
    expect(ranges.at(-1)).toEqual([72 * MIB, size]);
    for (let i = 1; i < ranges.length; i += 1) expect(ranges[i]![0]).toBe(ranges[i - 1]![1]);
  });

  it("cuts at least 4 ranges per stream, in whole MiB between 2 and 16 MiB", () => {
    expect(chunkSizeFor(64 * MIB)).toBe(2 * MIB);
    expect(chunkRanges(64 * MIB, chunkSizeFor(64 * MIB)).length).toBeGreaterThanOrEqual(MAX_STREAMS * RANGES_PER_STREAM);
    expect(chunkSizeFor(10 * MIB)).toBe(2 * MIB);
    expect(chunkSizeFor(200 * MIB)).toBe(8 * MIB);
    expect(chunkSizeFor(384 * MIB)).toBe(16 * MIB);
    expect(chunkSizeFor(2048 * MIB)).toBe(16 * MIB);
  });

  it("adds streams for slow ranges up to the browser's 6, drops them for quick ones down to 2", () => {
    expect(adaptStreams(4, 8 * MIB, 5000)).toBe(5);
    expect(adaptStreams(MAX_STREAMS, 8 * MIB, 9000)).toBe(MAX_STREAMS);
    expect(adaptStreams(4, 8 * MIB, 100)).toBe(3);
    expect(adaptStreams(MIN_STREAMS, 8 * MIB, 100)).toBe(MIN_STREAMS);
    expect(adaptStreams(4, 8 * MIB, 1000)).toBe(4);
  });

  it("commits when the new bytes reach what is committed, so the swap copies stay under twice the file", () => {
    const chunk = 8 * MIB;
    expect(shouldCommit(0, chunk, chunk)).toBe(true);
    expect(shouldCommit(0, chunk - 1, chunk)).toBe(false);
    expect(shouldCommit(64 * MIB, 32 * MIB, chunk)).toBe(false);
    expect(shouldCommit(64 * MIB, 64 * MIB, chunk)).toBe(true);
    // Copies made by reopening with keepExistingData, over a 4 GiB file written range by range.
    const size = 4096 * MIB;
    let committed = 0;
    let pending = 0;
    let copied = 0;
    for (let at = 0; at < size; at += 16 * MIB) {
      pending += 16 * MIB;
      if (shouldCommit(committed, pending, 16 * MIB)) {
        committed += pending;
        pending = 0;
        copied += committed;
      }
    }
    expect(copied).toBeLessThan(2 * size);
  });

  it("is used for one large file where the browser can, unless the user chose the browser's download manager (remembered)", () => {
    expect(wantsPageDownload(PAGE_DOWNLOAD_MIN_BYTES, true, "page", true)).toBe(true);
    expect(wantsPageDownload(PAGE_DOWNLOAD_MIN_BYTES - 1, true, "page", true)).toBe(false);
    expect(wantsPageDownload(PAGE_DOWNLOAD_MIN_BYTES, false, "page", true)).toBe(false);
    expect(wantsPageDownload(PAGE_DOWNLOAD_MIN_BYTES, true, "browser", true)).toBe(false);
    expect(wantsPageDownload(PAGE_DOWNLOAD_MIN_BYTES, true, "page", false)).toBe(false);
    const kept = new Map<string, string>();
    const storage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
    expect(readDownloadMode(storage)).toBe("page");
    writeDownloadMode("browser", storage);
    expect(readDownloadMode(storage)).toBe("browser");
  });
});
