/**
 * The Range header of a download (RFC 9110 §14), reduced to what Ferry serves: one byte range or
 * the whole file (docs/file-server.md, "Downloads and previews").
 *
 * - No header, another unit, anything that is not the `bytes=` grammar, or several ranges
 *   (Ferry sends no multipart/byteranges) → "full": the header is ignored and the file is sent
 *   whole with 200, which RFC 9110 §14.2 allows.
 * - One well-formed range that cannot be served — its first byte at or past the end, the empty
 *   suffix `bytes=-0`, a last byte before the first (`bytes=5-2`, "invalid" in §14.1.1), any range
 *   of an empty file → "unsatisfiable" (416 whose Content-Range gives only the size, as §14.2 says).
 * - Otherwise the inclusive byte span, its end clamped to the file.
 */

export type RangeResult = { kind: "full" } | { kind: "unsatisfiable" } | { kind: "range"; start: number; end: number };

/** Longer headers are not a single range anyone sends; ignoring them bounds the work. */
const MAX_HEADER = 200;
const SPEC = /^(\d*)-(\d*)$/;

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined || header.length > MAX_HEADER) return { kind: "full" };
  const match = /^\s*bytes\s*=\s*(.*?)\s*$/i.exec(header);
  if (!match) return { kind: "full" };
  const specs = match[1]!.split(",").map((s) => s.trim());
  if (specs.length !== 1) return { kind: "full" };
  const parts = SPEC.exec(specs[0]!);
  if (!parts) return { kind: "full" };
  const [, first, last] = parts as unknown as [string, string, string];
  if (first === "" && last === "") return { kind: "full" };

  if (first === "") {
    // Suffix: the last n bytes; more than the file is the whole file.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "unsatisfiable" };
  if (start >= size) return { kind: "unsatisfiable" };
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: "range", start, end };
}

/**
 * Whether a Range may be honoured under `If-Range` (RFC 9110 §13.1.5): only when the validator
 * names the current representation — the same strong ETag, or exactly the Last-Modified date.
 * Anything else (a stale ETag, a weak one, another date) means the client holds other bytes:
 * send the whole file.
 */
export function ifRangeAllows(ifRange: string | undefined, etag: string, lastModified: string): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"')) return value === etag;
  if (value.startsWith("W/")) return false;
  return value === lastModified;
}
