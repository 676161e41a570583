import type { Clock } from "../clock";
import type { Db } from "../db/connect";

/**
 * Fixed-window counters per key in login_counters ("rate:<what>:<address>"), so that every engine
 * instance on one database counts together. `take` is one transaction that locks the key's row
 * (FOR UPDATE on PostgreSQL and MariaDB; SQLite serialises writers): N parallel calls against a
 * limit of M give exactly min(N, M) "allowed". The rows are purged once their window is over
 * (purge.ts).
 */
export type Take = { allowed: true } | { allowed: false; retryAt: number };

export const RATE_PREFIX = "rate:";

/** Makes the counter row of `key` if there is none (every counter in login_counters starts this way). */
export async function ensureCounterRow(db: Db, key: string, now: number) {
  const row = { key, window_start: now, failures: 0, locked_until: 0 };
  if (db.dialect === "postgres") await db.kysely.insertInto("login_counters").values(row).onConflict((oc) => oc.column("key").doNothing()).execute();
  else await db.kysely.insertInto("login_counters").values(row).orIgnore().execute();
}

export function createRateLimits(db: Db, clock: Clock) {
  const k = db.kysely;

  return {
    /** Counts one use of `key` when fewer than `max` were counted in the current window of `windowMs`. */
    async take(key: string, max: number, windowMs: number): Promise<Take> {
      await ensureCounterRow(db, key, clock.now());
      return k.transaction().execute(async (tx) => {
        let select = tx.selectFrom("login_counters").selectAll().where("key", "=", key);
        if (db.dialect !== "sqlite") select = select.forUpdate();
        const row = await select.executeTakeFirstOrThrow();
        const now = clock.now();
        const fresh = row.window_start <= now - windowMs;
        const used = fresh ? 0 : row.failures;
        const start = fresh ? now : row.window_start;
        if (used >= max) return { allowed: false, retryAt: start + windowMs } as const;
        // locked_until holds the window's end, so that one purge rule serves every counter.
        await tx.updateTable("login_counters").set({ failures: used + 1, window_start: start, locked_until: start + windowMs }).where("key", "=", key).execute();
        return { allowed: true } as const;
      });
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
