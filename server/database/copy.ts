import { createHash } from "node:crypto";
import SqliteDatabase from "better-sqlite3";
import { CompiledQuery, type DatabaseConnection, Kysely, MysqlDialect, type MysqlPool, type MysqlPoolConnection, PostgresDialect, type RawBuilder, sql, SqliteDialect } from "kysely";
import type { DatabaseTarget } from "../../contract/database";
import type { Pool, PoolConnection } from "mysql2";
import { dialectOf, type Dialect, guardPgPool } from "../db/connect";
import { migrate } from "../db/migrations";
import { fail, FerryError } from "../errors";
import { redactUrl, targetUrl } from "./switch-file";

/*
 * The copy of every Ferry table from one database into another (docs/database.md, "How the copy
 * works"). The source is read inside one read-only snapshot (a transaction of its own connection),
 * so the rows copied and the rows verified are the same set while the engine keeps writing; the
 * source is never written. The target gets Ferry's migrations first, then every table in batches in
 * primary-key order, then each table is verified: same row count and the same order-free hash of
 * every row on both sides.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- tables are copied by name, schema-less */
type AnyDb = Kysely<any>;

/** Connection waits are capped: a server that does not answer fails the test or the copy, it does not hang it. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** One statement (a batch of at most 1000 rows, a count) that takes longer than this fails the copy. */
const QUERY_TIMEOUT_MS = 300_000;
/** How much longer than the cap the client waits for a server that does not answer at all (the server's own cancel comes first). */
const SILENT_SERVER_MS = 10_000;
/** A table in the target with this name marks a copy that has not finished: the next copy cleans it without asking. */
export const UNFINISHED_MARKER = "ferry_copy_unfinished";
const KYSELY_TABLES = ["kysely_migration", "kysely_migration_lock"];
/** Most bind parameters of one insert (PostgreSQL allows 65535; MariaDB more). */
const MAX_PARAMS = 30_000;
const MAX_BATCH = 1000;

export interface Connection {
  kysely: AnyDb;
  dialect: Dialect;
}

/** A pool of its own to any database URL, with capped connection waits and statements (`queryTimeoutMs`, default 5 min; not on SQLite, which runs in-process); nothing is migrated. */
export async function connectUrl(url: string, options: { readonly?: boolean; connections?: number; queryTimeoutMs?: number } = {}): Promise<Connection> {
  const dialect = dialectOf(url);
  const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
  if (dialect === "sqlite") {
    const file = url.slice("sqlite:".length);
    const sqlite = new SqliteDatabase(file, { readonly: options.readonly ?? false, fileMustExist: true });
    sqlite.pragma("busy_timeout = 5000");
    return { dialect, kysely: new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) }) };
  }
  if (dialect === "postgres") {
    const { default: pg } = await import("pg");
    const types = {
      getTypeParser(oid: number, format?: "text" | "binary") {
        if (oid === 20) return (value: string) => Number(value);
        return pg.types.getTypeParser(oid, format as "text");
      },
    };
    // A server that stops answering mid-copy fails the copy instead of holding it (and the next one) forever.
    // The server cancels a statement past the cap (statement_timeout), so its connection is free for the next one;
    // the client gives up a little later (query_timeout) only when the server does not answer at all.
    const pool = new pg.Pool({ connectionString: url, max: options.connections ?? 2, types, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, statement_timeout: queryTimeoutMs, query_timeout: queryTimeoutMs + SILENT_SERVER_MS });
    // A connection the server ends (a dropped database, an administrator's terminate) fails the copy's next statement.
    guardPgPool(pool, () => {});
    return { dialect, kysely: new Kysely<any>({ dialect: new PostgresDialect({ pool }) }) };
  }
  const { createPool } = await import("mysql2");
  const pool = createPool({ uri: url.replace(/^mariadb:/, "mysql:"), connectionLimit: options.connections ?? 2, connectTimeout: CONNECT_TIMEOUT_MS, timezone: "Z" });
  const onCreateConnection = async (connection: DatabaseConnection) => {
    // MariaDB cancels a statement past the cap itself (max_statement_time, seconds); MySQL knows only
    // max_execution_time (ms, SELECT only). The client's timeout below stays for a server that does not answer.
    try {
      await connection.executeQuery(CompiledQuery.raw(`set session max_statement_time = ${queryTimeoutMs / 1000}`));
    } catch {
      await connection.executeQuery(CompiledQuery.raw(`set session max_execution_time = ${Math.ceil(queryTimeoutMs)}`));
    }
  };
  return { dialect, kysely: new Kysely<any>({ dialect: new MysqlDialect({ pool: timedMysqlPool(pool, queryTimeoutMs + SILENT_SERVER_MS), onCreateConnection }) }) };
}


