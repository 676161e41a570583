import { createBLAKE3, type IHasher } from "hash-wasm";
import type { Readable } from "node:stream";
import { FerryError } from "../errors";
import type { ResumableState, ResumableUpload, StoredPart } from "../storage/storage";

/**
 * Uploads into a space whose storage is an object store (docs/file-server.md, "Uploads into object
 * storage"): the bytes go straight into the store as the parts of one resumable upload
 * (Storage.resumable), never into a local data file. The upload's record keeps the store's state,
 * the parts stored (number, ETag, size) and the BLAKE3 hasher's saved state at the end of the last
 * stored part, written after each part; a restarted engine goes on from there.
 *
 * A stream is cut into parts of the store's part size: the bytes of the part being filled wait in
 * memory (at most one part per upload) and are reported in the upload's offset while this process
 * lives; a crash loses them, and HEAD then answers the offset of the stored parts, from which the
 * client sends again. Each part is hashed just before it is sent, so the saved hasher state always
 * matches the stored parts.
 */

/** What an upload's record keeps of an upload into an object store. */
export interface StoreRecord {
  state: ResumableState;
  /** The parts stored, in order from part 1 (bytes [0, sum of sizes)). */
  parts: StoredPart[];
  /** BLAKE3 (hash-wasm) state after the stored parts' bytes, base64. */
  hasher: string;
}

/** The bytes the stored parts hold, from 0. */
export const storedBytes = (store: StoreRecord) => store.parts.reduce((n, p) => n + p.size, 0);

export async function freshHasherState(): Promise<string> {
  const hasher = await createBLAKE3(256);
  hasher.init();
  return Buffer.from(hasher.save()).toString("base64");
}

/** The live side of an upload into an object store (one per upload the engine has seen bytes of since it started). */
export class StoreUploadProgress {
  /** Bytes of the part being filled, after the stored parts (in memory only). */
  private pending: Buffer[] = [];
  held = 0;
  /** Set when the upload is terminated, committed or dropped. */
  dropped = false;
  /** A body is being taken (one at a time: the bytes go to the store in order). */
  private busy = false;
  /** Called when a take ends or the offset moves. */
  private readonly waiting = new Set<() => void>();
  private persisting: Promise<void> = Promise.resolve();

  private constructor(
    readonly upload: ResumableUpload,
    public record: StoreRecord,
    private readonly hasher: IHasher,
    /** Writes the record (atomically); called after each stored part, one at a time. */
    private readonly save: (record: StoreRecord, hash: string | null) => Promise<void>,
  ) {}

  static async open(upload: ResumableUpload, record: StoreRecord, save: (record: StoreRecord, hash: string | null) => Promise<void>): Promise<StoreUploadProgress> {
    const hasher = await createBLAKE3(256);
    hasher.load(Buffer.from(record.hasher, "base64"));
    return new StoreUploadProgress(upload, record, hasher, save);
  }

  get size() {
    return this.record.state.size;
  }

  get stored() {
    return storedBytes(this.record);
  }

  /** The offset a client goes on from: the stored parts and the bytes waiting in memory. */
  get offset() {
    return this.stored + this.held;
  }

  /**
   * Takes a body's bytes at `offset` (which must be this.offset), sending every full part (and the
   * last one when the file is complete) before taking more. Returns the bytes taken; a body that
   * stops early keeps what arrived. A part the store refuses drops the bytes after the stored parts
   * and fails with CannotWriteFile: the client goes on from the stored offset.
   */
  async take(body: AsyncIterable<Buffer>, offset: number, limit: number): Promise<number> {
    if (offset !== this.offset || this.busy) throw new FerryError("InvalidData", { reason: "Upload-Offset is not the stored offset" });
    this.busy = true;
    let taken = 0;
    try {
      for await (const chunk of body) {
        if (this.dropped) throw new FerryError("UploadNotFound");
        if (taken + chunk.length > limit || this.offset + chunk.length > this.size) throw new FerryError("InvalidData", { reason: "more bytes than the declared Upload-Length" });
        // The caller may reuse its buffer once it was taken.
        this.pending.push(Buffer.from(chunk));
        this.held += chunk.length;
        taken += chunk.length;
        await this.sendFull();
      }
    } catch (error) {
      if (error instanceof FerryError) throw error;
      // The body stopped (the client went away): what arrived stays.
    } finally {
      this.busy = false;
      this.wake();
    }
    return taken;
  }

  private wake() {
    for (const wake of [...this.waiting]) wake();
  }

  /**
   * Waits until a chunk starting at `start` can be taken: every byte before it in (the offset is
   * `start`) and no other body being taken. Parallel chunks on an object store are thereby taken
   * in byte order, each waiting with its body unread (TCP holds it). Fails with InvalidData (409,
   * which the web retries after asking HEAD) when the bytes before it stop arriving for `idleMs`,
   * when it overlaps stored bytes, or when `signal` aborts (the client went away).
   */
  async waitTurn(start: number, idleMs: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (this.dropped) throw new FerryError("UploadNotFound");
      if (start < this.offset) throw new FerryError("InvalidData", { reason: "the chunk overlaps stored bytes" });
      if (start === this.offset && !this.busy) return;
      const before = this.offset;
      const moved = await new Promise<boolean>((resolve) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          signal.removeEventListener("abort", aborted);
          resolve(value);
        };
        const wake = () => done(true);
        const aborted = () => done(false);
        const timer = setTimeout(() => done(this.offset !== before), idleMs);
        this.waiting.add(wake);
        signal.addEventListener("abort", aborted, { once: true });
      });
      if (!moved || signal.aborted) throw new FerryError("InvalidData", { reason: "the bytes before the chunk did not arrive: send them first" });
    }
  }

  private async sendFull() {
    const partSize = this.record.state.partSize;
    while (this.held >= partSize || (this.held > 0 && this.offset === this.size)) {
      const length = Math.min(partSize, this.held);
      const all = Buffer.concat(this.pending, this.held);
      const bytes = all.subarray(0, length);
      const before = this.hasher.save();
      this.hasher.update(bytes);
      let part: StoredPart;
      try {
        part = await this.upload.writePart(this.record.parts.length + 1, bytes);
      } catch (error) {
        // The part and what followed it are not stored: the hash goes back to the stored parts, the client resends.
        this.hasher.load(before);
        this.pending = [];
        this.held = 0;
        throw error instanceof FerryError && error.errorName === "UploadNotFound" ? error : new FerryError("CannotWriteFile");
      }
      this.pending = this.held > length ? [all.subarray(length)] : [];
      this.held -= length;
      const record: StoreRecord = { ...this.record, parts: [...this.record.parts, part], hasher: Buffer.from(this.hasher.save()).toString("base64") };
      this.record = record;
      const hash = this.stored === this.size ? this.hasher.digest("hex") : null;
      await this.persist(() => this.save(record, hash));
      this.wake();
    }
  }

  /** Runs `save` after the saves before it (one record write at a time per upload). */
  persist(save: () => Promise<void>): Promise<void> {
    const next = this.persisting.then(() => (this.dropped ? undefined : save()));
    this.persisting = next.catch(() => undefined);
    return next;
  }
}

/** A body as Buffers, for `StoreUploadProgress.take`. */
export async function* buffersOf(readable: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of readable) yield typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
}
