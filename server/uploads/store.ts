import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FileStore } from "@tus/file-store";
import { ERRORS, type KvStore, Upload } from "@tus/server";
import type { Throttle } from "../speed/throttle";
import { type ByteRange, CHUNKS_EXTENSION } from "../../contract/upload-chunks";
import type { ResumableUploads } from "../storage/storage";
import { FerryError } from "../errors";
import { BODY_IDLE_MS, buffersOf, freshHasherState, PartBudget, type StoreRecord, StoreUploadProgress, storedBytes, type Turn } from "./object-store";
import { prefixOf, RangeWriter, UploadProgress } from "./progress";

/**
 * Where tus uploads live between creation and commit (docs/file-server.md, "Uploads"): one data file
 * `<dir>/<id>` and one record `<dir>/<id>.json` per upload, both on disk so a restarted engine
 * resumes every upload. The directory is inside the storage root's reserved staging name, so it is
 * on the same file system as the homes (commit is a rename) and no user path can reach it.
 */

/** Upload-Metadata keys the engine sets itself at creation; a client's values for them are replaced. */
export const OWNER_KEY = "ferryUser";
export const SPACE_KEY = "ferrySpace";

/** The record of an upload: tus's own fields plus what the engine learns later. */
export interface UploadRecord {
  id: string;
  size?: number;
  offset: number;
  metadata?: Record<string, string | null>;
  creation_date?: string;
  /**
   * The stored byte ranges ([start, end), merged, sorted) once a Ferry chunk reached the upload
   * (docs/file-server.md, "Parallel chunks (Ferry extension)"); without it the stored bytes are
   * the data file's size from 0, as tus stores them.
   */
  ranges?: ByteRange[];
  /** BLAKE3 of the stored bytes, once they have all arrived. */
  hash?: string;
  /** Set by a successful commit; a repeated commit answers with it. */
  committed?: { path: string; size: number; hash: string };
  /** An upload into an object store (object-store.ts): its bytes are parts in the store, not a data file here. */
  store?: StoreRecord;
  /**
   * Written by a commit of an upload into an object store just before it asks the store to
   * complete the upload at `path` (the outcome is unknown until the answer: the engine may stop,
   * or the answer may be lost). A later commit that finds the file there with the upload's size
   * counts it as committed.
   */
  completing?: { path: string; at: string };
}

/** A tus KvStore whose writes are atomic (temp file + rename): a crash never leaves half a record. */
export class AtomicFileKvStore implements KvStore<UploadRecord> {
  constructor(readonly directory: string) {}

  private file(key: string): string {
    if (!/^[0-9a-f]{32}$/.test(key)) throw new Error(`not an upload id: ${key}`);
    return path.join(this.directory, `${key}.json`);
  }

  async get(key: string): Promise<UploadRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), "utf8")) as UploadRecord;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: UploadRecord): Promise<void> {
    const target = this.file(key);
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(value), { flush: true });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async list(): Promise<string[]> {
    return (await readdir(this.directory)).filter((name) => /^[0-9a-f]{32}\.json$/.test(name)).map((name) => name.slice(0, 32));
  }
}

/**
 * Only what the engine really offers (OPTIONS `Tus-Extension`): no deferred length (the size limit
 * is checked at creation), no concatenation (its final step copies the file; Ferry's chunks write
 * each part in place instead — docs/file-server.md, "No tus concatenation").
 */
export const EXTENSIONS = ["creation", "creation-with-upload", "termination", "expiration", CHUNKS_EXTENSION] as const;

/** The upload speed limit of an upload's owner in its space (server/speed/); null when none applies. */
export type UploadThrottle = (userId: number, groupId: number) => Promise<Throttle | null>;

/** The defaults of FERRY_UPLOAD_BUFFER_BYTES and FERRY_UPLOAD_BUFFER_IDLE (server/config.ts). */
export const DEFAULT_BUFFER_BYTES = 256 * 1024 * 1024;
export const DEFAULT_BUFFER_IDLE_MS = 10 * 60 * 1000;

