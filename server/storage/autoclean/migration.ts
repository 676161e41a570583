import type { Kysely, Migration } from "kysely";

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run on a schema-less Kysely */
/** Migration 0023_autoclean_leases (server/db/migrations.ts): auto-clean's lease and walk cursor per storage (lease.ts, docs/storage.md "Auto-clean"). */
export const autoCleanMigration = (): Record<string, Migration> => ({
  "0023_autoclean_leases": {
    async up(db: Kysely<any>) {
      // One row per storage, made by its first run. Several engines on one database: a real run
      // holds the row (run_id, the engine's instance, a heartbeat renewed every few seconds), taken
      // in one statement only when free or lapsed; a run folder in the holding folder whose run id
      // is held live here is never recovered by another engine. last_run_at is the schedule's last
      // run for every engine; resume_at where the next walk starts (a run stopped at a walk limit).
      // No foreign key: a row of a deleted storage is harmless (ids are not reused).
      await db.schema
        .createTable("autoclean_leases")
        .addColumn("storage_id", "integer", (c) => c.primaryKey())
        .addColumn("run_id", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("instance_id", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("heartbeat_at", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("last_run_at", "bigint")
        .addColumn("resume_at", "varchar(4096)", (c) => c.notNull().defaultTo(""))
        .execute();
      await db.schema.createIndex("autoclean_leases_run").on("autoclean_leases").column("run_id").execute();
    },
  },
});
