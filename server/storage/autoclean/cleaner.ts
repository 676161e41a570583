import { randomUUID } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { copyFile, link, lstat, mkdir, open, readdir, realpath, rename, rmdir, unlink, utimes } from "node:fs/promises";
import path from "node:path";
import type { CLEAN_AGES } from "../../../contract/storage";
import { FerryError } from "../../errors";
import { AUTOCLEAN_HOLDING, isErrno, isInside, isReservedName, STAGING_NAME } from "../paths";
import { type InUse } from "../in-use";
import { WALK_DEFAULTS, WalkBudget, type WalkLimits } from "../walk";

/*
 * Auto-clean of a local storage (docs/storage.md, "Auto-clean"; admin spec section 3, Storage):
 * files whose last access or last modification is older than the storage's age are moved into its
 * recycle path, keeping their path below the root, or deleted when it has none. Folders stay (a
 * folder a user or a group made keeps its place, also when it is empty now). What it never touches:
 * the staging area and every reserved name, the recycle path itself, symbolic links (neither
 * followed nor cleaned), anything that is no regular file, and files the engine has open (a
 * download reading it, a write placing a file at its path).
 *
 * Between the walk and the action a folder on a file's path may be swapped for a symbolic link
 * (someone with shell access, a sync tool): acting on the old path would then reach outside the
 * root. So before a file is taken, every folder from the root down to it is looked at again with
 * lstat and must be the folder (device and inode) the walk went through; then the file is renamed
 * into the run's private folder in the root's staging area, checked to be the file the walk saw,
 * and only that staged name is deleted or moved. A swap in the instant between the check and the
 * rename moves the wrong file into the staging folder, where the check finds it and puts it back.
 *
 * The staged name is the file's path below the root, in the run's folder of the holding folder
 * (".ferry-tmp/autoclean/<run id>/users/alice/a.txt"): the rename that takes the file also writes
 * where it came from, so a run killed (kill -9, power loss) with a file staged leaves all that is
 * needed to finish. The stale clean-up of the staging area never removes the holding folder
 * (local.ts), and each real run first finishes what earlier runs left there (recover): a file goes
 * back to its place when that name is free, else to the recycle path, and is deleted only when the
 * policy deletes. No file is ever lost to a crash.
 */

export type CleanAge = (typeof CLEAN_AGES)[number];
/** The days of each age of the contract's list (contract/storage.ts). */
export const CLEAN_AGE_DAYS: Readonly<Record<CleanAge, number>> = { "7d": 7, "1m": 30, "3m": 90, "6m": 180, "1y": 365 };
export type CleanBy = "accessed" | "modified";
const DAY_MS = 86_400_000;

/** Milliseconds a file must not have been used (accessed or modified) to be cleaned. */
export const cleanAgeMs = (age: CleanAge) => CLEAN_AGE_DAYS[age] * DAY_MS;

export interface CleanPolicy {
  by: CleanBy;
  age: CleanAge;
  /** Absolute folder files are moved to; null: they are deleted. */
  recyclePath: string | null;
}

/** One file a run took (or, in a dry run, would take). */
export interface CleanItem {
  /** Path below the storage root, "/a/b.txt". */
  path: string;
  size: number;
  /** The time the policy looks at (accessed: the latest of access, modification and change; modified: the later of the last two), unix ms. */
  time: number;
  action: "recycle" | "delete";
  /** Where it went (recycle): absolute path in the recycle path, with a " (n)" suffix when the name was taken. */
  to?: string;
}

export interface CleanError {
  /** The file, or the folder that could not be read, below the root. */
  path: string;
  /** The catalogue code (FileSystemError unless a FerryError said otherwise). */
  code: number;
  /** Why and where (errorOf): an errno with its text, or an error name with its reason and path. */
  message: string;
}

export interface CleanReport {
  dryRun: boolean;
  startedAt: number;
  finishedAt: number;
  /** Files moved into the recycle path (in a dry run: that would be). */
  moved: number;
  /** Files deleted (in a dry run: that would be). */
  deleted: number;
  /** Old enough, but open by a transfer: left for a later run. */
  skippedInUse: number;
  /** Old enough when walked, but changed (used, replaced) just before the move: left. */
  skippedChanged: number;
  /** Bytes of the files moved or deleted. */
  bytes: number;
  errors: CleanError[];
  /** The run stopped at a bound (maxFiles, or the walk's maxEntries / maxDepth): the next run goes on. */
  truncated: boolean;
  /**
   * Where the next walk starts (CleanOptions.resumeAt): the first entry this run did not finish,
   * when it stopped at maxFiles, the walk's maxEntries or shutdown; null when it went all the way
   * round (the next walk starts at the beginning).
   */
  stoppedAt: string | null;
  items: CleanItem[];
}

