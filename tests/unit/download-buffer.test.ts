import { describe, expect, it } from "vitest";
import { downloadBufferSize } from "../../server/fileserver/send";

const KiB = 1024;
const MiB = 1024 * KiB;

/** The sizes downloads get when `count` of them start one after another and all keep running. */
function startInTurn(count: number): number[] {
  const sizes: number[] = [];
  let inUse = 0;
  for (let i = 0; i < count; i++) {
    const size = downloadBufferSize(inUse);
    sizes.push(size);
    inUse += 2 * size;
  }
  return sizes;
}

describe("downloadBufferSize", () => {
  it("reads 1 MiB at a time while the first eight downloads run", () => {
    expect(startInTurn(8)).toEqual(Array(8).fill(MiB));
  });

  it("gives later downloads what is left of the 16 MiB budget, down to 64 KiB", () => {
    expect(downloadBufferSize(15 * MiB)).toBe(512 * KiB);
    expect(downloadBufferSize(15.5 * MiB)).toBe(256 * KiB);
    expect(downloadBufferSize(16 * MiB)).toBe(64 * KiB);
    expect(downloadBufferSize(1024 * MiB)).toBe(64 * KiB);
  });

  it("keeps the buffers of 50 downloads near the budget whatever the order", () => {
    const total = startInTurn(50).reduce((sum, size) => sum + 2 * size, 0);
    expect(total).toBeLessThanOrEqual(16 * MiB + 50 * 2 * 64 * KiB);
    for (const size of startInTurn(200)) expect(size).toBeGreaterThanOrEqual(64 * KiB);
  });
});
