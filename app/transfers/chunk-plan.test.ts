import { describe, expect, it } from "vitest";
import { CHUNK_BYTES, CHUNKS_PER_STREAM, ChunkPlan, chunkSize, FAST_STREAM_BYTES_PER_S, fileChunkSize, finishTogether, isLoopback, LOOPBACK_MAX_STREAMS, MAX_STREAMS, MIN_SPLIT_BYTES, MIN_TAIL_BYTES, MIN_TAIL_SECONDS, StreamCount, TAIL_SHARE, tailChunk, uncovered, usesChunks } from "./chunk-plan";

const MIB = 1024 * 1024;

function drain(plan: ChunkPlan, streams: number) {
  const out: [number, number][] = [];
  for (let range = plan.take(streams); range; range = plan.take(streams)) out.push(range);
  return out;
}

describe("chunk size", () => {
  it("is 16 MiB, capped by the administrator's part size", () => {
    expect(chunkSize(0)).toBe(CHUNK_BYTES);
    expect(chunkSize(100)).toBe(CHUNK_BYTES);
    expect(chunkSize(4)).toBe(4 * MIB);
    expect(chunkSize(1)).toBe(MIB);
  });

  it("is smaller for a file that would give each stream fewer than a few chunks, never under the minimum nor over the part size", () => {
    expect(fileChunkSize(4 * 1024 * MIB, 0)).toBe(CHUNK_BYTES);
    expect(fileChunkSize(MAX_STREAMS * CHUNKS_PER_STREAM * CHUNK_BYTES, 0)).toBe(CHUNK_BYTES);
    // 256 MiB over 6 streams × 4 chunks: 10.67 MiB, rounded up to 64 KiB.
    expect(fileChunkSize(256 * MIB, 0)).toBe(Math.ceil((256 * MIB) / (MAX_STREAMS * CHUNKS_PER_STREAM) / 65536) * 65536);
    expect(fileChunkSize(32 * MIB, 0)).toBe(MIN_SPLIT_BYTES);
    expect(fileChunkSize(256 * MIB, 4)).toBe(4 * MIB);
    expect(fileChunkSize(32 * MIB, 1)).toBe(MIB);
    // Every file that goes in chunks has at least two.
    for (const size of [2 * CHUNK_BYTES, 33 * MIB, 100 * MIB, 1024 * MIB]) expect(size / fileChunkSize(size, 0)).toBeGreaterThanOrEqual(2);
  });

  it("a file under two chunks goes in one stream", () => {
    expect(usesChunks(2 * CHUNK_BYTES - 1, CHUNK_BYTES)).toBe(false);
    expect(usesChunks(2 * CHUNK_BYTES, CHUNK_BYTES)).toBe(true);
    expect(usesChunks(2.5 * MIB, MIB)).toBe(true);
  });

  it("knows loopback hosts", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("localhost")).toBe(true);
    expect(isLoopback("[::1]")).toBe(true);
    expect(isLoopback("files.example.com")).toBe(false);
  });
});

