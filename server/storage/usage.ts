import type { Clock } from "../clock";
import { FerryError } from "../errors";
import { locationsRelated, locationUnder } from "./locations";
import type { Storage, Usage } from "./storage";
import { UNBOUNDED } from "./walk";

/**
 * What each home folder holds (bytes, files, folders), counted once and then kept up to date.
 * A full count walks the whole tree, which for a large home takes seconds, so it is not done on
 * every quota check or admin listing: the engine reports its own changes here (a committed upload
 * adds its bytes, a removal or a folder copy drops the count so the next reader walks again), and
 * a count is trusted for USAGE_TTL_MS so that files put into a home behind the engine's back are
 * seen within that time. Homes may nest (an administrator's "/" holds every other home), so a
 * change counts for every home it lies in. The cache is per process: several engine instances on
 * one storage each see the others' changes only after their counts expire.
 */

/** How long a full count is trusted without a recount. */
export const USAGE_TTL_MS = 10 * 60 * 1000;

export interface MeasuredUsage extends Usage {
  /** Unix ms when the full count began. */
  measuredAt: number;
}

export function createUsageCache(count: (home: string) => Promise<Usage>, clock: Clock, ttlMs = USAGE_TTL_MS) {
  const counts = new Map<string, MeasuredUsage>();
  const running = new Map<string, { job: Promise<MeasuredUsage>; stale: boolean }>();
  // Keys are locations (registry.ts locationOf): homes on different storages never hold each other.
  const related = locationsRelated;

  return {
    /** The usage of a home (a location: "/users/alice" on the built-in storage, "@2/groups/team" on storage 2); counts it when not known or expired. */
    get(home: string): Promise<MeasuredUsage> {
      const known = counts.get(home);
      if (known && clock.now() - known.measuredAt < ttlMs) return Promise.resolve({ ...known });
      const current = running.get(home);
      if (current && !current.stale) return current.job.then((u) => ({ ...u }));
      const measuredAt = clock.now();
      const state = { stale: false };
      const job: Promise<MeasuredUsage> = count(home)
        .then((usage) => {
          const measured = { ...usage, measuredAt };
          // A change during the walk may or may not be in it: such a count is answered but not kept.
          if (!state.stale) counts.set(home, measured);
          return measured;
        })
        .finally(() => {
          if (running.get(home)?.job === job) running.delete(home);
        });
      running.set(home, Object.assign(state, { job }));
      return job.then((u) => ({ ...u }));
    },

    /** True when some home holding `path`, or held by it, is counted or being counted (a change there must be reported exactly). */
    watches(path: string): boolean {
      for (const home of counts.keys()) if (related(home, path)) return true;
      for (const home of running.keys()) if (related(home, path)) return true;
      return false;
    },

    /**
     * Reports a change at `path` (a location, see get). With `delta` the counts of the
     * homes holding it are adjusted; without, or for a home inside `path`, they are dropped and
     * the next reader counts again.
     */
    changed(path: string, delta?: Usage): void {
      for (const [home, usage] of counts) {
        if (!related(home, path)) continue;
        if (delta && locationUnder(path, home) && path !== home) {
          usage.size = Math.max(0, usage.size + delta.size);
          usage.files = Math.max(0, usage.files + delta.files);
          usage.folders = Math.max(0, usage.folders + delta.folders);
        } else {
          counts.delete(home);
        }
      }
      for (const [home, entry] of running) if (related(home, path)) entry.stale = true;
    },
  };
}

/** A full count of the storage of a home; a home not created yet holds nothing. */
export async function countHome(storage: Storage): Promise<Usage> {
  try {
    // The engine's own count: links are not followed, so it ends; no limit may make a quota unreadable.
    return await storage.usage("/", UNBOUNDED);
  } catch (error) {
    if (error instanceof FerryError && error.errorName === "PathNotFound") return { size: 0, files: 0, folders: 0 };
    throw error;
  }
}

export type UsageCache = ReturnType<typeof createUsageCache>;
