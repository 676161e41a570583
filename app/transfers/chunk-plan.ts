import type { ByteRange } from "../../contract/upload-chunks";

/**
 * The web uploader's scheduling of Ferry's parallel chunks (docs/file-server.md, "Parallel chunks
 * (Ferry extension)"): which bytes go in the next chunk, and how many chunks run at once. Pure, so
 * it is tested without a browser; manager.client.ts does the requests.
 */

const MIB = 1024 * 1024;
/** First chunk size: large enough that a request's own cost is small, small enough that a drop loses little. */
export const CHUNK_BYTES = 16 * MIB;
/** Smallest chunk of a file cut for many streams (fileChunkSize), and of the equal tail shares without a rate; a tail sized by the streams' rates (tailChunk) goes down to MIN_TAIL_BYTES. */
export const MIN_SPLIT_BYTES = 2 * MIB;
/** Tail shares are whole multiples of this. */
const SHARE_ALIGN = 64 * 1024;
/**
 * The browser opens 6 HTTP/1.1 connections per host and port; over a long, lossy link each one is
 * held back by its own congestion window, so all 6 carry chunks (measured: docs/bench.md, "WAN: the
 * web client's rows"). The page's socket is no HTTP connection, the creation comes before the
 * chunks, and a HEAD after a drop takes the dropped chunk's place.
 */
export const MAX_STREAMS = 6;
/** A file is cut into at least this many chunks per stream, so streams added later find work and the tail can be shared. */
export const CHUNKS_PER_STREAM = 4;
/** On loopback the disk, not the link, is the limit: a few streams at most. */
export const LOOPBACK_MAX_STREAMS = 3;
/** A stream at least this fast is not held back by the link, so more streams would not help. */
export const FAST_STREAM_BYTES_PER_S = 64 * MIB;
/** More streams only while the total rate grows by at least this share. */
export const GROWTH = 1.1;
/** Windows in a row without that growth before the stream count settles. */
export const FLAT_WINDOWS = 2;

/** Bytes per chunk: CHUNK_BYTES, capped by the administrator's part size (MB; 0 no cap). */
export const chunkSize = (partMB: number) => (partMB > 0 ? Math.min(CHUNK_BYTES, partMB * MIB) : CHUNK_BYTES);

/**
 * Bytes per chunk of a file of `size`: chunkSize(partMB), but smaller for a file that would give
 * fewer than CHUNKS_PER_STREAM chunks to each of MAX_STREAMS streams (not under MIN_SPLIT_BYTES).
 * Without it a 32 MiB file went as 3 chunks on 3 streams, and streams added later had nothing to send.
 */
export function fileChunkSize(size: number, partMB: number): number {
  const cap = chunkSize(partMB);
  const even = Math.ceil(size / (MAX_STREAMS * CHUNKS_PER_STREAM) / SHARE_ALIGN) * SHARE_ALIGN;
  return Math.min(cap, Math.max(MIN_SPLIT_BYTES, even));
}

/** Whether a file of `size` goes in chunks; a smaller one goes as before, in one stream. */
export const usesChunks = (size: number, chunk: number) => size >= 2 * chunk;

/** Whether the file server is on this machine (few streams). */
export const isLoopback = (hostname: string) => hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || /^127\./.test(hostname);

/** Sum of the lengths of `ranges`. */
export const rangeBytes = (ranges: readonly ByteRange[]) => ranges.reduce((sum, [s, e]) => sum + (e - s), 0);

/** The part of `range` that `stored` (sorted, merged) does not cover. */
export function uncovered(range: ByteRange, stored: readonly ByteRange[]): ByteRange[] {
  const out: ByteRange[] = [];
  let at = range[0];
  for (const [s, e] of stored) {
    if (e <= at) continue;
    if (s >= range[1]) break;
    if (s > at) out.push([at, s]);
    at = Math.max(at, e);
    if (at >= range[1]) break;
  }
  if (at < range[1]) out.push([at, range[1]]);
  return out;
}