describe("chunk plan", () => {
  it("hands out whole chunks in file order, then shares the tail evenly among the streams", () => {
    const size = 100 * MIB;
    const chunks = drain(new ChunkPlan([[0, size]], 16 * MIB), 3);
    // Covers the file exactly, in order, without overlap.
    let at = 0;
    for (const [s, e] of chunks) {
      expect(s).toBe(at);
      expect(e).toBeGreaterThan(s);
      at = e;
    }
    expect(at).toBe(size);
    // 100 = 16 × 4 (64) + 36 left, under 3 × 16: then shares of 12 MiB.
    expect(chunks.map(([s, e]) => (e - s) / MIB)).toEqual([16, 16, 16, 16, 12, 12, 12]);
    expect(chunks.every(([s, e]) => e - s <= 16 * MIB)).toBe(true);
  });

  it("never splits the tail below the minimum, nor chunks already that small", () => {
    const small = drain(new ChunkPlan([[0, 2.5 * MIB]], MIB), 2);
    expect(small).toEqual([
      [0, MIB],
      [MIB, 2 * MIB],
      [2 * MIB, 2.5 * MIB],
    ]);
    const tail = drain(new ChunkPlan([[0, 5 * MIB]], 4 * MIB), 4);
    expect(tail.every(([s, e], i) => e - s >= MIN_SPLIT_BYTES || i === tail.length - 1)).toBe(true);
  });

  it("sends only the gaps a HEAD reported, and never across a stored range", () => {
    const chunks = drain(
      new ChunkPlan(
        [
          [0, 3 * MIB],
          [40 * MIB, 41 * MIB],
        ],
        16 * MIB,
      ),
      2,
    );
    expect(chunks).toEqual([
      [0, 2 * MIB],
      [2 * MIB, 3 * MIB],
      [40 * MIB, 41 * MIB],
    ]);
  });

  it("takes back what a dropped chunk did not store, in file order", () => {
    const plan = new ChunkPlan([[0, 64 * MIB]], 16 * MIB);
    const first = plan.take(2)!;
    expect(first).toEqual([0, 16 * MIB]);
    plan.take(2);
    // 5 MiB of the first chunk arrived before the drop.
    for (const rest of uncovered(first, [[0, 5 * MIB]])) plan.giveBack(rest);
    expect(plan.take(2)).toEqual([5 * MIB, 16 * MIB]);
    expect(plan.take(2)).toEqual([32 * MIB, 48 * MIB]);
    expect(plan.left).toBe(16 * MIB);
  });

  it("follows a smaller part size for the chunks still to come", () => {
    const plan = new ChunkPlan([[0, 64 * MIB]], 16 * MIB);
    plan.take(2);
    plan.setChunk(MIB);
    expect(plan.take(2)).toEqual([16 * MIB, 17 * MIB]);
  });
});

