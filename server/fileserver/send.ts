import type { ReadStream } from "node:fs";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { StatResult, Storage } from "../storage/storage";
import { ifRangeAllows, parseRange } from "./range";

/**
 * Sends one stored file over HTTP: validators, Range (range.ts), HEAD, and either the bytes
 * (piped with back-pressure, 1 MiB reads, no per-chunk JavaScript) or, behind nginx, only the
 * headers plus X-Accel-Redirect so that nginx sends the bytes.
 */

/**
 * `attachment` or `inline` with the name twice (RFC 6266): a plain-ASCII fallback for old clients
 * (non-ASCII, quotes, backslashes, percent signs and control characters become "_") and the exact
 * name as RFC 5987 UTF-8 percent-encoding. Nothing from the name can end the header or the quoted
 * string.
 */
export function contentDisposition(type: "attachment" | "inline", name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Headers every download and preview carries. */
export const COMMON_HEADERS = { "x-content-type-options": "nosniff", "cache-control": "private, no-store" } as const;

/** A client that goes away mid-transfer is normal (cancelled downloads, browsers probing ranges). */
export function clientGone(res: ServerResponse, error: unknown): boolean {
  return res.destroyed && (error as NodeJS.ErrnoException | null)?.code === "ERR_STREAM_PREMATURE_CLOSE";
}

export interface SendFile {
  storage: Storage;
  info: StatResult;
  /** The name the browser saves or shows. */
  name: string;
  contentType: string;
  disposition: "attachment" | "inline";
  extraHeaders?: OutgoingHttpHeaders;
  /** Set behind nginx: the internal URI nginx serves the bytes from. */
  accelRedirect?: string;
}

export async function sendFile(req: IncomingMessage, res: ServerResponse, file: SendFile): Promise<void> {
  const { info } = file;
  const etag = `"${info.size.toString(16)}-${info.mtime.toString(16)}"`;
  const lastModified = new Date(info.mtime * 1000).toUTCString();
  const headers: OutgoingHttpHeaders = {
    ...COMMON_HEADERS,
    ...file.extraHeaders,
    "content-type": file.contentType,
    "content-disposition": contentDisposition(file.disposition, file.name),
    "accept-ranges": "bytes",
    etag,
    "last-modified": lastModified,
  };

  if (file.accelRedirect !== undefined) {
    // nginx answers Range itself from the internal location; the body here is empty.
    res.writeHead(200, { ...headers, "x-accel-redirect": file.accelRedirect, "content-length": 0 });
    res.end();
    return;
  }

  const ifRange = req.headers["if-range"];
  const range = ifRangeAllows(Array.isArray(ifRange) ? ifRange.join(",") : ifRange, etag, lastModified) ? parseRange(req.headers.range, info.size) : { kind: "full" as const };
  if (range.kind === "unsatisfiable") {
    const body = "range not satisfiable\n";
    res.writeHead(416, {
      ...COMMON_HEADERS,
      "content-type": "text/plain; charset=utf-8",
      "accept-ranges": "bytes",
      "content-range": `bytes */${info.size}`,
      "content-length": Buffer.byteLength(body),
    });
    res.end(req.method === "HEAD" ? undefined : body);
    return;
  }
  const start = range.kind === "range" ? range.start : 0;
  const end = range.kind === "range" ? range.end : info.size - 1;
  const length = end - start + 1;
  if (range.kind === "range") headers["content-range"] = `bytes ${start}-${end}/${info.size}`;
  headers["content-length"] = length;

  if (req.method === "HEAD" || length === 0) {
    res.writeHead(range.kind === "range" ? 206 : 200, headers);
    res.end();
    return;
  }
  // Opened before the status is sent, so a file removed since the check is still a clean error.
  const stream: Readable = await file.storage.createReadStream(info.path, { start, end });
  res.writeHead(range.kind === "range" ? 206 : 200, headers);
  try {
    await pipeline(stream, res);
  } catch (error) {
    if (clientGone(res, error)) return;
    throw error;
  }
  // A file that shrank since stat() gives fewer bytes than promised: close the connection so the client sees the break instead of waiting.
  const read = (stream as Partial<ReadStream>).bytesRead;
  if (read !== undefined && read < length) res.socket?.destroy();
}
