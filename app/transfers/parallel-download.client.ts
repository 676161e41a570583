import type { Hasher } from "./hasher.client";
import { adaptStreams, chunkRanges, type FlightPiece, pickSplit, shouldCommit, START_STREAMS } from "./page-download";
import { idbStore } from "./idb-store.client";

/**
 * A download of one large file written by the page itself (docs/file-server.md, "Parallel downloads
 * in the browser"): several Range requests at once against the file server's signed URL, each
 * range written at its place in a file the user picked (File System Access API), committed now and
 * then so that a reload resumes from what is on disk, and checked against the file's BLAKE3 at the
 * end. The engine applies every rule to each range as to any download (ticket, sign-in, Download
 * permission, speed limits, logs).
 */

/** What Chromium offers beyond TypeScript's DOM library. */
interface PermissionHandle extends FileSystemFileHandle {
  queryPermission?(options: { mode: "readwrite" }): Promise<PermissionState>;
  requestPermission?(options: { mode: "readwrite" }): Promise<PermissionState>;
  remove?(): Promise<void>;
}
type SavePicker = (options: { suggestedName?: string }) => Promise<FileSystemFileHandle>;

/** Asks the user where to save (the OS dialog); null when they cancelled it. Other failures throw. */
export async function pickSaveFile(name: string): Promise<FileSystemFileHandle | null> {
  const picker = (window as unknown as { showSaveFilePicker: SavePicker }).showSaveFilePicker;
  try {
    return await picker({ suggestedName: name });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") return null;
    throw error;
  }
}

/** May the page write the file again (after a reload the permission must be asked with a click)? */
export async function writePermission(handle: FileSystemFileHandle, ask: boolean): Promise<boolean> {
  const h = handle as PermissionHandle;
  if (!h.queryPermission) return true;
  if ((await h.queryPermission({ mode: "readwrite" })) === "granted") return true;
  return ask && !!h.requestPermission && (await h.requestPermission({ mode: "readwrite" })) === "granted";
}

/** Removes the partly written file (a cancelled download); where the browser cannot, it stays. */
export async function removeSaved(handle: FileSystemFileHandle): Promise<void> {
  await (handle as PermissionHandle).remove?.().catch(() => undefined);
}

/** What survives a reload (IndexedDB: a FileSystemFileHandle is structured-cloneable). */
export interface PageDownloadRecord {
  id: string;
  account: string;
  groupId: number;
  path: string;
  name: string;
  size: number;
  /** The file's BLAKE3 as the engine recorded it; null: none recorded, the result is not verified. */
  hash: string | null;
  /** The file's ETag at the first range: a later range of another version means the file changed. */
  etag: string | null;
  chunk: number;
  /** Indexes of the ranges committed to the file on disk. */
  done: number[];
  handle: FileSystemFileHandle;
  createTime: number;
}

const DB_NAME = "ferry-page-downloads";
const STORE = "downloads";

const inStore = idbStore(DB_NAME, STORE);

export async function saveRecord(record: PageDownloadRecord): Promise<void> {
  // No storage (private mode, quota): the download still runs, it only cannot survive a reload.
  await inStore("readwrite", (store) => store.put(record)).catch(() => undefined);
}

export async function deleteRecord(id: string): Promise<void> {
  await inStore("readwrite", (store) => store.delete(id)).catch(() => undefined);
}

export async function loadRecords(account: string): Promise<PageDownloadRecord[]> {
  if (typeof indexedDB === "undefined") return [];
  const all = await inStore("readonly", (store) => store.getAll() as IDBRequest<PageDownloadRecord[]>).catch(() => []);
  return all.filter((record) => record.account === account);
}

/** A failure the panel shows by its message key. */
export class PageDownloadError extends Error {
  constructor(readonly errorMsgKey: string) {
    super(errorMsgKey);
    this.name = "PageDownloadError";
  }
}

/** The user paused or cancelled: not a failure. */
class Stopped extends Error {}

/** Automatic retries of one range after a network drop, then the download fails (and offers Retry). */
const RANGE_RETRY_MS = [500, 2000, 5000];
/** Bytes gathered from a response before one positional write. */
const WRITE_BYTES = 1024 * 1024;
/** How often idle streams look again for a piece to split when none was worth it. */
const SPLIT_RECHECK_MS = 1000;

/** A piece of range `index` being fetched: the whole range, or part of it after a split (page-download.ts). */
interface Piece extends FlightPiece {
  index: number;
}