export class UploadStore extends FileStore {
  readonly records: AtomicFileKvStore;
  /**
   * Set by the file server: every byte tus hands to `write` — a PATCH's, or a POST's with
   * creation-with-upload, a user's or a share visitor's — passes its owner's limit here.
   */
  throttle?: UploadThrottle;
  /** Ranges, writes in flight and the growing hash of uploads the engine has seen bytes of since it started (progress.ts). */
  private readonly progress = new Map<string, Promise<UploadProgress | null>>();
  /**
   * Set by the file server: the resumable uploads of the storage an upload's target (its
   * metadata: owner, space, path) lies on, or null where uploads are staged here and adopted.
   */
  uploadsOf?: (metadata: Record<string, string | null> | undefined) => Promise<ResumableUploads | null>;
  /** The live side of uploads into an object store (object-store.ts), by id. */
  private readonly storeProgress = new Map<string, Promise<StoreUploadProgress | null>>();
  /**
   * The bytes uploads into object stores may hold in memory, all together, and how long an
   * upload's may wait without a new byte (FERRY_UPLOAD_BUFFER_BYTES, FERRY_UPLOAD_BUFFER_IDLE; the
   * file server sets both from the configuration before the first upload).
   */
  partBudget = new PartBudget(DEFAULT_BUFFER_BYTES);
  bufferIdleMs = DEFAULT_BUFFER_IDLE_MS;
  /** A body into an object store that brings no byte for this long (or FERRY_UPLOAD_BUFFER_IDLE, when shorter) is stopped and its claim freed. */
  bodyIdleMs = BODY_IDLE_MS;

  constructor(directory: string, expirationMs: number) {
    const records = new AtomicFileKvStore(directory);
    super({ directory, configstore: records as unknown as KvStore<Upload>, expirationPeriodInMilliseconds: expirationMs });
    this.records = records;
    this.extensions = [...EXTENSIONS];
  }

