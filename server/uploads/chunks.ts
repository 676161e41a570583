import type { IncomingMessage, ServerResponse } from "node:http";
import { EXPOSED_HEADERS, TUS_RESUMABLE } from "@tus/server";
import type { Lang } from "../../contract/envelope";
import { FerryError } from "../errors";
import { CHUNK_HEADER, formatRanges, MAX_RANGES, RANGES_HEADER } from "../../contract/upload-chunks";
import type { Turn } from "./object-store";
import type { UploadStore } from "./store";

/**
 * Ferry's parallel chunks (docs/file-server.md, "Parallel chunks (Ferry extension)"): a PATCH with
 * `Ferry-Chunk: 1` writes its body at its `Upload-Offset` anywhere inside the declared length, in
 * place in the upload's data file. Several run at once on one upload, so they never take tus's
 * per-upload lock (which hands the upload to the newest request and cuts the others); what keeps
 * them apart is the range each one announces: one touching a stored range or a chunk in flight is
 * refused before its body is used. The caller (tus.ts) has checked the token, the ownership, the
 * Upload permission and the protocol limits, as for a tus PATCH.
 */

/** What a browser may read of an upload reply: tus's headers and the stored ranges. */
export const UPLOAD_EXPOSED_HEADERS = `${EXPOSED_HEADERS}, ${RANGES_HEADER}`;

const DIGITS = /^\d{1,16}$/;

export interface ChunkContext {
  store: UploadStore;
  /** How long an upload lives after its creation. */
  expirationMs: number;
  now: () => number;
  refuse(error: FerryError, status?: number): void;
  /** Called once every byte of the upload is stored. */
  finished(id: string): void;
  /** Logs a failure the client is answered 500 for. */
  failed(error: unknown): void;
}

export const isChunk = (req: IncomingMessage) => req.method === "PATCH" && req.headers[CHUNK_HEADER.toLowerCase()] === "1";

export async function handleChunk(req: IncomingMessage, res: ServerResponse, id: string, lang: Lang, ctx: ChunkContext): Promise<void> {
  const { store } = ctx;
  const offsetHeader = req.headers["upload-offset"];
  const lengthHeader = req.headers["content-length"];
  if (req.headers["content-type"] !== "application/offset+octet-stream" || typeof offsetHeader !== "string" || !DIGITS.test(offsetHeader)) {
    return ctx.refuse(new FerryError("ParameterError", { reason: "a chunk needs Upload-Offset and Content-Type: application/offset+octet-stream" }));
  }
  const record = await store.records.get(id);
  const created = record?.creation_date ? Date.parse(record.creation_date) : NaN;
  if (!record || record.committed || (Number.isFinite(created) && created + ctx.expirationMs < ctx.now())) return ctx.refuse(new FerryError("UploadNotFound"), 404);
  if (record.store) return handleStoreChunk(req, res, id, ctx, created);
  const progress = await store.progressOf(id);
  if (!progress) return ctx.refuse(new FerryError("UploadNotFound"), 404);

  const start = Number(offsetHeader);
  // The length is announced before the body (a chunked body cannot be placed).
  if (typeof lengthHeader !== "string" || !DIGITS.test(lengthHeader)) {
    return ctx.refuse(new FerryError("InvalidData", { reason: "a chunk needs its Content-Length", ranges: formatRanges(progress.ranges) }), 411);
  }
  const end = start + Number(lengthHeader);
  // Nothing awaited from here until the flight is noted: two chunks cannot both pass the check.
  if (end > progress.size) {
    return ctx.refuse(new FerryError("InvalidData", { reason: "the chunk ends past Upload-Length", ranges: formatRanges(progress.ranges) }), 413);
  }
  if (end > start && progress.overlaps(start, end)) {
    return ctx.refuse(new FerryError("InvalidData", { reason: "the chunk overlaps stored bytes or a chunk in flight", ranges: formatRanges(progress.ranges) }), 409);
  }
  if (end > start && progress.ranges.length + progress.flights.size >= MAX_RANGES) {
    return ctx.refuse(new FerryError("InvalidData", { reason: "too many separate ranges: send the gaps first", ranges: formatRanges(progress.ranges) }), 409);
  }

  if (end > start) {
    const flight = { start, end, plain: false };
    progress.flights.add(flight);
    let failed = false;
    try {
      // A body cut short keeps what arrived (a stored range); the client sends only the rest.
      await store.writeAt(req, id, start, end - start, progress, () => (failed = true));
    } finally {
      progress.flights.delete(flight);
      await store.persistRanges(id, progress).catch(() => undefined);
    }
    if (failed) {
      // The client went away (nobody reads a reply), or the disk failed.
      if (!res.headersSent && !req.socket.destroyed) ctx.refuse(new FerryError("CannotWriteFile"), 500);
      return;
    }
    // Terminated (or expired and swept) while the chunk was arriving: its bytes went with the upload.
    if (progress.dropped) return ctx.refuse(new FerryError("UploadNotFound"), 404);
    if (progress.complete) ctx.finished(id);
  }

  const headers: Record<string, string> = {
    "tus-resumable": TUS_RESUMABLE,
    "upload-offset": String(progress.prefix),
    [RANGES_HEADER.toLowerCase()]: formatRanges(progress.ranges),
    "cache-control": "no-store",
    "access-control-expose-headers": UPLOAD_EXPOSED_HEADERS,
  };
  if (Number.isFinite(created)) headers["upload-expires"] = new Date(created + ctx.expirationMs).toUTCString();
  if (req.headers.origin) headers["access-control-allow-origin"] = req.headers.origin;
  res.writeHead(204, headers);
  res.end();
}

