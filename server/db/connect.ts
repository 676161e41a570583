import { mkdirSync } from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import type { Pool } from "pg";
import { type Insertable, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import { ensurePrivateFile, PRIVATE_FILE_MODE, SQLITE_SIDE_FILES, tightenMode } from "../data-dir";
import { migrate } from "./migrations";
import type { Database } from "./schema";

export type Dialect = "sqlite" | "postgres" | "mysql";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}

export function dialectOf(url: string): Dialect {
  if (url.startsWith("sqlite:")) return "sqlite";
  if (/^postgres(ql)?:\/\//.test(url)) return "postgres";
  if (/^(mysql|mariadb):\/\//.test(url)) return "mysql";
  throw new Error(`unsupported database URL scheme: ${url.split(":")[0]}`);
}

/**
 * Opens the database named by `url`, runs pending migrations, and returns the query layer.
 * `migrateTo` stops at that migration (tests of a later migration start from the schema before it).
 */
export async function openDatabase(url: string, options: { migrateTo?: string } = {}): Promise<Db> {
  const dialect = dialectOf(url);
  let kysely: Kysely<Database>;
  if (dialect === "sqlite") {
    const file = url.slice("sqlite:".length);
    // SQLite gives its -wal, -shm and -journal files the database file's mode: made 0600 first, all are.
    if (file !== ":memory:") {
      // A folder made here is private; an existing one is the operator's (it may be /var/lib or /tmp).
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
      ensurePrivateFile(file);
    }
    const sqlite = new SqliteDatabase(file);
    sqlite.pragma("journal_mode = WAL");
    if (file !== ":memory:") for (const suffix of SQLITE_SIDE_FILES) tightenMode(`${file}${suffix}`, PRIVATE_FILE_MODE);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("synchronous = NORMAL");
    kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  } else if (dialect === "postgres") {
    // The drivers of the other databases load only when used: each holds several MB of resident memory.
    const { default: pg } = await import("pg");
    // PostgreSQL sends bigint (int8) and count(*) as strings; every bigint Ferry stores is a unix-ms time
    // or a byte size, well inside Number's exact range.
    const types = {
      getTypeParser(oid: number, format?: "text" | "binary") {
        if (oid === 20) return (value: string) => Number(value);
        return pg.types.getTypeParser(oid, format as "text");
      },
    };
    const pool = new pg.Pool({ connectionString: url, max: 10, types });
    // An idle connection the server closes (a restart, a failover, an administrator's terminate) is
    // reported here; without a listener Node ends the process. The pool drops that connection and
    // opens a new one for the next query, so there is nothing else to do.
    guardPgPool(pool, (error) => process.emitWarning(`PostgreSQL closed an idle connection: ${error.message}`));
    kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const { createPool: createMysqlPool } = await import("mysql2");
    const pool = createMysqlPool({ uri: url.replace(/^mariadb:/, "mysql:"), connectionLimit: 10, timezone: "Z" });
    kysely = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  }
  try {
    await migrate(kysely, dialect, options.migrateTo);
  } catch (error) {
    await kysely.destroy();
    throw error;
  }
  return { kysely, dialect, close: () => kysely.destroy() };
}

/** Inserts one row and returns its generated numeric id on every dialect (MariaDB has no RETURNING). */
export async function insertReturningId<T extends "users" | "user_groups" | "notices" | "storages">(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<number> {
  const query = db.kysely.insertInto(table).values(values as never);
  if (db.dialect === "mysql") {
    const result = await query.executeTakeFirstOrThrow();
    return Number(result.insertId);
  }
  const row = (await query.returning("id" as never).executeTakeFirstOrThrow()) as unknown as { id: number };
  return Number(row.id);
}

/** True when a write failed on a unique or primary-key constraint, whatever the database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number };
  return (
    e?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    e?.code === "23505" ||
    e?.code === "ER_DUP_ENTRY" ||
    e?.errno === 1062
  );
}

/**
 * A connection the PostgreSQL server ends (a restart, a failover, an administrator's terminate, a
 * dropped database) emits 'error'; without a listener Node ends the process. pg's pool listens only
 * on idle connections (`onIdleError`), not on one a caller holds between two statements (a
 * transaction, the database copy): that one gets its own listener here, and its next statement
 * fails with the error instead (tests/engine/database-copy.test.ts, the copy cut halfway).
 */
export function guardPgPool(pool: Pool, onIdleError: (error: Error) => void): void {
  pool.on("error", onIdleError);
  pool.on("connect", (client) => client.on("error", () => {}));
}
