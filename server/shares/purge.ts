import { SHARE_ATTEMPT_WINDOW_SECONDS } from "../../contract/share";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { RATE_PREFIX } from "./limits";

export interface PurgeResult {
  shareTokens: number;
  counters: number;
}

/**
 * Deletes what anonymous share calls left behind and no longer counts (docs/security.md, section 1):
 * expired share tokens, share-password attempt counters whose window and lock are over, and rate
 * counters whose window is over. Download tickets are signed, not stored: nothing to purge.
 */
export async function purgeExpired(db: Db, clock: Clock): Promise<PurgeResult> {
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
  return { shareTokens: Number(tokens.numDeletedRows), counters: Number(rates.numDeletedRows) + Number(attempts.numDeletedRows) };
}

/** Runs purgeExpired every `intervalSeconds` (and once now) until stopped; a failed run is logged and the next one tries again. */
export function startPurgeTimer(db: Db, clock: Clock, intervalSeconds: number, log: { warn(obj: object, msg: string): void }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = purgeExpired(db, clock).catch((err: unknown) => log.warn({ err }, "purge of expired share rows failed"));
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
