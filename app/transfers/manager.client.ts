import { DetailedError, Upload } from "tus-js-client";
import { ErrorCode, errorMessageKey, errorVars } from "../../contract/errors";
import { FILE_SERVER_PATHS, type SocketArgs, type SocketCommand, type SocketResults } from "../../contract/files";
import { chunkSize, isLoopback } from "./chunk-plan";
import { BatchUploads, type BatchFileInput } from "./batch-uploads.client";
import { ChunkedUpload } from "./chunked-upload.client";
import { uploadPath } from "./drop";
import { emitTransferEvent } from "./events";
import { forgetFile, keepFile, keptFiles } from "./file-handles.client";
import { wholeFileReader } from "./file-source";
import { HashCancelled, Hasher } from "./hasher.client";
import { chunkRanges, chunkSizeFor, PAGE_DOWNLOAD_MIN_BYTES, pageDownloadsSupported, readDownloadMode, wantsPageDownload } from "./page-download";
import { FolderTooLarge, walkFolder } from "./folder-download";
import {
  deleteFolderRecord,
  FolderDownload,
  type FolderDownloadRecord,
  folderDownloadsSupported,
  folderProgress,
  folderWritePermission,
  isFolderStopped,
  loadFolderRecords,
  pickFolderTarget,
  removeFolder,
  saveFolderRecord,
  walkOrRemove,
} from "./folder-download.client";
import { deleteRecord, isStopped, loadRecords, PageDownload, PageDownloadError, type PageDownloadRecord, pickSaveFile, removeSaved, saveRecord, writePermission } from "./parallel-download.client";
import { loadUploads, resumesInChunks, sameFile, updateUploads, type SavedUpload } from "./persist";
import { refusalOf, tooLarge } from "./refusals";
import type { TransferStore } from "./store";
import { TransferLocks } from "./transfer-locks.client";
import { TransferStatus, type DownloadTarget, type TransferItem, type UploadItem, type UploadTarget } from "./types";

const MIB = 1024 * 1024;
/**
 * Bytes per PATCH request, from the Transfer protocol's part size (MB; the engine refuses larger
 * bodies, 4209). 0: the whole file (or what is left of it) in one request. The engine keeps every
 * byte that arrived when a request breaks off, so a resume still starts from the server's offset,
 * not from a part boundary; and only a request of the whole file lets the browser send the File
 * from disk without copying it (file-source.ts). The cost: a proxy in front of the file server
 * must not limit request bodies (nginx: `client_max_body_size 0`, docs/file-server.md) — or the
 * administrator sets a part size under its limit.
 */
export const chunkBytes = (partMB: number) => (partMB > 0 ? partMB * MIB : Number.POSITIVE_INFINITY);
/** How long an upload the engine found busy (4210: the sign-in's other uploads hold every place) waits in the queue before it asks again. */
export const BUSY_RETRY_MS = 1500;
/** A batch file that landed as the connection broke has its hash recorded after its group: asked again after these waits. */
export const RECORD_WAITS_MS = [250, 500, 1000, 2000];
/** Back-off of automatic retries after a network drop (then the item fails and offers retry). */
export const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000, 20_000];

/** What the manager needs of the page's file-server connection (app/files/connection.client.ts). */
export interface Connection {
  readonly httpUrl: string;
  readonly token: string;
  href(url: string): string;
  cmd<C extends SocketCommand>(cmd: C, args: SocketArgs<C>): Promise<SocketResults[C]>;
}

export interface ManagerContext {
  connection: Connection;
  /** Signed-in account: the saved list of unfinished uploads is per account. */
  account: string;
  /** Largest file in bytes (TCPFileSizeLimit × 1024); 0 or less: no limit. */
  sizeLimit: number;
  /** Uploads running at once (parallelUploads); more wait in the queue. */
  parallel: number;
  /** MB per PATCH request (uploadPartMB); 0 the whole file. */
  partMB: number;
  /** Whether the browser hashes each file for the commit (cHashVerifySwitch); off, no hash worker runs. */
  hashCheck: boolean;
}

export interface UploadOptions {
  /** Files over the size limit fail without the desktop-client dialog (the page already said so). */
  quiet?: boolean;
  /** Small files of the pick (two or more) go many per request, `POST /uploads/batch`; share visitors send each by tus. */
  batch?: boolean;
}

interface Runner {
  abort(terminate: boolean): Promise<unknown>;
}