export interface PageDownloadDeps {
  /** A fresh signed URL of the file (absolute); asked again when the last one expired (410). */
  ticket(): Promise<string>;
  /** Bytes on disk or arriving, for the panel. */
  progress(bytes: number): void;
  /** The ranges committed so far (already saved with the record). */
  committed?(record: PageDownloadRecord): void;
  hasher: Hasher;
  /** Where the record is kept for a reload; by default the page downloads' own store (a folder keeps it in its own record). */
  save?(record: PageDownloadRecord): Promise<void>;
}

/**
 * One run of a page-written download: fetches the ranges not yet committed, writes them, and
 * verifies the file. `stop()` ends the run: paused (what was written is committed and kept) or
 * cancelled (nothing more is kept).
 */
export class PageDownload {
  private readonly abort = new AbortController();
  private stopping: "pause" | "cancel" | null = null;
  private url: Promise<string> | null = null;
  private writable: FileSystemWritableFileStream | null = null;
  /** Every write and commit, one after another (a writable stream takes one operation at a time). */
  private chain: Promise<void> = Promise.resolve();
  private chainError: unknown = null;
  /** Committed bytes on disk, and bytes of finished ranges written since the last commit. */
  private committedBytes = 0;
  private pendingBytes = 0;
  /** Finished ranges (committed or not), the pieces in flight, and of a split range its pieces still to write and the bytes of those written. */
  private readonly finished = new Set<number>();
  private readonly inFlight = new Set<Piece>();
  private readonly piecesLeft = new Map<number, number>();
  private readonly partBytes = new Map<number, number>();
  private streams = START_STREAMS;
  private ranges: [number, number][] = [];

  constructor(
    readonly record: PageDownloadRecord,
    private readonly deps: PageDownloadDeps,
  ) {}

  private save(record: PageDownloadRecord): Promise<void> {
    return (this.deps.save ?? saveRecord)(record);
  }

  stop(how: "pause" | "cancel") {
    this.stopping = how;
    this.abort.abort();
  }

  /** Resolves with whether the file was verified (null: no hash to verify against). */
  async run(onVerifying?: () => void): Promise<boolean | null> {
    const { record } = this;
    const ranges = chunkRanges(record.size, record.chunk);
    this.ranges = ranges;
    for (const index of record.done) this.finished.add(index);
    this.committedBytes = record.done.reduce((sum, i) => sum + (ranges[i] ? ranges[i][1] - ranges[i][0] : 0), 0);
    this.report(ranges);
    const missing = ranges.map((_r, i) => i).filter((i) => !this.finished.has(i));
    try {
      if (missing.length > 0) {
        // The signed URL is asked for while the file is opened and sized (a round trip less before the first range).
        void this.ticketUrl(false).catch(() => undefined);
        this.writable = await record.handle.createWritable({ keepExistingData: record.done.length > 0 });
        // The file has its final length from the start: every range is written in place.
        await this.writable.truncate(record.size);
        await this.fetchAll(ranges, missing);
        await this.flush();
        await this.writable.close();
        this.writable = null;
        record.done = ranges.map((_r, i) => i);
        await this.save(record);
      }
      onVerifying?.();
      return await this.verify();
    } catch (error) {
      await this.settle(ranges);
      if (this.stopping) throw new Stopped();
      if (this.chainError) throw new PageDownloadError("transfers.error.write-failed");
      throw error;
    }
  }

  /** After a stop or failure: a pause commits what finished; a cancel or a failure of the disk keeps nothing new. */
  private async settle(ranges: [number, number][]) {
    const writable = this.writable;
    this.writable = null;
    if (!writable) return;
    await this.chain.catch(() => undefined);
    if (this.stopping === "cancel" || this.chainError) {
      await writable.abort().catch(() => undefined);
      return;
    }
    try {
      await writable.close();
      this.record.done = ranges.map((_r, i) => i).filter((i) => this.finished.has(i));
      await this.save(this.record);
      this.deps.committed?.(this.record);
    } catch {
      // The file could not be committed: the saved ranges stay what they were.
    }
  }

  private report(ranges: [number, number][]) {
    let bytes = 0;
    for (const i of this.finished) bytes += ranges[i]![1] - ranges[i]![0];
    for (const written of this.partBytes.values()) bytes += written;
    for (const piece of this.inFlight) bytes += Math.min(piece.received, piece.end - piece.start);
    this.deps.progress(bytes);
  }

