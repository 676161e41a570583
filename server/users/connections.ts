import type { Clock } from "../clock";
import type { Db } from "../db/connect";

/** What the admin user list says of a user's connections (contract/admin.ts, adminUser). */
export interface UserConnections {
  /** How many connections: signed-in sessions with a live access token, a desktop client's socket counted instead of its session. */
  connections: number;
  /** The distinct addresses they come from, sorted; unknown addresses left out. */
  addresses: string[];
}

const NONE: UserConnections = { connections: 0, addresses: [] };

/**
 * The connections of some users, from the database, so every engine instance sees the same:
 * `sessions` (a browser or a desktop client signed in, its token not expired or revoked, from its
 * sign-in address) and `client_sockets` (a desktop client's file-server socket, kept alive by the
 * instance that holds it, from the socket's address; server/fileserver/clients.ts). A desktop
 * client's socket stands for the session it logged in with, so that session is not counted again;
 * several sockets of one session are several connections.
 */
export async function connectionsOf(db: Db, clock: Clock, userIds: readonly number[]): Promise<Map<number, UserConnections>> {
  const out = new Map<number, UserConnections>();
  if (userIds.length === 0) return out;
  const now = clock.now();
  const k = db.kysely;
  const [sessions, sockets] = await Promise.all([
    k
      .selectFrom("sessions")
      .select(["id", "user_id", "client_ip"])
      .where("user_id", "in", [...userIds])
      .where("revoked_at", "is", null)
      .where("access_expires_at", ">", now)
      .execute(),
    k
      .selectFrom("client_sockets")
      .select(["user_id", "session_id", "address"])
      .where("user_id", "in", [...userIds])
      .where("expires_at", ">", now)
      .execute(),
  ]);
  const held = new Set(sockets.map((s) => s.session_id).filter(Boolean));
  const entries = [
    ...sockets.map((s) => ({ userId: s.user_id, address: s.address })),
    ...sessions.filter((s) => !held.has(s.id)).map((s) => ({ userId: s.user_id, address: s.client_ip })),
  ];
  const addresses = new Map<number, Set<string>>();
  for (const { userId, address } of entries) {
    const seen = out.get(userId) ?? { connections: 0, addresses: [] };
    out.set(userId, { ...seen, connections: seen.connections + 1 });
    if (address) addresses.set(userId, (addresses.get(userId) ?? new Set()).add(address));
  }
  for (const [userId, found] of out) out.set(userId, { ...found, addresses: [...(addresses.get(userId) ?? [])].sort() });
  return out;
}

/** One user's connections (none when it has none). */
export const connectionsIn = (found: Map<number, UserConnections>, userId: number): UserConnections => found.get(userId) ?? NONE;
