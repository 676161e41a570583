import { ErrorCode, errorByCode, errorMessageKey, errorVars } from "../../contract/errors";
import type { Hasher } from "./hasher.client";
import { folderBytes, isLargeFile, nextFiles, resumeRanges, type FolderFileState } from "./folder-download";
import { idbStore } from "./idb-store.client";
import { isStopped, PageDownload, PageDownloadError, type PageDownloadRecord } from "./parallel-download.client";

/**
 * A folder written by the page into a directory the user picks (issue 16; docs/web.md, "Folders
 * written by the page"): its sub-folders are made, its large files come through the parallel
 * ranged PageDownload, its small ones in one GET each (a few at a time), each file checked
 * against its BLAKE3. The run is saved in IndexedDB (the directory handle and each file's state),
 * so a reload resumes it: finished files are skipped, a partly written large file continues from
 * its committed ranges. A file the engine refuses, or that does not match, is listed in the row and
 * the rest goes on.
 */

interface PermissionDirectory extends FileSystemDirectoryHandle {
  queryPermission?(options: { mode: "readwrite" }): Promise<PermissionState>;
  requestPermission?(options: { mode: "readwrite" }): Promise<PermissionState>;
  remove?(options?: { recursive?: boolean }): Promise<void>;
}
type DirectoryPicker = (options: { mode: "readwrite"; id?: string }) => Promise<FileSystemDirectoryHandle>;

/** Whether this browser lets a page write into a directory the user picks (Chromium). */
export const folderDownloadsSupported = () => typeof window !== "undefined" && typeof (window as { showDirectoryPicker?: unknown }).showDirectoryPicker === "function";

/** Folder names tried beside one of the same name ("album (1)" … "album (99)"). */
const FREE_NAME_TRIES = 100;

/**
 * Asks the user for a directory, then makes the folder `name` in it; null when they cancelled. A
 * folder of that name already there is left alone: the new one is "name (1)" (the first free), so
 * that removing what the page wrote (Cancel, a failed listing) never touches the user's own files.
 */
export async function pickFolderTarget(name: string): Promise<FileSystemDirectoryHandle | null> {
  const picker = (window as unknown as { showDirectoryPicker: DirectoryPicker }).showDirectoryPicker;
  let parent: FileSystemDirectoryHandle;
  try {
    parent = await picker({ mode: "readwrite", id: "ferry-folder-downloads" });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") return null;
    throw error;
  }
  return makeFreeFolder(parent, name);
}

/** Makes a new folder `name` in `parent`, or "name (n)" with the first n free. */
export async function makeFreeFolder(parent: FileSystemDirectoryHandle, name: string): Promise<FileSystemDirectoryHandle> {
  for (let n = 0; n < FREE_NAME_TRIES; n += 1) {
    const candidate = n === 0 ? name : `${name} (${n})`;
    const taken = await parent.getDirectoryHandle(candidate).then(
      () => true,
      (error: unknown) => {
        // Free; or a file of that name is in the way.
        if (error instanceof DOMException && error.name === "NotFoundError") return false;
        if (error instanceof DOMException && error.name === "TypeMismatchError") return true;
        throw error;
      },
    );
    if (!taken) return parent.getDirectoryHandle(candidate, { create: true });
  }
  throw new FolderDownloadError("transfers.error.write-failed");
}

/**
 * Lists the folder to download (`walk`) into the folder the page just made (`handle`); when the
 * listing fails (the network, a refusal, too many entries) that folder, still empty, is removed, so
 * nothing is left on disk that looks like a download.
 */
export async function walkOrRemove<T>(handle: FileSystemDirectoryHandle, walk: () => Promise<T>): Promise<T> {
  try {
    return await walk();
  } catch (error) {
    await removeFolder(handle);
    throw error;
  }
}

export async function folderWritePermission(handle: FileSystemDirectoryHandle, ask: boolean): Promise<boolean> {
  const h = handle as PermissionDirectory;
  if (!h.queryPermission) return true;
  if ((await h.queryPermission({ mode: "readwrite" })) === "granted") return true;
  return ask && !!h.requestPermission && (await h.requestPermission({ mode: "readwrite" })) === "granted";
}

