import { randomBytes } from "node:crypto";
import type { FastifyBaseLogger as Logger } from "fastify";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { FerryError } from "../errors";

/**
 * Desktop clients online (docs/file-server.md, "Desktop clients"). A socket whose `login` names a
 * `client` is a desktop client; browsers are not counted. The rows live in the database so that the
 * free edition's limit and `client_online` hold across several engine instances; each instance
 * pushes its rows' expiry forward on a heartbeat, so the rows of a crashed instance lapse by
 * themselves.
 */

/**
 * The free edition's desktop clients online at once: 3, the 4th is refused (issue 14's "limit of 3";
 * admin spec: "only 3 simultaneous client connections"; docs/file-server.md, "Desktop clients").
 */
export const FREE_CLIENT_LIMIT = 3;
export const CLIENT_HEARTBEAT_MS = 30_000;
/** Three missed heartbeats: long enough for a busy instance, short enough to free a crashed one's places. */
export const CLIENT_EXPIRY_MS = 3 * CLIENT_HEARTBEAT_MS;

export interface ClientRegistry {
  /**
   * Records a desktop client as online; throws FreeVersionClientLimit when the edition is full.
   * Returns the id to release. `origin`: the session it logged in with and its socket's address
   * (the admin user list's connections and addresses, server/users/connections.ts).
   */
  admit(userId: number, version: string, origin?: { sessionId: string; address: string | null }): Promise<string>;
  release(id: string): Promise<void>;
  /** Stops the heartbeat and forgets this instance's clients (engine shutdown). */
  close(): Promise<void>;
}

export async function countOnlineClients(db: Db, now: number): Promise<number> {
  const row = await db.kysely.selectFrom("client_sockets").select((eb) => eb.fn.countAll<number | string>().as("n")).where("expires_at", ">", now).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Whether a desktop client is online with this session (a batch upload's transfer rows then say `client`, as its socket's commits do). */
export async function sessionHasClient(db: Db, sessionId: string, now: number): Promise<boolean> {
  const row = await db.kysely.selectFrom("client_sockets").select("id").where("session_id", "=", sessionId).where("expires_at", ">", now).executeTakeFirst();
  return row !== undefined;
}

/** `clientLimit`: the edition in effect now (docs/licence.md); null unlimited. */
export function createClientRegistry(deps: { db: Db; clock: Clock; clientLimit: () => Promise<number | null>; log: Logger }): ClientRegistry {
  const { db, clock, clientLimit, log } = deps;
  const k = db.kysely;
  const instance = randomBytes(12).toString("hex");

  // This instance's writes in flight. close() waits for them before it deletes the instance's rows:
  // a delete by instance beside a delete by id of the same row can deadlock on MySQL/MariaDB (the two
  // take the row's index locks in opposite orders).
  const pending = new Set<Promise<unknown>>();
  let closing = false;
  const track = <T>(work: Promise<T>): Promise<T> => {
    pending.add(work);
    const done = () => pending.delete(work);
    work.then(done, done);
    return work;
  };

  const heartbeat = setInterval(() => {
    const now = clock.now();
    track(
      Promise.all([
        k.updateTable("client_sockets").set({ expires_at: now + CLIENT_EXPIRY_MS }).where("instance", "=", instance).execute(),
        k.deleteFrom("client_sockets").where("expires_at", "<=", now).execute(),
      ]),
    ).catch((error: unknown) => log.warn({ err: error }, "client heartbeat failed"));
  }, CLIENT_HEARTBEAT_MS);
  heartbeat.unref();

  return {
    admit(userId, version, origin) {
      return track(
        (async () => {
          const id = randomBytes(12).toString("hex");
          const now = clock.now();
          const source = { session_id: origin?.sessionId ?? "", address: (origin?.address ?? "").slice(0, 64) };
          await k.insertInto("client_sockets").values({ id, instance, user_id: userId, version, created_at: now, expires_at: now + CLIENT_EXPIRY_MS, ...source }).execute();
          // Counting after our own row is committed means of two racing logins the later one always sees
          // the earlier: the limit is never exceeded, at worst both refuse (no lock needed on any dialect).
          const limit = (await clientLimit()) ?? Number.POSITIVE_INFINITY;
          if ((await countOnlineClients(db, now)) > limit) {
            await k.deleteFrom("client_sockets").where("id", "=", id).execute();
            throw new FerryError("FreeVersionClientLimit");
          }
          return id;
        })(),
      );
    },
    async release(id) {
      // Once closing, the instance's rows go all at once.
      if (closing) return;
      await track(k.deleteFrom("client_sockets").where("id", "=", id).execute());
    },
    async close() {
      closing = true;
      clearInterval(heartbeat);
      await Promise.allSettled([...pending]);
      await k.deleteFrom("client_sockets").where("instance", "=", instance).execute();
    },
  };
}
