import { describe, expect, it } from "vitest";
import { groupRate, userRate } from "../../server/speed/service";
import { Bucket, pieceSize } from "../../server/speed/throttle";

/** The arithmetic of server/speed/ (docs/file-server.md, "Speed limits"); the engine tests measure real transfers. */
describe("speed limit buckets", () => {
  it("reads users' limits as KB/s of 1024 bytes and groups' as Mbps", () => {
    expect(userRate(512)).toBe(524_288);
    expect(groupRate(4)).toBe(500_000);
    expect(userRate(0)).toBe(0);
  });

  it("cuts transfers into pieces of about 1/16 s of the rate, a power of two between 4 KiB and 1 MiB", () => {
    expect(pieceSize(userRate(512))).toBe(32 * 1024);
    expect(pieceSize(1000)).toBe(4 * 1024);
    expect(pieceSize(userRate(1024 * 1024))).toBe(1024 * 1024);
    expect(pieceSize(0)).toBe(1024 * 1024);
  });

  it("lets the rate through over time, whoever asks, after a burst of 50 ms", () => {
    const bucket = new Bucket();
    bucket.rate = 1000; // bytes per second
    expect(bucket.reserve(50, 0)).toBe(0); // the burst
    expect(bucket.reserve(100, 0)).toBe(100); // due at 150 ms, minus the 50 ms burst
    // A second stream asking at once waits behind the first: together they never pass the rate.
    expect(bucket.reserve(100, 0)).toBe(200);
    // Idle time is not saved up beyond the burst.
    expect(bucket.reserve(100, 10_000)).toBe(50);
  });

  it("never waits when unlimited, and a limit set later starts from now", () => {
    const bucket = new Bucket();
    expect(bucket.reserve(1_000_000, 0)).toBe(0);
    bucket.rate = 1000;
    expect(bucket.reserve(1000, 5000)).toBe(950);
  });
});