  static async open(directory: string, expirationMs: number): Promise<UploadStore> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    return new UploadStore(directory, expirationMs);
  }

  dataPath(id: string): string {
    return path.join(this.directory, id);
  }

  /**
   * A new upload: into the object store its target lies on (one resumable upload begun there, its
   * state in the record, no data file here), else a local data file as tus's FileStore makes it.
   */
  override async create(upload: Upload): Promise<Upload> {
    const uploads = await this.uploadsOf?.(upload.metadata);
    if (!uploads) return super.create(upload);
    // Its first part could never be claimed from the budget: every PATCH would wait with 503 for good.
    const limit = this.partBudget.limit;
    if (Math.min(uploads.partSize, upload.size ?? 0) > limit) throw new FerryError("UploadPartOverMemory", { partSize: uploads.partSize, limit }, { partSize: uploads.partSize, limit });
    const begun = await uploads.begin(upload.size ?? 0);
    const record: UploadRecord = {
      id: upload.id,
      size: upload.size,
      offset: 0,
      metadata: upload.metadata,
      creation_date: upload.creation_date,
      store: { state: begun.state, parts: [], hasher: await freshHasherState() },
    };
    try {
      await this.records.set(upload.id, record);
    } catch (error) {
      await begun.abort();
      throw error;
    }
    return upload;
  }

  /** The live side of an upload into an object store (resumed from its record on first use); null for other uploads and gone ones. */
  storeProgressOf(id: string): Promise<StoreUploadProgress | null> {
    let loading = this.storeProgress.get(id);
    if (!loading) {
      loading = (async () => {
        const record = await this.records.get(id);
        if (!record?.store || record.committed) return null;
        const uploads = await this.uploadsOf?.(record.metadata);
        if (!uploads) throw ERRORS.FILE_WRITE_ERROR;
        const upload = uploads.resume(record.store.state);
        return StoreUploadProgress.open(
          upload,
          record.store,
          (store, hash) => this.records.get(id).then((current) => (current && !current.committed ? this.records.set(id, { ...current, store, ...(hash ? { hash } : {}) }) : undefined)),
          this.partBudget,
          // Claims count per user (a visitor's upload per share link): at most a quarter of the budget each.
          `${record.metadata?.[OWNER_KEY] ?? ""}:${record.metadata?.ferryShare ?? ""}`,
        );
      })();
      this.storeProgress.set(id, loading);
      loading.then(
        (p) => (p ? undefined : this.storeProgress.delete(id)),
        () => this.storeProgress.delete(id),
      );
    }
    return loading;
  }

  /** The bytes of an upload into an object store a client goes on from: the live offset, else the stored parts'. */
  private async storeOffset(id: string, record: UploadRecord): Promise<number> {
    const loaded = this.storeProgress.get(id);
    const live = loaded ? await loaded.catch(() => null) : null;
    return live ? live.offset : storedBytes(record.store!);
  }

  /**
   * One tus PATCH's bytes, at `offset` (tus holds the upload's lock and has checked it is the
   * stored offset), written in place by positional writes batched up to `STREAM_BUFFER` (STACK.md:
   * ~1030 vs ~690 MiB/s with the default 16 KiB) and hashed as they land (progress.ts). A PATCH cut
   * short keeps what was written, and the stored size stays the offset to resume from. Refused
   * (409) while Ferry chunks are in flight or stored past the prefix: a plain PATCH would write
   * over them.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    if ((await this.records.get(id))?.store) return offset + (await this.writeStore(readable, id, offset, Number.POSITIVE_INFINITY));
    const progress = await this.progressOf(id);
    // Without a record (or its data file) nothing is tracked: the write itself decides (a vanished file fails it).
    if (!progress) return offset + (await this.writeAt(readable, id, offset, Number.POSITIVE_INFINITY, null));
    if (progress.flights.size > 0 || progress.ranges.length > 1 || progress.prefix !== offset) throw ERRORS.INVALID_OFFSET;
    const flight = { start: offset, end: progress.size, plain: true };
    progress.flights.add(flight);
    try {
      const written = await this.writeAt(readable, id, offset, progress.size - offset, progress);
      if (progress.chunked) await this.persistRanges(id, progress);
      return offset + written;
    } finally {
      progress.flights.delete(flight);
    }
  }

  /** Sends a body at `offset` of an upload into an object store (object-store.ts) through its owner's throttle, with the `turn` a chunk waited for; the bytes taken. */
  async writeStore(readable: Readable, id: string, offset: number, limit: number, turn?: Turn): Promise<number> {
    const progress = await this.storeProgressOf(id);
    if (!progress) throw ERRORS.FILE_NOT_FOUND;
    let throttle: Throttle | null = null;
    let throttled: ReturnType<Throttle["transform"]> | null = null;
    try {
      if (offset !== progress.offset) throw ERRORS.INVALID_OFFSET;
      throttle = await this.throttleOf(id);
      if (throttle) {
        const stream = readable.pipe(throttle.transform());
        throttled = stream;
        // A throttle's stream ends with an error when the body does: what arrived stays taken.
        readable.once("error", (error) => stream.destroy(error));
      }
      return await progress.take(buffersOf(throttled ?? readable), offset, limit, turn, Math.min(this.bodyIdleMs, this.bufferIdleMs));
    } finally {
      if (turn) progress.releaseTurn(turn);
      if (throttled) {
        // A refused body's rest is no longer the throttle's to carry.
        readable.unpipe(throttled);
        throttled.destroy();
      }
      throttle?.release();
    }
  }

  /** Writes a body at `offset` of an upload's data file, at most `limit` bytes, through its owner's throttle; the bytes written (also when the body stops early). */
  async writeAt(readable: Readable, id: string, offset: number, limit: number, progress: UploadProgress | null, onError?: (error: unknown) => void): Promise<number> {
    const throttle = await this.throttleOf(id);
    let out: RangeWriter;
    try {
      out = new RangeWriter(await open(this.dataPath(id), "r+"), offset, limit, progress);
    } catch {
      throttle?.release();
      throw ERRORS.FILE_WRITE_ERROR;
    }
    try {
      await (throttle ? pipeline(readable, throttle.transform(), out) : pipeline(readable, out));
    } catch (error) {
      onError?.(error);
      // A write under way when the body stopped lands first: what arrived is kept and counted.
      if (!out.closed) await new Promise((resolve) => out.once("close", resolve));
      if (!onError) throw ERRORS.FILE_WRITE_ERROR;
    } finally {
      throttle?.release();
    }
    return out.written;
  }

  /** The progress of an upload (loaded from its record and data file on first use); null when the upload is gone. */
  progressOf(id: string): Promise<UploadProgress | null> {
    let loading = this.progress.get(id);
    if (!loading) {
      loading = (async () => {
        const record = await this.records.get(id);
        if (!record || record.size === undefined) return null;
        const info = await stat(this.dataPath(id)).catch(() => null);
        if (!info) return null;
        const ranges = record.ranges ?? (info.size > 0 ? [[0, Math.min(info.size, record.size)] as ByteRange] : []);
        return UploadProgress.create(this.dataPath(id), record.size, ranges, record.ranges !== undefined);
      })();
      this.progress.set(id, loading);
      // A failed or empty load is tried again next time.
      loading.then(
        (p) => (p ? undefined : this.progress.delete(id)),
        () => this.progress.delete(id),
      );
    }
    return loading;
  }

  /** The stored ranges of an upload without loading its hash: the progress's when loaded, else the record's or the data file's size. */
  async rangesOf(id: string): Promise<ByteRange[] | null> {
    const loaded = this.progress.get(id);
    const progress = loaded ? await loaded : null;
    if (progress) return progress.ranges;
    const record = await this.records.get(id);
    if (!record) return null;
    if (record.store) {
      const offset = await this.storeOffset(id, record);
      return offset > 0 ? [[0, offset]] : [];
    }
    if (record.ranges) return record.ranges;
    const info = await stat(this.dataPath(id)).catch(() => null);
    return info && info.size > 0 ? [[0, Math.min(info.size, record.size ?? info.size)]] : [];
  }

  /** Keeps an upload's ranges in its record (atomically, one write at a time); from now on the record's ranges are its stored bytes. */
  persistRanges(id: string, progress: UploadProgress): Promise<void> {
    progress.chunked = true;
    return progress.persist(async () => {
      const record = await this.records.get(id);
      if (!record || record.committed || progress.dropped) return;
      await this.records.set(id, { ...record, ranges: progress.ranges });
    });
  }

  /** Forgets an upload's progress (terminated, committed, dropped): writes still in flight persist nothing more. */
  forgetProgress(id: string) {
    const live = this.storeProgress.get(id);
    this.storeProgress.delete(id);
    void live?.then(
      (p) => p?.drop(),
      () => undefined,
    );
    const loading = this.progress.get(id);
    this.progress.delete(id);
    void loading?.then((p) => {
      if (p) p.dropped = true;
    });
  }

  /**
   * Drops the bytes in memory of uploads into object stores that took none for `idleMs`: their
   * offset goes back to their stored parts (object-store.ts). Returns the bytes freed.
   */
  async dropIdleBuffers(now = Date.now(), idleMs = this.bufferIdleMs): Promise<number> {
    let freed = 0;
    for (const loading of [...this.storeProgress.values()]) {
      const live = await loading.catch(() => null);
      if (live) freed += live.dropIdle(now, idleMs);
    }
    return freed;
  }

  /** Forgets the progress of uploads whose record is gone. */
  async pruneProgress() {
    for (const id of new Set([...this.progress.keys(), ...this.storeProgress.keys()])) if (!(await this.records.get(id))) this.forgetProgress(id);
  }

  /** As @tus/file-store's, but the offset of an upload with Ferry chunks is its contiguous prefix, not its file's size. */
  override async getUpload(id: string): Promise<Upload> {
    const record = await this.records.get(id);
    if (record?.store) {
      return new Upload({ id, size: record.size, offset: await this.storeOffset(id, record), metadata: record.metadata ?? undefined, creation_date: record.creation_date });
    }
    const upload = await super.getUpload(id);
    const loaded = this.progress.get(id);
    const progress = loaded ? await loaded : null;
    const ranges = progress?.chunked ? progress.ranges : (await this.records.get(id))?.ranges;
    if (!ranges) return upload;
    return new Upload({ id, size: upload.size, offset: prefixOf(ranges), metadata: upload.metadata, creation_date: upload.creation_date, storage: upload.storage });
  }

  /** The throttle of an upload's owner (a visitor's upload is stored as its link owner's) in the upload's space. */
  private async throttleOf(id: string): Promise<Throttle | null> {
    if (!this.throttle) return null;
    const metadata = (await this.records.get(id))?.metadata;
    const userId = Number(metadata?.[OWNER_KEY]);
    const groupId = Number(metadata?.groupId ?? 0);
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(groupId)) return null;
    return this.throttle(userId, groupId);
  }

  /**
   * Starts writing an upload's bytes to disk (fdatasync) and waits for it; never fails (the data
   * file may be gone already). Only an early start: durability comes from the fsync at commit.
   */
  async flush(id: string): Promise<void> {
    try {
      const handle = await open(this.dataPath(id), "r");
      try {
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } catch {
      // Removed meanwhile, or a file system that refuses: the commit's fsync decides.
    }
  }

  /** A tus termination (DELETE): the upload's bytes and record go, in the object store too. */
  override async remove(id: string): Promise<void> {
    if (!(await this.records.get(id))?.store) return super.remove(id);
    await this.drop(id);
  }

  /** Forgets the live side of an upload into an object store; with `abort`, its stored parts go as well (never those of a committed upload: they are its file). */
  private async dropStore(id: string, record: UploadRecord | undefined) {
    const loading = this.storeProgress.get(id);
    this.storeProgress.delete(id);
    const live = loading ? await loading.catch(() => null) : null;
    live?.drop();
    if (!record?.store || record.committed) return;
    try {
      const uploads = await this.uploadsOf?.(record.metadata);
      await uploads?.resume(record.store.state).abort();
    } catch {
      // The space or its storage is gone: the store's own expiry (a lifecycle rule) clears the parts.
    }
  }

  /** Removes an upload's bytes and record; missing parts are fine. */
  async drop(id: string): Promise<void> {
    await this.dropStore(id, await this.records.get(id));
    this.forgetProgress(id);
    await rm(this.dataPath(id), { force: true });
    await this.records.delete(id);
  }

  /**
   * Removes uploads created more than the expiration period ago (finished or not, committed or
   * not), data files without a record and leftover temporary files. Returns how many went.
   * tus's own deleteExpired cannot do this: it stops at the first record whose data is gone.
   */
  async sweep(now = Date.now()): Promise<number> {
    const cutoff = now - this.getExpiration();
    let removed = 0;
    for (const name of await readdir(this.directory)) {
      const full = path.join(this.directory, name);
      if (/^[0-9a-f]{32}\.json$/.test(name)) {
        const record = await this.records.get(name.slice(0, 32));
        const created = record?.creation_date ? Date.parse(record.creation_date) : 0;
        if (created > cutoff) continue;
        await this.drop(name.slice(0, 32));
        removed++;
      } else {
        const info = await lstat(full).catch(() => null);
        if (!info || info.mtimeMs > cutoff) continue;
        // A data file whose record is still there goes with the record, above.
        if (/^[0-9a-f]{32}$/.test(name) && (await this.records.get(name))) continue;
        await rm(full, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}
