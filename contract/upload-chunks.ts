import * as z from "zod";

/**
 * Ferry's parallel chunks on the file server's tus endpoint (docs/file-server.md, "Parallel chunks
 * (Ferry extension)"): the names both sides use, and the `Ferry-Ranges` format. The engine writes
 * it (server/uploads/chunks.ts); a client reads it to know which bytes to send after a reload.
 */

/** Advertised in `Tus-Extension` (OPTIONS). */
export const CHUNKS_EXTENSION = "ferry-chunks";
/** `Ferry-Chunk: 1` on a PATCH: its body is written at its `Upload-Offset`, anywhere inside `Upload-Length`. */
export const CHUNK_HEADER = "Ferry-Chunk";
/** On HEAD and chunk replies: every stored range, `start-end` with inclusive ends, comma separated. */
export const RANGES_HEADER = "Ferry-Ranges";
/** At most this many separate stored ranges per upload: a chunk that would make more is refused (send the gaps first). */
export const MAX_RANGES = 1000;

/** `Ferry-Ranges` as the engine writes it (`formatRanges`), for the OpenAPI document. */
export const ferryRangesHeader = z.string().regex(/^(\d+-\d+(,\d+-\d+)*)?$/);

/** A byte range [start, end), half open. */
export type ByteRange = [number, number];

export const formatRanges = (ranges: readonly ByteRange[]) => ranges.map(([s, e]) => `${s}-${e - 1}`).join(",");

/** `Ferry-Ranges` as half-open ranges; null when the header is not one. */
export function parseRanges(header: string | null | undefined): ByteRange[] | null {
  if (header === null || header === undefined) return null;
  if (header.trim() === "") return [];
  const out: ByteRange[] = [];
  for (const part of header.split(",")) {
    const m = /^\s*(\d{1,16})-(\d{1,16})\s*$/.exec(part);
    if (!m) return null;
    const start = Number(m[1]);
    const end = Number(m[2]) + 1;
    if (end <= start) return null;
    out.push([start, end]);
  }
  return out;
}

/** The gaps of [0, size) that `ranges` (sorted, merged) leave: what a client still has to send. */
export function missingRanges(ranges: readonly ByteRange[], size: number): ByteRange[] {
  const gaps: ByteRange[] = [];
  let at = 0;
  for (const [s, e] of ranges) {
    if (s > at) gaps.push([at, Math.min(s, size)]);
    at = Math.max(at, e);
  }
  if (at < size) gaps.push([at, size]);
  return gaps;
}
