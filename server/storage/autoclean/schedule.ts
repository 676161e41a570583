import type { Clock } from "../../clock";
import type { AutoClean } from "./service";

/**
 * The auto-clean schedule (docs/storage.md, "Auto-clean"): every storage whose auto-clean is on is
 * cleaned once per interval (FERRY_AUTOCLEAN_INTERVAL, a day by default). A timer looks every
 * `tickMs` whether a storage is due by the engine's clock, so the interval follows the clock the
 * tests move, and one storage after the other is cleaned (a walk is disk work; two at once would
 * only compete). A storage is due one interval after its last run, by any engine on the database
 * (kept with its lease, lease.ts), or after the engine started when none has cleaned it yet; the
 * run takes the storage's lease and looks again whether it is still due, so of several engines
 * whose passes find it due at once one cleans it. A policy turned on or changed while the engine runs
 * (or a storage added with one) counts from the pass that first sees it, and a run under an
 * earlier policy does not count: turning auto-clean on, or making it stricter, always leaves a
 * whole interval for a dry run first. "Run now" runs at once.
 */

export interface ScheduleTimers {
  setInterval(run: () => void, ms: number): { unref?(): void };
  clearInterval(timer: unknown): void;
}

export interface AutoCleanSchedule {
  /** Runs the storages that are due now, one after the other (what the timer calls). */
  tick(): Promise<void>;
  /** When storage `id` is due next (unix ms); with its current `policy`, a changed one counts from now. */
  nextRunAt(id: number, policy?: unknown): Promise<number>;
  /** Stops the timer, stops a run going on and waits for it. */
  stop(): Promise<void>;
}

export function startAutoCleanSchedule(options: {
  autoClean: AutoClean;
  clock: Clock;
  intervalMs: number;
  /** How often due storages are looked for (default one minute). */
  tickMs?: number;
  timers?: ScheduleTimers;
  log: { warn(obj: object, msg: string): void };
}): AutoCleanSchedule {
  const { autoClean, clock, intervalMs, log } = options;
  const timers = options.timers ?? { setInterval: (run, ms) => setInterval(run, ms), clearInterval: (t) => clearInterval(t as NodeJS.Timeout) };
  const startedAt = clock.now();
  let ticking: Promise<void> | null = null;
  let stopped = false;

  /** Per storage: its policy as last seen by a pass, and since when (unix ms). */
  const seen = new Map<number, { policy: string; since: number }>();
  let firstPass = true;

  /** When the storage's current policy was first seen: the engine's start for what the first pass finds. */
  const policySince = (id: number, policy: unknown): number => {
    const key = JSON.stringify(policy ?? null);
    const known = seen.get(id);
    if (known?.policy === key) return known.since;
    const since = firstPass && !known ? startedAt : clock.now();
    seen.set(id, { policy: key, since });
    return since;
  };

  const nextRunAt = async (id: number, policy?: unknown) => {
    const since = policy === undefined ? (seen.get(id)?.since ?? startedAt) : policySince(id, policy);
    const last = await autoClean.lastRunAt(id);
    return (last !== null && last >= since ? last : since) + intervalMs;
  };

  async function runDue() {
    let targets;
    try {
      targets = await autoClean.targets();
    } catch (err) {
      log.warn({ err }, "auto-clean: reading the storages failed");
      return;
    }
    const pass: { target: (typeof targets)[number]; due: number }[] = [];
    try {
      for (const target of targets) pass.push({ target, due: await nextRunAt(target.id, target.policy) });
    } catch (err) {
      log.warn({ err }, "auto-clean: reading the last runs failed");
      return;
    } finally {
      firstPass = false;
    }
    for (const { target, due } of pass) {
      if (stopped) return;
      if (!target.policy || clock.now() < due) continue;
      try {
        await autoClean.runScheduled(target, async () => clock.now() >= (await nextRunAt(target.id)));
      } catch (err) {
        // Recorded as a failed run (operation log, last runs); the next interval tries again.
        log.warn({ err, storage: target.id }, "auto-clean run failed");
      }
    }
  }

  const tick = () => {
    // A tick while the last one still runs joins it: one pass at a time.
    ticking ??= runDue().finally(() => {
      ticking = null;
    });
    return ticking;
  };

  const timer = timers.setInterval(() => void tick(), options.tickMs ?? 60_000);
  timer.unref?.();
  return {
    tick,
    nextRunAt,
    async stop() {
      stopped = true;
      timers.clearInterval(timer);
      await autoClean.close();
      await ticking;
    },
  };
}
