import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";

export interface AuthUser {
  id: number;
  account: string;
  role: "user" | "admin";
  accountType: number;
  permission: number;
}

export interface AuthContext {
  sessionId: string;
  user: AuthUser;
}

export interface IssuedTokens {
  token: string;
  refresh_token: string;
  websocket_token: string;
  expires_in: number;
}

export interface Tokens {
  issue(userId: number, clientIp: string): Promise<IssuedTokens>;
  authenticateAccess(token: string): Promise<AuthContext | null>;
  authenticateRefresh(token: string): Promise<AuthContext | null>;
  /** The file server's credential: the 128-character websocket token (two 64-character halves). */
  authenticateSocket(token: string): Promise<AuthContext | null>;
  /**
   * PUT /api/user/auth: a new access token and a new refresh token for the session's current
   * refresh token (which stops working); null when the token is not one. See `rotate` below.
   */
  rotate(refreshToken: string): Promise<{ token: string; refresh_token: string; expires_in: number } | null>;
  revokeSession(sessionId: string): Promise<void>;
  revokeUser(userId: number): Promise<void>;
  onlineUserIds(): Promise<Set<number>>;
}

/** Tokens are random and opaque; only their SHA-256 is stored, so a database leak yields no usable token. */
const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The grace answer (the pair a rotation issued) is sealed with a key only the replaced refresh token
 * gives: SHA-256 of it under another label than the stored digest, so the database alone opens nothing.
 */
const graceKey = (refresh: string) => createHash("sha256").update(`ferry-refresh-grace\n${refresh}`).digest();

function sealPair(pair: { token: string; refresh_token: string }, refresh: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", graceKey(refresh), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(pair), "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

function openPair(sealed: string, refresh: string): { token: string; refresh_token: string } | null {
  const [iv, tag, body] = sealed.split(".");
  if (!iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", graceKey(refresh), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")) as { token: string; refresh_token: string };
  } catch {
    return null;
  }
}

