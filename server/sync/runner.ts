import { pipeline } from "node:stream/promises";
import { filterSkips, type FileFilter } from "../../contract/upload-rules";
import { FerryError } from "../errors";
import type { Entry, StatResult, Storage } from "../storage/storage";
import { WalkBudget, type WalkLimits } from "../storage/walk";

/**
 * One run of a sync task over two Storage instances rooted at the task's folders (docs/sync.md,
 * "How a run decides"). Every read and write goes through the Storage interface, so a local folder
 * syncs to S3 as to another folder: copies stream from createReadStream into beginWrite and appear
 * at commit(), complete or not at all. What the run left in sync is kept per file (SyncState), so
 * a run after it tells a changed file from an unchanged one on every store, and deletes only what
 * an earlier run saw on both sides.
 */

export interface SyncRunOptions {
  updateMode: "overwrite" | "append";
  keepMtime: boolean;
  onlyTopLevel: boolean;
  deleteTargetWhenSourceDeleted: boolean;
  deleteSourceAfterSync: boolean;
  twoWay: boolean;
  /** Skip patterns and the size limit (contract/upload-rules.ts FileFilter; paths from the task's folder). */
  filter: FileFilter;
  walk: WalkLimits;
}

/** Both sides of a file as a run left them in sync: size in bytes, time in unix seconds. */
export interface StateRecord {
  srcSize: number;
  srcMtime: number;
  dstSize: number;
  dstMtime: number;
}

/** What the runs of one task left in sync (table sync_state). Changes are buffered; flush writes them. */
export interface SyncState {
  records: Map<string, StateRecord>;
  put(path: string, record: StateRecord): void;
  remove(path: string): void;
  flush(): Promise<void>;
}

export interface SyncCounts {
  filesCopied: number;
  filesDeleted: number;
  filesSkipped: number;
  bytes: number;
}

/** A run's failure: the catalogue error and the file or folder it was met at. */
export class SyncRunError extends Error {
  constructor(
    readonly error: FerryError,
    readonly path: string,
  ) {
    super(error.errorName);
  }
}

type Side = { storage: Storage; files: Map<string, Entry>; folders: Set<string>; rootEntries: number };

/** The longest path a state record holds (sync_state.path, varchar(4096)); a file with a longer path is skipped. */
export const MAX_STATE_PATH = 4096;

const childPath = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);
const same = (a: { size: number; mtime: number }, size: number, mtime: number) => a.size === size && a.mtime === mtime;

/** The files and folders below the root (within the walk limits; links are not followed nor synced). */
async function walk(storage: Storage, options: SyncRunOptions, signal: AbortSignal): Promise<Side> {
  const budget = new WalkBudget(options.walk, { signal });
  const files = new Map<string, Entry>();
  const folders = new Set<string>();
  let rootEntries = 0;
  await budget.run(async () => {
    const stack: Array<{ rel: string; depth: number }> = [{ rel: "/", depth: 0 }];
    while (stack.length > 0) {
      const { rel, depth } = stack.pop()!;
      budget.folder(depth);
      let entries: Entry[];
      try {
        entries = await storage.list(rel);
      } catch (error) {
        throw new SyncRunError(asFerry(error), rel);
      }
      budget.entries(entries.length);
      if (rel === "/") rootEntries = entries.length;
      for (const entry of entries) {
        if (entry.link) continue;
        const path = childPath(rel, entry.name);
        if (entry.type === "file") files.set(path, entry);
        else if (!options.onlyTopLevel && !filterSkips({ patterns: options.filter.patterns, maxSize: 0 }, path)) {
          folders.add(path);
          stack.push({ rel: path, depth: depth + 1 });
        }
      }
    }
  });
  return { storage, files, folders, rootEntries };
}

const asFerry = (error: unknown): FerryError => (error instanceof FerryError ? error : Object.assign(new FerryError("FileSystemError"), { cause: error }));

/** Errors that concern one file only (it went away, a folder of its name is in the way): the file is skipped, the run goes on. */
const FILE_LEVEL = new Set(["PathNotFound", "PathIsFile", "PathIsNotFile", "PathExists"]);

/**
 * Runs one sync from `source` to `target` (both ways with `twoWay`), updating `counts` as it goes
 * (the console's live progress). Throws SyncRunError on a failure, StoppedByClient (as a
 * SyncRunError) when `signal` aborts; the state records made so far are flushed either way.
 */