export interface CleanOptions {
  /** Absolute root of the local storage. */
  root: string;
  policy: CleanPolicy;
  /** Unix ms: "now" for the age (the engine's clock). */
  now: number;
  dryRun?: boolean;
  /** The process's open files (server/storage/in-use.ts). */
  inUse: Pick<InUse, "isInUse">;
  /** Walk bounds (FERRY_WALK_MAX_DEPTH, FERRY_WALK_MAX_ENTRIES). */
  limits?: WalkLimits;
  /** Files one run moves or deletes at most (default 10,000); the rest waits for the next run. */
  maxFiles?: number;
  /** Stops the run (engine shutdown) between two files. */
  signal?: AbortSignal;
  /** Told after each file moved or deleted (the operation log, usage counts). */
  onItem?(item: CleanItem): void;
  /** The run's id: its folder in the holding folder is named by it ("<run id>", then "<run id>~<n>"). Default: a new UUID. */
  runId?: string;
  /**
   * True while the run with this id goes on somewhere (another engine on the database holds its
   * lease): recover leaves its folders alone. Runs of this process are known without asking.
   */
  isLive?(runId: string): Promise<boolean>;
  /**
   * Where the walk starts (a path below the root, "/b/c.txt"; the last run's stoppedAt): entries
   * before it in walk order (folders before their content, names by code unit) are left for the
   * end, where the walk wraps round and goes on from the beginning up to it. A run bounded by the
   * walk limits so still reaches every file in turn.
   */
  resumeAt?: string | null;
  /** Test seam: called with the temporary copy's name when a file is copied to a recycle path on another file system, before the copy is synced and named. */
  afterCopy?(temporary: string): void | Promise<void>;
}

export const DEFAULT_MAX_FILES = 10_000;
/** The run folders (in the holding folder) of this process's runs going on: recover leaves them alone. */
const liveRuns = new Set<string>();

/** A run folder's name: "<run id>" or "<run id>~<n>" (a run that had to make another). */
const runIdOf = (folderName: string) => folderName.split("~")[0]!;

/** The path's names, "/a/b" → ["a", "b"]. */
const segmentsOf = (rel: string) => rel.split("/").filter(Boolean);

/** Walk order of two paths (as names): a folder before its content, names by code unit. */
function walkOrder(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}
const holds = (folder: readonly string[], inner: readonly string[]) => folder.length < inner.length && folder.every((name, i) => inner[i] === name);

/** Names tried for a file whose name is taken in the recycle path: "a (1).txt" … "a (999).txt". */
const MAX_SUFFIX = 999;

/**
 * An administrator's recycle path for a root, as written: absolute, normalised, not the root, not
 * holding the root (files would move inside the storage again). Inside the root is allowed: it is
 * then never cleaned, but users whose home holds it see it. PathFormatError otherwise. The same
 * on the real paths: checkRecyclePlace.
 */
export function checkRecyclePath(root: string, recyclePath: string): string {
  if (!path.isAbsolute(recyclePath) || recyclePath.includes("\0")) throw new FerryError("PathFormatError");
  const resolved = path.resolve(recyclePath);
  const base = path.resolve(root);
  if (resolved === base || isInside(resolved, base)) throw new FerryError("PathFormatError");
  return resolved;
}

/**
 * checkRecyclePath, then the same rules on the real paths (symbolic links resolved, as far as the
 * folders exist), and the recycle path must lie where it says: inside the root only when it really
 * is. A path outside that leads inside through a link would have the run clean its own recycle
 * bin; one inside that leads out would move files where the administrator did not choose. Answers
 * the normalised path and its real place; PathFormatError otherwise. Checked when the policy is
 * saved and at the start of every run.
 */
export async function checkRecyclePlace(root: string, recyclePath: string): Promise<{ path: string; real: string }> {
  const resolved = checkRecyclePath(root, recyclePath);
  const base = path.resolve(root);
  let realRoot: string;
  let real: string;
  try {
    [realRoot, real] = await Promise.all([realLocation(base), realLocation(resolved)]);
  } catch {
    throw new FerryError("PathFormatError"); // a loop of links, a file where a folder should be
  }
  if (real === realRoot || isInside(real, realRoot)) throw new FerryError("PathFormatError", { reason: "the recycle path really is the storage's folder or holds it", path: real });
  if (isInside(base, resolved) !== isInside(realRoot, real)) throw new FerryError("PathFormatError", { reason: "the recycle path leads through a symbolic link to the other side of the storage's folder", path: real });
  return { path: resolved, real };
}

/** Why a run refuses its recycle path as it finds it on disk (FerryError data.reason). */
export const RECYCLE_LINK = "the recycle path holds a symbolic link";

/** The real path of `absolute`, also when its end does not exist yet (the real path of its deepest existing folder, then the rest). */
export async function realLocation(absolute: string): Promise<string> {
  try {
    return await realpath(absolute);
  } catch (err) {
    const parent = path.dirname(absolute);
    if (!isErrno(err, "ENOENT") || parent === absolute) throw err;
    return path.join(await realLocation(parent), path.basename(absolute));
  }
}

/**
 * Looks at every folder of `folder` from the file system's root down with lstat: a symbolic link
 * anywhere refuses the run (PathFormatError, data.reason RECYCLE_LINK), since moving through it
 * would place the file wherever the link points. `create`: missing folders are made (mode 0700);
 * else false when one is missing (a dry run).
 */