/** A chunk in flight as the tail planning sees it: bytes it still has to send, and its rate so far (bytes/s; 0: not known yet). */
export interface FlightRate {
  left: number;
  rate: number;
}

/** What the uploader knows when a stream asks for its next chunk (ChunkPlan.take). */
export interface TakeHint {
  /** The asking stream's rate: that of the chunk it just finished (bytes/s). */
  rate: number;
  /** The other chunks in flight. */
  flights: readonly FlightRate[];
}

/**
 * A tail chunk is this share of what would let the asking stream end together with the others: the
 * rest is handed out again later, by then with newer rates (a lossy link's streams change speed).
 */
export const TAIL_SHARE = 0.5;
/** A tail chunk carries at least this long at its stream's rate: each chunk costs a round trip of idle wire. */
export const MIN_TAIL_SECONDS = 1;
/** ...and at least this many bytes. */
export const MIN_TAIL_BYTES = 256 * 1024;

/**
 * Seconds from now until every stream would be done if `left` unassigned bytes were shared so that
 * all end together: the asking stream sends at `rate` from now, each chunk in flight first ends its
 * own bytes (at its rate; an unknown one at `rate`) and then takes a share at that rate.
 */
export function finishTogether(left: number, rate: number, flights: readonly FlightRate[]): number {
  if (rate <= 0) return Infinity;
  const ends = flights.map((f) => ({ rate: f.rate > 0 ? f.rate : rate, at: f.left / (f.rate > 0 ? f.rate : rate) })).sort((a, b) => a.at - b.at);
  let now = 0;
  let carrying = rate;
  let rest = left;
  for (const end of ends) {
    if (rest <= carrying * (end.at - now)) return now + rest / carrying;
    rest -= carrying * (end.at - now);
    now = end.at;
    carrying += end.rate;
  }
  return now + rest / carrying;
}

/**
 * The size of the next chunk for a stream that sends at `hint.rate`, in the tail: TAIL_SHARE of the
 * bytes that would make it end together with the others (finishTogether), not under MIN_TAIL_SECONDS
 * of its own sending (nor MIN_TAIL_BYTES), and never over `chunk` (before the tail, `chunk` itself).
 * Whatever would be left under that minimum goes with this chunk.
 */
export function tailChunk(left: number, chunk: number, hint: TakeHint): number {
  if (hint.rate <= 0) return Math.min(chunk, left);
  const floor = Math.min(chunk, Math.max(MIN_TAIL_BYTES, Math.ceil((hint.rate * MIN_TAIL_SECONDS) / SHARE_ALIGN) * SHARE_ALIGN));
  const fair = hint.rate * finishTogether(left, hint.rate, hint.flights);
  let size = Math.min(chunk, Math.max(floor, Math.ceil((fair * TAIL_SHARE) / SHARE_ALIGN) * SHARE_ALIGN));
  if (left - size < floor && left <= chunk) size = left;
  return Math.min(size, left);
}

/**
 * The bytes not yet handed to a stream, in file order (so the engine's contiguous prefix, and its
 * hash, advance as the chunks land). `take` gives the next chunk: `chunk` bytes, except in the tail,
 * where what is left is shared out evenly among the streams so they finish together.
 */
export class ChunkPlan {
  private gaps: ByteRange[];
  /** The equal share of the tail, fixed when the tail starts (null before, and after bytes came back). */
  private share: number | null = null;

  constructor(
    missing: readonly ByteRange[],
    private chunk: number,
  ) {
    this.gaps = missing.filter(([s, e]) => e > s).map(([s, e]) => [s, e]);
  }

  /** Bytes not yet handed out. */
  get left() {
    return rangeBytes(this.gaps);
  }

  get empty() {
    return this.gaps.length === 0;
  }

  /** A smaller part size (the engine's 4209) applies to the chunks handed out from now on. */
  setChunk(chunk: number) {
    this.chunk = chunk;
    this.share = null;
  }

