import type { Envelope } from "../../contract/envelope";
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
  // The browser's address, for the engine's per-address lockout, only when a proxy in front of the
  // web vouches for it; otherwise the engine (which trusts this process) counts per account only.
  const forwarded = request?.headers.get("X-Forwarded-For");
  if (env.behindProxy && forwarded && !sendHeaders.has("X-Forwarded-For")) sendHeaders.set("X-Forwarded-For", forwarded);
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
