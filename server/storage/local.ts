import { randomUUID } from "node:crypto";
import type { EventEmitter } from "node:events";
import { constants, type Stats } from "node:fs";
import { copyFile, link, lstat, mkdir, open, readdir, realpath, rename, rm, stat, unlink, utimes, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { FerryError } from "../errors";
import { filesInUse } from "./in-use";
import { lstatNames, STAT_FIELDS } from "./lstat-pool";
import { assertLinkInside, assertNoSymlinkEscape, AUTOCLEAN_HOLDING, baseName, confinementWalk, isErrno, isInside, isReservedName, joinName, normaliseUserPath, parentOf, resolveUserPath, STAGING_NAME, type ResolvedPath } from "./paths";
import { checkNewName, checkRange, guardWith, mapLimit, streamWriter } from "./shared";
import {
  type Entry,
  type FileReader,
  type AdoptOptions,
  type OverwriteOption,
  type ReadRange,
  type StagedData,
  type StatResult,
  type Storage,
  storageError,
  STREAM_BUFFER,
  unwritten,
  type Usage,
  type WriteOptions,
  type Writer,
} from "./storage";
import { WALK_DEFAULTS, WalkBudget, type WalkLimits, type WalkOptions } from "./walk";

export interface LocalStorageOptions {
  /**
   * Where uploads, copies and removals in progress live. It must be on the same file system as the
   * root (the final step is a rename) and outside every tree a user can list. Default:
   * "<root>/.ferry-tmp", a name resolveUserPath refuses and listings hide at every depth.
   */
  stagingDir?: string;
  /** Milliseconds since the epoch, for cleanupStale. */
  now?: () => number;
  /** Bounds of usage() and copy() walks when the caller gives none (default WALK_DEFAULTS). */
  walk?: WalkLimits;
}

/** Entries examined at once when a folder is walked. */
const PARALLEL = 64;

const seconds = (info: Stats) => Math.floor(info.mtimeMs / 1000);

function entryOf(name: string, info: Stats): Entry | null {
  if (info.isFile()) return { name, type: "file", size: info.size, mtime: seconds(info) };
  if (info.isDirectory()) return { name, type: "folder", size: 0, mtime: seconds(info) };
  return null; // sockets, fifos and devices are not files a user can use; opening a fifo would hang
}

async function lstatOrNull(absolute: string): Promise<Stats | null> {
  try {
    return await lstat(absolute);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return null;
    throw err;
  }
}

/** Best effort: makes a rename durable. Some file systems refuse fsync on a directory. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // not fatal: the data itself was synced before the rename
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function syncFile(absolute: string): Promise<void> {
  const handle = await open(absolute, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves `from` to a new name `to` that must not exist. Files use link+unlink, which refuses an existing target atomically. */
async function placeNew(from: string, to: string, isFile: boolean): Promise<void> {
  if (isFile) {
    try {
      await link(from, to);
    } catch (err) {
      // File systems without hard links fall back to check-then-rename.
      if (!isErrno(err, "EPERM") && !isErrno(err, "ENOTSUP") && !isErrno(err, "EOPNOTSUPP") && !isErrno(err, "EMLINK")) throw err;
      if (await lstatOrNull(to)) throw new FerryError("PathExists");
      await rename(from, to);
      return;
    }
    await unlink(from);
    return;
  }
  // No RENAME_NOREPLACE in Node: a folder created in between by someone else would be replaced if empty.
  if (await lstatOrNull(to)) throw new FerryError("PathExists");
  await rename(from, to);
}

function checkTypes(source: Stats, target: Stats): void {
  if (source.isDirectory() && !target.isDirectory()) throw new FerryError("PathIsFile");
  if (!source.isDirectory() && target.isDirectory()) throw new FerryError("PathIsNotFile");
}

/** Opens a file for reading; the type is checked on the opened handle, not the path, so a swap in between cannot change what is read. */
async function openFile(target: { absolute: string }): Promise<{ handle: FileHandle; size: number }> {
  const handle = await open(target.absolute, constants.O_RDONLY);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new FerryError("PathIsNotFile");
    if (!info.isFile()) throw new FerryError("PathNotFound");
    // Auto-clean leaves an open file alone until the last reader closes it (in-use.ts).
    // (A FileHandle is an EventEmitter that says "close" once closed; @types/node does not declare it.)
    (handle as unknown as EventEmitter).once("close", filesInUse.holdFile(info));
    return { handle, size: info.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A storage rooted at a local directory (which must exist). */
/** What moveAcross and copyAcross need of a local storage: its confinement and its placing steps. */
interface Crossing {
  locate(rel: string): Promise<ResolvedPath>;
  renameIn(from: ResolvedPath, toRel: string, opts: OverwriteOption): Promise<void>;
  copyIn(from: ResolvedPath, toRel: string, opts: OverwriteOption & WalkOptions): Promise<void>;
}
const crossings = new WeakMap<Storage, Crossing>();

function crossingOf(storage: Storage): Crossing {
  const crossing = crossings.get(storage);
  if (!crossing) throw new FerryError("UnsupportedOperation");
  return crossing;
}

/**
 * Moves a path of one local storage to another (a virtual directory's boundary, docs/storage.md):
 * each path is confined to its own root, then the same steps as rename() place it, atomically.
 * Roots on different file systems answer UnsupportedOperation (EXDEV).
 */
export async function moveAcross(from: Storage, fromRel: string, to: Storage, toRel: string, options: OverwriteOption = {}): Promise<void> {
  try {
    await crossingOf(to).renameIn(await crossingOf(from).locate(fromRel), toRel, options);
  } catch (err) {
    throw storageError(err);
  }
}

/** Copies a path of one local storage into another, as copy() does: the target appears only when complete. */
export async function copyAcross(from: Storage, fromRel: string, to: Storage, toRel: string, options: OverwriteOption & WalkOptions = {}): Promise<void> {
  try {
    await crossingOf(to).copyIn(await crossingOf(from).locate(fromRel), toRel, options);
  } catch (err) {
    throw storageError(err);
  }
}

export function createLocalStorage(root: string, options: LocalStorageOptions = {}): Storage {
  if (!path.isAbsolute(root)) throw new Error(`storage root must be an absolute path, got ${root}`);
  const base = path.resolve(root);
  const staging = path.resolve(options.stagingDir ?? path.join(base, STAGING_NAME));
  const now = options.now ?? Date.now;
  const walkLimits = options.walk ?? WALK_DEFAULTS;
  /** Staging entries in use by this process; cleanupStale leaves them alone. */
  const active = new Set<string>();

  /** Resolves a user path and refuses links that leave the root. Every method starts here. */
  const locate = async (rel: string): Promise<ResolvedPath> => {
    const resolved = resolveUserPath(base, rel);
    await assertNoSymlinkEscape(base, resolved.absolute);
    return resolved;
  };

  /**
   * The canonical relative path of an absolute one below the root: links resolved by realpath on
   * the longest existing part, the rest appended as given. InvalidPath when it lands outside the
   * root or in the staging area (normaliseUserPath refuses the reserved name).
   */
  const canonical = async (absolute: string): Promise<string> => {
    let realRoot: string;
    try {
      realRoot = await realpath(base);
    } catch (err) {
      if (isErrno(err, "ENOENT")) return normaliseUserPath(absolute.slice(base.length)); // nothing exists yet: nothing to resolve
      throw err;
    }
    const rest: string[] = [];
    let current = absolute;
    for (;;) {
      let real: string;
      try {
        real = await realpath(current);
      } catch (err) {
        if (!isErrno(err, "ENOENT") && !isErrno(err, "ENOTDIR")) throw err;
        if (current === base) return normaliseUserPath(absolute.slice(base.length));
        rest.unshift(path.basename(current));
        current = path.dirname(current);
        continue;
      }
      if (!isInside(realRoot, real)) throw new FerryError("InvalidPath");
      const inner = real === realRoot ? [] : real.slice(realRoot.length).split(path.sep);
      return normaliseUserPath([...inner, ...rest].filter(Boolean).join("/"));
    }
  };

  const ensureStaging = () => mkdir(staging, { recursive: true, mode: 0o700 });

  const stagedName = (kind: "upload" | "copy" | "trash") => {
    const name = `${randomUUID()}.${kind}`;
    active.add(name);
    return name;
  };

  /** The folder a new entry goes into must exist and be a folder. */
  const checkParent = async (relative: string) => {
    const parent = resolveUserPath(base, parentOf(relative)).absolute;
    const info = await stat(parent);
    if (!info.isDirectory()) throw new FerryError("PathIsFile");
  };

  /** Moves a path into staging and deletes it there, so it vanishes at once and a crash leaves only staging data. */
  const discard = async (absolute: string) => {
    const name = stagedName("trash");
    try {
      await ensureStaging();
      try {
        await rename(absolute, path.join(staging, name));
      } catch (err) {
        if (!isErrno(err, "EXDEV")) throw err;
        await rm(absolute, { recursive: true, force: true });
        return;
      }
      await rm(path.join(staging, name), { recursive: true, force: true });
    } finally {
      active.delete(name);
    }
  };

  /**
   * Puts a complete staged file or folder at `target`, replacing an existing one only when asked.
   * `view`: the plain folders a cached view (storage.cached()) took its earlier checks from; a link
   * found now on a folder it took for plain refuses the placement (those checks assumed no link).
   * `syncFolder` false: the caller fsyncs the folder itself (syncFolder) before it reports the file stored.
   */
  const place = async (staged: string, target: ResolvedPath, isFile: boolean, overwrite: boolean, view: PlainFolders | null = null, syncFolder = true) => {
    // Again, in full and uncached: the tree may have changed meanwhile.
    const walked = await confinementWalk(base, target.absolute);
    // A link on the folder's path (the target itself may be one, inside the root).
    if (view && walked.firstLink >= 0 && walked.firstLink < walked.segments - 1) {
      const dir = path.dirname(target.absolute);
      if (view.has(dir)) {
        view.delete(dir);
        throw new FerryError("InvalidPath");
      }
    }
    const existing = await lstatOrNull(target.absolute);
    if (existing && !overwrite) throw new FerryError("PathExists");
    if (existing && existing.isDirectory() !== !isFile) throw new FerryError(isFile ? "PathIsNotFile" : "PathIsFile");
    if (!existing) await placeNew(staged, target.absolute, isFile);
    else if (isFile) await rename(staged, target.absolute); // atomic replace
    else {
      // A folder cannot be swapped atomically: the old one moves aside first, then goes.
      await ensureStaging();
      const aside = stagedName("trash");
      try {
        await rename(target.absolute, path.join(staging, aside));
        try {
          await rename(staged, target.absolute);
        } catch (err) {
          await rename(path.join(staging, aside), target.absolute).catch(() => undefined);
          throw err;
        }
        await rm(path.join(staging, aside), { recursive: true, force: true });
      } finally {
        active.delete(aside);
      }
    }
    if (syncFolder) await syncDir(path.dirname(target.absolute));
  };

  /**
   * A cached view's locate (storage.cached()): a folder whose every segment the view found to exist
   * and to be no link is not walked again for the paths directly in it; only the last segment is
   * checked (a link there must stay inside the root). Placing still walks the whole path (place()).
   * Answers with what its lstat of the last segment found: Stats, null (nothing there) or undefined
   * (not looked at, or a file where a folder above should be).
   */
  const locateSeen = async (view: PlainFolders, rel: string): Promise<{ target: ResolvedPath; info: Stats | null | undefined }> => {
    const target = resolveUserPath(base, rel);
    const dir = path.dirname(target.absolute);
    if (target.absolute !== base && view.has(dir)) {
      let info: Stats | null | undefined;
      try {
        info = await lstat(target.absolute);
      } catch (err) {
        if (isErrno(err, "ENOENT")) info = null;
        else if (isErrno(err, "ENOTDIR")) info = undefined;
        else throw err;
      }
      if (info?.isSymbolicLink()) await assertLinkInside(await realpath(base), target.absolute);
      return { target, info };
    }
    const walked = await confinementWalk(base, target.absolute);
    const plainFolder = walked.firstLink < 0 || walked.firstLink >= walked.segments - 1;
    if (plainFolder && walked.existing >= walked.segments - 1 && target.absolute !== base) view.add(dir);
    return { target, info: undefined };
  };

  /** stat in a view: directly in a plain folder, the lstat of the last segment answers unless it is a link. */
  const statIn = async (view: PlainFolders, rel: string): Promise<StatResult> => {
    const { target, info } = await locateSeen(view, rel);
    if (info === null) throw new FerryError("PathNotFound");
    if (info && !info.isSymbolicLink()) {
      const entry = entryOf(baseName(target.relative), info);
      if (!entry) throw new FerryError("PathNotFound");
      return { ...entry, path: target.relative };
    }
    return statOf(target);
  };

  /** resolve in a view: directly in a plain folder and no link itself, a path is its own canonical form. */
  const resolveIn = async (view: PlainFolders, rel: string): Promise<string> => {
    const { target, info } = await locateSeen(view, rel);
    if (target.absolute !== base && view.has(path.dirname(target.absolute)) && (info === null || (info && !info.isSymbolicLink()))) return target.relative;
    return canonical(target.absolute);
  };

  /**
   * Copies a tree without following links (a copied relative link could point elsewhere from its
   * new place, and a link back up would never end), within the walk's budget.
   */
  const copyTree = async (from: string, to: string, budget: WalkBudget, depth = 0): Promise<void> => {
    budget.folder(depth);
    await mkdir(to);
    const dirents = await readdir(from, { withFileTypes: true });
    budget.entries(dirents.length);
    await mapLimit(dirents, PARALLEL, async (d) => {
      if (isReservedName(d.name)) return;
      const src = path.join(from, d.name);
      const dst = path.join(to, d.name);
      if (d.isDirectory()) await copyTree(src, dst, budget, depth + 1);
      else if (d.isFile()) {
        budget.check();
        await copyFile(src, dst, constants.COPYFILE_FICLONE);
        await syncFile(dst);
      }
    });
  };

  /** Sums a tree without following links (Dirent types come from lstat), within the walk's budget. */
  const walk = async (dir: string, totals: Usage, budget: WalkBudget, depth = 0): Promise<void> => {
    budget.folder(depth);
    let dirents;
    try {
      dirents = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isErrno(err, "ENOENT")) return; // removed while we walked
      throw err;
    }
    budget.entries(dirents.length);
    await mapLimit(dirents, PARALLEL, async (d) => {
      if (isReservedName(d.name)) return;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) {
        totals.folders++;
        await walk(full, totals, budget, depth + 1);
      } else if (d.isFile()) {
        const info = await lstatOrNull(full);
        if (info) {
          totals.files++;
          totals.size += info.size;
        }
      }
    });
  };

  const guard = guardWith(storageError);

  const statOf = async (target: ResolvedPath): Promise<StatResult> => {
    const info = await stat(target.absolute);
    const entry = entryOf(baseName(target.relative), info);
    if (!entry) throw new FerryError("PathNotFound");
    return { ...entry, path: target.relative };
  };

  const beginWrite = async (rel: string, opts: WriteOptions = {}): Promise<Writer> => {
    const target = await locate(rel);
    checkNewName(target.relative);
    const overwrite = opts.overwrite === true;
    const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    // Early refusals save an upload that could never be committed; commit checks again.
    await checkParent(target.relative);
    const existing = await lstatOrNull(target.absolute);
    if (existing && !overwrite) throw new FerryError("PathExists");
    if (existing?.isDirectory()) throw new FerryError("PathIsNotFile");

    await ensureStaging();
    const name = stagedName("upload");
    const temp = path.join(staging, name);
    let handle: FileHandle;
    // The file a write will replace is in use until the write is placed or dropped (auto-clean, in-use.ts).
    const release = filesInUse.holdPath(target.absolute);
    try {
      handle = await open(temp, "wx", 0o600);
    } catch (err) {
      active.delete(name);
      release();
      throw err;
    }
    let written = 0;
    return streamWriter({
      path: target.relative,
      toError: storageError,
      bytesWritten: () => written,
      write: async (chunks) => {
        const size = chunks.reduce((n, c) => n + c.length, 0);
        if (written + size > maxBytes) throw new FerryError("QuotaExceeded");
        let pending = chunks;
        while (pending.length > 0) {
          const { bytesWritten } = await handle.writev(pending);
          pending = unwritten(pending, bytesWritten);
          written += bytesWritten;
        }
      },
      place: async () => {
        await handle.sync();
        await handle.close();
        try {
          await place(temp, target, true, overwrite);
        } finally {
          release();
        }
        active.delete(name);
        return statOf(target);
      },
      drop: async () => {
        release();
        await handle.close().catch(() => undefined);
        await rm(temp, { force: true }).catch(() => undefined);
        active.delete(name);
      },
    });
  };

  /** rename() of a located source, which may belong to another local storage (moveAcross). */
  const renameIn = async (from: ResolvedPath, toRel: string, opts: OverwriteOption): Promise<void> => {
    const to = await locate(toRel);
    if (from.relative === "/") throw new FerryError("InvalidOperation");
    checkNewName(to.relative);
    if (from.absolute === to.absolute) {
      await lstat(from.absolute);
      return;
    }
    if (isInside(from.absolute, to.absolute)) throw new FerryError("InvalidOperation");
    const source = await stat(from.absolute);
    await checkParent(to.relative);
    const existing = await lstatOrNull(to.absolute);
    if (existing && !opts.overwrite) throw new FerryError("PathExists");
    if (existing) checkTypes(source, existing);
    await place(from.absolute, to, !source.isDirectory(), opts.overwrite === true);
  };

  /** copy() of a located source, which may belong to another local storage (copyAcross). */
  const copyIn = async (from: ResolvedPath, toRel: string, opts: OverwriteOption & WalkOptions): Promise<void> => {
    const to = await locate(toRel);
    if (from.relative === "/") throw new FerryError("InvalidOperation");
    checkNewName(to.relative);
    if (isInside(from.absolute, to.absolute)) throw new FerryError("InvalidOperation");
    const source = await stat(from.absolute);
    if (!entryOf("", source)) throw new FerryError("PathNotFound");
    await checkParent(to.relative);
    const existing = await lstatOrNull(to.absolute);
    if (existing && !opts.overwrite) throw new FerryError("PathExists");
    if (existing) checkTypes(source, existing);

    await ensureStaging();
    const name = stagedName("copy");
    const staged = path.join(staging, name);
    try {
      if (source.isDirectory()) {
        const budget = new WalkBudget(walkLimits, opts);
        await budget.run(() => copyTree(from.absolute, staged, budget));
      } else {
        await copyFile(from.absolute, staged, constants.COPYFILE_FICLONE);
        await syncFile(staged);
      }
      await place(staged, to, !source.isDirectory(), opts.overwrite === true);
    } finally {
      await rm(staged, { recursive: true, force: true }).catch(() => undefined);
      active.delete(name);
    }
  };

  /** The storage, or with `view` a cached view of it for one request (stat and resolve answer from it; adopt refuses a link found on a folder it holds). */
  const build = (view: PlainFolders | null): Storage => {
  const storage: Storage = {
    stat: guard(async (rel: string) => (view ? statIn(view, rel) : statOf(await locate(rel)))),

    resolve: guard(async (rel: string) => (view ? resolveIn(view, rel) : canonical((await locate(rel)).absolute))),

    list: guard(async (dirRel: string) => {
      const dir = await locate(dirRel);
      // Names only: lstat tells links apart anyway, and 100,000 Dirent objects are not free.
      const names = (await readdir(dir.absolute)).filter((name) => !isReservedName(name));
      const rows = await lstatNames(dir.absolute, names);
      const entries: Entry[] = [];
      const links: string[] = [];
      names.forEach((name, i) => {
        const at = i * STAT_FIELDS;
        const kind = rows[at]! & constants.S_IFMT;
        const mtime = Math.floor(rows[at + 2]! / 1000);
        if (kind === constants.S_IFREG) entries.push({ name, type: "file", size: rows[at + 1]!, mtime });
        else if (kind === constants.S_IFDIR) entries.push({ name, type: "folder", size: 0, mtime });
        else if (kind === constants.S_IFLNK) links.push(name);
        // anything else (gone meanwhile, sockets, fifos, devices) is not shown, as entryOf decides
      });
      await mapLimit(links, PARALLEL, async (name) => {
        const full = path.join(dir.absolute, name);
        try {
          await assertNoSymlinkEscape(base, full);
          const target = await canonical(full);
          const entry = entryOf(name, await stat(full));
          if (entry) entries.push({ ...entry, link: { target } });
        } catch {
          // dangling, or leading out of the root or into the staging area: not shown
        }
      });
      // readdir comes sorted by bytes already; this keeps code-unit order whatever the platform gave.
      return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }),

    mkdir: guard(async (rel: string, opts: { recursive?: boolean } = {}) => {
      const target = await locate(rel);
      if (target.relative === "/") {
        if (opts.recursive) return;
        throw new FerryError("PathExists");
      }
      if (!opts.recursive) {
        checkNewName(target.relative);
        await mkdir(target.absolute);
        return;
      }
      // Every folder this may create must carry a valid name.
      let partial = "/";
      for (const segment of target.relative.split("/").filter(Boolean)) partial = joinName(partial, segment);
      try {
        await mkdir(target.absolute, { recursive: true });
      } catch (err) {
        if (isErrno(err, "EEXIST")) throw new FerryError("PathIsFile");
        throw err;
      }
      if (!(await stat(target.absolute)).isDirectory()) throw new FerryError("PathIsFile");
    }),

    rename: guard(async (fromRel: string, toRel: string, opts: OverwriteOption = {}) => renameIn(await locate(fromRel), toRel, opts)),

    copy: guard(async (fromRel: string, toRel: string, opts: OverwriteOption & WalkOptions = {}) => copyIn(await locate(fromRel), toRel, opts)),

    remove: guard(async (rel: string) => {
      const target = await locate(rel);
      if (target.relative === "/") throw new FerryError("InvalidOperation");
      await lstat(target.absolute);
      await discard(target.absolute);
    }),

    createReadStream: guard(async (rel: string, range: ReadRange = {}): Promise<Readable> => {
      checkRange(range);
      const { handle } = await openFile(await locate(rel));
      return handle.createReadStream({ start: range.start, end: range.end, highWaterMark: range.bufferSize ?? STREAM_BUFFER, autoClose: true });
    }),

    openReader: guard(async (rel: string): Promise<FileReader> => {
      const { handle, size } = await openFile(await locate(rel));
      return {
        size,
        read: async (buffer, length, position) => (await handle.read(buffer, 0, length, position)).bytesRead,
        close: () => handle.close(),
      };
    }),

    usage: guard(async (dirRel: string, opts: WalkOptions = {}) => {
      const target = await locate(dirRel);
      const info = await stat(target.absolute);
      if (info.isFile()) return { size: info.size, files: 1, folders: 0 };
      if (!info.isDirectory()) throw new FerryError("PathNotFound");
      const totals: Usage = { size: 0, files: 0, folders: 0 };
      const budget = new WalkBudget(walkLimits, opts);
      await budget.run(() => walk(target.absolute, totals, budget));
      return totals;
    }),

    beginWrite: guard(beginWrite),

    adopt: guard(async (staged: StagedData, rel: string, opts: AdoptOptions = {}) => {
      if (staged.kind !== "local-file" || !path.isAbsolute(staged.path)) throw new FerryError("UnsupportedOperation");
      // In a view, place() below is the confinement walk and the link finds a missing parent
      // (PathNotFound) or a file in its way (PathIsFile) itself: no separate walk and stat first.
      const target = view ? resolveUserPath(base, rel) : await locate(rel);
      checkNewName(target.relative);
      if (!view) await checkParent(target.relative);
      // Only a regular file: a link or a folder in the staging area must never become user data.
      const info = await lstat(staged.path);
      if (!info.isFile()) throw new FerryError("InvalidOperation");
      // The path being placed (and a file it replaces) is in use for auto-clean meanwhile (in-use.ts).
      const release = filesInUse.holdPath(target.absolute);
      try {
        if (!staged.synced) await syncFile(staged.path);
        await place(staged.path, target, true, opts.overwrite === true, view, opts.syncFolder !== false);
      } finally {
        release();
      }
      // The placed file is the staged inode (link and rename keep its size and modification time).
      return { ...entryOf(baseName(target.relative), info)!, path: target.relative };
    }),

    syncFolder: guard(async (rel: string) => {
      await syncDir((await locate(rel)).absolute);
    }),

    setMtime: guard(async (rel: string, mtime: number) => {
      const file = await locate(rel);
      const info = await lstat(file.absolute);
      if (!info.isFile()) throw new FerryError("PathIsNotFile");
      await utimes(file.absolute, info.atime, mtime);
    }),

    cached: () => build(new Set()),

    cleanupStale: guard(async (olderThanMs: number) => {
      let names: string[];
      try {
        names = await readdir(staging);
      } catch (err) {
        if (isErrno(err, "ENOENT")) return 0;
        throw err;
      }
      const cutoff = now() - olderThanMs;
      let removed = 0;
      for (const name of names) {
        if (active.has(name)) continue;
        // Auto-clean's holding folder holds users' files after a crash, not temporary data: the
        // next auto-clean run puts them back or finishes them. "autoclean-<uuid>": an earlier layout's.
        if (name === AUTOCLEAN_HOLDING || name.startsWith(`${AUTOCLEAN_HOLDING}-`)) continue;
        const info = await lstatOrNull(path.join(staging, name));
        if (!info || info.mtimeMs > cutoff) continue;
        await rm(path.join(staging, name), { recursive: true, force: true });
        removed++;
      }
      return removed;
    }),
  };
  crossings.set(storage, { locate, renameIn, copyIn });
  return storage;
  };
  return build(null);
}

/** Absolute folders a cached view found to exist with no symbolic link on their path. */
type PlainFolders = Set<string>;