  /**
   * The next chunk for one of `streams` streams, or null when everything is handed out. With a
   * `hint` (the asking stream's rate and the chunks in flight) the tail is sized by the streams'
   * rates (tailChunk), so that the last chunks of all streams end together; without one, the tail
   * is shared out in equal parts.
   */
  take(streams: number, hint?: TakeHint): ByteRange | null {
    const first = this.gaps[0];
    if (!first) return null;
    let size = this.chunk;
    const left = this.left;
    if (hint && hint.rate > 0) {
      size = tailChunk(left, this.chunk, hint);
    } else {
      // In the tail, equal shares: the last chunks end at about the same time.
      if (this.share === null && left < streams * this.chunk && this.chunk > MIN_SPLIT_BYTES) {
        this.share = Math.max(MIN_SPLIT_BYTES, Math.ceil(left / Math.max(1, streams) / SHARE_ALIGN) * SHARE_ALIGN);
      }
      if (this.share !== null) size = Math.min(this.share, this.chunk);
    }
    const end = Math.min(first[1], first[0] + size);
    const range: ByteRange = [first[0], end];
    if (end >= first[1]) this.gaps.shift();
    else first[0] = end;
    return range;
  }

  /** Bytes of a chunk that did not arrive go back, at their place in file order. */
  giveBack(range: ByteRange) {
    if (range[1] <= range[0]) return;
    this.share = null;
    this.gaps.push([range[0], range[1]]);
    this.gaps.sort((a, b) => a[0] - b[0]);
    const merged: ByteRange[] = [];
    for (const gap of this.gaps) {
      const last = merged[merged.length - 1];
      if (last && gap[0] <= last[1]) last[1] = Math.max(last[1], gap[1]);
      else merged.push(gap);
    }
    this.gaps = merged;
  }
}

/**
 * How many chunks run at once.
 * - Over a network: all MAX_STREAMS from the first chunk, since ramping up from fewer cost a third of
 *   an upload over a long link (six chunks in flight only from 6 s of a 17 s upload: docs/bench.md,
 *   "WAN: the web client's rows"). After each measurement window where every stream is fast (a LAN,
 *   where the link per connection is no limit) one stream is given back, down to 2.
 * - On loopback (the disk, not the link, is the limit): 2, and a third while the total rate grows by
 *   GROWTH with the last one added and each stream is slow; once a stream more brought nothing in
 *   FLAT_WINDOWS windows in a row it is given back and the count settles.
 * The first window sets no reference: it holds the creation and every connection's slow start, a
 * burst that a lossy link takes back a moment later.
 */
export class StreamCount {
  private count: number;
  private readonly loopback: boolean;
  private best = 0;
  private settled = false;
  private windows = 0;
  private flat = 0;

  constructor({ loopback }: { loopback: boolean }) {
    this.loopback = loopback;
    this.count = loopback ? 2 : MAX_STREAMS;
  }

  get streams() {
    return this.count;
  }

  /** One measurement window's total rate (bytes/s stored across all chunks); returns the new count. */
  sample(rate: number): number {
    if (this.settled || rate <= 0) return this.count;
    this.windows += 1;
    if (this.windows === 1) return this.count;
    const fast = rate / this.count >= FAST_STREAM_BYTES_PER_S;
    if (!this.loopback) {
      if (fast && this.count > 2) this.count -= 1;
      else this.settled = true;
      return this.count;
    }
    if (this.best > 0 && rate < this.best * GROWTH) {
      // One window can be a loss burst: only FLAT_WINDOWS in a row say the last stream added did not pay.
      this.flat += 1;
      if (this.flat < FLAT_WINDOWS) return this.count;
      if (this.count > 1) this.count -= 1;
      this.settled = true;
      return this.count;
    }
    this.flat = 0;
    this.best = Math.max(this.best, rate);
    if (!fast && this.count < LOOPBACK_MAX_STREAMS) this.count += 1;
    else this.settled = true;
    return this.count;
  }
}
