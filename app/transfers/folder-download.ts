import type { Listing } from "../../contract/files";
import { chunkRanges, chunkSizeFor, PAGE_DOWNLOAD_MIN_BYTES } from "./page-download";


/**
 * The planning half of a folder written by the page into a directory the user picks (issue 16,
 * "Parallel, resumable large downloads in the browser", folders): the walk of the folder through
 * the socket's `list` (one level per call; the engine has no recursive listing with sizes), which
 * files to fetch next, and the progress a saved state stands for. Plain functions, no browser I/O,
 * so they are tested without a browser. The browser half: folder-download.client.ts.
 */

/** One file below the folder: its path relative to the folder ("sub/a.txt"), its size in bytes. */
export interface FolderFile {
  relative: string;
  size: number;
}

/** What a walk found: every file, and every folder (relative, parents first) so empty ones are made too. */
export interface FolderWalk {
  files: FolderFile[];
  folders: string[];
}

/** The folder holds more entries than a page download takes on; the zip download stays. */
export class FolderTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} entries`);
    this.name = "FolderTooLarge";
  }
}

/** Entries a page-written folder download takes on at most (the saved state is one IndexedDB record). */
export const FOLDER_MAX_ENTRIES = 20_000;
/** Small files fetched at once (one request each); a large file runs alone with its parallel ranges. */
export const SMALL_FILES_AT_ONCE = 4;
/** Files not saved that the folder's row names, with their reasons; the rest are counted ("and 12 more"). */
export const REFUSED_SHOWN = 5;

const FOLDER_TYPES = new Set([1, 2]);

/**
 * Walks `root` breadth-first with `list` (the socket command: it applies the permission, forbidden
 * paths and the file filter as for any listing). Symbolic links are never listed as folders by the
 * engine, so the walk ends.
 */
export async function walkFolder(list: (path: string) => Promise<Listing>, root: string, maxEntries = FOLDER_MAX_ENTRIES): Promise<FolderWalk> {
  const base = root.endsWith("/") ? root : `${root}/`;
  const files: FolderFile[] = [];
  const folders: string[] = [];
  const queue: string[] = [""];
  let entries = 0;
  while (queue.length > 0) {
    const relative = queue.shift()!;
    const listing = await list(relative ? `${base}${relative}` : root);
    for (let i = 0; i < listing.names.length; i += 1) {
      entries += 1;
      if (entries > maxEntries) throw new FolderTooLarge(maxEntries);
      const path = relative ? `${relative}/${listing.names[i]!}` : listing.names[i]!;
      if (FOLDER_TYPES.has(listing.types[i]!)) {
        folders.push(path);
        queue.push(path);
      } else {
        files.push({ relative: path, size: listing.sizes[i]! });
      }
    }
  }
  return { files, folders };
}

/** A file of a saved folder download: done (written and checked), or the ranges committed so far (large files). */
export interface FolderFileState extends FolderFile {
  /** The engine's BLAKE3 of the file (attributes); null: none recorded, the file is not verified. */
  hash: string | null;
  done: boolean;
  /** Indexes of committed ranges (chunkRanges of its size by `chunk`); a small file has none until done. */
  ranges: number[];
  /**
   * Bytes per range when its first range was committed: the indexes in `ranges` are of that cut,
   * whatever chunkSizeFor says after an update. Absent (saved before it was kept): the ranges'
   * bytes are unknown, the file starts over.
   */
  chunk?: number;
  /** A large file's ETag at its first range (a later range of another version means it changed). */
  etag?: string | null;
  /** Refused or not matching: the message key shown in the folder's row (the file counts as done), with its variables. */
  failed?: string;
  failedVars?: Record<string, string | number>;
  /** Written, but the engine had no hash to check it against. */
  unverified?: boolean;
}

/** Whether a file of the folder is fetched by parallel ranges (as a single large download) or in one request. */
export const isLargeFile = (size: number) => size >= PAGE_DOWNLOAD_MIN_BYTES;

/** Bytes a saved state stands for: finished files, and the committed ranges of a partly written large one (cut by its saved `chunk`). */
export function folderBytes(files: readonly FolderFileState[]): number {
  let bytes = 0;
  for (const file of files) {
    if (file.done) {
      bytes += file.size;
      continue;
    }
    if (!file.chunk) continue;
    const ranges = chunkRanges(file.size, file.chunk);
    for (const index of file.ranges) bytes += ranges[index] ? ranges[index][1] - ranges[index][0] : 0;
  }
  return bytes;
}

/**
 * Where a large file of the folder goes on from: its committed ranges cut by the range size they
 * were saved with (a later chunkSizeFor may cut the file otherwise), or from the start by today's
 * range size when none are saved, or when they were saved without their size (not knowing which
 * bytes they hold, nothing of them is trusted).
 */
export function resumeRanges(file: Pick<FolderFileState, "size" | "ranges" | "chunk">): { chunk: number; done: number[] } {
  if (!file.chunk) return { chunk: chunkSizeFor(file.size), done: [] };
  return { chunk: file.chunk, done: [...file.ranges] };
}

/**
 * The files to start next, given those running: a large file only when nothing else of the folder
 * runs (its ranges take the connections), small files up to SMALL_FILES_AT_ONCE at a time. Files
 * already done are skipped, so a resume after a reload starts with what is missing; a partly written
 * large file comes first, to finish what is on disk.
 */
export function nextFiles(files: readonly FolderFileState[], running: ReadonlySet<string>): FolderFileState[] {
  const runningLarge = files.some((file) => running.has(file.relative) && isLargeFile(file.size));
  if (runningLarge) return [];
  const waiting = files.filter((file) => !file.done && !running.has(file.relative));
  const partial = waiting.find((file) => isLargeFile(file.size) && file.ranges.length > 0);
  const small = waiting.filter((file) => !isLargeFile(file.size));
  if (running.size === 0 && (partial || small.length === 0)) {
    const large = partial ?? waiting.find((file) => isLargeFile(file.size));
    return large ? [large] : [];
  }
  return small.slice(0, Math.max(0, SMALL_FILES_AT_ONCE - running.size));
}
