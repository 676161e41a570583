import { createHash, randomBytes } from "node:crypto";
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
  refreshAccess(sessionId: string): Promise<{ token: string; expires_in: number }>;
  revokeSession(sessionId: string): Promise<void>;
  revokeUser(userId: number): Promise<void>;
  onlineUserIds(): Promise<Set<number>>;
}

/** Tokens are random and opaque; only their SHA-256 is stored, so a database leak yields no usable token. */
const digest = (token: string) => createHash("sha256").update(token).digest("hex");

export function createTokens(db: Db, clock: Clock, ttl: { access: number; refresh: number }): Tokens {
  const k = db.kysely;

  async function lookup(column: "access_hash" | "refresh_hash" | "socket_hash", token: string, expiry?: "access_expires_at" | "refresh_expires_at") {
    if (token.length < 20 || token.length > 256) return null;
    const now = clock.now();
    const row = await k
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .select(["sessions.id as sessionId", "sessions.access_expires_at", "sessions.refresh_expires_at", "sessions.revoked_at"])
      .select(["users.id", "users.account", "users.role", "users.account_type", "users.permission", "users.locked"])
      .where(`sessions.${column}`, "=", digest(token))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || row.locked) return null;
    if (row.refresh_expires_at <= now) return null;
    if (expiry && row[expiry] <= now) return null;
    return {
      sessionId: row.sessionId,
      user: { id: row.id, account: row.account, role: row.role, accountType: row.account_type, permission: row.permission },
    };
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
    authenticateRefresh: (token) => lookup("refresh_hash", token),
    authenticateSocket: (token) => (token.length === 128 ? lookup("socket_hash", token) : Promise.resolve(null)),
    async refreshAccess(sessionId) {
      const token = randomBytes(32).toString("base64url");
      await k
        .updateTable("sessions")
        .set({ access_hash: digest(token), access_expires_at: clock.now() + ttl.access * 1000 })
        .where("id", "=", sessionId)
        .execute();
      return { token, expires_in: ttl.access };
    },
    async revokeSession(sessionId) {
      await k.updateTable("sessions").set({ revoked_at: clock.now() }).where("id", "=", sessionId).where("revoked_at", "is", null).execute();
    },
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
