import * as z from "zod";

/**
 * The database page (admin spec section 3, "MySQL settings"; issue 15; docs/database.md): which
 * database the engine runs on, a connection test of another MariaDB/MySQL or PostgreSQL database,
 * and the copy of every table into it, switched to at the next restart (1077).
 */

export const TARGET_DIALECTS = ["mysql", "postgres"] as const;
export const targetDialect = z.enum(TARGET_DIALECTS);
export type TargetDialect = z.infer<typeof targetDialect>;

/** The default port of each kind of server. */
export const DEFAULT_PORTS: Record<TargetDialect, number> = { mysql: 3306, postgres: 5432 };

export const databaseTarget = z.object({
  dialect: targetDialect.describe("mysql (MariaDB or MySQL) or postgres (PostgreSQL)."),
  host: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9.\-:[\]_]+$/, "host name or address")
    .describe("Host name or address of the database server."),
  port: z.coerce.number().int().min(1).max(65535),
  database: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_$-]+$/, "letters, digits, _ $ -")
    .describe("Name of an existing database (create it first; see docs/database.md)."),
  user: z.string().min(1).max(128).describe("Account on the database server."),
  password: z.string().max(256).default("").describe("Its password (sent over the admin API only; kept encrypted in the data directory after a switch)."),
});
export type DatabaseTarget = z.infer<typeof databaseTarget>;

export const copyBody = databaseTarget.extend({
  replace: z.boolean().default(false).describe("true: the target already holds Ferry's tables and they are dropped first (confirmed by the administrator)."),
});
export type CopyBody = z.infer<typeof copyBody>;

export const tableCount = z.object({ name: z.string(), rows: z.number().int() });

export const currentDatabase = z.object({
  dialect: z.enum(["sqlite", "mysql", "postgres"]),
  version: z.string().describe("The database server's version (SQLite: the library's)."),
  location: z.string().describe("The SQLite file, or the server URL without its password."),
  switched: z.boolean().describe("true: chosen by the switch file in the data directory (docs/database.md), not by DATABASE_URL."),
  size: z.number().int().nullable().describe("Bytes the database takes (SQLite file with its WAL, or the server's size of the database); null when unknown."),
  tables: z.array(tableCount),
  pending: z
    .object({ dialect: targetDialect, location: z.string(), at: z.number().int() })
    .nullable()
    .describe("A copy verified and waiting for the restart that switches to it; null: none."),
  lastFailure: z
    .object({ location: z.string(), at: z.number().int(), message: z.string() })
    .nullable()
    .describe("The switch at the last start that failed (the engine stayed on this database); null: none."),
});
export type CurrentDatabase = z.infer<typeof currentDatabase>;

export const testResult = z.object({
  version: z.string(),
  location: z.string(),
  ferryTables: z.number().int().describe("Ferry's tables already in the target database; 0: empty, ready to copy."),
  leftover: z.boolean().describe("Those tables are the rest of an earlier copy that failed; the next copy cleans them without asking."),
});
export type TestResult = z.infer<typeof testResult>;

export const COPY_STATES = ["idle", "running", "done", "failed"] as const;
export const COPY_PHASES = ["connecting", "preparing", "copying", "verifying", "switching"] as const;

export const copyTable = z.object({
  name: z.string(),
  total: z.number().int().describe("Rows in the current database (a snapshot taken when the copy began)."),
  done: z.number().int().describe("Rows copied."),
  verified: z.boolean().describe("Same row count and same rows (an order-free hash of every row) on both sides."),
});

export const copyStatus = z.object({
  state: z.enum(COPY_STATES),
  phase: z.enum(COPY_PHASES).nullable(),
  target: z.string().nullable().describe("The target's URL without its password."),
  table: z.string().nullable().describe("The table being copied."),
  rowsDone: z.number().int(),
  rowsTotal: z.number().int(),
  startedAt: z.number().int().nullable().describe("Unix ms."),
  finishedAt: z.number().int().nullable(),
  elapsedMs: z.number().int().describe("Milliseconds the copy has run (or ran): with rowsDone, its speed and the time left."),
  tables: z.array(copyTable),
  code: z.number().int().nullable().describe("done: 1077 (restart to switch); failed: the error code."),
  message: z.string().nullable().describe("failed: what went wrong, in English (the code's text is translated)."),
});
export type CopyStatus = z.infer<typeof copyStatus>;