/** How long a chunk on an object store waits for the bytes before it while none arrive. */
export const STORE_CHUNK_IDLE_MS = 30_000;

/**
 * A chunk of an upload into an object store (object-store.ts): the store takes an upload's bytes
 * in order (each part is hashed as it is sent, and no bytes wait on the local disk), so a chunk
 * waits, its body unread, until every byte before it is in and no other body is being taken, then
 * goes through the same path as a plain PATCH. The client's parallel connections stay open and
 * fill one after another; at most MAX_WAITING_CHUNKS wait (more: 409), and a chunk whose body
 * stalls for STORE_CHUNK_IDLE_MS while others wait is stopped (409), so its resend can go on.
 */
async function handleStoreChunk(req: IncomingMessage, res: ServerResponse, id: string, ctx: ChunkContext, created: number): Promise<void> {
  const { store } = ctx;
  const progress = await store.storeProgressOf(id).catch(() => null);
  if (!progress) return ctx.refuse(new FerryError("UploadNotFound"), 404);
  const ranges = () => formatRanges(progress.offset > 0 ? [[0, progress.offset]] : []);
  const start = Number(req.headers["upload-offset"]);
  const lengthHeader = req.headers["content-length"];
  if (typeof lengthHeader !== "string" || !DIGITS.test(lengthHeader)) {
    return ctx.refuse(new FerryError("InvalidData", { reason: "a chunk needs its Content-Length", ranges: ranges() }), 411);
  }
  const end = start + Number(lengthHeader);
  if (end > progress.size) return ctx.refuse(new FerryError("InvalidData", { reason: "the chunk ends past Upload-Length", ranges: ranges() }), 413);
  if (end > start) {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    req.once("close", onClose);
    let turn: Turn;
    try {
      turn = await progress.waitTurn(start, STORE_CHUNK_IDLE_MS, gone.signal);
    } catch (error) {
      req.off("close", onClose);
      if (error instanceof FerryError && error.errorName === "InvalidData") return ctx.refuse(new FerryError("InvalidData", { ...(error.data as object), ranges: ranges() }), 409);
      if (error instanceof FerryError) return ctx.refuse(error, 404);
      throw error;
    }
    req.off("close", onClose);
    try {
      await store.writeStore(req, id, start, end - start, turn);
    } catch (error) {
      // The rest of a refused body is read and thrown away (bounded by linger.ts), so the connection serves the client's next request.
      req.resume();
      if (res.headersSent || req.socket.destroyed) return;
      if (error instanceof FerryError && error.errorName === "UploadNotFound") return ctx.refuse(error, 404);
      // Full memory (UploadMemoryFull: 503, Retry-After) and the local disk's errors as they are; the rest is the store's.
      if (error instanceof FerryError && error.errorName === "UploadMemoryFull") return ctx.refuse(error);
      // Stopped after its body stalled (its turn went on): what arrived stays, the client asks HEAD and resends.
      if (error instanceof FerryError && error.errorName === "InvalidData") return ctx.refuse(new FerryError("InvalidData", { ...(error.data as object), ranges: ranges() }), 409);
      ctx.failed(error);
      ctx.refuse(error instanceof FerryError ? error : new FerryError("CannotWriteFile"));
      return;
    }
    if (progress.dropped) return ctx.refuse(new FerryError("UploadNotFound"), 404);
    if (progress.offset >= progress.size) ctx.finished(id);
  }
  const headers: Record<string, string> = {
    "tus-resumable": TUS_RESUMABLE,
    "upload-offset": String(progress.offset),
    [RANGES_HEADER.toLowerCase()]: ranges(),
    "cache-control": "no-store",
    "access-control-expose-headers": UPLOAD_EXPOSED_HEADERS,
  };
  if (Number.isFinite(created)) headers["upload-expires"] = new Date(created + ctx.expirationMs).toUTCString();
  if (req.headers.origin) headers["access-control-allow-origin"] = req.headers.origin;
  res.writeHead(204, headers);
  res.end();
}
