import { describe, expect, it } from "vitest";
import { byteRateScale, tickRate } from "./scale";

describe("the network chart's scale", () => {
  it("steps from 0 in at most 5 powers of two bytes, up to the first tick at or above the peak", () => {
    // 140,000 B/s (136.72 KB/s): 32 KB steps up to 160 KB, not fifths of the peak.
    expect(byteRateScale(140_000)).toEqual({ max: 5 * 32 * 1024, stepSize: 32 * 1024 });
    expect(byteRateScale(3 * 1024 * 1024)).toEqual({ max: 3 * 1024 * 1024, stepSize: 1024 * 1024 });
    // Idle: 0 to 1 KB/s in 256 B steps.
    expect(byteRateScale(0)).toEqual({ max: 1024, stepSize: 256 });
    for (const peak of [1, 999, 5000, 123_456, 9e8]) {
      const { max, stepSize } = byteRateScale(peak);
      expect(max).toBeGreaterThanOrEqual(peak);
      expect(max / stepSize).toBeLessThanOrEqual(5);
      expect(Math.log2(stepSize) % 1).toBe(0);
    }
  });

  it("labels its ticks without zero decimals", () => {
    expect([0, 256, 16 * 1024, 96 * 1024, 1.5 * 1024 * 1024, 1.25 * 1024 ** 3].map(tickRate)).toEqual(["0 B/s", "256 B/s", "16 KB/s", "96 KB/s", "1.5 MB/s", "1.25 GB/s"]);
  });
});
