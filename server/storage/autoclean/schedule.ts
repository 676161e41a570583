import type { Clock } from "../../clock";
import type { AutoClean } from "./service";

/**
 * The auto-clean schedule (docs/storage.md, "Auto-clean"): every storage whose auto-clean is on is
 * cleaned once per interval (FERRY_AUTOCLEAN_INTERVAL, a day by default). A timer looks every
 * `tickMs` whether a storage is due by the engine's clock, so the interval follows the clock the
 * tests move, and one storage after the other is cleaned (a walk is disk work; two at once would
 * only compete). A storage is due one interval after its last run, or after the engine started
 * when this process has not cleaned it yet: turning auto-clean on leaves time for a dry run first,
 * and "Run now" runs at once.
 */

export interface ScheduleTimers {
  setInterval(run: () => void, ms: number): { unref?(): void };
  clearInterval(timer: unknown): void;
}

export interface AutoCleanSchedule {
  /** Runs the storages that are due now, one after the other (what the timer calls). */
  tick(): Promise<void>;
  /** When storage `id` is due next (unix ms). */
  nextRunAt(id: number): number;
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

  const nextRunAt = (id: number) => (autoClean.lastRunAt(id) ?? startedAt) + intervalMs;

  async function runDue() {
    let targets;
    try {
      targets = await autoClean.targets();
    } catch (err) {
      log.warn({ err }, "auto-clean: reading the storages failed");
      return;
    }
    for (const target of targets) {
      if (stopped) return;
      if (!target.policy || clock.now() < nextRunAt(target.id)) continue;
      try {
        await autoClean.runScheduled(target);
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
