import type { ColumnType, Generated, Kysely } from "kysely";
import type { Db } from "../db/connect";
import type { Database } from "../db/schema";

/*
 * The sync tasks' tables (migration 0022_sync_tasks, server/sync/migration.ts). Their row types
 * live here, next to the only code that reads them.
 */

/** A column the database fills with its default when an insert leaves it out. */
type D<T> = ColumnType<T, T | undefined, T>;

/** A sync task (0022; server/sync/, docs/sync.md). */
export interface SyncTasksTable {
  id: Generated<number>;
  name: string;
  name_key: string;
  /** storages.id (1: the built-in local storage). */
  source_storage_id: D<number>;
  source_path: string;
  target_storage_id: D<number>;
  target_path: string;
  /** contract/sync.ts syncFrequency as JSON. */
  frequency: string;
  /** "overwrite" | "append" */
  update_mode: D<string>;
  keep_mtime: D<number>;
  only_top_level: D<number>;
  delete_target: D<number>;
  delete_source: D<number>;
  two_way: D<number>;
  filters: D<string>;
  skip_over_size: D<number>;
  /** contract/sync.ts SYNC_STATUSES */
  status: string;
  /** Unix ms of the next scheduled run; null when none is planned. */
  next_run_at: number | null;
  last_run_id: number | null;
  created_at: number;
  updated_at: number;
}

/** One run of a sync task (0022). */
export interface SyncRunsTable {
  id: Generated<number>;
  task_id: number;
  started_at: number;
  ended_at: number | null;
  status: string;
  /** "manual" | "schedule" */
  started_by: string;
  files_copied: D<number>;
  files_deleted: D<number>;
  files_skipped: D<number>;
  bytes: D<number>;
  error_code: D<number>;
  error_path: D<string>;
  /** The engine (process) running it: random per process. */
  instance_id: D<string>;
  /** Heartbeat, unix ms: renewed while the run waits or goes; a stale one means its engine is gone. */
  updated_at: D<number>;
}

/** A file a sync run left in sync, with both sides' size and time (unix s) then (0022). */
export interface SyncStateTable {
  task_id: number;
  path_hash: string;
  path: string;
  src_size: number;
  src_mtime: number;
  dst_size: number;
  dst_mtime: number;
}

export interface SyncDatabase extends Database {
  sync_tasks: SyncTasksTable;
  sync_runs: SyncRunsTable;
  sync_state: SyncStateTable;
}

export const syncDb = (db: Db): Kysely<SyncDatabase> => db.kysely as unknown as Kysely<SyncDatabase>;