describe("the tail sized by the streams' rates", () => {
  it("finds when every stream would end if the bytes left were shared so that all end together", () => {
    expect(finishTogether(10, 1, [])).toBe(10);
    // A chunk in flight ends at 10 s: alone until then the asking stream sends 10 of 20, then both.
    expect(finishTogether(10, 1, [{ left: 10, rate: 1 }])).toBe(10);
    expect(finishTogether(20, 1, [{ left: 10, rate: 1 }])).toBe(15);
    // A straggler ending later than everyone else changes nothing for the others.
    expect(finishTogether(4, 1, [{ left: 100, rate: 1 }])).toBe(4);
    // A chunk whose rate is not known yet is taken at the asking stream's rate.
    expect(finishTogether(20, 1, [{ left: 10, rate: 0 }])).toBe(15);
    expect(finishTogether(1, 0, [])).toBe(Infinity);
  });

  it("hands out whole chunks before the tail, then a share of what ends together, never under the minimum", () => {
    const rate = MIB; // 1 MiB/s
    const idle = { rate, flights: [] };
    // 100 MiB for one stream: far from the tail.
    expect(tailChunk(100 * MIB, 2 * MIB, idle)).toBe(2 * MIB);
    // 3 MiB left, alone, at 256 KiB/s: TAIL_SHARE of it, rounded up to 64 KiB.
    expect(tailChunk(3 * MIB, 2 * MIB, { rate: MIB / 4, flights: [] })).toBe(Math.ceil((3 * MIB * TAIL_SHARE) / 65536) * 65536);
    // With five streams in flight ending about now, the share is a sixth of what is left, halved.
    const five = { rate, flights: Array.from({ length: 5 }, () => ({ left: 64 * 1024, rate })) };
    expect(tailChunk(24 * MIB, 2 * MIB, five)).toBeLessThan(2.1 * MIB);
    expect(tailChunk(24 * MIB, 2 * MIB, five)).toBeGreaterThan(1.9 * MIB);
    // Never under MIN_TAIL_SECONDS of the stream's own sending (in whole 64 KiB: a chunk's offset is a whole number).
    expect(tailChunk(5 * MIB, 4 * MIB, five)).toBe(MIN_TAIL_SECONDS * rate);
    const odd = { rate: 3_123_456.789, flights: [{ left: 1000, rate: 2_999_999.5 }] };
    for (const left of [5 * MIB, 9 * MIB + 7, 40 * MIB]) {
      const size = tailChunk(left, 10 * MIB + 65536, odd);
      expect(Number.isInteger(size)).toBe(true);
      expect(size === left || size % 65536 === 0).toBe(true);
    }
    // A slow stream: the floor in bytes.
    const slow = { rate: 1000, flights: Array.from({ length: 5 }, () => ({ left: 1000, rate: 1000 })) };
    expect(tailChunk(2 * MIB, 4 * MIB, slow)).toBe(MIN_TAIL_BYTES);
    // What would be left under the floor goes along.
    expect(tailChunk(1.5 * MIB, 4 * MIB, five)).toBe(1.5 * MIB);
    // ...but never beyond the chunk size (the administrator's part size).
    expect(tailChunk(1.5 * MIB, MIB, five)).toBe(MIB);
    // No rate known: a whole chunk.
    expect(tailChunk(100 * MIB, 2 * MIB, { rate: 0, flights: [] })).toBe(2 * MIB);
  });

  /**
   * Six streams of different, steady rates upload a file; each asks for its next chunk when the
   * last one is done. Returns when each stream ended and the chunks, with or without rate hints.
   */
  function simulate(size: number, chunk: number, rates: number[], hints: boolean) {
    const plan = new ChunkPlan([[0, size]], chunk);
    const busy = rates.map(() => ({ until: 0, bytes: 0, from: 0 }));
    const ends = rates.map(() => 0);
    const chunks: [number, number][] = [];
    let now = 0;
    const assign = (i: number, previousRate: number) => {
      const flights = busy.flatMap((b, j) => (j !== i && b.until > now ? [{ left: b.bytes - (now - b.from) * rates[j]!, rate: rates[j]! }] : []));
      const range = plan.take(rates.length, hints && previousRate > 0 ? { rate: previousRate, flights } : undefined);
      if (!range) return;
      chunks.push(range);
      busy[i] = { until: now + (range[1] - range[0]) / rates[i]!, bytes: range[1] - range[0], from: now };
      ends[i] = busy[i]!.until;
    };
    rates.forEach((_r, i) => assign(i, 0));
    for (;;) {
      const next = busy.map((b, i) => ({ i, at: b.until })).filter((b) => b.at > now).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      now = next.at;
      assign(next.i, rates[next.i]!);
    }
    return { ends, chunks };
  }

  it("makes the streams end together where equal chunks leave some idle (a simulation)", () => {
    const rates = [0.13, 0.11, 0.15, 0.09, 0.12, 0.14].map((r) => r * 1e6 + 0.37);
    const size = 32 * MIB;
    const ideal = size / rates.reduce((a, b) => a + b, 0);
    const before = simulate(size, 2 * MIB, rates, false);
    const after = simulate(size, 2 * MIB, rates, true);
    for (const run of [before, after]) {
      const sorted = [...run.chunks].sort((a, b) => a[0] - b[0]);
      for (const [start, end] of sorted) expect(Number.isInteger(start) && Number.isInteger(end)).toBe(true);
      expect(sorted[0]![0]).toBe(0);
      expect(sorted.at(-1)![1]).toBe(size);
      for (let i = 1; i < sorted.length; i += 1) expect(sorted[i]![0]).toBe(sorted[i - 1]![1]);
    }
    const spread = (ends: number[]) => Math.max(...ends) - Math.min(...ends);
    expect(Math.max(...after.ends)).toBeLessThan(Math.max(...before.ends));
    // Within a few seconds of the ideal, and the streams end within MIN_TAIL_SECONDS-sized chunks of each other.
    expect(Math.max(...after.ends)).toBeLessThan(ideal * 1.08);
    expect(spread(after.ends)).toBeLessThan(spread(before.ends) / 2);
  });
});