/**
 * The pool Kysely gets on MariaDB/MySQL: every statement carries mysql2's `timeout`, as pg's
 * `query_timeout` does on PostgreSQL. A statement that has not answered by then fails
 * (PROTOCOL_SEQUENCE_TIMEOUT) and its connection is closed, so a server that stops answering
 * mid-copy fails the copy instead of holding it. Without it mysql2 waits for ever.
 */
function timedMysqlPool(pool: Pool, timeoutMs: number): MysqlPool {
  const wrapped = new WeakMap<PoolConnection, MysqlPoolConnection>();
  const wrap = (c: PoolConnection): MysqlPoolConnection => {
    let w = wrapped.get(c);
    if (!w) {
      const query = (text: string, parameters: unknown[], callback?: (error: unknown, result: any) => void): any =>
        callback ? c.query({ sql: text, timeout: timeoutMs }, parameters, callback) : c.query({ sql: text, timeout: timeoutMs }, parameters);
      w = { query, release: () => c.release() } as MysqlPoolConnection;
      wrapped.set(c, w);
    }
    return w;
  };
  return {
    getConnection: (callback) => pool.getConnection((error, c) => callback(error, error ? (c as any) : wrap(c))),
    end: (callback) => pool.end(callback),
  };
}

/** The server's version (SQLite: the library's). */
export async function serverVersion(db: AnyDb, dialect: Dialect): Promise<string> {
  const query = dialect === "sqlite" ? sql<{ v: string }>`select sqlite_version() as v` : dialect === "postgres" ? sql<{ v: string }>`select current_setting('server_version') as v` : sql<{ v: string }>`select version() as v`;
  const { rows } = await query.execute(db);
  return String(rows[0]?.v ?? "");
}

/** The driver's refusal as one of the catalogue's codes: wrong account, no such database, no server there. */
export function connectError(error: unknown, target: DatabaseTarget): FerryError {
  if (error instanceof FerryError) return error;
  const e = error as { code?: string; errno?: number; message?: string };
  const code = String(e?.code ?? "");
  if (["28P01", "28000", "ER_ACCESS_DENIED_ERROR", "ER_DBACCESS_DENIED_ERROR", "ER_ACCESS_DENIED_NO_PASSWORD_ERROR"].includes(code) || e?.errno === 1045 || e?.errno === 1044) {
    return new FerryError("DatabaseAuthFailed");
  }
  if (code === "3D000" || code === "ER_BAD_DB_ERROR" || e?.errno === 1049) return new FerryError("DatabaseNotExist", { database: target.database }, { database: target.database });
  const address = `${target.host}:${target.port}`;
  return new FerryError("DatabaseUnreachable", { address, reason: e?.message ?? String(error) }, { address });
}

async function tableNames(db: AnyDb): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables.filter((t) => !t.isView).map((t) => t.name);
}

/** Ferry's tables already in a database: its migrations' bookkeeping, the unfinished-copy marker, and any table named as one of `names`. */
export async function ferryTablesIn(db: AnyDb, names: readonly string[]): Promise<{ tables: string[]; leftover: boolean }> {
  const ours = new Set([...names, ...KYSELY_TABLES, UNFINISHED_MARKER]);
  const tables = (await tableNames(db)).filter((t) => ours.has(t));
  return { tables, leftover: tables.includes(UNFINISHED_MARKER) };
}

