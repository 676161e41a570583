import { describe, expect, it } from "vitest";
import { downloadBufferSize } from "../../server/fileserver/send";

const KiB = 1024;
const MiB = 1024 * KiB;

describe("downloadBufferSize", () => {
  it("reads 1 MiB at a time while few downloads run", () => {
    for (const active of [1, 2, 8]) expect(downloadBufferSize(active)).toBe(MiB);
  });

  it("halves the reads as more downloads run, down to 64 KiB", () => {
    expect(downloadBufferSize(9)).toBe(512 * KiB);
    expect(downloadBufferSize(16)).toBe(512 * KiB);
    expect(downloadBufferSize(17)).toBe(256 * KiB);
    expect(downloadBufferSize(50)).toBe(128 * KiB);
    expect(downloadBufferSize(10_000)).toBe(64 * KiB);
  });

  it("keeps the reads of all downloads within 8 MiB until the 64 KiB floor", () => {
    for (let active = 1; active <= 128; active++) {
      const size = downloadBufferSize(active);
      expect(size === 64 * KiB || size * active <= 8 * MiB).toBe(true);
      expect(size).toBeGreaterThanOrEqual(64 * KiB);
    }
  });
});