interface UploadJob {
  id: string;
  file: File | null;
  saved: SavedUpload;
  /** The running upload (tus for a small file, Ferry's parallel chunks for a large one); null when none runs. */
  tus: Runner | null;
  hashAbort: AbortController | null;
  hash: Promise<string> | null;
  /** The bytes are all on the server; only the commit is left (a retry after it failed on the way). */
  commitOnly: boolean;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const newId = () => (typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`);

export interface Failure {
  errorMsgKey: string;
  errorVars?: Record<string, string | number>;
}

/** What a tab tells the others of a download it writes (BroadcastChannel): failed, or (null) running again. */
interface WrittenOutcome {
  id: string;
  failed: Failure | null;
}

/** Variables of an engine message travel in its `data` (e.g. FileTooLarge's limit). */
/** The engine's code of a refusal (a socket reply's, or a tus error's envelope), or null. */
export function engineCode(error: unknown): number | null {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "number") return error.code;
  const body = error instanceof DetailedError ? error.originalResponse?.getBody() : undefined;
  if (!body) return null;
  try {
    const envelope = JSON.parse(body) as { code?: unknown };
    return typeof envelope.code === "number" ? envelope.code : null;
  } catch {
    return null;
  }
}

/** The failure's message: the engine's code (a socket reply, or a tus error whose body is the envelope), else a network failure. */
export function failureOf(error: unknown): Failure {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "number") {
    return { errorMsgKey: errorMessageKey(error.code), errorVars: errorVars("data" in error ? error.data : undefined) };
  }
  if (error instanceof DetailedError) {
    const body = error.originalResponse?.getBody();
    if (body) {
      try {
        const envelope = JSON.parse(body) as { code?: unknown; data?: unknown };
        if (typeof envelope.code === "number") return { errorMsgKey: errorMessageKey(envelope.code), errorVars: errorVars(envelope.data) };
      } catch {
        // Not the engine's envelope (a proxy's page): fall through.
      }
    }
    const status = error.originalResponse?.getStatus() ?? 0;
    if (status >= 500) return { errorMsgKey: errorMessageKey(ErrorCode.ServerError) };
  }
  return { errorMsgKey: "transfers.error.network" };
}


/**
 * Hands a signed URL to the browser's own download manager (progress shows there) in a hidden frame,
 * so the page itself never navigates: no "Leave site?" question, which would cancel the download
 * when answered "Stay", and the uploads of the page go on. The file server answers with
 * `Content-Disposition: attachment`, which turns the frame's load into a download. A `download`
 * link would do the same only on the page's own origin, and the file server has its own.
 * `onRefused` runs when the frame shows a page instead (the file server's refusal, as text).
 */
function saveAs(url: string, onRefused: () => void) {
  const frame = document.createElement("iframe");
  frame.hidden = true;
  frame.tabIndex = -1;
  frame.setAttribute("aria-hidden", "true");
  document.body.appendChild(frame);
  // Listened to after the frame's first about:blank, so only the URL's own answer counts.
  frame.addEventListener("load", () => {
    onRefused();
    frame.remove();
  });
  frame.src = url;
  // A download keeps going without its frame; the frame must only outlive the answer's headers
  // (a zip's folder walk comes first).
  setTimeout(() => frame.remove(), FRAME_LIFETIME_MS);
}
const FRAME_LIFETIME_MS = 10 * 60_000;

/**
 * Runs the page's transfers: uploads through tus (resumable; a few files at a time; a file of two
 * chunks or more as Ferry's parallel chunks, chunked-upload.client.ts; BLAKE3 of each file hashed in
 * a worker while it uploads, then `commit`), downloads through signed URLs. Unfinished
 * uploads are saved per account and resume after a reload from what the server holds.
 */
export class TransferManager {
  private readonly jobs = new Map<string, UploadJob>();
  /** Downloads the page writes itself, running or not (paused, restored, failed). */
  private readonly pageDownloads = new Map<string, { record: PageDownloadRecord; run: PageDownload | null; ended: Promise<void> }>();
  /** Folders the page writes itself into a directory the user picked (folder-download.client.ts). */
  private readonly folderDownloads = new Map<string, { record: FolderDownloadRecord; run: FolderDownload | null; ended: Promise<void> }>();
  private readonly hasher = new Hasher();
  /** Small files sent many per request (batch-uploads.client.ts); each running batch takes one of the parallel places. */
  private readonly batches: BatchUploads;
  private context: ManagerContext | null = null;
  private locks: TransferLocks | null = null;
  /** Tabs of this account tell each other how the downloads they write end (a row shown as running elsewhere follows). */
  private channel: BroadcastChannel | null = null;
  private readonly ready: Promise<ManagerContext>;
  private setReady!: (context: ManagerContext) => void;

  constructor(
    private readonly store: TransferStore,
    private readonly storage: Storage = window.localStorage,
  ) {
    this.ready = new Promise((resolve) => (this.setReady = resolve));
    this.batches = new BatchUploads(store, this.hasher, () => this.pump(), { retryDelays: RETRY_DELAYS_MS, busyRetryMs: BUSY_RETRY_MS, recordWaitsMs: RECORD_WAITS_MS });
  }

  /** Connects the manager to the page's file server; the first call restores the saved uploads. */
  attach(context: ManagerContext) {
    const first = this.context === null;
    this.context = context;
    if (first) this.locks = new TransferLocks(context.account);
    if (first && typeof BroadcastChannel !== "undefined") {
      this.channel = new BroadcastChannel(`ferry.transfers.${context.account}`);
      this.channel.onmessage = (event: MessageEvent<WrittenOutcome>) => this.followWritten(event.data);
    }
    this.setReady(context);
    if (first) {
      void this.restore(context);
      void this.restorePageDownloads(context);
      // The tab running an upload saves its progress and its failure: uploads shown as running there follow it.
      window.addEventListener("storage", (event) => {
        if (event.storageArea !== this.storage || !event.key?.startsWith("ferry.transfers.")) return;
        const saved = loadUploads(this.storage, context.account);
        for (const entry of saved) {
          if (this.store.get(entry.id)?.elsewhere) this.followElsewhere(entry);
        }
        this.dropGone(saved);
      });
    }
  }

  /**
   * Starts uploads. A file the engine would refuse whatever happens (refusals.ts) fails at once
   * without a request; one over the size limit also offers the desktop client (`size-overflow`),
   * unless `quiet` (the page already told the user, in its question about the rest of the batch).
   */
  async upload(items: UploadItem[], target: UploadTarget, { quiet = false, batch = false }: UploadOptions = {}) {
    const context = await this.ready;
    // Small files of a pick of several go in batches: no upload to create, resume or commit per file.
    // They are not saved for a reload (a reload asks first; picking the folder again with Skip sends the rest).
    // A file an upload saved before a reload waits for continues that upload (below), not a batch of its own.
    const waitingFor = (item: UploadItem, path: string) => [...this.jobs.values()].find((job) => !job.file && job.saved.groupId === target.groupId && job.saved.path === path && sameFile(job.saved, item.file));
    const small = batch ? items.filter((item) => !refusalOf(item, context.sizeLimit) && BatchUploads.fits(item.file, uploadPath(target.path, item), context.partMB) && !waitingFor(item, uploadPath(target.path, item))) : [];
    if (small.length >= 2) {
      const inputs: BatchFileInput[] = small.map((item) => ({ file: item.file, groupId: target.groupId, path: uploadPath(target.path, item), overwrite: item.overwrite === true }));
      const tops = new Set(small.map((item) => (item.relativePath.includes("/") ? item.relativePath.slice(0, item.relativePath.indexOf("/")) : "")));
      this.batches.add(inputs, tops.size === 1 && !tops.has("") ? [...tops][0]! : null, context);
      const sent = new Set(small);
      items = items.filter((item) => !sent.has(item));
    }
    for (const item of items) {
      const path = uploadPath(target.path, item);
      // The same file again for an upload that lost its file in a reload: continue that one.
      const waiting = waitingFor(item, path);
      if (waiting) {
        this.provideFile(waiting.id, item.file);
        continue;
      }
      const id = newId();
      const saved: SavedUpload = {
        id,
        groupId: target.groupId,
        path,
        name: item.file.name,
        size: item.file.size,
        lastModified: item.file.lastModified,
        type: item.file.type,
        uploadUrl: null,
        offset: 0,
        createTime: nowSeconds(),
        ...(item.overwrite ? { overwrite: true } : {}),
      };
      this.store.add(this.itemOf(saved, { queued: true }));
      const refusal = refusalOf(item, context.sizeLimit);
      if (refusal) {
        this.store.update(id, { status: TransferStatus.UploadFailed, queued: false, ...refusal });
        if (refusal.errorMsgKey === errorMessageKey(ErrorCode.FileTooLarge) && !quiet) emitTransferEvent({ type: "size-overflow", limit: context.sizeLimit });
        continue;
      }
      this.jobs.set(id, { id, file: item.file, saved, tus: null, hashAbort: null, hash: null, commitOnly: false });
      // Asked before the upload is saved, so another tab reading the list finds it taken.
      void this.locks?.claim(id);
      updateUploads(this.storage, context.account, (list) => [...list, saved]);
      void keepFile(id, context.account, item.file);
    }
    this.pump();
  }

  async download(target: DownloadTarget) {
    const { connection, sizeLimit } = await this.ready;
    const id = newId();
    this.store.add({ ...this.blank(id, "download", target.name), status: TransferStatus.WaitDownload });
    try {
      const attributes = await connection.cmd("attributes", { groupId: target.groupId, paths: target.paths });
      const size = attributes.file_size;
      if (sizeLimit > 0 && size > sizeLimit) {
        this.store.update(id, { status: TransferStatus.DownloadFailed, totalSize: size, ...tooLarge(sizeLimit) });
        emitTransferEvent({ type: "size-overflow", limit: sizeLimit });
        return;
      }
      const only = target.paths[0]!;
      if (target.paths.length === 1 && wantsPageDownload(size, target.isFile === true, readDownloadMode(), pageDownloadsSupported())) {
        if (await this.startPageDownload(id, target, only, size, attributes.hash ?? null)) return;
      }
      // A large folder, where the browser lets the page write into a directory: the page writes its tree.
      if (target.paths.length === 1 && target.isFolder === true && size >= PAGE_DOWNLOAD_MIN_BYTES && readDownloadMode() === "page" && folderDownloadsSupported()) {
        if (await this.startFolderDownload(id, target, only, size)) return;
      }
      const ticket = await connection.cmd("download", { groupId: target.groupId, paths: target.paths });
      saveAs(connection.href(ticket.url), () => this.store.update(id, { status: TransferStatus.DownloadFailed, errorMsgKey: "transfers.error.download-refused" }));
      // From here the browser's download manager moves (and shows) the bytes; the page cannot follow them.
      // The name is the one the file server saves it under (a zip's, too), so the panel and the disk agree.
      this.store.update(id, { name: ticket.name, status: TransferStatus.Downloaded, totalSize: size, currentSize: size });
    } catch (error) {
      this.store.update(id, { status: TransferStatus.DownloadFailed, ...failureOf(error) });
    }
  }

  /**
   * Writes a large file by the page: asks where to save it (the user's click still counts), then
   * runs the ranges. False when the browser refused the picker: its download manager takes over.
   */
  private async startPageDownload(id: string, target: DownloadTarget, path: string, size: number, hash: string | null): Promise<boolean> {
    const context = await this.ready;
    let handle: FileSystemFileHandle | null;
    try {
      handle = await pickSaveFile(target.name);
    } catch {
      return false;
    }
    if (!handle) {
      // The user closed the save dialog: nothing was asked for.
      this.store.remove(id);
      return true;
    }
    const record: PageDownloadRecord = {
      id,
      account: context.account,
      groupId: target.groupId,
      path,
      name: handle.name || target.name,
      size,
      hash,
      etag: null,
      chunk: chunkSizeFor(size),
      done: [],
      handle,
      createTime: nowSeconds(),
    };
    // Held before the record is saved, so another tab reading the saved downloads finds it taken.
    await this.locks?.claim(id);
    await saveRecord(record);
    this.pageDownloads.set(id, { record, run: null, ended: Promise.resolve() });
    this.store.update(id, { name: record.name, totalSize: size, pageWritten: true });
    this.runPageDownload(id);
    return true;
  }

  /**
   * Writes a folder by the page: asks for a directory (within the user's click), makes the folder
   * in it, walks the folder with `list`, then runs its files. False when the browser refused the
   * picker or the folder holds too many entries: the zip through the download manager takes over.
   */
  private async startFolderDownload(id: string, target: DownloadTarget, path: string, size: number): Promise<boolean> {
    const context = await this.ready;
    const name = path.replace(/\/$/, "").split("/").pop() || target.name;
    let handle: FileSystemDirectoryHandle | null;
    try {
      handle = await pickFolderTarget(name);
    } catch {
      return false;
    }
    if (!handle) {
      this.store.remove(id);
      return true;
    }
    this.store.update(id, { name, totalSize: size, pageWritten: true });
    let walk;
    try {
      // A listing that fails leaves no empty folder behind that would pass for a download.
      walk = await walkOrRemove(handle, () => walkFolder((folder) => context.connection.cmd("list", { groupId: target.groupId, path: folder }), path));
    } catch (error) {
      if (error instanceof FolderTooLarge) return false;
      // Nothing was written nor saved: the row fails with the listing's reason, with nothing to resume.
      this.store.update(id, { pageWritten: false });
      throw error;
    }
    const record: FolderDownloadRecord = {
      id,
      account: context.account,
      groupId: target.groupId,
      path,
      name,
      handle,
      folders: walk.folders,
      files: walk.files.map((file) => ({ ...file, hash: null, done: false, ranges: [] })),
      createTime: nowSeconds(),
    };
    await this.locks?.claim(id);
    await saveFolderRecord(record);
    this.folderDownloads.set(id, { record, run: null, ended: Promise.resolve() });
    this.store.update(id, { totalSize: walk.files.reduce((sum, file) => sum + file.size, 0), folder: folderRowOf(record) });
    this.runFolderDownload(id);
    return true;
  }

  private runFolderDownload(id: string) {
    const entry = this.folderDownloads.get(id);
    const context = this.context;
    if (!entry || entry.run || !context) return;
    const { record } = entry;
    const run = new FolderDownload(record, {
      hashOf: async (path) => (await context.connection.cmd("attributes", { groupId: record.groupId, paths: [path] })).hash ?? null,
      ticket: async (path) => context.connection.href((await context.connection.cmd("download", { groupId: record.groupId, paths: [path] })).url),
      progress: (progress) => {
        this.store.progress(id, progress.bytes);
        const folder = this.store.get(id)?.folder;
        if (!folder || folder.done !== progress.done || folder.refused.length !== progress.refused.length) this.store.update(id, { folder: { files: record.files.length, done: progress.done, refused: progress.refused } });
      },
      hasher: this.hasher,
    });
    entry.run = run;
    this.store.update(id, { status: TransferStatus.Downloading, paused: false, errorMsgKey: null, errorVars: undefined });
    if (record.failed) {
      record.failed = null;
      void saveFolderRecord(record);
    }
    this.announce({ id, failed: null });
    entry.ended = run.run().then(
      (verified) => {
        entry.run = null;
        this.folderDownloads.delete(id);
        void deleteFolderRecord(id).then(() => this.locks?.release(id));
        this.store.update(id, { status: TransferStatus.Downloaded, verified, folder: folderRowOf(record) });
      },
      (error: unknown) => {
        entry.run = null;
        if (isFolderStopped(error)) return;
        const failure = error instanceof PageDownloadError ? { errorMsgKey: error.errorMsgKey } : failureOf(error);
        this.store.update(id, { status: TransferStatus.DownloadFailed, ...failure, folder: folderRowOf(record) });
        // Saved with the run, so a tab opened later shows it failed here too.
        record.failed = failure;
        void saveFolderRecord(record);
        this.announce({ id, failed: failure });
      },
    );
  }

  /** A saved folder download in the panel: paused here (Resume), or running in another tab. */
  private showFolderDownload(record: FolderDownloadRecord, elsewhere: boolean) {
    if (!elsewhere) this.folderDownloads.set(record.id, { record, run: null, ended: Promise.resolve() });
    this.store.add({
      ...this.blank(record.id, "download", record.name),
      status: TransferStatus.Downloading,
      paused: !elsewhere,
      elsewhere,
      pageWritten: true,
      totalSize: record.files.reduce((sum, file) => sum + file.size, 0),
      currentSize: folderProgress(record.files).bytes,
      createTime: record.createTime,
      folder: folderRowOf(record),
      ...(elsewhere && record.failed ? { status: TransferStatus.DownloadFailed, errorMsgKey: record.failed.errorMsgKey, errorVars: record.failed.errorVars } : {}),
    });
  }

  private async takeOverFolderDownload(context: ManagerContext, id: string) {
    await this.takeOverWritten(id, loadFolderRecords(context.account), (record) => this.showFolderDownload(record, false));
  }

  private async resumeFolderDownload(id: string) {
    await this.resumeWritten(id, this.folderDownloads, folderWritePermission, () => this.runFolderDownload(id));
  }

  private runPageDownload(id: string) {
    const entry = this.pageDownloads.get(id);
    const context = this.context;
    if (!entry || entry.run || !context) return;
    const { record } = entry;
    const run = new PageDownload(record, {
      ticket: async () => context.connection.href((await context.connection.cmd("download", { groupId: record.groupId, paths: [record.path] })).url),
      progress: (bytes) => this.store.progress(id, bytes),
      hasher: this.hasher,
    });
    entry.run = run;
    this.store.update(id, { status: TransferStatus.Downloading, paused: false, errorMsgKey: null, errorVars: undefined, verifying: false });
    this.announce({ id, failed: null });
    // The bytes are all on disk when the hash is read back: the panel says so.
    const showVerifying = () => {
      if (this.store.get(id)?.status === TransferStatus.Downloading) this.store.update(id, { verifying: true, currentSize: record.size });
    };
    // A stopped run settles (commits or discards its writes) before the next one may start.
    entry.ended = run.run(showVerifying).then(
      (verified) => {
        entry.run = null;
        this.pageDownloads.delete(id);
        // A failed delete (storage gone) still frees the tab lock.
        void deleteRecord(id).catch(() => undefined).then(() => this.locks?.release(id));
        this.store.update(id, { status: TransferStatus.Downloaded, verifying: false, verified, currentSize: record.size });
      },
      (error: unknown) => {
        entry.run = null;
        if (isStopped(error)) return;
        const failure = error instanceof PageDownloadError ? { errorMsgKey: error.errorMsgKey } : failureOf(error);
        this.store.update(id, { status: TransferStatus.DownloadFailed, verifying: false, ...failure });
        this.announce({ id, failed: failure });
      },
    );
  }

  /**
   * After a reload: the page-written downloads of this account, offered to resume (the browser asks
   * again for write access). One another tab holds (transfer-locks.client.ts) shows as running
   * there; this page offers it once that tab lets it go.
   */
  private async restorePageDownloads(context: ManagerContext) {
    if (folderDownloadsSupported()) {
      for (const record of await loadFolderRecords(context.account)) {
        if (this.folderDownloads.has(record.id)) continue;
        const mine = (await this.locks?.claim(record.id)) ?? true;
        this.showFolderDownload(record, !mine);
        if (!mine) this.locks?.await(record.id, () => void this.takeOverFolderDownload(context, record.id));
      }
    }
    if (!pageDownloadsSupported()) return;
    for (const record of await loadRecords(context.account)) {
      if (this.pageDownloads.has(record.id)) continue;
      const mine = (await this.locks?.claim(record.id)) ?? true;
      this.showPageDownload(record, !mine);
      if (!mine) this.locks?.await(record.id, () => void this.takeOverPageDownload(context, record.id));
    }
  }

  /** A saved page-written download in the panel: paused here (Resume), or running in another tab (no actions). */
  private showPageDownload(record: PageDownloadRecord, elsewhere: boolean) {
    if (!elsewhere) this.pageDownloads.set(record.id, { record, run: null, ended: Promise.resolve() });
    const ranges = chunkRanges(record.size, record.chunk);
    const bytes = record.done.reduce((sum, i) => sum + (ranges[i] ? ranges[i][1] - ranges[i][0] : 0), 0);
    this.store.add({
      ...this.blank(record.id, "download", record.name),
      status: TransferStatus.Downloading,
      paused: !elsewhere,
      elsewhere,
      pageWritten: true,
      totalSize: record.size,
      currentSize: bytes,
      createTime: record.createTime,
    });
  }

  /** Tells the account's other tabs how a download this tab writes stands: failed (with why), or running again. */
  private announce(outcome: WrittenOutcome) {
    try {
      this.channel?.postMessage(outcome);
    } catch {
      // A closed channel (the page is going): the other tabs take the download over anyway.
    }
  }

  /** Another tab's download, shown here as running there: failed there, or running there again. */
  private followWritten(outcome: WrittenOutcome) {
    const item = this.store.get(outcome.id);
    if (!item?.elsewhere || item.kind !== "download") return;
    if (outcome.failed) this.store.update(outcome.id, { status: TransferStatus.DownloadFailed, errorMsgKey: outcome.failed.errorMsgKey, errorVars: outcome.failed.errorVars });
    else if (item.status === TransferStatus.DownloadFailed) this.store.update(outcome.id, { status: TransferStatus.Downloading, errorMsgKey: null, errorVars: undefined });
  }

  /** The tab that held page download `id` let it go: offer it here from what it committed, if still unfinished. */
  private async takeOverPageDownload(context: ManagerContext, id: string) {
    await this.takeOverWritten(id, loadRecords(context.account), (record) => this.showPageDownload(record, false));
  }

  /** Resumes (or retries) a page-written download; the write permission is asked within the user's click. */
  private async resumePageDownload(id: string) {
    await this.resumeWritten(id, this.pageDownloads, writePermission, () => this.runPageDownload(id));
  }

  /**
   * Cancels a download written by the page (a file or a folder): once its run has let go, its saved
   * record goes, the tab lock is freed (even if that delete fails) and what was written is removed:
   * a part of a file or folder is nothing anyone asked for.
   */
  private cancelWritten<H>(
    id: string,
    entries: Map<string, { ended: Promise<unknown>; run: { stop(reason: "cancel"): void } | null; record: { handle: H } }>,
    deleteSaved: (id: string) => Promise<unknown>,
    removeWritten: (handle: H) => Promise<unknown>,
  ) {
    const entry = entries.get(id);
    if (!entry) return;
    entry.run?.stop("cancel");
    entries.delete(id);
    void entry.ended.then(async () => {
      await deleteSaved(id).catch(() => undefined);
      this.locks?.release(id);
      await removeWritten(entry.record.handle);
    });
  }

  /** Another tab let download `id` (a file or a folder written by the page) go: offer it here from what it saved, if still unfinished. */
  private async takeOverWritten<R extends { id: string }>(id: string, records: Promise<R[]>, show: (record: R) => void) {
    const record = (await records).find((saved) => saved.id === id);
    if (!record) {
      // Finished or cancelled there.
      this.locks?.release(id);
      this.store.remove(id);
      return;
    }
    show(record);
  }

  /** Resumes a download written by the page once its last run has ended, if the user grants writing to its file or folder again. */
  private async resumeWritten<H>(
    id: string,
    entries: Map<string, { ended: Promise<unknown>; run: unknown; record: { handle: H } }>,
    permission: (handle: H, ask: boolean) => Promise<boolean>,
    run: () => void,
  ) {
    const entry = entries.get(id);
    if (!entry) return;
    await entry.ended;
    if (entry.run || !entries.has(id)) return;
    let allowed = false;
    try {
      allowed = await permission(entry.record.handle, true);
    } catch {
      allowed = false;
    }
    if (!allowed) {
      this.store.update(id, { status: TransferStatus.DownloadFailed, paused: false, errorMsgKey: "transfers.error.no-write-permission" });
      return;
    }
    run();
  }

  pause(id: string) {
    const download = this.pageDownloads.get(id) ?? this.folderDownloads.get(id);
    if (download) {
      download.run?.stop("pause");
      this.store.update(id, { paused: true, verifying: false });
      return;
    }
    const job = this.jobs.get(id);
    const item = this.store.get(id);
    if (!job || item?.status !== TransferStatus.Uploading || item.paused) return;
    this.stopRunning(job, false);
    this.store.update(id, { paused: true, queued: false });
    this.pump();
  }

  resume(id: string) {
    if (this.folderDownloads.has(id)) {
      void this.resumeFolderDownload(id);
      return;
    }
    if (this.pageDownloads.has(id)) {
      void this.resumePageDownload(id);
      return;
    }
    const job = this.jobs.get(id);
    const item = this.store.get(id);
    if (!job || !item?.paused || !job.file) return;
    this.store.update(id, { paused: false, queued: true });
    this.pump();
  }

  retry(id: string) {
    if (this.batches.owns(id)) {
      if (this.context) void this.batches.retry(id, this.context);
      return;
    }
    if (this.pageDownloads.has(id)) {
      if (this.store.get(id)?.status === TransferStatus.DownloadFailed) void this.resumePageDownload(id);
      return;
    }
    if (this.folderDownloads.has(id)) {
      if (this.store.get(id)?.status === TransferStatus.DownloadFailed) void this.resumeFolderDownload(id);
      return;
    }
    const job = this.jobs.get(id);
    if (!job?.file || this.store.get(id)?.status !== TransferStatus.UploadFailed) return;
    this.store.update(id, { status: TransferStatus.Uploading, errorMsgKey: null, errorVars: undefined, queued: true, paused: false });
    this.pump();
  }

  /** The user picked the file of an upload restored without it; a different file is refused. */
  provideFile(id: string, file: File): boolean {
    const job = this.jobs.get(id);
    if (!job || job.file || !sameFile(job.saved, file)) return false;
    job.file = file;
    if (this.context) void keepFile(id, this.context.account, file);
    this.store.update(id, { needsFile: false, paused: false, queued: true });
    this.pump();
    return true;
  }

  /** Stops an upload and deletes what the server holds of it; for a finished item, removes it from the list. */
  cancel(id: string) {
    if (this.batches.owns(id)) {
      this.batches.cancel(id);
      this.pump();
      return;
    }
    this.cancelWritten(id, this.folderDownloads, deleteFolderRecord, removeFolder);
    this.cancelWritten(id, this.pageDownloads, deleteRecord, removeSaved);
    const job = this.jobs.get(id);
    if (job) {
      // A running upload deletes what the engine holds as it stops; else the saved URL is deleted here.
      const running = job.tus !== null;
      this.stopRunning(job, true);
      if (!running && job.saved.uploadUrl && this.context) {
        void Upload.terminate(job.saved.uploadUrl, { headers: this.headers(this.context) }).catch(() => undefined);
      }
      this.forget(job);
    }
    this.store.remove(id);
    this.pump();
  }

  /** Removes a finished or failed item from the list (a failed upload's bytes on the server go too). */
  clear(id: string) {
    if (this.batches.owns(id)) {
      this.batches.clear(id);
      return;
    }
    const status = this.store.get(id)?.status;
    if (status === TransferStatus.Uploading || status === TransferStatus.ServerChecking) return;
    if (status === TransferStatus.DownloadFailed && this.folderDownloads.has(id)) {
      // A failed folder keeps what it wrote (finished files are whole and checked); its saved run goes.
      this.folderDownloads.delete(id);
      void deleteFolderRecord(id).then(() => this.locks?.release(id));
      this.store.remove(id);
      return;
    }
    if (status === TransferStatus.DownloadFailed && this.pageDownloads.has(id)) {
      // Removing a failed page-written download removes its unfinished file too.
      void removeSaved(this.pageDownloads.get(id)!.record.handle);
      this.pageDownloads.delete(id);
      // A failed delete (storage gone) still frees the tab lock.
      void deleteRecord(id).catch(() => undefined).then(() => this.locks?.release(id));
      this.store.remove(id);
      return;
    }
    this.cancel(id);
  }

  /**
   * Shows the account's saved uploads again and resumes those whose file the browser kept. An upload
   * another tab is working on (transfer-locks.client.ts) is shown as running there and left to it;
   * this page takes it over if that tab goes first.
   */
  private async restore(context: ManagerContext) {
    const saved = loadUploads(this.storage, context.account);
    const claims = await Promise.all(saved.map((entry) => this.locks?.claim(entry.id) ?? Promise.resolve(true)));
    const mine = saved.filter((_entry, i) => claims[i]);
    for (const entry of saved) {
      if (mine.includes(entry)) continue;
      this.store.add(this.itemOf(entry, { elsewhere: true, currentSize: entry.offset }));
      this.followElsewhere(entry);
      this.locks?.await(entry.id, () => void this.takeOver(context, entry.id));
    }
    await this.adopt(context, mine);
  }

  /** An upload another tab runs, as that tab last saved it: its bytes, or its failure (Retry is that tab's). */
  private followElsewhere(entry: SavedUpload) {
    const item = this.store.get(entry.id);
    if (!item?.elsewhere) return;
    if (entry.failed) {
      if (item.status !== TransferStatus.UploadFailed || item.errorMsgKey !== entry.failed.errorMsgKey) {
        this.store.update(entry.id, { status: TransferStatus.UploadFailed, errorMsgKey: entry.failed.errorMsgKey, errorVars: entry.failed.errorVars, currentSize: entry.offset });
      }
      return;
    }
    if (item.status === TransferStatus.UploadFailed) this.store.update(entry.id, { status: TransferStatus.Uploading, errorMsgKey: null, errorVars: undefined });
    this.store.progress(entry.id, entry.offset);
  }

  /**
   * Uploads the other tab removed or finished leave this list too: a row shown as running there, or
   * one taken over from it and not running here. The lock can reach this tab before the other tab's
   * change of the saved list does (localStorage reaches other tabs later), so takeOver may have read
   * the upload as still saved.
   */
  private dropGone(saved: readonly SavedUpload[]) {
    const kept = new Set(saved.map((entry) => entry.id));
    for (const item of this.store.getSnapshot()) {
      if (item.kind !== "upload" || kept.has(item.id)) continue;
      const job = this.jobs.get(item.id);
      if (!item.elsewhere && !(job && !job.file && !job.tus)) continue;
      this.jobs.delete(item.id);
      this.locks?.release(item.id);
      this.store.remove(item.id);
    }
  }

  /** The tab that held upload `id` let it go: continue it here if it is still unfinished. */
  private async takeOver(context: ManagerContext, id: string) {
    const entry = loadUploads(this.storage, context.account).find((saved) => saved.id === id);
    if (!entry || this.jobs.has(id)) {
      if (!this.jobs.has(id)) {
        // Finished or cancelled there.
        this.locks?.release(id);
        this.store.remove(id);
      }
      return;
    }
    await this.adopt(context, [entry]);
  }

  private async adopt(context: ManagerContext, entries: SavedUpload[]) {
    for (const entry of entries) {
      this.jobs.set(entry.id, { id: entry.id, file: null, saved: entry, tus: null, hashAbort: null, hash: null, commitOnly: false });
      this.store.add(this.itemOf(entry, { paused: true, needsFile: true, currentSize: entry.offset }));
    }
    const ids = new Set(entries.map((entry) => entry.id));
    // Kept files of uploads still saved stay (other tabs' uploads among them); the list is read at
    // each check, because another tab saves a new upload before it keeps its file.
    const stillSaved = (id: string) => loadUploads(this.storage, context.account).some((saved) => saved.id === id);
    const files = await keptFiles(context.account, (id) => ids.has(id) || stillSaved(id));
    for (const [id, file] of files) if (ids.has(id)) this.provideFile(id, file);
  }

  private pump() {
    const context = this.context;
    if (!context) return;
    let running = [...this.jobs.values()].filter((job) => job.tus !== null || this.store.get(job.id)?.status === TransferStatus.ServerChecking).length + this.batches.running();
    running += this.batches.pump(Math.max(1, context.parallel) - running, context);
    for (const item of this.store.getSnapshot()) {
      if (running >= Math.max(1, context.parallel)) break;
      if (item.kind !== "upload" || !item.queued) continue;
      const job = this.jobs.get(item.id);
      if (!job?.file) continue;
      running += 1;
      this.store.update(job.id, { queued: false });
      this.start(job, job.file, context);
    }
  }

  /** Hashes the file in a worker while it uploads; the commit awaits it. */
  private startHash(job: UploadJob, file: File) {
    job.hashAbort = new AbortController();
    job.hash = this.hasher.hash(file, job.hashAbort.signal);
    // A failure is reported at commit; until then nobody awaits the hash.
    job.hash.catch(() => undefined);
  }

  private start(job: UploadJob, file: File, context: ManagerContext) {
    if (job.saved.failed) {
      // Running again: other tabs show it running, not failed.
      const { failed: _failed, ...running } = job.saved;
      job.saved = running;
      this.save(job, context);
    }
    // The hash check off: the engine compares nothing, so the browser spends no CPU on a hash.
    if (context.hashCheck) this.startHash(job, file);
    else {
      job.hashAbort = null;
      job.hash = null;
    }
    if (job.commitOnly) {
      void this.commit(job, context);
      return;
    }
    if (resumesInChunks(job.saved, file.size, chunkSize(context.partMB))) {
      this.startChunks(job, file, context);
      return;
    }
    const upload = new Upload(file, {
      endpoint: context.connection.href(FILE_SERVER_PATHS.uploads),
      uploadUrl: job.saved.uploadUrl,
      headers: this.headers(context),
      metadata: { groupId: String(job.saved.groupId), path: job.saved.path, overwrite: job.saved.overwrite ? "1" : "0", filetype: file.type },
      chunkSize: chunkBytes(context.partMB),
      fileReader: wholeFileReader,
      retryDelays: RETRY_DELAYS_MS,
      // The manager keeps its own list (persist.ts); tus-js-client's would duplicate it.
      storeFingerprintForResuming: false,
      onUploadUrlAvailable: () => {
        job.saved = { ...job.saved, uploadUrl: upload.url };
        this.save(job, context);
      },
      onProgress: (sent) => this.store.progress(job.id, sent),
      onChunkComplete: (_size, accepted) => {
        job.saved = { ...job.saved, offset: accepted };
        this.save(job, context);
      },
      onSuccess: () => {
        job.tus = null;
        void this.commit(job, context);
      },
      onError: (error) => this.failed(job, context, error),
    });
    job.tus = upload;
    upload.start();
  }

  /** A large file: Ferry's parallel chunks (chunked-upload.client.ts); the hash worker goes on alongside. */
  private startChunks(job: UploadJob, file: File, context: ManagerContext) {
    const endpoint = context.connection.href(FILE_SERVER_PATHS.uploads);
    const upload = new ChunkedUpload({
      file,
      uploadUrl: job.saved.uploadUrl,
      endpoint,
      token: context.connection.token,
      metadata: { groupId: String(job.saved.groupId), path: job.saved.path, overwrite: job.saved.overwrite ? "1" : "0", filetype: file.type },
      partMB: context.partMB,
      loopback: isLoopback(new URL(endpoint, window.location.href).hostname),
      retryDelays: RETRY_DELAYS_MS,
      onUploadUrl: (url) => {
        job.saved = { ...job.saved, uploadUrl: url, chunked: true };
        this.save(job, context);
      },
      onProgress: (bytes) => this.store.progress(job.id, bytes),
      onStored: (bytes) => {
        job.saved = { ...job.saved, offset: bytes };
        this.save(job, context);
      },
      onSuccess: () => {
        if (job.tus !== upload) return;
        job.tus = null;
        void this.commit(job, context);
      },
      onError: (error) => {
        if (job.tus !== upload) return;
        this.failed(job, context, error);
      },
    });
    job.tus = upload;
    upload.start();
  }

  /** A running upload stopped on an error: follow a changed setting, wait for a place, or fail. */
  private failed(job: UploadJob, context: ManagerContext, error: unknown) {
    job.tus = null;
    const failure = failureOf(error);
    const code = engineCode(error);
    // The administrator changed the protocol settings since the page loaded: follow the
    // engine's and carry on from the bytes it stored (nothing of the refused request was kept).
    if (code === ErrorCode.UploadPartTooLarge && Number(failure.errorVars?.limit) > 0) {
      context.partMB = Math.max(1, Math.floor(Number(failure.errorVars?.limit) / MIB));
      this.requeue(job, 0);
      return;
    }
    if (code === ErrorCode.UploadsBusy || code === ErrorCode.UploadMemoryFull) {
      // Another page of this sign-in holds the engine's places, or the engine's upload memory is
      // full (uploads into object storage): wait in the queue, ask again.
      this.requeue(job, BUSY_RETRY_MS);
      return;
    }
    // The engine's limit may be lower than the page knew (changed since it loaded).
    if (failure.errorMsgKey === errorMessageKey(ErrorCode.FileTooLarge)) {
      emitTransferEvent({ type: "size-overflow", limit: Number(failure.errorVars?.limit ?? context.sizeLimit) });
    }
    this.fail(job, failure);
  }

  private async commit(job: UploadJob, context: ManagerContext) {
    this.store.update(job.id, { status: TransferStatus.ServerChecking, currentSize: job.saved.size });
    const uploadUrl = job.saved.uploadUrl ?? "";
    try {
      const uploadId = decodeURIComponent(new URL(uploadUrl, context.connection.httpUrl).pathname.split("/").filter(Boolean).pop() ?? "");
      let result: SocketResults["commit"];
      try {
        result = await context.connection.cmd("commit", job.hash ? { uploadId, hash: await job.hash } : { uploadId });
      } catch (error) {
        // The hash check was turned on since the page loaded (401): hash the file now and commit again.
        if (job.hash || !job.file || engineCode(error) !== ErrorCode.BadRequired) throw error;
        context.hashCheck = true;
        this.startHash(job, job.file);
        result = await context.connection.cmd("commit", { uploadId, hash: await job.hash! });
      }
      this.forget(job);
      this.store.update(job.id, { status: TransferStatus.Uploaded, currentSize: result.size, totalSize: result.size });
      emitTransferEvent({ type: "upload-committed", groupId: job.saved.groupId, path: result.path });
    } catch (error) {
      if (error instanceof HashCancelled) return;
      // A dropped socket left the bytes in place: retrying only commits. Any refusal (hash mismatch,
      // path taken, no permission) starts the upload again from the first byte on retry.
      job.commitOnly = error instanceof Error && "code" in error && error.code === ErrorCode.Disconnected;
      if (!job.commitOnly) {
        // A new upload from the first byte: chunks or one stream as the plan says then.
        const { chunked: _chunked, ...fresh } = job.saved;
        job.saved = { ...fresh, uploadUrl: null, offset: 0 };
        this.save(job, context);
      }
      this.fail(job, failureOf(error));
    } finally {
      this.pump();
    }
  }

  /** Puts a started upload back in the queue; it starts again (from the server's offset) after `delayMs`. */
  private requeue(job: UploadJob, delayMs: number) {
    job.hashAbort?.abort();
    job.hashAbort = null;
    job.hash = null;
    this.store.update(job.id, { queued: delayMs === 0 });
    if (delayMs === 0) {
      this.pump();
      return;
    }
    this.pump();
    setTimeout(() => {
      const item = this.store.get(job.id);
      if (!this.jobs.has(job.id) || job.tus || item?.status !== TransferStatus.Uploading || item.paused) return;
      this.store.update(job.id, { queued: true });
      this.pump();
    }, delayMs);
  }

  private fail(job: UploadJob, failure: Failure) {
    job.hashAbort?.abort();
    // Saved with its reason, so another tab showing it as running here shows the failure.
    job.saved = { ...job.saved, failed: { errorMsgKey: failure.errorMsgKey, ...(failure.errorVars ? { errorVars: failure.errorVars } : {}) } };
    if (this.context) this.save(job, this.context);
    this.store.update(job.id, { status: TransferStatus.UploadFailed, errorVars: undefined, ...failure, queued: false });
    this.pump();
  }

  private stopRunning(job: UploadJob, terminate: boolean) {
    job.hashAbort?.abort();
    job.hashAbort = null;
    job.hash = null;
    const tus = job.tus;
    job.tus = null;
    if (tus) void tus.abort(terminate).catch(() => undefined);
  }

  private forget(job: UploadJob) {
    this.jobs.delete(job.id);
    void forgetFile(job.id);
    if (this.context) updateUploads(this.storage, this.context.account, (list) => list.filter((entry) => entry.id !== job.id));
    this.locks?.release(job.id);
  }

  private save(job: UploadJob, context: ManagerContext) {
    updateUploads(this.storage, context.account, (list) => list.map((entry) => (entry.id === job.id ? job.saved : entry)));
  }

  private headers(context: ManagerContext) {
    return { Authorization: `Bearer ${context.connection.token}` };
  }

  private itemOf(saved: SavedUpload, patch: Partial<TransferItem>): TransferItem {
    // The name it gets at the target: the file's own, or the "keep both" name ("a (1).txt").
    return { ...this.blank(saved.id, "upload", saved.path.split("/").pop() || saved.name), totalSize: saved.size, createTime: saved.createTime, ...patch };
  }

  private blank(id: string, kind: TransferItem["kind"], name: string): TransferItem {
    return {
      id,
      kind,
      name,
      status: kind === "upload" ? TransferStatus.Uploading : TransferStatus.WaitDownload,
      currentSize: 0,
      totalSize: -1,
      createTime: nowSeconds(),
      errorMsgKey: null,
      speed: 0,
      queued: false,
      paused: false,
      needsFile: false,
    };
  }
}

/** The folder row's counts: files in all, done (refused ones included), and each refused file with its reason. */
function folderRowOf(record: FolderDownloadRecord): NonNullable<TransferItem["folder"]> {
  const progress = folderProgress(record.files);
  return { files: record.files.length, done: progress.done, refused: progress.refused };
}
