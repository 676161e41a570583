import { SHARE_ATTEMPT_WINDOW_SECONDS } from "../../contract/share";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { RATE_PREFIX } from "./rate-limits";

export interface PurgeResult {
  shareTokens: number;
  counters: number;
}

/**
 * Deletes what anonymous calls left behind and no longer counts (docs/security.md, section 1):
 * expired share tokens, share-password attempt counters whose window and lock are over, rate
 * counters whose window is over, and sign-in counters no window can still count. Download tickets are signed, not stored: nothing to purge.
 */
/** The longest a sign-in counter can still count: the account lock window's maximum (contract/admin.ts lockMinutes, 1440). */
export const SIGN_IN_COUNTER_KEEP_MS = 24 * 60 * 60 * 1000;
/** A counter that never counted anything (made for an attempt refused by another key) is dropped after this. */
const EMPTY_COUNTER_KEEP_MS = 60 * 1000;

export async function purgeExpired(db: Db, clock: Clock, signInWindowMs = SIGN_IN_COUNTER_KEEP_MS): Promise<PurgeResult> {
  const k = db.kysely;
  const now = clock.now();
  const tokens = await k.deleteFrom("share_tokens").where("expires_at", "<=", now).executeTakeFirst();
  const rates = await k.deleteFrom("login_counters").where("key", "like", `${RATE_PREFIX}%`).where("locked_until", "<=", now).executeTakeFirst();
  const attempts = await k
    .deleteFrom("login_counters")
    .where((eb) => eb.or([eb("key", "like", "share:%"), eb("key", "like", "share-ip:%")]))
    .where("locked_until", "<=", now)
    .where("window_start", "<=", now - SHARE_ATTEMPT_WINDOW_SECONDS * 1000)
    .executeTakeFirst();
  // Sign-in and look-up counters ("account:…", "ip:…"): one per name or address tried, so a stranger
  // trying made-up accounts must not grow the table. Gone once no window can still count them.
  const keep = Math.max(SIGN_IN_COUNTER_KEEP_MS, signInWindowMs);
  const signIn = await k
    .deleteFrom("login_counters")
    .where((eb) => eb.or([eb("key", "like", "account:%"), eb("key", "like", "ip:%")]))
    .where("locked_until", "<=", now)
    .where((eb) => eb.or([eb("window_start", "<=", now - keep), eb.and([eb("failures", "=", 0), eb("window_start", "<=", now - EMPTY_COUNTER_KEEP_MS)])]))
    .executeTakeFirst();
  return {
    shareTokens: Number(tokens.numDeletedRows),
    counters: Number(rates.numDeletedRows) + Number(attempts.numDeletedRows) + Number(signIn.numDeletedRows),
  };
}

/** Runs purgeExpired every `intervalSeconds` (and once now) until stopped; a failed run is logged and the next one tries again. */
export function startPurgeTimer(
  db: Db,
  clock: Clock,
  intervalSeconds: number,
  signInWindowMs: number,
  log: { warn(obj: object, msg: string): void },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = purgeExpired(db, clock, signInWindowMs).catch((err: unknown) => log.warn({ err }, "purge of expired share rows failed"));
  };
  run();
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
