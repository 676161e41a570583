import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { ensureCounterRow } from "../limits/rate-limits";

export interface LockoutPolicy {
  /** Attempts (N) within the window that lock the key. */
  maxFailures: number;
  /** The window M, which is also how long a lock lasts, in ms. */
  windowMs: number;
}

export interface CounterKey {
  key: string;
  policy: LockoutPolicy;
}

/** The outcome of taking an attempt: refused (a key is locked or at its limit, nothing counted), or the counts including this attempt. */
export type AttemptOutcome = { refusedBy: string; lockedUntil: number } | { refusedBy: null; counts: Map<string, number> };

/**
 * Attempt counters in the database, one row per key ("account:bob", "ip:10.0.0.7", "lookup-ip:…"),
 * so that several engine processes count together.
 *
 * An attempt is counted **before** the password is checked: `take` locks the rows of all its keys in
 * one transaction (in key order, FOR UPDATE on PostgreSQL and MariaDB; SQLite serialises writers),
 * refuses if any key is locked or already at its limit, and otherwise adds one to each. So N
 * parallel guesses can never check more than the limit's worth of passwords. A wrong password then
 * locks the keys that reached their limit (`fail`); a right one gives the attempt back (`succeed`).
 */
export function createLockout(db: Db, clock: Clock) {
  const k = db.kysely;

  return {
    async take(keys: CounterKey[]): Promise<AttemptOutcome> {
      const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const { key } of sorted) await ensureCounterRow(db, key, clock.now());
      return k.transaction().execute(async (tx) => {
        const now = clock.now();
        const rows = [];
        for (const { key, policy } of sorted) {
          let select = tx.selectFrom("login_counters").selectAll().where("key", "=", key);
          if (db.dialect !== "sqlite") select = select.forUpdate();
          const row = await select.executeTakeFirstOrThrow();
          if (row.locked_until > now) return { refusedBy: key, lockedUntil: row.locked_until };
          // A window that ran out, or a lock that ended, starts the count again.
          const fresh = row.window_start <= now - policy.windowMs || row.locked_until > 0;
          if (!fresh && row.failures >= policy.maxFailures) return { refusedBy: key, lockedUntil: row.window_start + policy.windowMs };
          rows.push({ key, fresh, failures: fresh ? 1 : row.failures + 1, windowStart: fresh ? now : row.window_start });
        }
        for (const row of rows) {
          await tx
            .updateTable("login_counters")
            .set({ failures: row.failures, window_start: row.windowStart, locked_until: 0 })
            .where("key", "=", row.key)
            .execute();
        }
        return { refusedBy: null, counts: new Map(rows.map((r) => [r.key, r.failures])) };
      });
    },

    /** After a wrong password: locks for the window every key whose count reached its limit. Returns the keys locked. */
    async fail(keys: CounterKey[], counts: Map<string, number>): Promise<string[]> {
      const reached = keys.filter(({ key, policy }) => (counts.get(key) ?? 0) >= policy.maxFailures);
      const now = clock.now();
      for (const { key, policy } of reached) await k.updateTable("login_counters").set({ locked_until: now + policy.windowMs }).where("key", "=", key).execute();
      return reached.map((r) => r.key);
    },

    /** After a right password: clears the count of `reset` keys, and gives this attempt back to the `release` keys. */
    async succeed(reset: string[], release: string[]) {
      if (reset.length) await k.updateTable("login_counters").set({ failures: 0, locked_until: 0, window_start: clock.now() }).where("key", "in", reset).execute();
      if (release.length) {
        await k
          .updateTable("login_counters")
          .set((eb) => ({ failures: eb("failures", "-", 1) }))
          .where("key", "in", release)
          .where("failures", ">", 0)
          .where("locked_until", "=", 0)
          .execute();
      }
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
export const accountKey = (account: string) => `account:${account.toLowerCase()}`;
export const addressKey = (ip: string) => `ip:${ip}`;
