import { isIP } from "node:net";
import type { Envelope } from "../../contract/envelope";
import { CLIENT_ADDRESS_HEADER, CLIENT_SIGNATURE_HEADER, loadForwardSecret, signClientAddress, UNKNOWN_CLIENT } from "../../contract/forwarding";
import { env } from "./env.server";

/** Longest wait for one engine call. */
export const ENGINE_TIMEOUT_MS = 90_000;

export type EngineFailure = "unreachable" | "timeout" | "invalid-response";

/** The engine did not give an envelope: down, too slow, or something else answered. */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EngineError";
  }
}

export interface EngineFetchInit extends RequestInit {
  /** The browser's request: its Accept-Language picks the engine's message language, and its abort cancels the call. */
  request?: Request;
}

let forwardKey: string | undefined;
/** Loaded at the first engine call, so a web started before the engine can still create the key file. */
const forwardSecret = () => (forwardKey ??= loadForwardSecret(env.FERRY_DATA_DIR, env.FERRY_FORWARD_SECRET));

/** Set by scripts/web-peer.mjs, preloaded into remix-serve: only then is `x-ferry-peer` the socket's address and not a visitor's header. */
const peerPreloaded = () => (globalThis as Record<symbol, unknown>)[Symbol.for("ferry.webPeer")] === true;

/**
 * The browser's address as this process knows it: behind a reverse proxy (FERRY_WEB_BEHIND_PROXY)
 * the last X-Forwarded-For entry, the one the proxy added; otherwise the connection's peer, which
 * the web-peer preload wrote into `x-ferry-peer`. "unknown" when neither is available.
 */
export function visitorAddress(request: Request): string {
  let address: string | null | undefined;
  if (env.behindProxy) address = (request.headers.get("X-Forwarded-For") ?? "").split(",").at(-1)?.trim();
  else if (peerPreloaded()) address = request.headers.get("x-ferry-peer");
  return address && isIP(address) !== 0 ? address : UNKNOWN_CLIENT;
}

let warnedUnknown = false;

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.code === "number" && typeof b.value === "string" && typeof b.result === "boolean" && typeof b.message === "string" && "data" in b;
}

/**
 * Calls the engine's REST API and returns its envelope, whatever the HTTP status (failures are
 * envelopes too: check `result`). Throws EngineError only when no envelope came back.
 * `data` is typed by the caller, not checked.
 */
export async function engineFetch<T = unknown>(path: string, init: EngineFetchInit = {}): Promise<Envelope<T>> {
  const { request, headers, signal, ...rest } = init;
  const sendHeaders = new Headers(headers);
  if (!sendHeaders.has("Accept")) sendHeaders.set("Accept", "application/json");
  // The browser's address for the engine's per-address counters, signed so that the engine believes
  // it from this process only (docs/security.md, section 2). Without a browser request (a sign-out
  // after the fact) or a known address, "unknown": the engine then counts per account only.
  let address: string = UNKNOWN_CLIENT;
  if (request) address = visitorAddress(request);
  if (address === UNKNOWN_CLIENT && request && !warnedUnknown) {
    warnedUnknown = true;
    console.warn("[ferry] the visitor's address is unknown (remix-serve was started without scripts/web-peer.mjs and FERRY_WEB_BEHIND_PROXY is off): sign-ins are counted per account only");
  }
  sendHeaders.set(CLIENT_ADDRESS_HEADER, address);
  sendHeaders.set(CLIENT_SIGNATURE_HEADER, signClientAddress(forwardSecret(), address));
  const language = request?.headers.get("Accept-Language");
  if (language && !sendHeaders.has("Accept-Language")) sendHeaders.set("Accept-Language", language);
  const timeout = AbortSignal.timeout(ENGINE_TIMEOUT_MS);
  const signals = [timeout, signal, request?.signal].filter((s): s is AbortSignal => s != null);

  const url = `${env.FERRY_ENGINE_URL}${path.startsWith("/") ? path : `/${path}`}`;
  let response: Response;
  try {
    response = await fetch(url, { ...rest, headers: sendHeaders, signal: AbortSignal.any(signals) });
  } catch (error) {
    if (timeout.aborted) throw new EngineError("timeout", `engine did not answer ${path} within ${ENGINE_TIMEOUT_MS / 1000} s`, { cause: error });
    if (signal?.aborted || request?.signal.aborted) throw error;
    throw new EngineError("unreachable", `no answer from ${env.FERRY_ENGINE_URL}`, { cause: error });
  }

  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (timeout.aborted) throw new EngineError("timeout", `engine did not answer ${path} within ${ENGINE_TIMEOUT_MS / 1000} s`, { cause: error });
    throw new EngineError("invalid-response", `${path} answered HTTP ${response.status} without JSON`, { cause: error });
  }
  if (!isEnvelope(body)) throw new EngineError("invalid-response", `${path} answered HTTP ${response.status} without an envelope`);
  return body as Envelope<T>;
}
