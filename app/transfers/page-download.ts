/**
 * Downloads written by the page itself (parallel-download.client.ts): when they are used, how a
 * file is cut into ranges, and how many ranges run at once. Plain functions, no browser I/O, so the
 * panel (rendered on the server too) and the unit tests can use them.
 */

const MIB = 1024 * 1024;

/** Files from this size are written by the page when the browser can (smaller ones gain nothing). */
export const PAGE_DOWNLOAD_MIN_BYTES = 64 * MIB;
/**
 * Ranges at once: the browser's HTTP/1.1 connections per host (6) from the start, fewer as soon as
 * ranges come back quickly (loopback, a LAN). On a long, lossy link each stream is held back by its
 * own congestion window and a range can take a minute, so a start lower than 6 stayed lower for
 * most of a file (measured: docs/bench.md, "WAN: the web client's rows").
 */
export const MAX_STREAMS = 6;
export const START_STREAMS = MAX_STREAMS;
export const MIN_STREAMS = 2;

/** Ranges per stream at least, so the last ranges of a file finish together. */
export const RANGES_PER_STREAM = 4;
/**
 * Bytes per range: the file cut into RANGES_PER_STREAM ranges for each of the MAX_STREAMS streams,
 * in whole MiB (rounded down), between 2 and 16 MiB. With fixed 8 MiB ranges a 64 MiB file made 8 ranges for 6
 * streams: on a slow link the last 2 ran alone for as long again (docs/bench.md, "WAN: the web
 * client's rows"). From 384 MiB on, 16 MiB (fewer requests, the same spread).
 */
export const chunkSizeFor = (size: number) => Math.min(16 * MIB, Math.max(2 * MIB, Math.floor(size / (MAX_STREAMS * RANGES_PER_STREAM) / MIB) * MIB));

/** The ranges of a file: `[start, end)` by index. */
export function chunkRanges(size: number, chunk: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let start = 0; start < size; start += chunk) ranges.push([start, Math.min(size, start + chunk)]);
  return ranges;
}

/**
 * Streams for the next ranges, from how long the last range took: a slow range (a long or lossy
 * link, where one TCP stream is held back by its congestion window) asks for more streams, a quick
 * one (loopback, a LAN, where streams only share the disk and the cores) for fewer.
 */
export function adaptStreams(current: number, rangeBytes: number, rangeMs: number): number {
  if (rangeMs > 4000) return Math.min(MAX_STREAMS, current + 1);
  if (rangeMs < 250 && rangeBytes >= MIB) return Math.max(MIN_STREAMS, current - 1);
  return current;
}

/**
 * Work stealing at the end of a download: once no range is left to start, a stream that goes idle
 * takes the second half of the piece in flight that will end last, and the piece's own request stops
 * reading at the split point. Without it, a slow link's last ranges ran on one or two of the six
 * connections while the others sat idle (docs/bench.md, "WAN: the web client's rows").
 * A piece is `[start, end)` of one range; a range counts as finished (and is committed for a
 * resume) only when all its pieces are written, so the record of finished ranges stays exact.
 */
export interface FlightPiece {
  start: number;
  /** Where its request stops reading (moved down by a split). */
  end: number;
  /** Bytes received so far from `start`. */
  received: number;
  /** When its first byte arrived (ms, any clock); null before, or while it waits for a retry. */
  firstByteMs: number | null;
}

/** The smallest half a split makes: below it the new request's round trip costs more than it saves. */
export const MIN_SPLIT_BYTES = 128 * 1024;
/** A piece is only split with at least this long still to come at its own rate. */
export const MIN_SPLIT_MS = 1000;
/** Split points are whole multiples of this (from the file's start). */
const SPLIT_ALIGN = 64 * 1024;

/** Milliseconds a piece still needs at the rate it has had so far; null before its first byte. */
export function msLeft(piece: FlightPiece, nowMs: number): number | null {
  if (piece.firstByteMs === null || piece.received <= 0) return null;
  const rate = piece.received / Math.max(1, nowMs - piece.firstByteMs);
  return (piece.end - piece.start - piece.received) / rate;
}

/**
 * Where to split `piece`, or null when it is not worth it: the middle of what is still to come,
 * aligned, with at least MIN_SPLIT_BYTES on either side and MIN_SPLIT_MS of it left.
 */
export function splitPoint(piece: FlightPiece, nowMs: number): number | null {
  const left = msLeft(piece, nowMs);
  if (left === null || left < MIN_SPLIT_MS) return null;
  const from = piece.start + piece.received;
  const at = Math.floor((from + (piece.end - from) / 2) / SPLIT_ALIGN) * SPLIT_ALIGN;
  if (at - from < MIN_SPLIT_BYTES || piece.end - at < MIN_SPLIT_BYTES) return null;
  return at;
}

/**
 * The piece to split for an idle stream: of those worth splitting, the one that would end last at
 * its own rate (the most bytes still to come on a link where every stream runs alike). Returns its
 * index in `pieces` and the split point, or null.
 */
export function pickSplit(pieces: readonly FlightPiece[], nowMs: number): { index: number; at: number } | null {
  let best: { index: number; at: number; left: number } | null = null;
  pieces.forEach((piece, index) => {
    const at = splitPoint(piece, nowMs);
    if (at === null) return;
    const left = msLeft(piece, nowMs)!;
    if (!best || left > best.left) best = { index, at, left };
  });
  const found = best as { index: number; at: number; left: number } | null;
  return found ? { index: found.index, at: found.at } : null;
}

/**
 * Chromium's swap file: a writable stream writes into a copy that becomes the file on close(), and
 * reopening with `keepExistingData` copies the file again. Committing whenever the new bytes reach
 * what is already committed (at least one range) keeps those copies under twice the file's size in
 * all, while a reload loses at most about half of what was written.
 */
export const shouldCommit = (committedBytes: number, pendingBytes: number, chunk: number) => pendingBytes >= Math.max(chunk, committedBytes);

/** The user's choice: large downloads by the page (default where possible) or by the browser's download manager. */
export type DownloadMode = "page" | "browser";
const MODE_KEY = "ferry.transfers.download-mode";

export function readDownloadMode(storage: Pick<Storage, "getItem"> | undefined = globalThis.localStorage): DownloadMode {
  try {
    return storage?.getItem(MODE_KEY) === "browser" ? "browser" : "page";
  } catch {
    return "page";
  }
}

export function writeDownloadMode(mode: DownloadMode, storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage) {
  try {
    storage?.setItem(MODE_KEY, mode);
  } catch {
    // Storage off: the choice lasts this page only.
  }
}

/** Whether this browser lets a page write a file the user picks (the File System Access API, Chromium). */
export const pageDownloadsSupported = () => typeof window !== "undefined" && typeof (window as { showSaveFilePicker?: unknown }).showSaveFilePicker === "function";

/** Whether a download of one file of `size` bytes is written by the page. */
export function wantsPageDownload(size: number, isOneFile: boolean, mode: DownloadMode, supported: boolean): boolean {
  return supported && isOneFile && mode === "page" && size >= PAGE_DOWNLOAD_MIN_BYTES;
}