/** Removes the folder written so far (a cancelled download); where the browser cannot, it stays. */
export async function removeFolder(handle: FileSystemDirectoryHandle): Promise<void> {
  await (handle as PermissionDirectory).remove?.({ recursive: true }).catch(() => undefined);
}

/** What survives a reload. */
export interface FolderDownloadRecord {
  id: string;
  account: string;
  groupId: number;
  /** The folder's path in its space. */
  path: string;
  name: string;
  /** The folder made in the directory the user picked. */
  handle: FileSystemDirectoryHandle;
  folders: string[];
  files: FolderFileState[];
  createTime: number;
  /** The run failed in the tab that ran it (other tabs show why until it runs again). */
  failed?: { errorMsgKey: string; errorVars?: Record<string, string | number> } | null;
}

const inStore = idbStore("ferry-folder-downloads", "folders");

export async function saveFolderRecord(record: FolderDownloadRecord): Promise<void> {
  await inStore("readwrite", (store) => store.put(record)).catch(() => undefined);
}

export async function deleteFolderRecord(id: string): Promise<void> {
  await inStore("readwrite", (store) => store.delete(id)).catch(() => undefined);
}

export async function loadFolderRecords(account: string): Promise<FolderDownloadRecord[]> {
  if (typeof indexedDB === "undefined") return [];
  const all = await inStore("readonly", (store) => store.getAll() as IDBRequest<FolderDownloadRecord[]>).catch(() => []);
  return all.filter((record) => record.account === account);
}

/** Where the folder's progress stands, for its row. */
export interface FolderProgress {
  bytes: number;
  done: number;
  refused: { name: string; errorMsgKey: string; errorVars?: Record<string, string | number> }[];
}

export function folderProgress(files: readonly FolderFileState[], inFlight = 0): FolderProgress {
  return {
    bytes: folderBytes(files) + inFlight,
    done: files.filter((file) => file.done).length,
    refused: files.filter((file) => file.failed).map((file) => ({ name: file.relative, errorMsgKey: file.failed!, ...(file.failedVars ? { errorVars: file.failedVars } : {}) })),
  };
}

export interface FolderDownloadDeps {
  /** The engine's BLAKE3 of one file of the folder (`attributes`), null when none is recorded. */
  hashOf(path: string): Promise<string | null>;
  /** A fresh signed URL of one file of the folder (absolute). */
  ticket(path: string): Promise<string>;
  progress(progress: FolderProgress): void;
  hasher: Hasher;
}

class Stopped extends Error {}
/** A failure of the whole run (the network, the disk): the row fails and Retry resumes it. */
export class FolderDownloadError extends PageDownloadError {}
/** The engine refused one file of the folder (its `attributes` or its ticket): listed with the engine's reason, the rest goes on. */
class FileRefused extends PageDownloadError {
  constructor(
    errorMsgKey: string,
    readonly errorVars?: Record<string, string | number>,
  ) {
    super(errorMsgKey);
  }
}

/**
 * What an engine's answer to a socket command about one file of the folder means: a refusal of
 * that file (a 4xx code: forbidden, filtered, gone), or, for the connection dropping or a server
 * error (a 5xx code, or no code), a failure of the folder's run, which Retry resumes.
 */
export function refusalOfFile(error: unknown): FileRefused | FolderDownloadError {
  const code = error && typeof error === "object" && "code" in error && typeof error.code === "number" ? error.code : null;
  const status = code === null ? 500 : (errorByCode(code)?.status ?? 400);
  if (status >= 500) return new FolderDownloadError("transfers.error.network");
  // The file filter skips the file: said as for an upload it skips (the engine's message repeats the name).
  if (code === ErrorCode.FileFiltered) return new FileRefused("transfers.skipped-by-filter");
  return new FileRefused(errorMessageKey(code!), errorVars((error as { data?: unknown }).data));
}

/** Saves of the record after small files, at most this often (each save writes the whole record). */
const SAVE_EVERY_MS = 1000;

export class FolderDownload {
  private readonly abort = new AbortController();
  private stopping: "pause" | "cancel" | null = null;
  private large: PageDownload | null = null;
  private readonly inFlight = new Map<string, number>();
  private readonly dirs = new Map<string, Promise<FileSystemDirectoryHandle>>();
  private lastSave = 0;