/** Ferry's table names (those of the running database, without the migrations' bookkeeping). */
export async function ferryTableNames(db: AnyDb): Promise<string[]> {
  return (await tableNames(db)).filter((t) => !KYSELY_TABLES.includes(t) && t !== UNFINISHED_MARKER);
}

async function dropTables(target: Connection, tables: string[]): Promise<void> {
  if (!tables.length) return;
  const list = sql.join(tables.map((t) => sql.table(t)));
  if (target.dialect === "postgres") {
    await sql`drop table if exists ${list} cascade`.execute(target.kysely);
    return;
  }
  // MariaDB drops tables referenced by others' foreign keys only with the checks off, on that one connection.
  await target.kysely.connection().execute(async (c) => {
    await sql`set foreign_key_checks = 0`.execute(c);
    try {
      await sql`drop table if exists ${list}`.execute(c);
    } finally {
      await sql`set foreign_key_checks = 1`.execute(c);
    }
  });
}

/** Primary-key columns of every table (of the migrated target: the same schema as the source). */
async function primaryKeys(target: Connection): Promise<Map<string, string[]>> {
  const query =
    target.dialect === "postgres"
      ? sql<{ tbl: string; col: string; pos: number }>`select k.table_name as tbl, k.column_name as col, k.ordinal_position as pos
          from information_schema.table_constraints t join information_schema.key_column_usage k
            on k.constraint_name = t.constraint_name and k.table_schema = t.table_schema and k.table_name = t.table_name
          where t.constraint_type = 'PRIMARY KEY' and t.table_schema = current_schema()`
      : sql<{ tbl: string; col: string; pos: number }>`select table_name as tbl, column_name as col, ordinal_position as pos
          from information_schema.key_column_usage where table_schema = database() and constraint_name = 'PRIMARY'`;
  const { rows } = await query.execute(target.kysely);
  const keys = new Map<string, { col: string; pos: number }[]>();
  for (const r of rows) keys.set(r.tbl, [...(keys.get(r.tbl) ?? []), { col: r.col, pos: Number(r.pos) }]);
  return new Map([...keys].map(([t, cols]) => [t, cols.sort((a, b) => a.pos - b.pos).map((c) => c.col)]));
}

/** Tables ordered so that a table comes after every table its foreign keys point to. */
async function insertOrder(target: Connection, tables: string[]): Promise<string[]> {
  const query =
    target.dialect === "postgres"
      ? sql<{ child: string; parent: string }>`select cl.relname as child, pr.relname as parent from pg_constraint c
          join pg_class cl on cl.oid = c.conrelid join pg_class pr on pr.oid = c.confrelid join pg_namespace n on n.oid = cl.relnamespace
          where c.contype = 'f' and n.nspname = current_schema()`
      : sql<{ child: string; parent: string }>`select table_name as child, referenced_table_name as parent
          from information_schema.referential_constraints where constraint_schema = database()`;
  const { rows } = await query.execute(target.kysely);
  const parents = new Map<string, Set<string>>();
  for (const r of rows) if (r.child !== r.parent) parents.set(r.child, (parents.get(r.child) ?? new Set()).add(r.parent));
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (t: string, path: Set<string>) => {
    if (placed.has(t) || path.has(t)) return;
    path.add(t);
    for (const p of parents.get(t) ?? []) if (tables.includes(p)) visit(p, path);
    placed.add(t);
    ordered.push(t);
  };
  for (const t of [...tables].sort()) visit(t, new Set());
  return ordered;
}

