import { getT } from "../i18n/i18next.server";
import { assertSameSite } from "./csrf.server";
import { env } from "./env.server";
import { ErrorCode } from "../../contract/errors";

/** What a 413 answer carries, for the error boundary (root.tsx) and for plain clients: the engine's code for it. */
export interface TooLargeData {
  code: typeof ErrorCode.RequestTooLarge;
  /** The largest body accepted, in bytes. */
  limit: number;
  /** The refusal in the request's language (the catalogue's message). */
  message: string;
}

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * The only way an action reads its request: refuses a cross-site post (csrf.server.ts), then reads
 * the body only up to `limit` bytes (FERRY_WEB_FORM_LIMIT, 64 KiB by default) and parses it as a form
 * (URL-encoded or multipart). A body announced (Content-Length) or found (chunked) to be larger is
 * refused with 413 before more of it is read.
 *
 * Past the cap the body is not cancelled at once (that would destroy the connection before the 413
 * is written): discardBody throws a little more of it away while the answer goes out, then closes.
 */
export async function readForm(request: Request, options: { limit?: number } = {}): Promise<FormData> {
  try {
    assertSameSite(request);
  } catch (refusal) {
    discardBody(request);
    throw refusal;
  }
  const limit = options.limit ?? env.formLimit;
  const declared = request.headers.get("Content-Length");
  if (declared !== null && !(Number(declared) <= limit)) {
    discardBody(request);
    throw await tooLarge(request, limit);
  }

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        discardBody(request, reader);
        throw await tooLarge(request, limit);
      }
      chunks.push(value);
    }
  }
  if (size === 0) return new FormData();

  const type = request.headers.get("Content-Type") ?? "";
  const essence = (type.split(";")[0] ?? "").trim().toLowerCase();
  if (!FORM_TYPES.includes(essence)) throw new Response("Unsupported form encoding", { status: 415, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  try {
    return await new Response(concat(chunks, size), { headers: { "Content-Type": type } }).formData();
  } catch {
    throw new Response("Malformed form", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

/** Whether the request came with a body that nothing has started to read (entry.server.tsx discards it). */
export function bodyLeftUnread(request: Request): boolean {
  return request.body !== null && !request.bodyUsed && !request.body.locked;
}

/** What is read and thrown away of a refused body at most, and how long the connection waits for it. */
export const LINGER_BYTES = 256 * 1024;
export const LINGER_MS = 2_000;

/**
 * The rest of a refused body (over the cap, cross-site, or posted where nothing reads it): read and
 * thrown away, LINGER_BYTES at most, while the answer goes out; then left unread (the client's
 * sending stalls) until LINGER_MS after the refusal, when the connection is closed.
 *
 * Closing at once would lose the answer: a connection closed with unread data is reset, and a client
 * still sending often never reads what came before the reset. Reading a little (nginx's "lingering
 * close") lets it see the 413; a client that stops sending, as browsers and curl do on an early
 * answer, ends the request cleanly and keeps its connection. Memory stays flat: nothing is kept.
 */
export function discardBody(request: Request, reader?: ReadableStreamDefaultReader<Uint8Array>) {
  if (!reader) {
    if (!bodyLeftUnread(request)) return;
    reader = request.body!.getReader();
  }
  const held = reader;
  const timer = setTimeout(() => void held.cancel().catch(() => undefined), LINGER_MS);
  // Never what keeps the process alive (a shutdown does not wait for a refused body).
  timer.unref?.();
  void (async () => {
    let discarded = 0;
    try {
      while (discarded <= LINGER_BYTES) {
        const { done, value } = await held.read();
        if (done) return clearTimeout(timer);
        discarded += value.byteLength;
      }
    } catch {
      // The client went away, or the timer cancelled the body: nothing left to do.
      clearTimeout(timer);
    }
  })();
}

function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The 413 answer (the rest of the body is being discarded meanwhile, discardBody). */
async function tooLarge(request: Request, limit: number): Promise<Response> {
  const t = await getT(request);
  const body: TooLargeData = { code: ErrorCode.RequestTooLarge, limit, message: t(`error.${ErrorCode.RequestTooLarge}`, { limit }) };
  return Response.json(body, { status: 413, headers: { "Cache-Control": "no-store" } });
}

/**
 * The action of a route that takes no posts (resource routes; Remix's own 405 would leave the body
 * sitting unread on the connection): 405, the body discarded.
 */
export function refusePost({ request }: { request: Request }): Response {
  discardBody(request);
  return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
}
