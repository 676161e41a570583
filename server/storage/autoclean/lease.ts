import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Clock } from "../../clock";
import { type Db, isUniqueViolation } from "../../db/connect";
import type { Database } from "../../db/schema";

/*
 * Auto-clean's lease per storage (docs/storage.md, "Auto-clean", "Several engines"): several
 * engines on one database share the storages, so a real run first takes the storage's lease in the
 * database, in one statement that succeeds only when the lease is free or lapsed, and renews its
 * heartbeat while it goes (as sync runs do, server/sync/service.ts). An engine that dies (kill -9)
 * stops renewing; after LEASE_STALE_MS any engine may take the storage again, and the dead run's
 * folder in the holding folder is then recovered. The row also keeps, for every engine, the last
 * run (the schedule's) and where the next walk starts (a run stopped at a walk limit).
 */

/** How often a run renews its heartbeat (real time), and how old one gets before the lease lapses (engine clock). */
export const LEASE_HEARTBEAT_MS = 5000;
export const LEASE_STALE_MS = 60_000;

/** The storage's shared auto-clean state. */
export interface CleanState {
  /** The finish time of the last real run (any engine's), unix ms. */
  lastRunAt: number | null;
  /** Where the next walk starts (a path below the root, walk order); null: at the beginning. */
  resumeAt: string | null;
}

export interface CleanLeases {
  /** Takes the storage's lease for run `runId`; false while another run (here or on another engine) holds it live. */
  take(storageId: number, runId: string): Promise<boolean>;
  /** Renews the heartbeat; false when the lease is no longer this run's (it lapsed and was taken). */
  renew(storageId: number, runId: string): Promise<boolean>;
  /**
   * Gives the lease up. `finishedAt`: the run counts as the last run (null: it did not run, e.g.
   * no longer due); `resumeAt`: where the next walk starts (undefined: unchanged).
   */
  release(storageId: number, runId: string, outcome: { finishedAt: number | null; resumeAt?: string | null }): Promise<void>;
  /** True while a run with this id holds a live lease (any storage, any engine). */
  isLive(runId: string): Promise<boolean>;
  /** True while some run holds the storage's lease live. */
  isHeld(storageId: number): Promise<boolean>;
  state(storageId: number): Promise<CleanState>;
}

interface AutoCleanLeasesTable {
  storage_id: number;
  run_id: string;
  instance_id: string;
  heartbeat_at: number;
  last_run_at: number | null;
  resume_at: string;
}
interface LeaseDatabase extends Database {
  autoclean_leases: AutoCleanLeasesTable;
}

/** The leases in the database (table autoclean_leases, migration 0023). */
export function databaseLeases(db: Db, clock: Clock): CleanLeases {
  const k = db.kysely as unknown as Kysely<LeaseDatabase>;
  /** This engine among others on the database (diagnosis: who holds a lease). */
  const instance = randomUUID();
  const table = "autoclean_leases" as const;
  const liveSince = () => clock.now() - LEASE_STALE_MS;

  return {
    async take(storageId, runId) {
      const now = clock.now();
      const lease = { run_id: runId, instance_id: instance, heartbeat_at: now };
      const claimed = await k
        .updateTable(table)
        .set(lease)
        .where("storage_id", "=", storageId)
        .where((eb) => eb.or([eb("run_id", "=", ""), eb("heartbeat_at", "<", now - LEASE_STALE_MS)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1) return true;
      if (await k.selectFrom(table).select("storage_id").where("storage_id", "=", storageId).executeTakeFirst()) return false;
      try {
        await k.insertInto(table).values({ storage_id: storageId, ...lease, last_run_at: null, resume_at: "" }).execute();
        return true;
      } catch (error) {
        // Another engine made the row (and holds the lease) in between.
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async renew(storageId, runId) {
      await k.updateTable(table).set({ heartbeat_at: clock.now() }).where("storage_id", "=", storageId).where("run_id", "=", runId).execute();
      // Read back: MariaDB may count an update that changes nothing as no row.
      const row = await k.selectFrom(table).select("run_id").where("storage_id", "=", storageId).executeTakeFirst();
      return row?.run_id === runId;
    },
    async release(storageId, runId, outcome) {
      await k
        .updateTable(table)
        .set({
          run_id: "",
          instance_id: "",
          ...(outcome.finishedAt !== null ? { last_run_at: outcome.finishedAt } : {}),
          ...(outcome.resumeAt !== undefined ? { resume_at: outcome.resumeAt ?? "" } : {}),
        })
        .where("storage_id", "=", storageId)
        .where("run_id", "=", runId)
        .execute();
    },
    async isLive(runId) {
      if (!runId) return false;
      return !!(await k.selectFrom(table).select("storage_id").where("run_id", "=", runId).where("heartbeat_at", ">=", liveSince()).executeTakeFirst());
    },
    async isHeld(storageId) {
      return !!(await k.selectFrom(table).select("storage_id").where("storage_id", "=", storageId).where("run_id", "!=", "").where("heartbeat_at", ">=", liveSince()).executeTakeFirst());
    },
    async state(storageId) {
      const row = await k.selectFrom(table).select(["last_run_at", "resume_at"]).where("storage_id", "=", storageId).executeTakeFirst();
      return { lastRunAt: row?.last_run_at == null ? null : Number(row.last_run_at), resumeAt: row?.resume_at || null };
    },
  };
}

/** The leases of one process (no database: a test's createAutoClean); same rules, nothing lapses while the process lives. */
export function memoryLeases(): CleanLeases {
  const rows = new Map<number, { runId: string; lastRunAt: number | null; resumeAt: string | null }>();
  const row = (id: number) => rows.get(id) ?? rows.set(id, { runId: "", lastRunAt: null, resumeAt: null }).get(id)!;
  return {
    async take(storageId, runId) {
      const r = row(storageId);
      if (r.runId) return false;
      r.runId = runId;
      return true;
    },
    async renew(storageId, runId) {
      return row(storageId).runId === runId;
    },
    async release(storageId, runId, outcome) {
      const r = row(storageId);
      if (r.runId !== runId) return;
      r.runId = "";
      if (outcome.finishedAt !== null) r.lastRunAt = outcome.finishedAt;
      if (outcome.resumeAt !== undefined) r.resumeAt = outcome.resumeAt;
    },
    async isLive(runId) {
      return !!runId && [...rows.values()].some((r) => r.runId === runId);
    },
    async isHeld(storageId) {
      return !!rows.get(storageId)?.runId;
    },
    async state(storageId) {
      const r = rows.get(storageId);
      return { lastRunAt: r?.lastRunAt ?? null, resumeAt: r?.resumeAt ?? null };
    },
  };
}