/** Batches of a table's rows in primary-key order (keyset paging: each batch starts after the last key seen). */
async function* batchesOf(db: AnyDb, table: string, key: string[], size: number): AsyncGenerator<Record<string, unknown>[]> {
  const keyList = sql.join(key.map((c) => sql.ref(c)));
  let last: unknown[] | null = null;
  for (;;) {
    const after: RawBuilder<unknown> = last ? sql`where (${keyList}) > (${sql.join(last)})` : sql``;
    const { rows }: { rows: Record<string, unknown>[] } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} ${after} order by ${keyList} limit ${sql.lit(size)}`.execute(db);
    if (rows.length) yield rows;
    if (rows.length < size) return;
    const end: Record<string, unknown> = rows[rows.length - 1]!;
    last = key.map((c): unknown => end[c]);
  }
}

/** One value as the same text whatever the driver gave (numbers from bigint, buffers, booleans). */
function norm(value: unknown): string {
  if (value === null || value === undefined) return "∅";
  if (typeof value === "number" || typeof value === "bigint") return `n${String(value)}`;
  if (typeof value === "boolean") return `n${value ? 1 : 0}`;
  if (Buffer.isBuffer(value)) return `b${value.toString("hex")}`;
  if (value instanceof Date) return `n${value.getTime()}`;
  return `s${String(value)}`;
}

const MASK = (1n << 128n) - 1n;

/** Rows and an order-free hash of a table: the sum of every row's hash (databases sort text keys differently). */
async function tableDigest(db: AnyDb, table: string, key: string[], columns: string[], size: number): Promise<{ rows: number; hash: bigint }> {
  let rows = 0;
  let hash = 0n;
  for await (const batch of batchesOf(db, table, key, size)) {
    for (const row of batch) {
      const text = JSON.stringify(columns.map((c) => norm(row[c])));
      hash = (hash + BigInt(`0x${createHash("sha256").update(text).digest("hex").slice(0, 32)}`)) & MASK;
      rows++;
    }
  }
  return { rows, hash };
}

export interface CopyProgress {
  phase: "connecting" | "preparing" | "copying" | "verifying" | "switching";
  table: string | null;
  rowsDone: number;
  rowsTotal: number;
  tables: { name: string; total: number; done: number; verified: boolean }[];
}

/** Opens the target and checks it may receive a copy: the refusal codes of the test and the copy. */
export async function openTarget(target: DatabaseTarget): Promise<Connection> {
  let connection: Connection | null = null;
  try {
    connection = await connectUrl(targetUrl(target));
    await serverVersion(connection.kysely, connection.dialect);
    return connection;
  } catch (error) {
    await connection?.kysely.destroy().catch(() => {});
    throw connectError(error, target);
  }
}

/**
 * Copies every table of `sourceUrl` into the open `target` and verifies it. Throws on any failure,
 * leaving the source untouched (only read) and the target marked unfinished. `replace`: Ferry's
 * tables already in the target (not from an unfinished copy) are dropped; otherwise they refuse.
 */
export async function copyDatabase(options: { sourceUrl: string; target: Connection; targetInfo: DatabaseTarget; replace: boolean; progress: CopyProgress }): Promise<void> {
  const { target, progress } = options;
  const source = await connectUrl(options.sourceUrl, { readonly: true, connections: 1 });
  try {
    await source.kysely.connection().execute(async (src) => {
      // One snapshot for the whole copy and its verification (SQLite: a read transaction of this connection, under WAL).
      await sql.raw(source.dialect === "postgres" ? "begin isolation level repeatable read read only" : source.dialect === "mysql" ? "start transaction with consistent snapshot" : "begin").execute(src);
      try {
        const tables = await ferryTableNames(src);
        const sourceMigrations = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(src)).rows.map((r) => r.name);

        progress.phase = "preparing";
        const present = await ferryTablesIn(target.kysely, tables);
        if (present.tables.length && !present.leftover && !options.replace) fail("DatabaseNotEmpty", { tables: present.tables.length }, { tables: present.tables.length });
        await dropTables(target, present.tables);
        // Created first, dropped last: until then the target is known as an unfinished copy.
        await target.kysely.schema.createTable(UNFINISHED_MARKER).addColumn("at", "bigint").execute();
        await migrate(target.kysely, target.dialect);
        const targetMigrations = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(target.kysely)).rows.map((r) => r.name);
        if (sourceMigrations.join() !== targetMigrations.join()) throw new Error(`the current database's migrations (${sourceMigrations.length}) differ from this engine's (${targetMigrations.length}); restart the engine first`);

        const keys = await primaryKeys(target);
        const order = await insertOrder(target, tables);
        const columnsOf = new Map<string, string[]>();
        for (const t of await src.introspection.getTables()) columnsOf.set(t.name, t.columns.map((c) => c.name).sort());
        const targetColumns = new Map<string, string[]>();
        for (const t of await target.kysely.introspection.getTables()) targetColumns.set(t.name, t.columns.map((c) => c.name).sort());
        for (const t of order) {
          if (!keys.get(t)?.length) throw new Error(`table ${t} has no primary key in the target`);
          if (columnsOf.get(t)?.join() !== targetColumns.get(t)?.join()) throw new Error(`table ${t} has other columns in the target`);
        }

        // Migrations seed rows (the built-in storage, 0018): the copy brings the current database's own
        // rows instead, so the target's tables are emptied first (children before parents).
        for (const t of [...order].reverse()) await target.kysely.deleteFrom(t).execute();

        progress.tables = [];
        for (const t of order) {
          const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(src);
          progress.tables.push({ name: t, total: Number(rows[0]?.n ?? 0), done: 0, verified: false });
        }
        progress.rowsTotal = progress.tables.reduce((sum, t) => sum + t.total, 0);
        progress.phase = "copying";
        for (const entry of progress.tables) {
          progress.table = entry.name;
          const columns = columnsOf.get(entry.name)!;
          const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(MAX_PARAMS / columns.length)));
          for await (const batch of batchesOf(src, entry.name, keys.get(entry.name)!, size)) {
            await target.kysely.insertInto(entry.name).values(batch).execute();
            entry.done += batch.length;
            progress.rowsDone += batch.length;
          }
        }
        if (target.dialect === "postgres") await resetSequences(target.kysely, order);

        progress.phase = "verifying";
        for (const entry of progress.tables) {
          progress.table = entry.name;
          const key = keys.get(entry.name)!;
          const columns = columnsOf.get(entry.name)!;
          const [from, to] = await Promise.all([tableDigest(src, entry.name, key, columns, MAX_BATCH), tableDigest(target.kysely, entry.name, key, columns, MAX_BATCH)]);
          if (from.rows !== entry.total || to.rows !== from.rows) throw new Error(`table ${entry.name}: ${from.rows} rows here, ${to.rows} in the target`);
          if (from.hash !== to.hash) throw new Error(`table ${entry.name}: the rows in the target differ from the rows here`);
          entry.verified = true;
        }
        progress.table = null;
        await target.kysely.schema.dropTable(UNFINISHED_MARKER).execute();
      } finally {
        await sql`rollback`.execute(src).catch(() => {});
      }
    });
  } finally {
    await source.kysely.destroy().catch(() => {});
  }
}

/** PostgreSQL's serial counters continue after the highest id copied (explicit ids do not move them). */
async function resetSequences(db: AnyDb, tables: string[]): Promise<void> {
  const { rows } = await sql<{ tbl: string; col: string; seq: string }>`select c.table_name as tbl, c.column_name as col, pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as seq
    from information_schema.columns c where c.table_schema = current_schema() and c.column_default like 'nextval(%'`.execute(db);
  for (const r of rows) {
    if (!tables.includes(r.tbl) || !r.seq) continue;
    await sql`select setval(${r.seq}, coalesce((select max(${sql.ref(r.col)}) from ${sql.table(r.tbl)}), 0) + 1, false)`.execute(db);
  }
}

export { redactUrl };