export async function runSync(input: {
  source: Storage;
  target: Storage;
  options: SyncRunOptions;
  state: SyncState;
  signal: AbortSignal;
  counts: SyncCounts;
  /** Told of a file skipped for a reason the administrator should hear of (a path too long to keep a record of). */
  warn?: (path: string, reason: string) => void;
}): Promise<void> {
  const { options, state, signal, counts } = input;
  let failure: unknown = null;
  const checkStop = () => {
    if (signal.aborted) throw new SyncRunError(new FerryError("StoppedByClient"), "");
  };
  try {
    const src = await walk(input.source, options, signal);
    checkStop();
    const dst = await walk(input.target, options, signal);
    checkStop();

    // A side that lists nothing while records say earlier runs saw files on both sides is taken as
    // unavailable (the storage under the task moved, a mount point went empty), not as "everything
    // was deleted": propagating deletions from it would empty the other side. The run fails instead.
    const propagates = options.deleteTargetWhenSourceDeleted;
    if (propagates && state.records.size > 0) {
      const sides = options.twoWay ? [src, dst] : [src];
      if (sides.some((side) => side.rootEntries === 0)) throw new SyncRunError(new FerryError("StoragePathLost"), "/");
    }

    /** Copies `path` from one side to the other; the other side's entry as stored (its time as a listing will show it). */
    const copy = async (from: Side, to: Side, path: string, entry: Entry): Promise<StatResult> => {
      // The writer first: a read stream opened before a refused beginWrite would hold its file open.
      const writer = await to.storage.beginWrite(path, { overwrite: true });
      let read: NodeJS.ReadableStream & { destroy(): void } | null = null;
      try {
        read = await from.storage.createReadStream(path);
        await pipeline(read, writer.stream, { signal });
        await writer.commit();
      } catch (error) {
        read?.destroy();
        await writer.abort();
        checkStop();
        throw error;
      }
      if (options.keepMtime && to.storage.setMtime) await to.storage.setMtime(path, entry.mtime);
      counts.filesCopied++;
      counts.bytes += entry.size;
      return to.storage.stat(path);
    };

    const skipped = (path: string, size: number) => {
      if (path.length > MAX_STATE_PATH) {
        input.warn?.(path, "path longer than a state record holds");
        return true;
      }
      return filterSkips(options.filter, path, size) !== null;
    };

    /** True when both sides' files have the same bytes (read side by side, stopped at the first difference). */
    const sameContent = async (path: string): Promise<boolean> => {
      const a = (await src.storage.createReadStream(path))[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const b = (await dst.storage.createReadStream(path).catch(async (error: unknown) => {
        await a.return?.();
        throw error;
      }))[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let left = Buffer.alloc(0);
      let right = Buffer.alloc(0);
      let aDone = false;
      let bDone = false;
      try {
        for (;;) {
          checkStop();
          if (left.length === 0 && !aDone) {
            const next = await a.next();
            if (next.done) aDone = true;
            else left = Buffer.from(next.value);
          }
          if (right.length === 0 && !bDone) {
            const next = await b.next();
            if (next.done) bDone = true;
            else right = Buffer.from(next.value);
          }
          if (left.length === 0 && right.length === 0 && aDone && bDone) return true;
          const n = Math.min(left.length, right.length);
          if (n === 0) {
            if ((left.length === 0 && aDone) || (right.length === 0 && bDone)) return false;
            continue;
          }
          if (!left.subarray(0, n).equals(right.subarray(0, n))) return false;
          left = left.subarray(n);
          right = right.subarray(n);
        }
      } finally {
        await a.return?.();
        await b.return?.();
      }
    };

    /** Runs one file's step; a file-level failure skips the file, anything else ends the run. */
    const step = async (path: string, work: () => Promise<void>) => {
      checkStop();
      try {
        await work();
      } catch (error) {
        if (error instanceof SyncRunError) throw error;
        const mapped = asFerry(error);
        if (FILE_LEVEL.has(mapped.errorName)) {
          counts.filesSkipped++;
          return;
        }
        throw new SyncRunError(mapped, path);
      }
    };

    // Folders first, so every file's parent exists (two-way: both sides get the other's folders).
    const mkdirs = async (from: Side, to: Side) => {
      for (const folder of [...from.folders].sort()) {
        if (to.folders.has(folder) || to.files.has(folder)) continue;
        await step(folder, async () => {
          await to.storage.mkdir(folder, { recursive: true });
          to.folders.add(folder);
        });
      }
    };
    await mkdirs(src, dst);
    if (options.twoWay) await mkdirs(dst, src);

    if (options.twoWay) await twoWay(src, dst);
    else await oneWay(src, dst);

    // Records of files gone from both sides serve nothing any more.
    for (const path of [...state.records.keys()]) if (!src.files.has(path) && !dst.files.has(path)) state.remove(path);

    async function oneWay(src: Side, dst: Side) {
      for (const path of [...src.files.keys()].sort()) {
        const s = src.files.get(path)!;
        await step(path, async () => {
          if (skipped(path, s.size)) {
            counts.filesSkipped++;
            return;
          }
          const d = dst.files.get(path);
          const record = state.records.get(path);
          let synced: StateRecord | null = null;
          if (!d) {
            const after = await copy(src, dst, path, s);
            synced = { srcSize: s.size, srcMtime: s.mtime, dstSize: after.size, dstMtime: after.mtime };
          } else if (record && same(s, record.srcSize, record.srcMtime) && same(d, record.dstSize, record.dstMtime)) {
            synced = record;
          } else if (same(s, d.size, d.mtime) && !options.deleteSourceAfterSync) {
            synced = { srcSize: s.size, srcMtime: s.mtime, dstSize: d.size, dstMtime: d.mtime };
          } else if (same(s, d.size, d.mtime) && (await sameContent(path))) {
            // The source goes after this: the same size and time are no proof the target holds its
            // bytes when no record says this pair was synced, so the content was compared.
            synced = { srcSize: s.size, srcMtime: s.mtime, dstSize: d.size, dstMtime: d.mtime };
          } else if (options.updateMode === "append") {
            // Append never replaces a file the target holds.
            counts.filesSkipped++;
            return;
          } else {
            const after = await copy(src, dst, path, s);
            synced = { srcSize: s.size, srcMtime: s.mtime, dstSize: after.size, dstMtime: after.mtime };
          }
          if (options.deleteSourceAfterSync) {
            await src.storage.remove(path);
            src.files.delete(path);
            state.remove(path);
          } else if (synced !== record) state.put(path, synced);
        });
      }
      if (!options.deleteTargetWhenSourceDeleted) return;
      for (const path of [...dst.files.keys()].sort()) {
        if (src.files.has(path)) continue;
        const d = dst.files.get(path)!;
        const record = state.records.get(path);
        // Only a file an earlier run synced, unchanged at the target since: never one the target
        // had of its own, never on a first run, never one changed there after the sync.
        if (!record || skipped(path, d.size)) continue;
        await step(path, async () => {
          if (same(d, record.dstSize, record.dstMtime)) {
            await dst.storage.remove(path);
            dst.files.delete(path);
            counts.filesDeleted++;
          }
          state.remove(path);
        });
      }
    }

    async function twoWay(src: Side, dst: Side) {
      const paths = [...new Set([...src.files.keys(), ...dst.files.keys()])].sort();
      for (const path of paths) {
        const s = src.files.get(path);
        const d = dst.files.get(path);
        await step(path, async () => {
          if (skipped(path, (s ?? d)!.size)) {
            counts.filesSkipped++;
            return;
          }
          const record = state.records.get(path);
          if (s && d) {
            if (same(s, d.size, d.mtime)) {
              if (!record || !same(s, record.srcSize, record.srcMtime) || !same(d, record.dstSize, record.dstMtime)) state.put(path, { srcSize: s.size, srcMtime: s.mtime, dstSize: d.size, dstMtime: d.mtime });
              return;
            }
            const srcChanged = !record || !same(s, record.srcSize, record.srcMtime);
            const dstChanged = !record || !same(d, record.dstSize, record.dstMtime);
            if (!srcChanged && !dstChanged) return;
            if (options.updateMode === "append") {
              counts.filesSkipped++;
              return;
            }
            // Changed on one side: that side wins. Changed on both (or never synced): the newer
            // time wins, the source on a tie.
            const fromSource = srcChanged && dstChanged ? s.mtime >= d.mtime : srcChanged;
            if (fromSource) {
              const after = await copy(src, dst, path, s);
              state.put(path, { srcSize: s.size, srcMtime: s.mtime, dstSize: after.size, dstMtime: after.mtime });
            } else {
              const after = await copy(dst, src, path, d);
              state.put(path, { srcSize: after.size, srcMtime: after.mtime, dstSize: d.size, dstMtime: d.mtime });
            }
            return;
          }
          // On one side only: deleted on the other (when an earlier run saw it on both, it is
          // unchanged since, and deletions propagate), else new there.
          const [have, haveSide, otherSide, haveIsSource] = s ? [s, src, dst, true] : [d!, dst, src, false];
          const seen = record && (haveIsSource ? same(have, record.srcSize, record.srcMtime) : same(have, record.dstSize, record.dstMtime));
          if (record && seen && options.deleteTargetWhenSourceDeleted) {
            await haveSide.storage.remove(path);
            haveSide.files.delete(path);
            counts.filesDeleted++;
            state.remove(path);
            return;
          }
          const after = await copy(haveSide, otherSide, path, have);
          state.put(
            path,
            haveIsSource
              ? { srcSize: have.size, srcMtime: have.mtime, dstSize: after.size, dstMtime: after.mtime }
              : { srcSize: after.size, srcMtime: after.mtime, dstSize: have.size, dstMtime: have.mtime },
          );
        });
      }
    }
  } catch (error) {
    failure = error instanceof SyncRunError ? error : signal.aborted ? new SyncRunError(new FerryError("StoppedByClient"), "") : new SyncRunError(asFerry(error), "");
  }
  // What the run did is recorded also when it failed or was stopped. A record that cannot be
  // written fails a run that went well: the next run would copy again, or miss a deletion.
  try {
    await state.flush();
  } catch (error) {
    failure ??= new SyncRunError(asFerry(error), "");
  }
  if (failure) throw failure;
}
