import { writev } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { Writable } from "node:stream";
import type { ByteRange } from "../../contract/upload-chunks";
import { STREAM_BUFFER, unwritten } from "../storage/storage";
import { createHasher, type Blake3 } from "./hash";

/**
 * What the engine knows of an upload's bytes while they arrive (docs/file-server.md, "Parallel
 * chunks (Ferry extension)"): the ranges stored in its data file, the writes in flight, and a
 * BLAKE3 of the contiguous prefix from 0 that grows with it.
 *
 * Bytes written exactly where the hash stands are fed to it from memory while their write runs on
 * the thread pool (hashAhead); a write that then fails would leave the hash ahead of the file, so
 * the hash starts again from what the file holds (unstored). When the prefix jumps
 * (a chunk fills the gap before chunks that arrived earlier, or the engine restarted and knows
 * nothing yet), the newly contiguous bytes are read back from the file — the page cache, as they
 * were just written — in 1 MiB reads. When the last byte lands the hash is there: completing an
 * upload never reads the whole file again. Only the hasher's state is kept, no bytes.
 */

/** Bytes fed to upload hashes by reading them back from data files (tests check single-stream and in-order uploads read none). */
export const readBack = { bytes: 0 };

/** `ranges` with [start, end) added, sorted and merged (touching ranges become one). */
export function addRange(ranges: readonly ByteRange[], start: number, end: number): ByteRange[] {
  if (end <= start) return [...ranges];
  const out: ByteRange[] = [];
  let merged: ByteRange = [start, end];
  let placed = false;
  for (const r of ranges) {
    if (r[1] < merged[0]) out.push(r);
    else if (r[0] > merged[1]) {
      if (!placed) out.push(merged);
      placed = true;
      out.push(r);
    } else merged = [Math.min(r[0], merged[0]), Math.max(r[1], merged[1])];
  }
  if (!placed) out.push(merged);
  return out;
}

/** The end of the contiguous bytes from 0: tus's `Upload-Offset`. */
export const prefixOf = (ranges: readonly ByteRange[]) => (ranges[0]?.[0] === 0 ? ranges[0][1] : 0);

/** A write under way: [start, end) as announced; a plain tus PATCH announces everything up to the size. */
export interface Flight {
  start: number;
  end: number;
  plain: boolean;
}