  private fetchAll(ranges: [number, number][], missing: number[]): Promise<void> {
    const queue: Piece[] = missing.map((index) => ({ index, start: ranges[index]![0], end: ranges[index]![1], received: 0, firstByteMs: null }));
    for (const index of missing) this.piecesLeft.set(index, 1);
    let active = 0;
    let failed = false;
    let recheck: ReturnType<typeof setTimeout> | null = null;
    return new Promise<void>((resolve, reject) => {
      const start = (piece: Piece) => {
        active += 1;
        const started = performance.now();
        this.fetchPiece(piece)
          .then(() => {
            active -= 1;
            this.streams = adaptStreams(this.streams, piece.end - piece.start, performance.now() - started);
            this.pieceWritten(piece, ranges, queue.length + active > 0);
            if (queue.length === 0 && active === 0) {
              if (recheck) clearTimeout(recheck);
              resolve();
            } else launch();
          })
          .catch((error: unknown) => {
            active -= 1;
            if (failed) return;
            failed = true;
            if (recheck) clearTimeout(recheck);
            this.abort.abort();
            reject(error);
          });
      };
      const launch = () => {
        while (!failed && active < this.streams && queue.length > 0) start(queue.shift()!);
        // No range left to start: an idle stream takes the second half of the piece that would end last.
        while (!failed && active < this.streams && queue.length === 0) {
          const pieces = [...this.inFlight];
          const split = pickSplit(pieces, performance.now());
          if (!split) break;
          const piece = pieces[split.index]!;
          const rest: Piece = { index: piece.index, start: split.at, end: piece.end, received: 0, firstByteMs: null };
          piece.end = split.at;
          this.piecesLeft.set(piece.index, (this.piecesLeft.get(piece.index) ?? 1) + 1);
          start(rest);
        }
        // Streams still idle: nothing was worth splitting yet (a piece without its first byte, or almost done); look again shortly.
        if (!failed && queue.length === 0 && active > 0 && active < this.streams && !recheck)
          recheck = setTimeout(() => {
            recheck = null;
            launch();
          }, SPLIT_RECHECK_MS);
      };
      launch();
    });
  }

  /** A piece is written: its range is finished once all its pieces are, and then counts for the next commit. */
  private pieceWritten(piece: Piece, ranges: [number, number][], more: boolean) {
    const { index } = piece;
    const left = (this.piecesLeft.get(index) ?? 1) - 1;
    if (left > 0) {
      this.piecesLeft.set(index, left);
      this.partBytes.set(index, (this.partBytes.get(index) ?? 0) + (piece.end - piece.start));
      return;
    }
    this.piecesLeft.delete(index);
    this.partBytes.delete(index);
    this.finished.add(index);
    this.pendingBytes += ranges[index]![1] - ranges[index]![0];
    if (shouldCommit(this.committedBytes, this.pendingBytes, this.record.chunk) && more) this.commit(ranges);
  }

  /** Commits the swap file now (in the write order) and records the finished ranges as on disk. */
  private commit(ranges: [number, number][]) {
    const done = ranges.map((_r, i) => i).filter((i) => this.finished.has(i));
    const bytes = this.pendingBytes;
    this.pendingBytes = 0;
    this.enqueue(async () => {
      await this.writable!.close();
      this.writable = await this.record.handle.createWritable({ keepExistingData: true });
      this.committedBytes += bytes;
      this.record.done = done;
      await this.save(this.record);
      this.deps.committed?.(this.record);
    });
  }

  private enqueue(step: () => Promise<void>) {
    this.chain = this.chain.then(async () => {
      if (this.chainError) return;
      try {
        await step();
      } catch (error) {
        this.chainError = error;
        this.abort.abort();
      }
    });
  }

  private async flush() {
    await this.chain;
    if (this.chainError) throw new PageDownloadError("transfers.error.write-failed");
  }

  private ticketUrl(renew: boolean): Promise<string> {
    if (renew || !this.url) {
      this.url = this.deps.ticket();
      this.url.catch(() => (this.url = null));
    }
    return this.url;
  }

