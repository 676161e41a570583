import type { ReadStream } from "node:fs";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type StatResult, type Storage, STREAM_BUFFER } from "../storage/storage";
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

/**
 * Read size of one download while `active` downloads run in this process. Alone or with a few
 * others a download reads 1 MiB at a time: smaller reads cost single-stream speed (bare Node on
 * loopback: 256 KiB reads reach ~45 % of 1 MiB reads). Each stream holds about two reads (one
 * queued in the socket, one read ahead) plus the garbage of earlier ones, so 50 downloads at 1 MiB
 * held ~190 MB of buffers. Past READ_BUDGET (8 downloads at 1 MiB) the size halves, down to 64 KiB:
 * with that many streams the cores, not one stream's chunk size, bound the total rate.
 */
const READ_BUDGET = 8 * STREAM_BUFFER;
const MIN_READ = 64 * 1024;
export function downloadBufferSize(active: number): number {
  let size = STREAM_BUFFER;
  while (size > MIN_READ && size * active > READ_BUDGET) size /= 2;
  return size;
}

/** Downloads sending bytes now (not HEAD, not behind nginx). */
let sending = 0;

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
  sending++;
  try {
    // Opened before the status is sent, so a file removed since the check is still a clean error.
    const stream: Readable = await file.storage.createReadStream(info.path, { start, end, bufferSize: downloadBufferSize(sending) });
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
  } finally {
    sending--;
  }
}
