import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Throttle } from "../speed/throttle";
import { type FileReader, type StatResult, type Storage, STREAM_BUFFER } from "../storage/storage";
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
 * Read buffers of running downloads. Alone or with a few others a download reads 1 MiB at a time:
 * smaller reads cost single-stream speed (bare Node on loopback: 256 KiB reads reach ~45 % of
 * 1 MiB reads). The two buffers of every running download share BUFFER_BUDGET (eight downloads at
 * 1 MiB); a download that starts when less is left takes the largest size that still fits, never
 * under 64 KiB — with that many streams the cores, not one stream's chunk size, bound the total
 * rate — so 50 downloads hold ~22 MiB of buffers whatever order they start in.
 */
const BUFFER_BUDGET = 16 * STREAM_BUFFER;
const MIN_READ = 64 * 1024;
export function downloadBufferSize(inUse: number): number {
  let size = STREAM_BUFFER;
  while (size > MIN_READ && inUse + 2 * size > BUFFER_BUDGET) size /= 2;
  return size;
}

/** Bytes of buffers held by running downloads (two each). */
let buffersInUse = 0;

/**
 * Buffers of finished downloads, by size, for the next ones: reused memory is already faulted in,
 * and the process does not wait on the garbage collector to give back external memory (idle RSS).
 * At most one budget is kept.
 */
const spareBuffers = new Map<number, Buffer[]>();
let spareBytes = 0;
const takeBuffer = (size: number) => {
  const buffer = spareBuffers.get(size)?.pop();
  if (!buffer) return Buffer.allocUnsafeSlow(size);
  spareBytes -= size;
  return buffer;
};
const giveBuffer = (buffer: Buffer) => {
  if (spareBytes + buffer.length > BUFFER_BUDGET) return;
  spareBytes += buffer.length;
  const list = spareBuffers.get(buffer.length);
  if (list) list.push(buffer);
  else spareBuffers.set(buffer.length, [buffer]);
};

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
  /** The speed limit the bytes pass (server/speed/); a limited download is never handed to nginx. */
  throttle?: Throttle | null;
}

export async function sendFile(req: IncomingMessage, res: ServerResponse, file: SendFile): Promise<boolean> {
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

  if (file.accelRedirect !== undefined && !file.throttle) {
    // nginx answers Range itself from the internal location; the body here is empty.
    res.writeHead(200, { ...headers, "x-accel-redirect": file.accelRedirect, "content-length": 0 });
    res.end();
    return req.method !== "HEAD";
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
    return false;
  }
  const start = range.kind === "range" ? range.start : 0;
  const end = range.kind === "range" ? range.end : info.size - 1;
  const length = end - start + 1;
  if (range.kind === "range") headers["content-range"] = `bytes ${start}-${end}/${info.size}`;
  headers["content-length"] = length;

  if (req.method === "HEAD" || length === 0) {
    res.writeHead(range.kind === "range" ? 206 : 200, headers);
    res.end();
    return req.method !== "HEAD" && end === info.size - 1;
  }
  // Opened before the status is sent, so a file removed since the check is still a clean error.
  const reader = await file.storage.openReader(info.path);
  // A limited download reads pieces of the limit's size, so its bytes leave evenly rather than in 1 MiB bursts.
  const size = Math.min(downloadBufferSize(buffersInUse), length, file.throttle?.pieceSize ?? Infinity);
  buffersInUse += 2 * size;
  try {
    res.writeHead(range.kind === "range" ? 206 : 200, headers);
    // A file that shrank since stat() gives fewer bytes than promised: close the connection so the client sees the break instead of waiting.
    if (await sendBytes(res, reader, start, length, size, file.throttle ?? undefined)) {
      res.end();
      // Finished: the bytes up to the file's end went out (a whole file, or the last range of a resumed one).
      return end === info.size - 1;
    }
    res.socket?.destroy();
    return false;
  } finally {
    buffersInUse -= 2 * size;
    await reader.close();
  }
}

/**
 * Copies `length` bytes from `start` to the response through two buffers of `size`, used in turn:
 * one is read into while the other is being written, and a buffer is read into again only after
 * the socket has taken all of its bytes (the write callback, which is also the back-pressure). No
 * buffer is allocated per read, so no fresh pages are faulted in and zeroed for every MiB — with
 * fs streams' new buffer per chunk that cost ~30 % of single-stream speed (docs/file-server.md) —
 * and a download holds exactly 2 × size, taken from and given back to the spare buffers. False
 * when the file ended early or the client went away.
 */
async function sendBytes(res: ServerResponse, reader: FileReader, start: number, length: number, size: number, throttle?: Throttle): Promise<boolean> {
  // A client that goes away settles the writes in flight, so a callback that never comes cannot
  // hang the loop. (Not Promise.race with one "closed" promise: every race would leave a reaction
  // on it until the download ends — one per chunk.)
  const inFlight = new Set<(ok: boolean) => void>();
  let gone = false;
  const onClose = () => {
    gone = true;
    for (const settle of inFlight) settle(false);
    inFlight.clear();
  };
  res.once("close", onClose);
  const write = (chunk: Buffer) =>
    new Promise<boolean>((resolve) => {
      if (gone) return resolve(false);
      inFlight.add(resolve);
      res.write(chunk, (error) => {
        inFlight.delete(resolve);
        resolve(!error);
      });
    });
  try {
    return await copy(reader, start, length, size, write, throttle);
  } finally {
    res.off("close", onClose);
  }
}

/** sendBytes' loop: reads into one buffer while the other one's bytes are being written. */
async function copy(reader: FileReader, start: number, length: number, size: number, write: (chunk: Buffer) => Promise<boolean>, throttle?: Throttle): Promise<boolean> {
  // `next` is read into while `spare`'s bytes are still being written.
  let next = { buffer: takeBuffer(size), written: Promise.resolve(true) };
  let spare = { buffer: takeBuffer(size), written: Promise.resolve(true) };
  let sent = 0;
  let reading = reader.read(next.buffer, Math.min(size, length), start);
  while (sent < length) {
    const got = await reading;
    if (got === 0) break;
    // A limited download: the piece goes out when the limit lets its bytes through (the next read waits with it).
    const due = throttle?.take(got);
    if (due) await due;
    next.written = write(got === size ? next.buffer : next.buffer.subarray(0, got));
    sent += got;
    [next, spare] = [spare, next];
    if (sent < length) {
      // The client went away: a write may still hold `spare`, so neither buffer goes back.
      if (!(await next.written)) return false;
      reading = reader.read(next.buffer, Math.min(size, length - sent), start + sent);
    }
  }
  const complete = (await next.written) && (await spare.written);
  if (complete) {
    giveBuffer(next.buffer);
    giveBuffer(spare.buffer);
  }
  return complete && sent === length;
}