async function recycleFolder(folder: string, create: boolean): Promise<boolean> {
  let current = path.parse(folder).root;
  for (const part of folder.slice(current.length).split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    let info = await lstat(current).catch((err) => {
      if (isErrno(err, "ENOENT")) return null;
      throw err;
    });
    if (!info) {
      if (!create) return false;
      await mkdir(current, { mode: 0o700 }).catch((err) => {
        if (!isErrno(err, "EEXIST")) throw err;
      });
      info = await lstat(current);
    }
    if (info.isSymbolicLink()) throw new FerryError("PathFormatError", { reason: RECYCLE_LINK, path: current });
    if (!info.isDirectory()) throw Object.assign(new Error(`not a folder: ${current}`), { code: "ENOTDIR" });
  }
  return true;
}

const isRecycleLink = (err: unknown) => err instanceof FerryError && err.data?.reason === RECYCLE_LINK;

/** "a.txt" → "a (n).txt"; names starting with a dot keep it ("…/.profile (2)"). */
export function suffixed(file: string, n: number): string {
  const dir = path.dirname(file);
  const name = path.basename(file);
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  return path.join(dir, `${stem} (${n})${ext}`);
}

async function exists(absolute: string): Promise<boolean> {
  try {
    await lstat(absolute);
    return true;
  } catch (err) {
    if (isErrno(err, "ENOENT")) return false;
    throw err;
  }
}

/** A folder the walk went through: where, and which one (device, inode). */
interface FolderRef {
  absolute: string;
  dev: number;
  ino: number;
}

/** True when every folder of `chain` is still that folder, and no symbolic link. */
async function sameFolders(chain: readonly FolderRef[]): Promise<boolean> {
  for (const folder of chain) {
    const info = await lstat(folder.absolute).catch(() => null);
    if (!info?.isDirectory() || info.dev !== folder.dev || info.ino !== folder.ino) return false;
  }
  return true;
}

const refOf = (absolute: string, info: Stats): FolderRef => ({ absolute, dev: info.dev, ino: info.ino });

/** Thrown by `take` when the file or a folder on its path is not what the walk saw. */
const CHANGED = Symbol("changed");

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

