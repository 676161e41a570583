import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import * as z from "zod";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { isUniqueViolation } from "../db/connect";
import { parentOf } from "../storage/paths";

/**
 * Signed download and preview tickets (docs/file-server.md, "Downloads and previews"). A ticket is
 * `<payload>.<signature>`: the payload is the selection, deflated and base64url-encoded; the
 * signature is HMAC-SHA256 over it with a 32-byte secret kept in the settings table, so every
 * engine instance on one database accepts the others' tickets and no ticket survives a change of
 * secret. A ticket only names what was asked; whether it may still be used (session, permission,
 * paths) is decided again at every request by the caller.
 */

export type TicketKind = "download" | "preview" | "thumbnail";
const KIND_LETTER: Record<TicketKind, "d" | "p" | "t"> = { download: "d", preview: "p", thumbnail: "t" };

export interface Ticket {
  kind: TicketKind;
  sessionId: string;
  userId: number;
  groupId: number;
  /** Normalised user paths, as given to issue(). */
  paths: string[];
  /** Unix ms. */
  expiresAt: number;
}

export type Verified = { ok: true; ticket: Ticket } | { ok: false; reason: "invalid" | "expired" };

/** The settings row holding the secret (hex). Not a settings group: no API reads or writes it. */
const SECRET_KEY = "fileserver.ticketSecret";
const DOMAIN = "ferry-ticket-v1.";
/**
 * Tickets travel in a URL path; nginx's default request-line buffer is 8 KiB. Selections larger
 * than this (thousands of names) are refused at issue time rather than failing at the proxy.
 */
export const TICKET_MAX_LENGTH = 7000;
const SIGNATURE_LENGTH = 43; // base64url of 32 bytes

/** The payload: names relative to one folder, which keeps a selection in one folder short. */
const payload = z.object({
  k: z.enum(["d", "p", "t"]),
  s: z.string().min(1).max(64),
  u: z.number().int().positive(),
  g: z.number().int().min(0),
  d: z.string(),
  n: z.array(z.string()).min(1),
  e: z.number().int(),
});

/** The deepest folder holding every path ("/" when they share nothing else). */
export function commonFolder(paths: readonly string[]): string {
  let folder = paths.length === 1 ? parentOf(paths[0]!) : paths[0]!;
  for (const p of paths) {
    while (folder !== "/" && p !== folder && !p.startsWith(`${folder}/`)) folder = parentOf(folder);
  }
  return folder;
}

/** `p` relative to `folder` ("" for the folder itself). */
export const relativeTo = (folder: string, p: string) => (p === folder ? "" : p.slice(folder === "/" ? 1 : folder.length + 1));
const joinRelative = (folder: string, rel: string) => (rel === "" ? folder : folder === "/" ? `/${rel}` : `${folder}/${rel}`);

export interface Tickets {
  /** The ticket text, or null when the selection is too large to fit in a URL. */
  issue(ticket: Omit<Ticket, "expiresAt">, ttlSeconds: number): Promise<string | null>;
  verify(text: string, kind: TicketKind): Promise<Verified>;
  /** Whether the sign-in that asked for a ticket still stands (not logged out, not expired). */
  sessionActive(ticket: Ticket): Promise<boolean>;
}

export function createTickets(db: Db, clock: Clock): Tickets {
  let secret: Promise<Buffer> | null = null;

  /** Read once; the first engine to need it creates it, and a racing second one reads the winner's. */
  async function loadSecret(): Promise<Buffer> {
    const k = db.kysely;
    const read = async () => {
      const row = await k.selectFrom("settings").select("value").where("key", "=", SECRET_KEY).executeTakeFirst();
      return row ? Buffer.from(JSON.parse(row.value) as string, "hex") : null;
    };
    const existing = await read();
    if (existing?.length === 32) return existing;
    try {
      await k.insertInto("settings").values({ key: SECRET_KEY, value: JSON.stringify(randomBytes(32).toString("hex")) }).execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const created = await read();
    if (created?.length !== 32) throw new Error("download ticket secret unreadable");
    return created;
  }

  const key = () => {
    secret ??= loadSecret().catch((error: unknown) => {
      secret = null;
      throw error;
    });
    return secret;
  };

  const sign = (body: string, secretKey: Buffer) => createHmac("sha256", secretKey).update(DOMAIN + body).digest("base64url");

  return {
    async issue(ticket, ttlSeconds) {
      const folder = commonFolder(ticket.paths);
      const data: z.infer<typeof payload> = {
        k: KIND_LETTER[ticket.kind],
        s: ticket.sessionId,
        u: ticket.userId,
        g: ticket.groupId,
        d: folder,
        n: ticket.paths.map((p) => relativeTo(folder, p)),
        e: clock.now() + ttlSeconds * 1000,
      };
      const body = deflateRawSync(JSON.stringify(data)).toString("base64url");
      const text = `${body}.${sign(body, await key())}`;
      return text.length > TICKET_MAX_LENGTH ? null : text;
    },

    async verify(text, kind) {
      const dot = text.lastIndexOf(".");
      if (text.length > TICKET_MAX_LENGTH || dot < 1 || text.length - dot - 1 !== SIGNATURE_LENGTH) return { ok: false, reason: "invalid" };
      const body = text.slice(0, dot);
      const given = Buffer.from(text.slice(dot + 1), "base64url");
      const expected = Buffer.from(sign(body, await key()), "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "invalid" };
      let parsed: z.infer<typeof payload>;
      try {
        parsed = payload.parse(JSON.parse(inflateRawSync(Buffer.from(body, "base64url"), { maxOutputLength: 4 * 1024 * 1024 }).toString("utf8")));
      } catch {
        return { ok: false, reason: "invalid" };
      }
      if (parsed.k !== KIND_LETTER[kind]) return { ok: false, reason: "invalid" };
      if (parsed.e <= clock.now()) return { ok: false, reason: "expired" };
      return {
        ok: true,
        ticket: {
          kind,
          sessionId: parsed.s,
          userId: parsed.u,
          groupId: parsed.g,
          paths: parsed.n.map((rel) => joinRelative(parsed.d, rel)),
          expiresAt: parsed.e,
        },
      };
    },

    async sessionActive(ticket) {
      const row = await db.kysely
        .selectFrom("sessions")
        .select(["revoked_at", "refresh_expires_at"])
        .where("id", "=", ticket.sessionId)
        .where("user_id", "=", ticket.userId)
        .executeTakeFirst();
      return !!row && row.revoked_at === null && row.refresh_expires_at > clock.now();
    },
  };
}