export class UploadProgress {
  readonly flights = new Set<Flight>();
  /** Set when the upload is terminated, committed or dropped: nothing more is persisted. */
  dropped = false;
  private hasher: Blake3 | null;
  private hashed = 0;
  private hash: string | null = null;
  private catchUp: Promise<void> | null = null;
  /** Set when a write hashed ahead failed: the hash starts again from the file (unstored). */
  private restart = false;
  private persisting: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    readonly size: number,
    public ranges: ByteRange[],
    /** Whether the record keeps `ranges` (a chunk reached it); a plain upload's stored bytes are its file's size. */
    public chunked: boolean,
    hasher: Blake3,
  ) {
    this.hasher = hasher;
  }

  static async create(file: string, size: number, ranges: ByteRange[], chunked: boolean) {
    return new UploadProgress(file, size, ranges, chunked, await createHasher());
  }

  get prefix() {
    return prefixOf(this.ranges);
  }

  get complete() {
    return this.prefix >= this.size;
  }

  /** Whether [start, end) touches a stored range or a write in flight. */
  overlaps(start: number, end: number): boolean {
    for (const [s, e] of this.ranges) if (s < end && start < e) return true;
    for (const f of this.flights) if (f.start < end && start < f.end) return true;
    return false;
  }

  /**
   * `buffers` are about to be written at `position`: when they continue the hash exactly, they are
   * hashed now, while the write runs on libuv's thread pool, instead of after it (the main thread
   * then waits for neither in turn: measured ~0.1-0.2 s less per GiB, docs/bench.md). True when
   * hashed; the writer then reports the write's end with `stored(…, true)` or `unstored()`.
   */
  hashAhead(position: number, buffers: readonly Uint8Array[], length: number): boolean {
    if (!this.hasher || this.catchUp || this.restart || this.hash !== null || this.hashed !== position) return false;
    for (const b of buffers) this.hasher.update(b);
    this.hashed = position + length;
    return true;
  }

  /** `buffers`, written at `position`, are in the file now (`hashedAhead`: hashAhead took them). */
  stored(position: number, buffers: readonly Uint8Array[], length: number, hashedAhead = false) {
    this.ranges = addRange(this.ranges, position, position + length);
    if (!hashedAhead && this.hasher && !this.catchUp && !this.restart && this.hash === null && this.hashed === position) {
      for (const b of buffers) this.hasher.update(b);
      this.hashed = position + length;
    }
    this.advance();
  }

  /**
   * A write whose bytes hashAhead took failed: the hash is ahead of the file, so it starts again
   * from byte 0 by reading back what the file really holds (rare: a disk error or a full disk).
   */
  unstored() {
    if (this.hasher) this.restart = true;
    this.advance();
  }

  /** Finishes the hash when all bytes are in, or starts reading back what became contiguous beyond it. */
  private advance() {
    if (this.hash !== null || !this.hasher || this.catchUp) return;
    if (this.restart) {
      this.restart = false;
      this.catchUp = createHasher()
        .then((hasher) => {
          if (!this.hasher) return;
          this.hasher = hasher;
          this.hashed = 0;
          return this.readBack();
        })
        .finally(() => {
          this.catchUp = null;
          this.advance();
        });
      return;
    }
    if (this.hashed >= this.size && this.complete) {
      this.hash = this.hasher.digest();
      this.hasher = null;
      return;
    }
    if (this.prefix > this.hashed && !this.dropped) {
      this.catchUp = this.readBack().finally(() => {
        this.catchUp = null;
        this.advance();
      });
    }
  }

  private async readBack() {
    let handle: FileHandle | null = null;
    try {
      handle = await open(this.file, "r");
      const buffer = Buffer.allocUnsafeSlow(STREAM_BUFFER);
      while (this.hasher && !this.dropped && this.hashed < this.prefix) {
        const want = Math.min(STREAM_BUFFER, this.prefix - this.hashed);
        const { bytesRead } = await handle.read(buffer, 0, want, this.hashed);
        if (bytesRead === 0) throw new Error("the data file is shorter than its stored ranges");
        this.hasher.update(bytesRead === STREAM_BUFFER ? buffer : buffer.subarray(0, bytesRead));
        this.hashed += bytesRead;
        readBack.bytes += bytesRead;
      }
    } catch {
      // The file went (terminated meanwhile) or cannot be read: no hash, as for a vanished upload.
      this.hasher = null;
    } finally {
      await handle?.close();
    }
  }

  /** The BLAKE3 of all the bytes once they are stored (reading back what is not hashed yet, e.g. after a restart); null when incomplete or unreadable. */
  async digest(): Promise<string | null> {
    this.advance();
    while (this.catchUp) await this.catchUp;
    return this.hash;
  }

  /** Runs `save` after the saves before it (one record write at a time per upload). */
  persist(save: () => Promise<void>): Promise<void> {
    const next = this.persisting.then(() => (this.dropped ? undefined : save()));
    this.persisting = next.catch(() => undefined);
    return next;
  }
}

/**
 * Writes a stream at `position` of an existing file (no truncation, positional writes), telling
 * `progress` what landed; at most `limit` bytes. Chunks that queue up while a write is under way
 * go down together in one writev, as with a write stream of `STREAM_BUFFER`.
 */
export class RangeWriter extends Writable {
  written = 0;
  private fd: number | null = null;
  /** Settles when the write under way (if any) is down: the file is closed only after it. */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly handle: FileHandle,
    private position: number,
    private readonly limit: number,
    private readonly progress: UploadProgress | null,
  ) {
    super({ highWaterMark: STREAM_BUFFER });
    this.fd = handle.fd;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    this.put([chunk], callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void) {
    this.put(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  private put(buffers: Buffer[], callback: (error?: Error | null) => void) {
    const length = buffers.reduce((n, b) => n + b.length, 0);
    if (this.written + length > this.limit) return callback(new Error("more bytes than announced"));
    const at = this.position;
    let settle = () => {};
    this.pending = new Promise((resolve) => (settle = resolve));
    let hashedAhead = false;
    const done = (error: Error | null) => {
      settle();
      if (error) {
        if (hashedAhead) this.progress?.unstored();
        return callback(error);
      }
      this.written += length;
      this.position += length;
      this.progress?.stored(at, buffers, length, hashedAhead);
      callback();
    };
    this.writeAll(buffers, at, done);
    // Hashed while the thread pool writes them (never counted as stored before the write is down).
    if (this.progress && this.fd !== null) hashedAhead = this.progress.hashAhead(at, buffers, length);
  }

  /** writev until every byte is down (a regular file rarely writes less, but may). */
  private writeAll(buffers: Buffer[], at: number, done: (error: Error | null) => void) {
    if (this.fd === null) return done(new Error("closed"));
    writev(this.fd, buffers, at, (error, n) => {
      if (error) return done(error);
      const rest = unwritten(buffers, n);
      if (rest.length === 0) return done(null);
      this.writeAll(rest, at + n, done);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    // A write still under way lands (and is counted) before the file closes.
    this.pending
      .then(() => {
        this.fd = null;
        return this.handle.close();
      })
      .then(
      () => callback(error),
      () => callback(error),
    );
  }
}
