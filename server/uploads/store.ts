import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FileStore } from "@tus/file-store";
import { ERRORS, type KvStore, Upload } from "@tus/server";
import type { Throttle } from "../speed/throttle";
import { type ByteRange, CHUNKS_EXTENSION } from "../../contract/upload-chunks";
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

export class UploadStore extends FileStore {
  readonly records: AtomicFileKvStore;
  /**
   * Set by the file server: every byte tus hands to `write` — a PATCH's, or a POST's with
   * creation-with-upload, a user's or a share visitor's — passes its owner's limit here.
   */
  throttle?: UploadThrottle;
  /** Ranges, writes in flight and the growing hash of uploads the engine has seen bytes of since it started (progress.ts). */
  private readonly progress = new Map<string, Promise<UploadProgress | null>>();

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
   * One tus PATCH's bytes, at `offset` (tus holds the upload's lock and has checked it is the
   * stored offset), written in place by positional writes batched up to `STREAM_BUFFER` (STACK.md:
   * ~1030 vs ~690 MiB/s with the default 16 KiB) and hashed as they land (progress.ts). A PATCH cut
   * short keeps what was written, and the stored size stays the offset to resume from. Refused
   * (409) while Ferry chunks are in flight or stored past the prefix: a plain PATCH would write
   * over them.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
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
    const loading = this.progress.get(id);
    this.progress.delete(id);
    void loading?.then((p) => {
      if (p) p.dropped = true;
    });
  }

  /** Forgets the progress of uploads whose record is gone. */
  async pruneProgress() {
    for (const id of [...this.progress.keys()]) if (!(await this.records.get(id))) this.forgetProgress(id);
  }

  /** As @tus/file-store's, but the offset of an upload with Ferry chunks is its contiguous prefix, not its file's size. */
  override async getUpload(id: string): Promise<Upload> {
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

  /** Removes an upload's bytes and record; missing parts are fine. */
  async drop(id: string): Promise<void> {
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
