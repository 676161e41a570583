import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../db/connect";

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run on a schema-less Kysely */
/** Migration 0022_sync_tasks (server/db/migrations.ts): sync tasks, their runs and their state (docs/sync.md). */
export const syncMigration = (dialect: Dialect): Record<string, Migration> => ({
  "0022_sync_tasks": {
    async up(db: Kysely<any>) {
      // Sync tasks, their runs and what each run left in sync (server/sync/, docs/sync.md).
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      const flag = (c: any) => c.notNull().defaultTo(0);
      await db.schema
        .createTable("sync_tasks")
        .addColumn("id", idType, idColumn)
        .addColumn("name", "varchar(64)", (c) => c.notNull())
        .addColumn("name_key", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("source_storage_id", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("source_path", "varchar(1024)", (c) => c.notNull())
        .addColumn("target_storage_id", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("target_path", "varchar(1024)", (c) => c.notNull())
        // contract/sync.ts syncFrequency as JSON.
        .addColumn("frequency", "varchar(255)", (c) => c.notNull())
        .addColumn("update_mode", "varchar(16)", (c) => c.notNull().defaultTo("overwrite"))
        .addColumn("keep_mtime", "integer", flag)
        .addColumn("only_top_level", "integer", flag)
        .addColumn("delete_target", "integer", flag)
        .addColumn("delete_source", "integer", flag)
        .addColumn("two_way", "integer", flag)
        .addColumn("filters", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("skip_over_size", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("status", "varchar(32)", (c) => c.notNull())
        .addColumn("next_run_at", "bigint")
        .addColumn("last_run_id", "integer")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sync_tasks_next_run").on("sync_tasks").column("next_run_at").execute();
      await db.schema
        .createTable("sync_runs")
        .addColumn("id", idType, idColumn)
        .addColumn("task_id", "integer", (c) => c.notNull().references("sync_tasks.id").onDelete("cascade"))
        .addColumn("started_at", "bigint", (c) => c.notNull())
        .addColumn("ended_at", "bigint")
        .addColumn("status", "varchar(32)", (c) => c.notNull())
        .addColumn("started_by", "varchar(16)", (c) => c.notNull())
        .addColumn("files_copied", "integer", flag)
        .addColumn("files_deleted", "integer", flag)
        .addColumn("files_skipped", "integer", flag)
        .addColumn("bytes", "bigint", flag)
        .addColumn("error_code", "integer", flag)
        .addColumn("error_path", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        // Several engines on one database: the engine that runs it (random per engine process) and
        // its heartbeat (unix ms, renewed every few seconds while the run waits or goes). A run whose
        // heartbeat stopped belongs to an engine that is gone; any engine marks it stopped by server.
        .addColumn("instance_id", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("updated_at", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex("sync_runs_task").on("sync_runs").columns(["task_id", "id"]).execute();
      // One row per file a run left in sync: both sides' size and time as they were then. A later run
      // tells "unchanged" from "changed" by it (S3 cannot take a file's time) and propagates a
      // deletion only for a file the row says both sides held. The path's SHA-256 is the key (an
      // index over a 1024-character path is too long for MariaDB).
      await db.schema
        .createTable("sync_state")
        .addColumn("task_id", "integer", (c) => c.notNull().references("sync_tasks.id").onDelete("cascade"))
        .addColumn("path_hash", "varchar(64)", (c) => c.notNull())
        .addColumn("path", "varchar(4096)", (c) => c.notNull())
        .addColumn("src_size", "bigint", (c) => c.notNull())
        .addColumn("src_mtime", "bigint", (c) => c.notNull())
        .addColumn("dst_size", "bigint", (c) => c.notNull())
        .addColumn("dst_mtime", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sync_state_pk", ["task_id", "path_hash"])
        .execute();
    },
  },
});
