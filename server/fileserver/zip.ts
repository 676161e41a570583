import { once } from "node:events";
import type { Readable } from "node:stream";
import { FerryError } from "../errors";
import { isForbidden } from "../files/spaces";
import { normaliseUserPath } from "../storage/paths";
import { type Storage, STREAM_BUFFER } from "../storage/storage";
import { commonFolder, relativeTo } from "./tickets";

/**
 * A selection (several items, or a folder) as one zip streamed straight into the response: no
 * temporary file, entries stored without compression (the bottleneck would be deflate, and most
 * large files are compressed already). Only the Storage interface is used, so the paths are
 * confined like every other read and links never lead out of the space.
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

/**
 * Every entry of the zip, walked before the first byte is sent so that a missing path is still a
 * clean 404 and the size is known (forbidden paths below the selection are left out) (zip64 is decided up front). Throws the storage's errors.
 */
export async function collectEntries(storage: Storage, paths: readonly string[], forbidden: readonly string[] = []): Promise<ZipEntry[]> {
  const top = topLevel(paths);
  const base = commonFolder(top);
  const entries: ZipEntry[] = [];

  const walk = async (folder: string): Promise<void> => {
    for (const item of await storage.list(folder)) {
      const child = childPath(folder, item.name);
      // The user's forbidden paths stay out of a folder's zip, as they stay out of its listing.
      if (child === null || isForbidden(forbidden, child)) continue;
      if (item.type === "file") {
        entries.push({ name: relativeTo(base, child), path: child, size: item.size, mtime: item.mtime });
        continue;
      }
      entries.push({ name: `${relativeTo(base, child)}/`, path: null, size: 0, mtime: item.mtime });
      try {
        await walk(child);
      } catch (error) {
        // A path grown past the length limit (only a link looping back inside the space does that) ends the walk there.
        if (!(error instanceof FerryError && error.errorName === "InvalidPath")) throw error;
      }
    }
  };

  for (const p of top) {
    const info = await storage.stat(p);
    if (info.type === "file") {
      entries.push({ name: relativeTo(base, p), path: p, size: info.size, mtime: info.mtime });
      continue;
    }
    if (p !== base) entries.push({ name: `${relativeTo(base, p)}/`, path: null, size: 0, mtime: info.mtime });
    await walk(p);
  }
  return entries;
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