  constructor(
    readonly record: FolderDownloadRecord,
    private readonly deps: FolderDownloadDeps,
  ) {}

  stop(how: "pause" | "cancel") {
    this.stopping = how;
    this.abort.abort();
    this.large?.stop(how);
  }

  /** Resolves with true when every file matched its BLAKE3, null when some had none to check (and none failed). */
  async run(): Promise<boolean | null> {
    const { record } = this;
    this.report();
    try {
      for (const folder of record.folders) await this.dir(folder);
      const running = new Map<string, Promise<void>>();
      for (;;) {
        if (this.stopping) throw new Stopped();
        for (const file of nextFiles(record.files, new Set(running.keys()))) {
          running.set(
            file.relative,
            this.runFile(file).finally(() => running.delete(file.relative)),
          );
        }
        if (running.size === 0) break;
        try {
          await Promise.race(running.values());
        } catch (error) {
          this.abort.abort();
          this.large?.stop(this.stopping ?? "pause");
          await Promise.allSettled(running.values());
          throw error;
        }
      }
      await saveFolderRecord(record);
      if (record.files.some((file) => file.failed)) return false;
      return record.files.some((file) => file.unverified) ? null : true;
    } catch (error) {
      await saveFolderRecord(record);
      if (this.stopping || isStopped(error) || error instanceof Stopped) throw new Stopped();
      throw error instanceof PageDownloadError ? error : new FolderDownloadError("transfers.error.network");
    }
  }

  private report() {
    let inFlight = 0;
    for (const bytes of this.inFlight.values()) inFlight += bytes;
    this.deps.progress(folderProgress(this.record.files, inFlight));
  }

  private async save(force: boolean) {
    const now = Date.now();
    if (!force && now - this.lastSave < SAVE_EVERY_MS) return;
    this.lastSave = now;
    await saveFolderRecord(this.record);
  }

  /** The directory of `relative` ("a/b"), made with its parents when missing. */
  private dir(relative: string): Promise<FileSystemDirectoryHandle> {
    if (!relative) return Promise.resolve(this.record.handle);
    let known = this.dirs.get(relative);
    if (!known) {
      const at = relative.lastIndexOf("/");
      const parent = at < 0 ? "" : relative.slice(0, at);
      const name = relative.slice(at + 1);
      known = this.dir(parent).then((handle) => handle.getDirectoryHandle(name, { create: true }));
      this.dirs.set(relative, known);
    }
    return known;
  }

  private async fileHandle(relative: string): Promise<FileSystemFileHandle> {
    const at = relative.lastIndexOf("/");
    const dir = await this.dir(at < 0 ? "" : relative.slice(0, at));
    const name = relative.slice(at + 1);
    // A reload during a write leaves Chromium's swap file ("<name>.crswap") behind: it is no file of the folder.
    await dir.removeEntry(`${name}.crswap`).catch(() => undefined);
    return dir.getFileHandle(name, { create: true });
  }

  private fullPath(relative: string) {
    return `${this.record.path.replace(/\/$/, "")}/${relative}`;
  }

  private async runFile(file: FolderFileState): Promise<void> {
    const path = this.fullPath(file.relative);
    let hash: string | null;
    try {
      hash = await this.deps.hashOf(path);
    } catch (error) {
      if (this.stopping) throw new Stopped();
      // The engine refuses this file (gone, forbidden): listed, the rest goes on; a dropped connection fails the folder.
      const refusal = refusalOfFile(error);
      if (refusal instanceof FileRefused) return this.refuse(file, refusal.errorMsgKey, refusal.errorVars);
      throw refusal;
    }
    file.hash = hash;
    const handle = await this.fileHandle(file.relative);
    try {
      if (isLargeFile(file.size)) await this.runLarge(file, path, handle);
      else await this.runSmall(file, path, handle);
    } catch (error) {
      this.inFlight.delete(file.relative);
      if (this.stopping || isStopped(error) || error instanceof Stopped) throw new Stopped();
      const key = error instanceof PageDownloadError ? error.errorMsgKey : "transfers.error.network";
      // The network or the disk fails the folder (Retry resumes it); a refusal or a mismatch only this file.
      if (key === "transfers.error.network" || key === "transfers.error.write-failed") throw error instanceof PageDownloadError ? error : new FolderDownloadError(key);
      // Not saved, so not left on disk either (an empty or partial file would pass for it).
      await this.removeFile(file.relative);
      return this.refuse(file, key, error instanceof FileRefused ? error.errorVars : undefined);
    }
    this.inFlight.delete(file.relative);
    file.done = true;
    file.unverified = hash === null;
    this.report();
    await this.save(isLargeFile(file.size));
  }

