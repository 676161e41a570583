import type { Services } from "../services";
import { createSync, type Sync } from "./service";

/**
 * One sync service per engine's services: the routes (allRoutes) and the engine's start and stop
 * (startEngine) reach the same queue and scheduler. Nothing runs until start().
 */
const instances = new WeakMap<Services, { sync: Sync; log: { current: { warn(obj: object, message: string): void } | null } }>();

export function syncOf(s: Services, log?: { warn(obj: object, message: string): void }): Sync {
  let entry = instances.get(s);
  if (!entry) {
    const ref: { current: { warn(obj: object, message: string): void } | null } = { current: null };
    const sync = createSync({
      db: s.db,
      clock: s.clock,
      storages: s.storages,
      walk: { maxDepth: s.config.walkMaxDepth, maxEntries: s.config.walkMaxEntries },
      timeZone: s.config.timeZone,
      log: { warn: (obj, message) => ref.current?.warn(obj, message) },
    });
    entry = { sync, log: ref };
    instances.set(s, entry);
  }
  if (log) entry.log.current = log;
  return entry.sync;
}