describe("uncovered", () => {
  it("is the part of a range no stored range covers", () => {
    expect(uncovered([0, 10], [])).toEqual([[0, 10]]);
    expect(
      uncovered(
        [0, 10],
        [
          [0, 3],
          [5, 6],
        ],
      ),
    ).toEqual([
      [3, 5],
      [6, 10],
    ]);
    expect(uncovered([4, 8], [[0, 20]])).toEqual([]);
    expect(uncovered([4, 8], [[8, 20]])).toEqual([[4, 8]]);
  });
});

describe("stream count", () => {
  it("over a network starts with all of the browser's connections and keeps them while streams are slow", () => {
    const count = new StreamCount({ loopback: false });
    expect(count.streams).toBe(MAX_STREAMS);
    // The first window (creation, slow start) decides nothing, even a fast burst.
    expect(count.sample(MAX_STREAMS * FAST_STREAM_BYTES_PER_S * 2)).toBe(MAX_STREAMS);
    expect(count.sample(6 * MIB)).toBe(MAX_STREAMS);
    // Settled: a later burst changes nothing.
    expect(count.sample(MAX_STREAMS * FAST_STREAM_BYTES_PER_S * 2)).toBe(MAX_STREAMS);
  });

  it("over a network gives back one stream per window while every stream is fast (a LAN), never under 2", () => {
    const count = new StreamCount({ loopback: false });
    count.sample(MIB);
    const lan = 20 * FAST_STREAM_BYTES_PER_S;
    expect(count.sample(lan)).toBe(MAX_STREAMS - 1);
    expect(count.sample(lan)).toBe(MAX_STREAMS - 2);
    for (let i = 0; i < 10; i += 1) count.sample(lan);
    expect(count.streams).toBe(2);
    const partly = new StreamCount({ loopback: false });
    partly.sample(MIB);
    expect(partly.sample(MAX_STREAMS * FAST_STREAM_BYTES_PER_S)).toBe(MAX_STREAMS - 1);
    // 5 streams no longer each fast: settled there.
    expect(partly.sample(4 * FAST_STREAM_BYTES_PER_S)).toBe(MAX_STREAMS - 1);
    expect(partly.sample(lan)).toBe(MAX_STREAMS - 1);
  });

  it("on loopback starts with 2 and adds a third while the total rate grows and each stream is slow", () => {
    const count = new StreamCount({ loopback: true });
    expect(count.streams).toBe(2);
    expect(count.sample(30 * MIB)).toBe(2);
    expect(count.sample(MIB)).toBe(LOOPBACK_MAX_STREAMS);
    expect(count.sample(4 * MIB)).toBe(LOOPBACK_MAX_STREAMS);
  });

  it("on loopback gives back the stream that brought nothing after two flat windows, and one flat window alone is waited out", () => {
    const flat = new StreamCount({ loopback: true });
    flat.sample(MIB);
    expect(flat.sample(3 * MIB)).toBe(3);
    // One window without growth may be a loss burst: wait; two in a row: the third stream goes.
    expect(flat.sample(3.1 * MIB)).toBe(3);
    expect(flat.sample(3.2 * MIB)).toBe(2);
    expect(flat.sample(30 * MIB)).toBe(2);
  });

  it("on loopback does not grow when each stream is already fast", () => {
    const count = new StreamCount({ loopback: true });
    count.sample(MIB);
    expect(count.sample(3 * FAST_STREAM_BYTES_PER_S)).toBe(2);
    expect(count.sample(MIB)).toBe(2);
  });
});
