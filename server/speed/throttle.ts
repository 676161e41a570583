import { Transform } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Token buckets for transfer speed limits (docs/file-server.md, "Speed limits"). One bucket per
 * user and direction (and per group space and direction) in this engine process, shared by every
 * stream that moves that user's bytes; a transfer passes through a Throttle holding its buckets.
 */

/**
 * Bytes a bucket lets through at once after an idle spell, as milliseconds of its rate: enough
 * that a stream never waits for a timer between two pieces that are due, small enough that a
 * measured rate stays within a few per cent of the limit after a second.
 */
const BURST_MS = 50;
/** A piece is about 1/16 s of the rate, a power of two between these, so a stream never sends a long burst and then falls silent. */
const MIN_PIECE = 4 * 1024;
const MAX_PIECE = 1024 * 1024;

/**
 * A bucket after the generic cell rate algorithm: `due` is when the bytes granted so far will
 * have been sent at the rate. A reservation moves it on and answers how long its bytes must wait,
 * so streams sharing a bucket are served in the order they asked and together never pass the rate.
 */
export class Bucket {
  /** Bytes per second; 0 = unlimited. */
  rate = 0;
  private due = 0;
  /** Throttles holding this bucket; the registry forgets a bucket nobody holds. */
  holders = 0;

  /** Grants `bytes` at `now` (ms); answers the milliseconds to wait before sending them. */
  reserve(bytes: number, now: number): number {
    if (this.rate <= 0) return 0;
    this.due = Math.max(this.due, now) + (bytes * 1000) / this.rate;
    return Math.max(0, this.due - now - BURST_MS);
  }
}

/** The largest power of two ≤ rate/16, within MIN_PIECE … MAX_PIECE; MAX_PIECE when unlimited. */
export function pieceSize(rate: number): number {
  if (rate <= 0) return MAX_PIECE;
  let size = MIN_PIECE;
  while (size * 2 <= Math.min(rate / 16, MAX_PIECE)) size *= 2;
  return size;
}

/** One transfer's view of the buckets it passes (the user's, and the group space's when there is one). */
export class Throttle {
  private released = false;
  constructor(
    private readonly buckets: readonly Bucket[],
    /** Called at most every few seconds while bytes flow, so a changed limit reaches running transfers. */
    private readonly refresh: () => void,
    private readonly onRelease: () => void,
  ) {}

  /** The size of one piece at the lowest rate that applies now (the read size of a limited download). */
  get pieceSize(): number {
    const rates = this.buckets.map((b) => b.rate).filter((r) => r > 0);
    return rates.length === 0 ? MAX_PIECE : pieceSize(Math.min(...rates));
  }

  /** Takes `bytes` from every bucket; a promise to wait on when they are not due yet, else undefined (no allocation per chunk when unlimited). */
  take(bytes: number): Promise<void> | undefined {
    this.refresh();
    const now = performance.now();
    let wait = 0;
    for (const bucket of this.buckets) wait = Math.max(wait, bucket.reserve(bytes, now));
    return wait > 0 ? sleep(wait) : undefined;
  }

  /**
   * A stream stage that passes bytes on at the rate: each chunk is cut into pieces and a piece goes
   * on only when its bytes are due. The chunk's callback waits for the last piece, so the stage
   * before it (a request body, a zip) is held back by ordinary stream back-pressure, and a request
   * body's socket by TCP flow control.
   */
  transform(): Transform {
    const stage: Transform = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.pass(chunk, (piece) => stage.push(piece), () => stage.destroyed).then(() => done(), done);
      },
    });
    return stage;
  }

  /** Gives `chunk` to `push` in pieces, each when it is due; stops once `stopped()` (the stream went away: its bytes take nothing from the limit). */
  private async pass(chunk: Buffer, push: (piece: Buffer) => void, stopped: () => boolean): Promise<void> {
    const size = this.pieceSize;
    for (let at = 0; at < chunk.length && !stopped(); at += size) {
      const piece = chunk.subarray(at, at + size);
      const wait = this.take(piece.length);
      if (wait) await wait;
      push(piece);
    }
  }

  /** The transfer ended: the buckets may be forgotten once no transfer holds them. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}