async function syncFile(absolute: string): Promise<void> {
  const handle = await open(absolute, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes a new name in `folder` durable: until the folder itself is synced, a power cut may forget
 * the link() that named the file, and the original must not be removed before that.
 */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Called right before each link, rename, copy or unlink of a held file in recovery: throws when the
 * held file or a folder on its way is no longer what was collected (a folder swapped for a link
 * would have the call act on a file outside the root).
 */
type Guard = () => Promise<void>;
const unguarded: Guard = async () => undefined;

const noHardLinks = (err: unknown) => isErrno(err, "EPERM") || isErrno(err, "ENOTSUP") || isErrno(err, "EOPNOTSUPP") || isErrno(err, "EMLINK");

/**
 * Gives the file `from` the name `to` or, when that is taken, the first free "name (n)": never
 * over an existing file, since link() refuses a taken name atomically. `from` keeps its name too,
 * except on file systems without hard links, where it is renamed after a look (a name taken in
 * between is replaced). EXDEV is thrown as is. Answers the name.
 */
async function linkNoClobber(from: string, to: string, guard: Guard = unguarded): Promise<string> {
  for (let n = 0; n <= MAX_SUFFIX; n++) {
    const candidate = n === 0 ? to : suffixed(to, n);
    try {
      await guard();
      await link(from, candidate);
      return candidate;
    } catch (err) {
      if (isErrno(err, "EEXIST")) continue;
      if (!noHardLinks(err)) throw err;
      if (await exists(candidate)) continue;
      await guard();
      await rename(from, candidate);
      return candidate;
    }
  }
  throw new FerryError("PathExists");
}

/**
 * Moves `from` to `to` or the first free "name (n)" (linkNoClobber), across file systems too
 * (copyAcross). Answers where it went.
 */
async function moveNoClobber(from: string, to: string, seen: Stats, afterCopy?: (temporary: string) => void | Promise<void>, guard: Guard = unguarded): Promise<string> {
  let placed: string;
  try {
    placed = await linkNoClobber(from, to, guard);
  } catch (err) {
    if (isErrno(err, "EXDEV")) return copyAcross(from, to, seen, afterCopy, guard);
    throw err;
  }
  await syncFolder(path.dirname(placed));
  await guard();
  await unlink(from).catch((err) => {
    if (!isErrno(err, "ENOENT")) throw err; // renamed already (no hard links)
  });
  return placed;
}

/**
 * A move to another file system: the file is copied to a temporary name beside its place, given
 * its times, synced and checked unchanged (a copy of a file written meanwhile is not what is
 * there now: FileBusy), and only then named (linkNoClobber); the original goes last. So the
 * recycle path never holds a partial file under a real name, and a failure (a full disk, an I/O
 * error) leaves the original where it was and removes the temporary copy.
 */
async function copyAcross(from: string, to: string, seen: Stats, afterCopy?: (temporary: string) => void | Promise<void>, guard: Guard = unguarded): Promise<string> {
  const temporary = path.join(path.dirname(to), `.ferry-part-${randomUUID()}`);
  try {
    await guard();
    await copyFile(from, temporary, constants.COPYFILE_EXCL);
    await afterCopy?.(temporary);
    await utimes(temporary, seen.atime, seen.mtime);
    await syncFile(temporary);
    const again = await lstat(from).catch(() => null);
    if (!again || !sameFile(again, seen)) throw new FerryError("FileBusy");
    const placed = await linkNoClobber(temporary, to);
    await syncFolder(path.dirname(placed));
    await guard();
    await unlink(from);
    return placed;
  } finally {
    // Gone already when it was renamed to its name (no hard links).
    await unlink(temporary).catch(() => undefined);
  }
}

/** Removes `folders` (listed each after its parent) and then `top`, those that are empty: a folder still holding a file stays. */
async function removeEmpty(top: string, folders: readonly string[]): Promise<void> {
  for (const folder of [...folders].reverse()) await rmdir(folder).catch(() => undefined);
  await rmdir(top).catch(() => undefined);
}

/**
 * Puts a held file back at `original` (below `rootRef`) when that name is free and every folder on
 * the way is still there as a folder, never a symbolic link (a folder is not made anew and a link
 * not followed: the file then goes by the policy). With `expected` (the folders the walk went
 * through) they must be those very folders: a folder swapped for a link, or swapped back after a
 * file from elsewhere came through it, must not decide where a file lands. The name is taken with
 * link(), which refuses a taken one; the folders are looked at again after it, and a swap in
 * between takes the new name back (the held name still has the file). A name in use (`inUse`) is
 * not free. False when the file stays held.
 */
async function putBack(held: string, heldInfo: Stats, original: string, rootRef: FolderRef, expected?: readonly FolderRef[], guard: Guard = unguarded, inUse?: Pick<InUse, "isInUse">): Promise<boolean> {
  // A transfer writing to that name (an upload about to be placed there) keeps it: the file goes by the policy.
  if (inUse?.isInUse(original, heldInfo)) return false;
  let chain: readonly FolderRef[] | undefined = expected;
  if (!chain) {
    const found: FolderRef[] = [rootRef];
    let current = rootRef.absolute;
    for (const part of path.relative(rootRef.absolute, path.dirname(original)).split(path.sep).filter(Boolean)) {
      current = path.join(current, part);
      const info = await lstat(current).catch(() => null);
      if (!info?.isDirectory()) return false;
      found.push(refOf(current, info));
    }
    chain = found;
  }
  if (!(await sameFolders(chain))) return false;
  try {
    await guard();
    await link(held, original);
  } catch (err) {
    if (isErrno(err, "EEXIST") || isErrno(err, "EXDEV")) return false; // taken, or now on a file system mounted there
    if (!noHardLinks(err)) throw err;
    // No hard links: the name is reserved with an exclusive create before the rename replaces
    // that empty file, so a file placed there after a mere look is never overwritten.
    try {
      await (await open(original, "wx", 0o600)).close();
    } catch (reserve) {
      if (isErrno(reserve, "EEXIST")) return false;
      throw reserve;
    }
    try {
      await guard();
      await rename(held, original);
    } catch (failed) {
      await unlink(original).catch(() => undefined);
      throw failed;
    }
    return true;
  }
  if (!(await sameFolders(chain))) {
    const placed = await lstat(original).catch(() => null);
    if (placed && placed.dev === heldInfo.dev && placed.ino === heldInfo.ino) await unlink(original).catch(() => undefined);
    return false;
  }
  await syncFolder(path.dirname(original));
  await guard();
  await unlink(held).catch((err) => {
    if (!isErrno(err, "ENOENT")) throw err;
  });
  return true;
}

/** The name (`to` or a " (n)" of it, as linkNoClobber picks) that is the file `info` (dev/ino), if any. */
async function placedAs(to: string, info: Stats): Promise<string | null> {
  for (let n = 0; n <= MAX_SUFFIX; n++) {
    const candidate = n === 0 ? to : suffixed(to, n);
    const there = await lstat(candidate).catch(() => null);
    if (!there) {
      if (n > 0) return null; // linkNoClobber takes the first free name: none further on
      continue;
    }
    if (there.isFile() && there.dev === info.dev && there.ino === info.ino) return candidate;
  }
  return null;
}

/** In a dry run: the name moveNoClobber would pick now. */
async function freeName(to: string): Promise<string> {
  for (let n = 0; n <= MAX_SUFFIX; n++) {
    const candidate = n === 0 ? to : suffixed(to, n);
    if (!(await exists(candidate))) return candidate;
  }
  throw new FerryError("PathExists");
}

const isErrnoLike = (err: unknown): err is NodeJS.ErrnoException & { code: string } => err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string";
const codeOf = (err: unknown) => (err instanceof FerryError ? err : new FerryError("FileSystemError"));

/**
 * A reported error for `rel`: the catalogue code and a message that keeps why and where, so an
 * administrator can act on it ("ENOSPC: no space left on device, copyfile '…' -> '…'", "FileSystemError:
 * the staging area is no folder (/srv/…/.ferry-tmp)"); an errno alone says neither.
 */
function errorOf(rel: string, err: unknown): CleanError {
  const error = codeOf(err);
  if (err instanceof FerryError) {
    const data = (err.data ?? {}) as { reason?: unknown; path?: unknown };
    const reason = typeof data.reason === "string" ? `: ${data.reason}` : "";
    const where = typeof data.path === "string" ? ` (${data.path})` : "";
    return { path: rel, code: error.code, message: `${err.errorName}${reason}${where}` };
  }
  if (isErrnoLike(err)) return { path: rel, code: error.code, message: err.message.startsWith(`${err.code}:`) ? err.message : `${err.code}: ${err.message}` };
  return { path: rel, code: error.code, message: err instanceof Error ? `${error.errorName}: ${err.message}` : error.errorName };
}

/** One run over a local storage's root. A dry run walks and decides the same way and changes nothing. */
export async function runClean(options: CleanOptions): Promise<CleanReport> {
  const { policy, inUse, signal } = options;
  const root = path.resolve(options.root);
  const dryRun = options.dryRun === true;
  // Files move to the recycle path's real place, resolved once; every folder on the way is then
  // checked with lstat before each move (recycleFolder). `to` is answered in the admin's spelling.
  const place = policy.recyclePath ? await checkRecyclePlace(root, policy.recyclePath) : null;
  const recycle = place?.path ?? null;
  const recycleReal = place?.real ?? null;
  // The recycle folder as it is now (when it lies inside the root): the walk leaves it, by whatever path it is reached.
  const recycleInfo = recycleReal ? await lstat(recycleReal).catch(() => null) : null;
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const ageMs = cleanAgeMs(policy.age);
  // "Modified" is the later of the modification and the change time: a file copied in with its old
  // modification time kept (cp -p, rsync -t, an unpacked archive) is new to this storage.
  // "Accessed" is the latest of all three: a copy keeping its old access time is new too, and on a
  // noatime (or relatime) mount the access time lags, while a file written is used all the same.
  const timeOf = (info: Stats) => (policy.by === "accessed" ? Math.max(info.atimeMs, info.mtimeMs, info.ctimeMs) : Math.max(info.mtimeMs, info.ctimeMs));
  const isOld = (info: Stats) => options.now - timeOf(info) >= ageMs;
  const report: CleanReport = { dryRun, startedAt: options.now, finishedAt: options.now, moved: 0, deleted: 0, skippedInUse: 0, skippedChanged: 0, bytes: 0, errors: [], truncated: false, stoppedAt: null, items: [] };
  const runId = options.runId ?? randomUUID();
  const budget = new WalkBudget(options.limits ?? WALK_DEFAULTS, { signal });
  /** Thrown to end the walk at maxFiles. */
  const FULL = Symbol("full");
  /** What the walk found old enough, in walk order, with the folders it went through to it; acted on after the walk. */
  const found: { absolute: string; rel: string; seen: Stats; folders: readonly FolderRef[] }[] = [];

  const area = path.join(root, STAGING_NAME);
  const holding = path.join(area, AUTOCLEAN_HOLDING);
  /** A run folder of this run in the holding folder, and the folders made in it (removed again at the end when empty). */
  interface RunFolder {
    own: string;
    made: string[];
  }
  const runFolders: RunFolder[] = [];
  /** The run folder in use (made on first use), and the folders from the root to it. */
  let staging = null as (RunFolder & { folders: FolderRef[] }) | null;
  const stagingFolder = async (rootRef: FolderRef) => {
    if (staging && (await sameFolders(staging.folders))) return staging;
    for (let attempt = 0; ; attempt++) {
      for (const folder of [area, holding]) {
        await mkdir(folder, { mode: 0o700 }).catch((err) => {
          if (!isErrno(err, "EEXIST")) throw err;
        });
        // A link planted there would have the files staged (and our folder made) wherever it points.
        if (!(await lstat(folder)).isDirectory()) throw new FerryError("FileSystemError", { reason: "the staging area is no folder", path: folder });
      }
      const own = path.join(holding, runFolders.length === 0 ? runId : `${runId}~${runFolders.length}`);
      // Known before it exists, so another run's recover never takes it for a crashed run's.
      liveRuns.add(own);
      const run: RunFolder = { own, made: [] };
      runFolders.push(run);
      try {
        await mkdir(own, { mode: 0o700 });
      } catch (err) {
        // Another run on this root removed the empty holding folder in between.
        if (isErrno(err, "ENOENT") && attempt < 2) continue;
        throw err;
      }
      const folders = [rootRef, refOf(area, await lstat(area)), refOf(holding, await lstat(holding)), refOf(own, await lstat(own))];
      if (!(await sameFolders(folders))) throw CHANGED;
      staging = { ...run, folders };
      return staging;
    }
  };

  /** A file's name in a run folder: its path below the root, the folders made as needed (mode 0700), none a link. */
  const heldName = async (run: RunFolder, rel: string): Promise<string> => {
    const parts = rel.split("/").filter(Boolean);
    let current = run.own;
    for (const part of parts.slice(0, -1)) {
      current = path.join(current, part);
      const made = await mkdir(current, { mode: 0o700 }).then(
        () => true,
        (err: unknown) => {
          if (isErrno(err, "EEXIST")) return false;
          throw err;
        },
      );
      if (made) run.made.push(current);
      if (!(await lstat(current)).isDirectory()) throw new FerryError("FileSystemError", { reason: "the holding folder holds no folder", path: current });
    }
    return path.join(current, parts.at(-1)!);
  };

  /**
   * Renames the file into the run folder under its path and answers the staged name, after
   * checking it is the file the walk saw. null: the file lies on another file system than the root
   * (a mount inside the storage), where it is taken in place after a fresh look at its folders.
   */
  const stage = async (entry: (typeof found)[number], info: Stats): Promise<string | null> => {
    const rootRef = entry.folders[0]!;
    const run = await stagingFolder(rootRef);
    const staged = await heldName(run, entry.rel);
    try {
      await rename(entry.absolute, staged);
    } catch (err) {
      if (isErrno(err, "EXDEV")) {
        // Only a file really on another device than the root, its folders the walk's, is a mount
        // inside the storage. Else a folder was swapped for a link to another file system and
        // maybe back again: acting in place would act wherever the path leads next.
        const now = await lstat(entry.absolute).catch(() => null);
        const mounted = now?.isFile() && now.dev !== rootRef.dev && now.dev === info.dev && now.ino === info.ino;
        if (mounted && (await sameFolders(entry.folders))) return null;
        throw new FerryError("FileSystemError", { reason: "the file is on another file system than the storage's folder, but not as a mount inside it (a folder on its path was swapped?): left", path: entry.absolute });
      }
      if (isErrno(err, "ENOENT")) throw CHANGED;
      throw err;
    }
    const got = await lstat(staged).catch(() => null);
    if (!got || got.dev !== info.dev || got.ino !== info.ino) {
      // Another file came (a folder was swapped between the look and the rename, or the file
      // replaced): it goes back to its exact name only through the walk's folders. A swap back
      // meanwhile would else pull a file from outside into the storage.
      if (got && !(await putBack(staged, got, entry.absolute, rootRef, entry.folders).catch(() => false))) {
        // Where it came from is unknown: kept aside directly in the holding folder, where recover
        // (which finishes run folders only) never puts it anywhere or deletes it by the policy.
        const aside = path.join(holding, `unknown-${randomUUID()}-${path.basename(staged)}`);
        const where = await rename(staged, aside).then(
          () => aside,
          () => staged,
        );
        throw new FerryError("FileSystemError", { reason: "another file than the one walked came when it was taken (a folder swapped?) and could not go back: it is kept aside", path: where });
      }
      throw CHANGED;
    }
    return staged;
  };

  /**
   * After a failure: the staged file goes back to its name, only through the folders the walk went
   * through and only when the name is still free. Else it stays held (the next run's recover
   * finishes it) and the error says where.
   */
  const unstage = async (staged: string, entry: (typeof found)[number], info: Stats, err: unknown): Promise<unknown> => {
    if (await putBack(staged, info, entry.absolute, entry.folders[0]!, entry.folders, unguarded, inUse).catch(() => false)) return err;
    const why = errorOf(entry.rel, err).message;
    return new FerryError("FileSystemError", { reason: `${why}; the file could not go back to its place and is held`, path: staged });
  };

  /** Counts a file moved or deleted and tells onItem (the operation log, usage counts). */
  const done = (item: CleanItem, size: number) => {
    if (item.action === "recycle") report.moved++;
    else report.deleted++;
    report.bytes += size;
    report.items.push(item);
    if (!dryRun) options.onItem?.(item);
  };

  /**
   * Finishes what runs that crashed left in the holding folder (never a run of this process going
   * on): each held file goes back to its place when the name is free and its folders are still
   * there (putBack; the walk then decides again), else to the recycle path, and is deleted only
   * when the policy deletes. One that cannot go (an error, reported) stays held for the next run.
   * A file the crashed run had already placed is gone from the holding folder, one it had not yet
   * taken is in its place: nothing is done twice or lost.
   */
  /** Ends recovery: the holding folder or a held file is not what was collected. */
  class Moved extends FerryError {}
  /** "/.ferry-tmp/autoclean/…": where a held file or folder is, below the root. */
  const relOf = (absolute: string) => `/${path.relative(root, absolute).split(path.sep).join("/")}`;

  const recover = async (rootRef: FolderRef) => {
    // Only through plain folders: a link planted as either is not followed. Which folders they are
    // (dev/ino) is kept: each held file is acted on by path, and a swap later must not redirect it.
    const top: FolderRef[] = [rootRef];
    for (const folder of [area, holding]) {
      const info = await lstat(folder).catch(() => null);
      if (!info?.isDirectory()) return;
      top.push(refOf(folder, info));
    }
    // An unreadable folder (EACCES: a root-owned 0700 run folder; EIO) is reported and left: it
    // must not stop every run for good.
    const list = async (folder: string): Promise<string[] | null> => {
      try {
        return (await readdir(folder)).sort();
      } catch (err) {
        report.errors.push(errorOf(relOf(folder), err));
        return null;
      }
    };
    const names = await list(holding);
    if (!names) return;
    try {
      for (const name of names) {
        const runFolder = path.join(holding, name);
        const runInfo = await lstat(runFolder).catch(() => null);
        if (liveRuns.has(runFolder) || !runInfo?.isDirectory()) continue;
        // A run of another engine going on now (its lease is live): its files are its own. Asked
        // after the folder was seen, and a run's lease is taken before its folder is made.
        if (await options.isLive?.(runIdOf(name))) continue;
        const folders: string[] = [];
        const files: { held: string; rel: string; chain: readonly FolderRef[] }[] = [];
        const collect = async (chain: readonly FolderRef[], rel: string): Promise<void> => {
          const folder = chain.at(-1)!.absolute;
          const children = await list(folder);
          if (!children) return;
          for (const child of children) {
            if (isReservedName(child)) continue; // never staged: a walk does not enter such a name
            const absolute = path.join(folder, child);
            try {
              const info = await lstat(absolute);
              if (info.isDirectory()) {
                folders.push(absolute);
                await collect([...chain, refOf(absolute, info)], `${rel}/${child}`);
              } else if (info.isFile()) files.push({ held: absolute, rel: `${rel}/${child}`, chain });
              // anything else was not put there by a run: left
            } catch (err) {
              if (!isErrno(err, "ENOENT")) report.errors.push(errorOf(relOf(absolute), err));
            }
          }
        };
        await collect([...top, refOf(runFolder, runInfo)], "");
        for (const file of files) {
          // The run was stopped (shutdown, or its lease may be someone else's soon): the rest of
          // the crashed run waits, held, for the next run.
          if (signal?.aborted) return;
          await finish(file.held, file.rel, rootRef, file.chain);
        }
        await removeEmpty(runFolder, folders);
      }
    } catch (err) {
      if (!(err instanceof Moved)) throw err;
      report.errors.push(errorOf(relOf(String(err.data?.path)), err));
    }
  };

  const finish = async (held: string, rel: string, rootRef: FolderRef, chain: readonly FolderRef[]) => {
    const info = await lstat(held).catch(() => null);
    if (!info?.isFile()) return;
    const guard: Guard = async () => {
      const now = await lstat(held).catch(() => null);
      if (!(await sameFolders(chain)) || !now?.isFile() || now.dev !== info.dev || now.ino !== info.ino) {
        throw new Moved("FileSystemError", { reason: "the holding folder or a file held there changed while it was recovered (swapped for a link?): recovery stopped", path: held });
      }
    };
    const item: CleanItem = { path: rel, size: info.size, time: Math.floor(timeOf(info)), action: recycle ? "recycle" : "delete" };
    try {
      // A crash between the link into the recycle path and the unlink of the held name left the
      // file in both: it is placed already, only the held name goes (putting it back would make two).
      const placed = recycle && recycleReal && info.nlink > 1 ? await placedAs(path.join(recycleReal, ...rel.split("/").filter(Boolean)), info) : null;
      if (placed && recycle && recycleReal) {
        await guard();
        await unlink(held);
        item.to = path.join(recycle, path.relative(recycleReal, placed));
        done(item, info.size);
        return;
      }
      if (await putBack(held, info, path.join(root, ...rel.split("/").filter(Boolean)), rootRef, undefined, guard, inUse)) return;
      if (recycle && recycleReal) {
        const to = path.join(recycleReal, ...rel.split("/").filter(Boolean));
        await recycleFolder(path.dirname(to), true);
        item.to = path.join(recycle, path.relative(recycleReal, await moveNoClobber(held, to, info, options.afterCopy, guard)));
      } else {
        await guard();
        await unlink(held);
      }
    } catch (err) {
      if (isRecycleLink(err) || err instanceof Moved) throw err; // the whole run (or recovery) stops; the file stays held
      report.errors.push(errorOf(rel, err));
      return;
    }
    done(item, info.size);
  };

  const take = async (entry: (typeof found)[number]) => {
    const { absolute, rel, seen } = entry;
    budget.check();
    // Again, right before acting: a file used, replaced or opened since the walk saw it stays, and
    // so does one whose folders are no longer the ones the walk went through.
    if (!(await sameFolders(entry.folders))) {
      report.skippedChanged++;
      return;
    }
    const info = await lstat(absolute).catch(() => null);
    if (!info) return; // gone meanwhile
    if (!info.isFile() || info.dev !== seen.dev || info.ino !== seen.ino || !isOld(info)) {
      report.skippedChanged++;
      return;
    }
    if (inUse.isInUse(absolute, info)) {
      report.skippedInUse++;
      return;
    }
    const item: CleanItem = { path: rel, size: info.size, time: Math.floor(timeOf(info)), action: recycle ? "recycle" : "delete" };
    let staged: string | null = null;
    try {
      if (recycle && recycleReal) {
        const to = path.join(recycleReal, ...rel.split("/").filter(Boolean));
        let placed: string;
        if (dryRun) placed = (await recycleFolder(path.dirname(to), false)) ? await freeName(to) : to;
        else {
          await recycleFolder(path.dirname(to), true);
          staged = await stage(entry, info);
          await recycleFolder(path.dirname(to), false);
          placed = await moveNoClobber(staged ?? absolute, to, info, options.afterCopy);
        }
        item.to = path.join(recycle, path.relative(recycleReal, placed));
      } else if (!dryRun) {
        staged = await stage(entry, info);
        await unlink(staged ?? absolute);
      }
    } catch (err) {
      if (err === CHANGED) {
        report.skippedChanged++;
        return;
      }
      if (staged) {
        const reported = await unstage(staged, entry, info, err);
        if (isRecycleLink(err)) throw err; // the whole run is refused
        report.errors.push(errorOf(rel, reported));
        return;
      }
      if (isRecycleLink(err)) throw err; // the whole run is refused
      if (isErrno(err, "ENOENT") && !staged && !(await exists(absolute).catch(() => true))) return; // gone meanwhile
      report.errors.push(errorOf(rel, err));
      return;
    }
    done(item, info.size);
  };

  /** Thrown to end the second part of a resumed walk at its start. */
  const PASS_END = Symbol("pass end");
  /** The part of the walk going on: from `from` (inclusive) to `until` (exclusive), as names; null: the beginning / the end. */
  let pass: { from: string[] | null; until: string[] | null } = { from: options.resumeAt ? segmentsOf(options.resumeAt) : null, until: null };
  /** The entry the walk looks at now: where the next walk starts when this one stops. */
  let current: string | null = options.resumeAt ?? null;

  const visit = async (dir: string, rel: string, depth: number, folders: readonly FolderRef[]): Promise<void> => {
    budget.folder(depth);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return; // removed or replaced while we walked
      // One folder the run cannot read (permissions, an I/O error) costs its files, not the run.
      report.errors.push(errorOf(rel, err));
      return;
    }
    // Code-unit order, so a dry run and the run after it meet the files in the same order, and a
    // walk can go on where the last one stopped.
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const base = segmentsOf(rel);
    for (const name of names) {
      if (isReservedName(name)) continue; // the staging area (uploads, copies and removals in progress)
      const parts = [...base, name];
      // The second part of a resumed walk ends where the first began.
      if (pass.until && walkOrder(parts, pass.until) >= 0) throw PASS_END;
      // The first part skips what came before the resume point, but enters the folders holding it.
      const leadsIn = pass.from !== null && holds(parts, pass.from);
      if (pass.from && walkOrder(parts, pass.from) < 0 && !leadsIn) continue;
      current = `/${parts.join("/")}`;
      budget.entries(1);
      const absolute = path.join(dir, name);
      let info: Stats;
      try {
        info = await lstat(absolute);
      } catch (err) {
        if (!isErrno(err, "ENOENT")) report.errors.push(errorOf(`${rel === "/" ? "" : rel}/${name}`, err));
        continue;
      }
      const childRel = `${rel === "/" ? "" : rel}/${name}`;
      if (info.isDirectory()) {
        if (recycleInfo?.isDirectory() && info.dev === recycleInfo.dev && info.ino === recycleInfo.ino) continue; // the recycle path is never cleaned
        if (budget.mayDescend(depth)) await visit(absolute, childRel, depth + 1, [...folders, refOf(absolute, info)]);
        else report.truncated = true;
      } else if (leadsIn) {
        continue; // a file now where a folder on the way to the resume point was: walked before
      } else if (info.isFile() && isOld(info)) {
        if (found.length >= maxFiles) throw FULL;
        found.push({ absolute, rel: childRel, seen: info, folders });
      }
      // symbolic links, sockets, fifos and devices: never followed, never cleaned
    }
  };

  const rootInfo = await lstat(root).catch(() => null);
  if (!rootInfo?.isDirectory()) {
    budget.end();
    throw new FerryError("StoragePathLost");
  }
  // What a crashed run left is finished first: a file put back is then walked like any other.
  if (!dryRun) await recover(refOf(root, rootInfo));
  // First the walk (read-only), then the moves, each after a fresh look at its file.
  const stops = (err: unknown) => err === FULL || (err instanceof FerryError && (err.errorName === "WalkLimit" || err.errorName === "StoppedByClient"));
  const resume = options.resumeAt ? segmentsOf(options.resumeAt) : null;
  const rootRef = refOf(root, rootInfo);
  const walkPart = async () => {
    try {
      await visit(root, "/", 0, [rootRef]);
    } catch (err) {
      if (err !== PASS_END) throw err;
    }
  };
  try {
    await budget.run(async () => {
      await walkPart();
      if (!resume) return;
      // Round the end: from the beginning up to where this walk began.
      pass = { from: null, until: resume };
      current = null;
      await walkPart();
    });
  } catch (err) {
    // A bound ends the walk with what it found so far; the next run goes on from the entry it
    // stopped at (a run that always stopped at the same bound would else never get further).
    if (!stops(err)) throw err;
    report.truncated = true;
    report.stoppedAt = current;
  }
  let next = 0;
  try {
    for (; next < found.length; next++) await take(found[next]!);
  } catch (err) {
    // Shutdown: the rest waits for the next run, which starts at the first file not taken.
    if (!stops(err)) throw err;
    report.truncated = true;
    report.stoppedAt = found[next]?.rel ?? report.stoppedAt;
  } finally {
    // Empty unless a file could not go back to its place (reported as an error): then it stays
    // held under its path, for the next run's recover.
    for (const run of runFolders) {
      await removeEmpty(run.own, run.made);
      liveRuns.delete(run.own);
    }
    if (!dryRun) await rmdir(holding).catch(() => undefined);
  }
  return report;
}
