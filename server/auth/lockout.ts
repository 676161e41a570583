import type { Clock } from "../clock";
import type { Db } from "../db/connect";

export interface LockoutPolicy {
  /** Wrong passwords (N) within the window that lock the key. */
  maxFailures: number;
  /** The window M, which is also how long a lock lasts, in ms. */
  windowMs: number;
}

export interface FailureResult {
  failures: number;
  lockedUntil: number;
}

/**
 * Wrong-password counters in the database, one row per key ("account:bob", "ip:10.0.0.7"), so that
 * several engine processes count together. Each failure is a read-modify-write under a row lock
 * (FOR UPDATE on PostgreSQL and MariaDB; SQLite serialises writers), so parallel attempts count exactly.
 */
export function createLockout(db: Db, clock: Clock) {
  const k = db.kysely;

  async function ensureRow(key: string) {
    const row = { key, window_start: clock.now(), failures: 0, locked_until: 0 };
    if (db.dialect === "postgres") await k.insertInto("login_counters").values(row).onConflict((oc) => oc.column("key").doNothing()).execute();
    else await k.insertInto("login_counters").values(row).orIgnore().execute();
  }

  return {
    /** The latest end of a running lock among `keys`, or 0. */
    async lockedUntil(keys: string[]): Promise<number> {
      const now = clock.now();
      const rows = await k.selectFrom("login_counters").select("locked_until").where("key", "in", keys).where("locked_until", ">", now).execute();
      return Math.max(0, ...rows.map((r) => r.locked_until));
    },

    async recordFailure(key: string, policy: LockoutPolicy): Promise<FailureResult> {
      await ensureRow(key);
      return k.transaction().execute(async (tx) => {
        let select = tx.selectFrom("login_counters").selectAll().where("key", "=", key);
        if (db.dialect !== "sqlite") select = select.forUpdate();
        const row = await select.executeTakeFirstOrThrow();
        const now = clock.now();
        if (row.locked_until > now) return { failures: row.failures, lockedUntil: row.locked_until };
        const fresh = row.window_start <= now - policy.windowMs || row.locked_until > 0;
        const failures = fresh ? 1 : row.failures + 1;
        const lockedUntil = failures >= policy.maxFailures ? now + policy.windowMs : 0;
        await tx
          .updateTable("login_counters")
          .set({ failures, window_start: fresh ? now : row.window_start, locked_until: lockedUntil })
          .where("key", "=", key)
          .execute();
        return { failures, lockedUntil };
      });
    },

    async reset(key: string) {
      await k.updateTable("login_counters").set({ failures: 0, locked_until: 0, window_start: clock.now() }).where("key", "=", key).execute();
    },

    async countOf(key: string): Promise<FailureResult> {
      const row = await k.selectFrom("login_counters").selectAll().where("key", "=", key).executeTakeFirst();
      return { failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? 0 };
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
export const accountKey = (account: string) => `account:${account.toLowerCase()}`;
export const addressKey = (ip: string) => `ip:${ip}`;
