import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FileStore } from "@tus/file-store";
import { ERRORS, type KvStore, type Upload } from "@tus/server";
import type { Throttle } from "../speed/throttle";
import { STREAM_BUFFER } from "../storage/storage";

/**
 * Where tus uploads live between creation and commit (docs/file-server.md, "Uploads"): one data file
 * `<dir>/<id>` and one record `<dir>/<id>.json` per upload, both on disk so a restarted engine
 * resumes every upload. The directory is inside the storage root's reserved staging name, so it is
 * on the same file system as the homes (commit is a rename) and no user path can reach it.
 */

/** Upload-Metadata keys the engine sets itself at creation; a client's values for them are replaced. */
export const OWNER_KEY = "ferryUser";
export const SPACE_KEY = "ferrySpace";
/** "1" on a part of a parallel upload (tus concatenation, concat.ts): never committed by itself. */
export const PARTIAL_KEY = "ferryPartial";

/** The record of an upload: tus's own fields plus what the engine learns later. */
export interface UploadRecord {
  id: string;
  size?: number;
  offset: number;
  metadata?: Record<string, string | null>;
  creation_date?: string;
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

/** Only what the engine really offers: no deferred length (the size limit is checked at creation); concatenation is concat.ts. */
const EXTENSIONS = ["creation", "creation-with-upload", "termination", "expiration", "concatenation"];

/** The upload speed limit of an upload's owner in its space (server/speed/); null when none applies. */
export type UploadThrottle = (userId: number, groupId: number) => Promise<Throttle | null>;

export class UploadStore extends FileStore {
  readonly records: AtomicFileKvStore;
  /**
   * Set by the file server: every byte tus hands to `write` — a PATCH's, or a POST's with
   * creation-with-upload, a user's or a share visitor's — passes its owner's limit here.
   */
  throttle?: UploadThrottle;

  constructor(directory: string, expirationMs: number) {
    const records = new AtomicFileKvStore(directory);
    super({ directory, configstore: records as unknown as KvStore<Upload>, expirationPeriodInMilliseconds: expirationMs });
    this.records = records;
    this.extensions = EXTENSIONS;
  }

  /**
   * @tus/server 2.4 refuses `Upload-Concat` unless the store has "concatentation" (sic). Partial
   * uploads are ordinary uploads to the store, and final ones never reach tus (concat.ts).
   */
  override hasExtension(extension: string): boolean {
    return extension === "concatentation" || super.hasExtension(extension);
  }

  static async open(directory: string, expirationMs: number): Promise<UploadStore> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    return new UploadStore(directory, expirationMs);
  }

  dataPath(id: string): string {
    return path.join(this.directory, id);
  }

  /**
   * One PATCH's bytes, at `offset` (tus holds the upload's lock and has checked it is the stored
   * size). @tus/file-store writes through a write stream with the default 16 KiB buffer, i.e. one
   * system call per network chunk; with 1 MiB the chunks that arrive while a write is under way go
   * down together in one writev (STACK.md: ~1030 vs ~690 MiB/s). Otherwise the same: a PATCH cut
   * short keeps what was written, and the stored size stays the offset to resume from.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const throttle = await this.throttleOf(id);
    const out = createWriteStream(this.dataPath(id), { flags: "r+", start: offset, highWaterMark: STREAM_BUFFER });
    try {
      await (throttle ? pipeline(readable, throttle.transform(), out) : pipeline(readable, out));
    } catch {
      throw ERRORS.FILE_WRITE_ERROR;
    } finally {
      throttle?.release();
    }
    return offset + out.bytesWritten;
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
