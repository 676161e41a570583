import { once } from "node:events";
import type { Readable } from "node:stream";
import { FerryError } from "../errors";
import { isForbidden } from "../files/spaces";
import { normaliseUserPath } from "../storage/paths";
import { type Storage, STREAM_BUFFER } from "../storage/storage";
import { WALK_DEFAULTS, WalkBudget, type WalkLimits } from "../storage/walk";
import { commonFolder, relativeTo } from "./tickets";

/**
 * A selection (several items, or a folder) as one zip streamed straight into the response: no
 * temporary file, entries stored without compression (the bottleneck would be deflate, and most
 * large files are compressed already). Only the Storage interface is used, so the paths are
 * confined like every other read and links never lead out of the space; the walk follows no link.
 */

export interface ZipEntry {
  /** Name inside the archive: the path relative to the selection's folder; folders end with "/". */
  name: string;
  /** The user path of a file; null for a folder. */
  path: string | null;
  size: number;
  mtime: number;
}

/** Drops paths inside another selected path, so no entry is written twice. */
function topLevel(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const p of sorted) {
    if (!kept.some((q) => q === "/" || p.startsWith(`${q}/`))) kept.push(p);
  }
  return kept;
}

/** Joins a listed name to its folder; null for names the path rules refuse (they cannot be read). */
function childPath(folder: string, name: string): string | null {
  try {
    return normaliseUserPath(folder === "/" ? `/${name}` : `${folder}/${name}`);
  } catch {
    return null;
  }
}

export interface CollectOptions {
  /** The user's forbidden paths: they stay out of a folder's zip, as they stay out of its listing. */
  forbidden?: readonly string[];
  /** Levels below a selected folder and entries in the whole zip (FERRY_WALK_MAX_DEPTH, FERRY_ZIP_MAX_ENTRIES). */
  limits?: WalkLimits;
  /** Aborted when the client goes away: the walk stops (StoppedByClient). */
  signal?: AbortSignal;
}

/**
 * Every entry of the zip, walked before the first byte is sent so that a missing path is still a
 * clean 404 and the size is known (zip64 is decided up front). Forbidden paths below the selection
 * are left out, checked on each entry's path and on its canonical path (the selected folder's with
 * the names below it appended: the walk enters no symbolic link, so nothing below changes it).
 * Links below a selected folder are left out, so a link loop cannot make the walk endless. Throws
 * the storage's errors, WalkLimit past the limits and StoppedByClient once the client is gone.
 */
export async function collectEntries(storage: Storage, paths: readonly string[], options: CollectOptions = {}): Promise<ZipEntry[]> {
  const forbidden = options.forbidden ?? [];
  const top = topLevel(paths);
  const base = commonFolder(top);
  const entries: ZipEntry[] = [];
  const budget = new WalkBudget(options.limits ?? { ...WALK_DEFAULTS, maxEntries: 100_000 }, { signal: options.signal });

  const walk = async (folder: string, real: string, depth: number): Promise<void> => {
    budget.folder(depth);
    const items = await storage.list(folder);
    budget.entries(items.length);
    for (const item of items) {
      if (item.link) continue;
      const child = childPath(folder, item.name);
      const childReal = childPath(real, item.name);
      if (child === null || childReal === null || isForbidden(forbidden, child) || isForbidden(forbidden, childReal)) continue;
      if (item.type === "file") {
        entries.push({ name: relativeTo(base, child), path: child, size: item.size, mtime: item.mtime });
        continue;
      }
      entries.push({ name: `${relativeTo(base, child)}/`, path: null, size: 0, mtime: item.mtime });
      try {
        await walk(child, childReal, depth + 1);
      } catch (error) {
        // A path grown past the length limit (put there behind the engine's back) ends the walk there.
        if (!(error instanceof FerryError && error.errorName === "InvalidPath")) throw error;
      }
    }
  };

  return budget.run(async () => {
    for (const p of top) {
      const info = await storage.stat(p);
      budget.entries(1);
      if (info.type === "file") {
        entries.push({ name: relativeTo(base, p), path: p, size: info.size, mtime: info.mtime });
        continue;
      }
      if (p !== base) entries.push({ name: `${relativeTo(base, p)}/`, path: null, size: 0, mtime: info.mtime });
      await walk(p, await storage.resolve(p), 0);
    }
    return entries;
  });
}

const ZIP32_LIMIT = 0xffffffff;
/** Headers, descriptor and zip64 extra of one entry, beside its name (twice: local and central). */
const ENTRY_OVERHEAD = 200;

/**
 * zip64 is needed past 4 GiB or 65,535 entries. A streamed entry's size is unknown when its local
 * header is written, so the decision is made from the walk: forcing zip64 from the start writes
 * the sizes where every unzip tool looks for them.
 */
export function needsZip64(entries: readonly ZipEntry[]): boolean {
  if (entries.length >= 0xffff) return true;
  let total = 0;
  for (const e of entries) total += e.size + ENTRY_OVERHEAD + 2 * Buffer.byteLength(e.name);
  return total >= ZIP32_LIMIT;
}

/**
 * The archive as a readable stream. Files are opened one at a time, when the archiver is ready
 * for them, so a folder of 100,000 files holds one descriptor. A file that cannot be read any more
 * (removed meanwhile) fails the stream: the download breaks visibly instead of silently missing a
 * file.
 */
export async function zipStream(storage: Storage, entries: readonly ZipEntry[]): Promise<Readable> {
  // Loaded on the first zip, not at start: most engines serve few zips, and archiver with its
  // dependencies holds a few MB of heap.
  const { ZipArchive } = await import("archiver");
  const archive = new ZipArchive({ store: true, forceZip64: needsZip64(entries), highWaterMark: STREAM_BUFFER });
  const stop = new AbortController();
  let current: Readable | null = null;
  archive.once("close", () => {
    stop.abort();
    current?.destroy();
  });

  const feed = async () => {
    for (const entry of entries) {
      if (stop.signal.aborted) return;
      const date = new Date(entry.mtime * 1000);
      if (entry.path === null) {
        archive.append(Buffer.alloc(0), { name: entry.name, type: "directory", date });
      } else if (entry.size === 0) {
        archive.append(Buffer.alloc(0), { name: entry.name, date });
      } else {
        // The end bounds the read buffer to the file: without it every small file would get a 1 MiB buffer.
        current = await storage.createReadStream(entry.path, { start: 0, end: entry.size - 1 });
        if (stop.signal.aborted) {
          current.destroy();
          return;
        }
        archive.append(current, { name: entry.name, date });
      }
      await once(archive, "entry", { signal: stop.signal });
      current = null;
    }
    await archive.finalize();
  };
  feed().catch((error: unknown) => {
    if (!stop.signal.aborted) archive.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return archive;
}