  private async fetchPiece(piece: Piece): Promise<void> {
    const { record } = this;
    const { start } = piece;
    for (let attempt = 0; ; attempt += 1) {
      if (this.abort.signal.aborted) throw this.stopping ? new Stopped() : new PageDownloadError("transfers.error.network");
      piece.received = 0;
      piece.firstByteMs = null;
      this.inFlight.add(piece);
      // A split may move the piece's end down while the request runs: the reader stops there.
      const asked = piece.end;
      let response: Response;
      try {
        response = await fetch(await this.ticketUrl(false), {
          headers: { Range: `bytes=${start}-${asked - 1}` },
          cache: "no-store",
          credentials: "omit",
          signal: this.abort.signal,
        });
      } catch (error) {
        if (this.abort.signal.aborted || attempt >= RANGE_RETRY_MS.length) throw this.stopping ? new Stopped() : error instanceof PageDownloadError ? error : new PageDownloadError("transfers.error.network");
        await new Promise((r) => setTimeout(r, RANGE_RETRY_MS[attempt]));
        continue;
      }
      if (response.status === 410 && attempt < RANGE_RETRY_MS.length) {
        // The signed URL outlived its lifetime: ask the engine for another (all its checks again).
        await response.body?.cancel();
        await this.ticketUrl(true);
        continue;
      }
      if (response.status !== 206) {
        await response.body?.cancel();
        // 200: the engine no longer honours the range as asked; any other answer is a refusal.
        throw new PageDownloadError(response.status === 200 ? "transfers.error.file-changed" : "transfers.error.download-refused");
      }
      const etag = response.headers.get("etag");
      if (response.headers.get("content-range") !== `bytes ${start}-${asked - 1}/${record.size}` || (record.etag && etag !== record.etag)) {
        await response.body?.cancel();
        throw new PageDownloadError("transfers.error.file-changed");
      }
      record.etag ??= etag;
      try {
        await this.readInto(piece, asked, response);
        return;
      } catch (error) {
        // Not split while it waits (no rate), and it starts again from its first byte.
        piece.received = 0;
        piece.firstByteMs = null;
        if (error instanceof PageDownloadError || this.abort.signal.aborted || attempt >= RANGE_RETRY_MS.length) throw this.stopping ? new Stopped() : error instanceof PageDownloadError ? error : new PageDownloadError("transfers.error.network");
        await new Promise((r) => setTimeout(r, RANGE_RETRY_MS[attempt]));
      }
    }
  }

  /**
   * The response's bytes, written at their place in pieces of about WRITE_BYTES, up to the piece's
   * end: when a split moved it below `asked`, the rest is another request's and this one is cancelled there.
   */
  private async readInto(piece: Piece, asked: number, response: Response) {
    const { start } = piece;
    const reader = response.body!.getReader();
    let position = start;
    let pieces: Uint8Array[] = [];
    let gathered = 0;
    const write = () => {
      if (gathered === 0) return;
      const data = new Uint8Array(gathered);
      let at = 0;
      for (const part of pieces) {
        data.set(part, at);
        at += part.length;
      }
      const where = position;
      position += gathered;
      pieces = [];
      gathered = 0;
      this.enqueue(() => this.writable!.write({ type: "write", position: where, data }));
    };
    let received = 0;
    for (;;) {
      if (start + received >= piece.end && piece.end < asked) {
        // Split: the bytes from here on come with the other half's request.
        await reader.cancel().catch(() => undefined);
        break;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (this.chainError) throw new PageDownloadError("transfers.error.write-failed");
      if (start + received + value.length > asked) throw new PageDownloadError("transfers.error.file-changed");
      piece.firstByteMs ??= performance.now();
      const bytes = value.length > piece.end - (start + received) ? value.subarray(0, Math.max(0, piece.end - (start + received))) : value;
      received += bytes.length;
      piece.received = received;
      pieces.push(bytes);
      gathered += bytes.length;
      if (gathered >= WRITE_BYTES) write();
      this.report(this.ranges);
    }
    write();
    if (start + received !== piece.end) throw new Error("short range");
    this.inFlight.delete(piece);
    this.report(this.ranges);
  }

  /** Reads the saved file back in the hash worker and compares it with the engine's BLAKE3. */
  private async verify(): Promise<boolean | null> {
    const file = await this.record.handle.getFile();
    if (file.size !== this.record.size) throw new PageDownloadError("transfers.error.verify-failed");
    if (!this.record.hash) return null;
    const hash = await this.deps.hasher.hash(file, this.abort.signal);
    if (hash !== this.record.hash) throw new PageDownloadError("transfers.error.verify-failed");
    return true;
  }
}

export const isStopped = (error: unknown) => error instanceof Stopped;
