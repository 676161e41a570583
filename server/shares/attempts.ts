import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { ensureCounterRow } from "../limits/rate-limits";

/**
 * Wrong share passwords, counted in login_counters (one row per key: "share:<link id>",
 * "share-ip:<address>") so that every engine instance counts together. A wrong answer is one
 * transaction that locks the rows of its keys in a fixed order (FOR UPDATE on PostgreSQL and
 * MariaDB; SQLite serialises writers): if any key is locked the answer is "throttled" and nothing
 * is counted, otherwise every key counts one and locks once it reaches its limit. So N parallel
 * wrong answers give exactly min(limit) "wrong" and the rest "throttled". Right answers are not
 * counted, but are refused while a key is locked.
 */
export interface AttemptKey {
  key: string;
  max: number;
}

/** Not throttled: the tightest key's count and limit after this failure. */
export type FailureOutcome = { throttled: true; lockedUntil: number } | { throttled: false; failures: number; max: number };

export function createShareAttempts(db: Db, clock: Clock, windowMs: number) {
  const k = db.kysely;

  async function ensureRows(keys: string[]) {
    const now = clock.now();
    for (const key of keys) await ensureCounterRow(db, key, now);
  }

  return {
    /** The latest end of a running lock among `keys`, or 0. */
    async lockedUntil(keys: AttemptKey[]): Promise<number> {
      if (keys.length === 0) return 0;
      const rows = await k
        .selectFrom("login_counters")
        .select("locked_until")
        .where("key", "in", keys.map((x) => x.key))
        .where("locked_until", ">", clock.now())
        .execute();
      return Math.max(0, ...rows.map((r) => r.locked_until));
    },

    async recordFailure(keys: AttemptKey[]): Promise<FailureOutcome> {
      const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      await ensureRows(sorted.map((x) => x.key));
      return k.transaction().execute(async (tx) => {
        const rows = [];
        for (const { key } of sorted) {
          let select = tx.selectFrom("login_counters").selectAll().where("key", "=", key);
          if (db.dialect !== "sqlite") select = select.forUpdate();
          rows.push(await select.executeTakeFirstOrThrow());
        }
        const now = clock.now();
        const locked = Math.max(0, ...rows.filter((r) => r.locked_until > now).map((r) => r.locked_until));
        if (locked > 0) return { throttled: true, lockedUntil: locked } as const;
        let tightest = { failures: 0, max: Infinity };
        for (const [i, row] of rows.entries()) {
          const max = sorted[i]!.max;
          const fresh = row.window_start <= now - windowMs || row.locked_until > 0;
          const failures = fresh ? 1 : row.failures + 1;
          if (max - failures < tightest.max - tightest.failures) tightest = { failures, max };
          await tx
            .updateTable("login_counters")
            .set({ failures, window_start: fresh ? now : row.window_start, locked_until: failures >= max ? now + windowMs : 0 })
            .where("key", "=", row.key)
            .execute();
        }
        return { throttled: false, ...tightest } as const;
      });
    },

    async forget(keys: string[]) {
      if (keys.length) await k.deleteFrom("login_counters").where("key", "in", keys).execute();
    },
  };
}

export type ShareAttempts = ReturnType<typeof createShareAttempts>;
