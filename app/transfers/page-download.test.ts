import { describe, expect, it } from "vitest";
import { adaptStreams, chunkRanges, chunkSizeFor, type FlightPiece, MAX_STREAMS, MIN_SPLIT_BYTES, MIN_SPLIT_MS, MIN_STREAMS, msLeft, PAGE_DOWNLOAD_MIN_BYTES, pickSplit, RANGES_PER_STREAM, readDownloadMode, shouldCommit, splitPoint, wantsPageDownload, writeDownloadMode } from "./page-download";

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

  describe("splitting the piece that ends last (work stealing)", () => {
    const KIB = 1024;
    /** A piece of `size` bytes at `start`, `received` of them in `ms` since its first byte (now = 10 s). */
    const piece = (start: number, size: number, received: number, ms: number): FlightPiece => ({ start, end: start + size, received, firstByteMs: 10_000 - ms });

    it("estimates the time left at the piece's own rate, none before its first byte", () => {
      expect(msLeft(piece(0, 2 * MIB, MIB / 2, 5000), 10_000)).toBeCloseTo(15_000);
      expect(msLeft({ start: 0, end: MIB, received: 0, firstByteMs: null }, 10_000)).toBeNull();
    });

    it("splits in the middle of what is still to come, aligned, inside the piece", () => {
      const p = piece(4 * MIB, 2 * MIB, MIB / 2, 5000);
      const at = splitPoint(p, 10_000)!;
      const from = p.start + p.received;
      expect(at % (64 * KIB)).toBe(0);
      expect(at).toBeGreaterThanOrEqual(from + MIN_SPLIT_BYTES);
      expect(at).toBeLessThanOrEqual(p.end - MIN_SPLIT_BYTES);
      expect(Math.abs(at - (from + p.end) / 2)).toBeLessThan(64 * KIB);
    });

    it("does not split a piece almost done, a small rest, or one without its first byte", () => {
      // 1.5 MiB of 2 MiB in 1 s: 0.33 s left.
      expect(splitPoint(piece(0, 2 * MIB, 1.5 * MIB, 1000), 10_000)).toBeNull();
      // Slow but only 200 KiB left: halves under MIN_SPLIT_BYTES.
      expect(splitPoint(piece(0, 2 * MIB, 2 * MIB - 200 * KIB, 60_000), 10_000)).toBeNull();
      expect(splitPoint({ start: 0, end: 2 * MIB, received: 0, firstByteMs: null }, 10_000)).toBeNull();
      // Just over the time limit: split.
      const rate = MIB / 1000;
      const left = (MIN_SPLIT_MS + 100) * rate;
      expect(splitPoint(piece(0, MIB + left, MIB, 1000), 10_000)).not.toBeNull();
    });

    it("picks the piece that would end last, by its rate rather than its bytes", () => {
      const pieces = [
        piece(0, 2 * MIB, MIB, 1000), // 1 MiB left at 1 MiB/s: 1 s
        piece(2 * MIB, 2 * MIB, MIB / 4, 5000), // 1.75 MiB left at 0.05 MiB/s: 35 s
        piece(4 * MIB, 2 * MIB, MIB / 8, 1000), // 1.875 MiB left at 0.125 MiB/s: 15 s
        { start: 6 * MIB, end: 8 * MIB, received: 0, firstByteMs: null },
      ];
      const split = pickSplit(pieces, 10_000)!;
      expect(split.index).toBe(1);
      expect(split.at).toBe(splitPoint(pieces[1]!, 10_000));
      expect(pickSplit([pieces[3]!], 10_000)).toBeNull();
      expect(pickSplit([], 10_000)).toBeNull();
    });

    it("repeated splits of a range still cover every byte once", () => {
      // A range cut again and again, each time the first part keeps reading up to the split point.
      const range: [number, number] = [6 * MIB, 8 * MIB];
      const parts: FlightPiece[] = [{ start: range[0], end: range[1], received: 64 * KIB, firstByteMs: 0 }];
      for (let round = 0; round < 6; round += 1) {
        const split = pickSplit(parts, 60_000);
        if (!split) break;
        const p = parts[split.index]!;
        parts.push({ start: split.at, end: p.end, received: 64 * KIB, firstByteMs: 0 });
        p.end = split.at;
      }
      expect(parts.length).toBeGreaterThan(2);
      const sorted = [...parts].sort((a, b) => a.start - b.start);
      expect(sorted[0]!.start).toBe(range[0]);
      expect(sorted.at(-1)!.end).toBe(range[1]);
      for (let i = 1; i < sorted.length; i += 1) expect(sorted[i]!.start).toBe(sorted[i - 1]!.end);
      for (const p of sorted) expect(p.end - p.start).toBeGreaterThanOrEqual(MIN_SPLIT_BYTES);
    });
  });
});
