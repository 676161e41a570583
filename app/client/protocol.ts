import * as z from "zod";

/**
 * What the page and the local desktop transfer client say to each other (REFERENCE.md, "Desktop
 * client"): JSON text frames over a WebSocket on a local port. The page opens with `check`; the
 * client answers with its protocol and client versions (and the newest version it knows of, when
 * it has looked for updates), and may later push `disconnect` before it goes away.
 */

/** The handshake version this page speaks; a client speaking an older one is treated as too old. */
export const LOCAL_PROTOCOL_VERSION = "1.0";
/** Spec section 9: clients older than this must be upgraded before the page uses them. */
export const MIN_CLIENT_VERSION = "3.0.0";
/** Ports tried when the web's FERRY_LOCAL_CLIENT_PORTS is unset (REFERENCE.md). */
export const DEFAULT_LOCAL_CLIENT_PORTS = [9527, 19527, 29527] as const;
/** How long one attempt waits for a port's check answer before counting it as silent. */
export const CHECK_TIMEOUT_MS = 3000;

const version = z.string().regex(/^\d+(\.\d+)*$/, "dotted version").max(32);

export const checkRequest = z.object({ action: z.literal("check"), protocol: version });
export type CheckRequest = z.infer<typeof checkRequest>;

export const checkReply = z.object({
  action: z.literal("check"),
  protocol: version,
  version,
  /** The newest client version the client knows of; newer than `version` means an update waits. */
  latest: version.optional(),
});
export type CheckReply = z.infer<typeof checkReply>;

export const clientPush = z.object({ action: z.literal("disconnect") });

/** Parses one text frame from the client; anything else (binary, bad JSON, other shapes) is null. */
export function parseFrame<T>(schema: z.ZodType<T>, data: unknown): T | null {
  if (typeof data !== "string") return null;
  try {
    const parsed = schema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