  private async removeFile(relative: string) {
    const at = relative.lastIndexOf("/");
    const dir = await this.dir(at < 0 ? "" : relative.slice(0, at));
    await dir.removeEntry(relative.slice(at + 1)).catch(() => undefined);
  }

  /** A file's ticket: the engine's refusal of that file is its own (FileRefused), the connection's failure the folder's. */
  private async ticket(path: string): Promise<string> {
    try {
      return await this.deps.ticket(path);
    } catch (error) {
      throw refusalOfFile(error);
    }
  }

  private async refuse(file: FolderFileState, key: string, vars?: Record<string, string | number>) {
    file.done = true;
    file.failed = key;
    if (vars) file.failedVars = vars;
    this.inFlight.delete(file.relative);
    this.report();
    await this.save(true);
  }

  private async runLarge(file: FolderFileState, path: string, handle: FileSystemFileHandle) {
    const { record } = this;
    // Its committed ranges as they were cut when saved (or none, from the start).
    const { chunk, done } = resumeRanges(file);
    file.chunk = chunk;
    file.ranges = done;
    const pageRecord: PageDownloadRecord = {
      id: `${record.id}:${file.relative}`,
      account: record.account,
      groupId: record.groupId,
      path,
      name: file.relative,
      size: file.size,
      hash: file.hash,
      etag: file.etag ?? null,
      chunk,
      done: [...done],
      handle,
      createTime: record.createTime,
    };
    const run = new PageDownload(pageRecord, {
      ticket: () => this.ticket(path),
      progress: (bytes) => {
        // Its committed ranges count in folderBytes already: the rest is in flight.
        this.inFlight.set(file.relative, Math.max(0, bytes - folderBytes([{ ...file, done: false }])));
        this.report();
      },
      hasher: this.deps.hasher,
      save: async (saved) => {
        file.ranges = [...saved.done];
        file.chunk = saved.chunk;
        file.etag = saved.etag;
        await saveFolderRecord(this.record);
      },
    });
    this.large = run;
    if (this.stopping) run.stop(this.stopping);
    try {
      await run.run();
    } finally {
      this.large = null;
    }
  }

  private async runSmall(file: FolderFileState, path: string, handle: FileSystemFileHandle) {
    let response: Response;
    try {
      response = await fetch(await this.ticket(path), { cache: "no-store", credentials: "omit", signal: this.abort.signal });
    } catch (error) {
      if (this.stopping) throw new Stopped();
      throw error instanceof PageDownloadError ? error : new FolderDownloadError("transfers.error.network");
    }
    if (!response.ok) {
      // The engine's envelope says why (the file filter, the permission); without it, refused.
      const envelope = (await response.json().catch(() => null)) as { code?: unknown } | null;
      if (typeof envelope?.code === "number") throw refusalOfFile(envelope);
      throw new PageDownloadError("transfers.error.download-refused");
    }
    const writable = await handle.createWritable();
    let received = 0;
    // An empty file may come without a body.
    const reader = (response.body ?? new Blob([]).stream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        if (received > file.size) throw new PageDownloadError("transfers.error.file-changed");
        await writable.write(value);
        this.inFlight.set(file.relative, received);
        this.report();
      }
      if (received !== file.size) throw new PageDownloadError("transfers.error.file-changed");
      await writable.close();
    } catch (error) {
      await writable.abort().catch(() => undefined);
      if (this.stopping) throw new Stopped();
      if (error instanceof PageDownloadError) throw error;
      throw new FolderDownloadError("transfers.error.network");
    }
    if (file.hash) {
      const written = await handle.getFile();
      if ((await this.deps.hasher.hash(written, this.abort.signal)) !== file.hash) throw new PageDownloadError("transfers.error.verify-failed");
    }
  }
}

export const isFolderStopped = (error: unknown) => error instanceof Stopped;
