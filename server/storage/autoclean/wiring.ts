import { CLEAN_AGES } from "../../../contract/storage";
import { FerryError } from "../../errors";
import type { Services } from "../../services";
import { filesInUse } from "../in-use";
import { locationOf } from "../locations";
import { localRootOf, type StoredConfig, storedObject } from "../registry";
import type { CleanAge, CleanPolicy } from "./cleaner";
import { databaseLeases } from "./lease";
import { type AutoCleanSchedule, startAutoCleanSchedule } from "./schedule";
import { type AutoClean, type CleanTarget, createAutoClean } from "./service";

/**
 * One auto-clean per engine's services (docs/storage.md, "Auto-clean"): the routes (allRoutes) and
 * the engine's start and stop (startEngine) reach the same runs. The storages come from the
 * `storages` table (its local ones, with clean_by, clean_age, recycle_path); the schedule starts
 * with startAutoClean.
 */

interface Row {
  id: number;
  name: string;
  provider: string;
  config: string;
  clean_by: string;
  clean_age: string;
  recycle_path: string;
}

const isAge = (v: string): v is CleanAge => (CLEAN_AGES as readonly string[]).includes(v);

type Warn = (obj: object, msg: string) => void;

/**
 * An age the contract does not know (a row edited by hand, a downgrade) turns auto-clean off for
 * that storage and is logged (once per storage and value): guessing an age could delete files far
 * sooner than the administrator meant.
 */
function targetOf(row: Row, builtinRoot: string, warn: Warn, warned: Set<string>): CleanTarget {
  const local = row.provider === "local";
  const config = storedObject<StoredConfig>(row.config);
  const by = row.clean_by === "accessed" || row.clean_by === "modified" ? row.clean_by : null;
  let policy: CleanPolicy | null = null;
  if (local && by) {
    if (isAge(row.clean_age)) policy = { by, age: row.clean_age, recyclePath: row.recycle_path.trim() || null };
    else if (!warned.has(`${row.id} ${row.clean_age}`)) {
      warned.add(`${row.id} ${row.clean_age}`);
      warn({ storage: Number(row.id), cleanAge: row.clean_age }, "auto-clean is off for this storage: its clean_age is no known age");
    }
  }
  return { id: Number(row.id), name: row.name, root: local ? localRootOf({ config }, builtinRoot) : "", policy, local };
}

interface Entry {
  autoClean: AutoClean;
  schedule: AutoCleanSchedule | null;
  /** The engine's log once startAutoClean ran; before, the process's warnings. */
  warn: Warn;
}

const entries = new WeakMap<Services, Entry>();

function entryOf(s: Services) {
  let entry = entries.get(s);
  if (!entry) {
    const k = s.db.kysely;
    const columns = ["id", "name", "provider", "config", "clean_by", "clean_age", "recycle_path"] as const;
    const warned = new Set<string>();
    const warn: Warn = (obj, msg) => entries.get(s)!.warn(obj, msg);
    const autoClean = createAutoClean({
      clock: s.clock,
      targets: async () => (await k.selectFrom("storages").select(columns).where("provider", "=", "local").orderBy("id").execute()).map((r) => targetOf(r as Row, s.storages.builtinRoot, warn, warned)),
      target: async (id) => {
        const row = await k.selectFrom("storages").select(columns).where("id", "=", id).executeTakeFirst();
        if (!row) throw new FerryError("StorageIdNotExist");
        return targetOf(row as Row, s.storages.builtinRoot, warn, warned);
      },
      inUse: filesInUse,
      limits: { maxDepth: s.config.walkMaxDepth, maxEntries: s.config.walkMaxEntries },
      log: s.recorder,
      // Several engines on one database: one run per storage among them, one schedule, one cursor.
      leases: databaseLeases(s.db, s.clock),
      warn,
      // The homes holding a cleaned file count again (their quota's usage).
      onRemoved: (target, item) => s.usage.changed(locationOf(target.id, item.path), { size: -item.size, files: -1, folders: 0 }),
    });
    entry = { autoClean, schedule: null, warn: (obj, msg) => process.emitWarning(`${msg}: ${JSON.stringify(obj)}`) };
    entries.set(s, entry);
  }
  return entry;
}

export const autoCleanOf = (s: Services): AutoClean => entryOf(s).autoClean;

/** The schedule of an engine's services, once startAutoClean ran. */
export const autoCleanScheduleOf = (s: Services): AutoCleanSchedule | null => entryOf(s).schedule;

/** Starts the schedule (FERRY_AUTOCLEAN_INTERVAL); its stop() ends a run going on. */
export function startAutoClean(s: Services, log: { warn(obj: object, msg: string): void }): AutoCleanSchedule {
  const entry = entryOf(s);
  entry.warn = (obj, msg) => log.warn(obj, msg);
  entry.schedule = startAutoCleanSchedule({ autoClean: entry.autoClean, clock: s.clock, intervalMs: s.config.autoCleanIntervalMs, log });
  return entry.schedule;
}
