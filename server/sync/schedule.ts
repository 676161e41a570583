import type { SyncFrequency } from "../../contract/sync";
import { wallTime } from "../speed/service";

const UNIT_MS = { seconds: 1000, minutes: 60_000, hours: 3_600_000 } as const;

/**
 * When a task with `frequency` runs next after `now` (unix ms), or null when nothing is planned:
 * manual never; interval `every` units after now (the schedule fires at a run's start, so the
 * interval runs from start to start); daily at the next HH:MM on the engine's clock in `timeZone`
 * (found minute by minute: a time a DST change skips runs the day after, one it repeats runs the
 * first time); once at its time, also when it is past (it runs at the next tick, then never again).
 */
export function nextRunAt(frequency: SyncFrequency, now: number, timeZone: string): number | null {
  switch (frequency.kind) {
    case "manual":
      return null;
    case "interval":
      return now + frequency.every * UNIT_MS[frequency.unit];
    case "once":
      return frequency.at * 1000;
    case "daily": {
      const [h, m] = frequency.at.split(":").map(Number) as [number, number];
      const want = h * 60 + m;
      const start = Math.floor(now / 60_000) * 60_000 + 60_000;
      // Today's turn is taken once the clock has shown the time today (a repeated hour shows it twice).
      const today = wallTime(now, timeZone);
      const done = today.minute >= want;
      // At most a day and two hours of minutes ahead (a DST day is 25 hours long).
      for (let t = start; t < start + 26 * 3_600_000; t += 60_000) {
        const wall = wallTime(t, timeZone);
        if (wall.minute === want && !(done && wall.day === today.day)) return t;
      }
      return null;
    }
  }
}

/** The real timer of the scheduler; tests move the engine's clock and let it tick. */
export interface Ticker {
  start(tick: () => void): void;
  stop(): void;
}

export function intervalTicker(ms: number): Ticker {
  let timer: NodeJS.Timeout | null = null;
  return {
    start(tick) {
      timer = setInterval(tick, ms);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
