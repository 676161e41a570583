import { log } from "./lifecycle";
import { type Transfer, mibPerSecond } from "./curl";

/**
 * Contenders measured turn about (nginx, node, engine, nginx, …) rather than one after the other,
 * so a slow patch of the shared disk or a busy neighbour on the 2 cores hits every contender alike.
 */

export interface Contender {
  name: string;
  /** Untimed work before each transfer (flush the disk, so no contender pays for another's write-back). */
  before?(): Promise<void>;
  /** One timed transfer. */
  once(round: number): Promise<Transfer>;
  /** Untimed work after each transfer (delete what an upload stored, flush the disk). */
  after?(): Promise<void>;
}

export interface SeriesResult {
  /** MiB/s of each round that succeeded. */
  samples: number[];
  best: number | null;
  median: number | null;
  /** Why the contender has no number (its first failure). */
  error?: string;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `warmup` untimed rounds then `rounds` timed ones; a contender that fails once is dropped. */
export async function runSeries(contenders: Contender[], rounds: number, warmup: number): Promise<Record<string, SeriesResult>> {
  const results: Record<string, SeriesResult> = {};
  for (const c of contenders) results[c.name] = { samples: [], best: null, median: null };
  for (let round = -warmup; round < rounds; round++) {
    for (const c of contenders) {
      const result = results[c.name]!;
      if (result.error) continue;
      try {
        await c.before?.();
        const t = await c.once(round);
        await c.after?.();
        if (round < 0) continue;
        const speed = mibPerSecond(t);
        result.samples.push(speed);
        log(`  ${c.name} round ${round + 1}/${rounds}: ${speed.toFixed(0)} MiB/s (${t.seconds.toFixed(2)} s)`);
      } catch (error) {
        result.error = (error as Error).message;
        log(`  ${c.name} failed: ${result.error}`);
        await c.after?.().catch(() => {});
      }
    }
  }
  for (const r of Object.values(results)) {
    r.best = r.samples.length ? Math.max(...r.samples) : null;
    r.median = median(r.samples);
  }
  return results;
}
