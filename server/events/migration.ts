import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../db/connect";

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run on a schema-less Kysely */
/** Migration 0019_events (server/db/migrations.ts): the administrator's events and their run log (docs/events.md). */
export const eventsMigration = (dialect: Dialect): Record<string, Migration> => ({
  "0019_events": {
    async up(db: Kysely<any>) {
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable("events")
        .addColumn("id", idType, idColumn)
        .addColumn("name", "varchar(64)", (c) => c.notNull())
        .addColumn("name_key", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("type", "varchar(32)", (c) => c.notNull())
        .addColumn("operation", "varchar(32)", (c) => c.notNull().defaultTo("run_executable"))
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("remark", "varchar(255)", (c) => c.notNull().defaultTo(""))
        .addColumn("executable", "varchar(1024)", (c) => c.notNull())
        .addColumn("command_line", "varchar(2048)", (c) => c.notNull().defaultTo(""))
        .addColumn("args", "text", (c) => c.notNull())
        .addColumn("wait_seconds", "integer", (c) => c.notNull().defaultTo(30))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("event_runs")
        .addColumn("id", idType, idColumn)
        .addColumn("event_id", "integer", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("trigger_type", "varchar(32)", (c) => c.notNull())
        .addColumn("path", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("account", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("exit_code", "integer")
        .addColumn("signal", "varchar(16)")
        .addColumn("timed_out", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("duration_ms", "bigint", (c) => c.notNull().defaultTo(0))
        // Captured output, cut to EVENT_OUTPUT_MAX bytes each (server/events/runner.ts).
        .addColumn("stdout", "text", (c) => c.notNull())
        .addColumn("stderr", "text", (c) => c.notNull())
        .addColumn("error", "varchar(512)", (c) => c.notNull().defaultTo(""))
        .execute();
      await db.schema.createIndex("event_runs_event_at").on("event_runs").columns(["event_id", "id"]).execute();
    },
  },
});