export function createTokens(db: Db, clock: Clock, ttl: { access: number; refresh: number; reuseGraceMs: number }): Tokens {
  const k = db.kysely;

  const sessionBy = (column: "access_hash" | "refresh_hash" | "socket_hash" | "prev_refresh_hash", hash: string) =>
    k
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .select(["sessions.id as sessionId", "sessions.access_expires_at", "sessions.refresh_expires_at", "sessions.revoked_at"])
      .select(["sessions.rotated_at", "sessions.grace_box"])
      .select(["users.id", "users.account", "users.role", "users.account_type", "users.permission", "users.locked"])
      .where(`sessions.${column}`, "=", hash)
      .executeTakeFirst();
  type SessionRow = NonNullable<Awaited<ReturnType<typeof sessionBy>>>;

  function usable(row: SessionRow | undefined, expiry?: "access_expires_at"): row is SessionRow {
    if (!row || row.revoked_at !== null || row.locked) return false;
    const now = clock.now();
    return row.refresh_expires_at > now && !(expiry && row[expiry] <= now);
  }

  const contextOf = (row: SessionRow): AuthContext => ({
    sessionId: row.sessionId,
    user: { id: row.id, account: row.account, role: row.role, accountType: row.account_type, permission: row.permission },
  });

  async function lookup(column: "access_hash" | "socket_hash", token: string, expiry?: "access_expires_at") {
    if (token.length < 20 || token.length > 256) return null;
    const row = await sessionBy(column, digest(token));
    return usable(row, expiry) ? contextOf(row) : null;
  }

  async function revoke(sessionId: string) {
    await k.updateTable("sessions").set({ revoked_at: clock.now() }).where("id", "=", sessionId).where("revoked_at", "is", null).execute();
  }

  /**
   * What a refresh token is now: the session's current one; its previous one, replaced less than
   * the grace period ago (two refreshes at once); or an old one, which means two parties hold the
   * session's tokens (a thief and its owner): the whole session is revoked (OAuth 2.0 Security BCP,
   * refresh token reuse detection), and the answer is 1009 to both.
   */
  async function findRefresh(token: string): Promise<{ row: SessionRow; grace: boolean } | null> {
    if (token.length < 20 || token.length > 256) return null;
    const hash = digest(token);
    const current = await sessionBy("refresh_hash", hash);
    if (current) return usable(current) ? { row: current, grace: false } : null;
    const previous = await sessionBy("prev_refresh_hash", hash);
    if (previous && usable(previous) && previous.rotated_at !== null && clock.now() - previous.rotated_at <= ttl.reuseGraceMs) return { row: previous, grace: true };
    const retired = previous ? { session_id: previous.sessionId } : await k.selectFrom("retired_refresh_tokens").select("session_id").where("token_hash", "=", hash).executeTakeFirst();
    if (retired) await revoke(retired.session_id);
    return null;
  }

  return {
    async issue(userId, clientIp) {
      const now = clock.now();
      const token = randomBytes(32).toString("base64url");
      const refresh = randomBytes(32).toString("base64url");
      const socket = randomBytes(64).toString("hex");
      await k
        .insertInto("sessions")
        .values({
          id: randomBytes(16).toString("hex"),
          user_id: userId,
          access_hash: digest(token),
          access_expires_at: now + ttl.access * 1000,
          refresh_hash: digest(refresh),
          refresh_expires_at: now + ttl.refresh * 1000,
          socket_hash: digest(socket),
          client_ip: clientIp.slice(0, 64),
          created_at: now,
          revoked_at: null,
        })
        .execute();
      return { token, refresh_token: refresh, websocket_token: socket, expires_in: ttl.access };
    },
    authenticateAccess: (token) => lookup("access_hash", token, "access_expires_at"),
    async authenticateRefresh(token) {
      const found = await findRefresh(token);
      return found ? contextOf(found.row) : null;
    },
    authenticateSocket: (token) => (token.length === 128 ? lookup("socket_hash", token) : Promise.resolve(null)),
    /**
     * Rotation: the current refresh token gets a new access token and a new refresh token, and is
     * replaced in one conditional update (only while it is still the current one), so of two
     * concurrent refreshes exactly one rotates. The other, and any use of the replaced token within
     * the grace period, gets the same new pair (opened from grace_box). Later uses revoke the session.
     */
    async rotate(refresh) {
      let found = await findRefresh(refresh);
      if (found && !found.grace) {
        const now = clock.now();
        const pair = { token: randomBytes(32).toString("base64url"), refresh_token: randomBytes(32).toString("base64url") };
        const replaced = await k
          .updateTable("sessions")
          .set({
            access_hash: digest(pair.token),
            access_expires_at: now + ttl.access * 1000,
            refresh_hash: digest(pair.refresh_token),
            prev_refresh_hash: digest(refresh),
            rotated_at: now,
            grace_box: sealPair(pair, refresh),
          })
          .where("id", "=", found.row.sessionId)
          .where("refresh_hash", "=", digest(refresh))
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        if (Number(replaced.numUpdatedRows) === 1) {
          await k.deleteFrom("retired_refresh_tokens").where("expires_at", "<=", now).execute();
          await k.insertInto("retired_refresh_tokens").values({ token_hash: digest(refresh), session_id: found.row.sessionId, expires_at: found.row.refresh_expires_at }).execute();
          return { ...pair, expires_in: ttl.access };
        }
        // Another refresh with the same token rotated first: this one is its twin.
        found = await findRefresh(refresh);
      }
      if (!found?.grace || !found.row.grace_box) return null;
      const pair = openPair(found.row.grace_box, refresh);
      return pair && { ...pair, expires_in: Math.max(1, Math.round((found.row.access_expires_at - clock.now()) / 1000)) };
    },
    revokeSession: revoke,
    async revokeUser(userId) {
      await k.updateTable("sessions").set({ revoked_at: clock.now() }).where("user_id", "=", userId).where("revoked_at", "is", null).execute();
    },
    async onlineUserIds() {
      const rows = await k
        .selectFrom("sessions")
        .select("user_id")
        .distinct()
        .where("revoked_at", "is", null)
        .where("access_expires_at", ">", clock.now())
        .execute();
      return new Set(rows.map((r) => r.user_id));
    },
  };
}
