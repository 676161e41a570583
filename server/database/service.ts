import { statSync } from "node:fs";
import { sql } from "kysely";
import type { CopyBody, CopyStatus, CurrentDatabase, DatabaseTarget, TestResult } from "../../contract/database";
import { ErrorCode, errorByCode, formatErrorMessage } from "../../contract/errors";
import type { Clock } from "../clock";
import type { Config } from "../config";
import { SQLITE_SIDE_FILES, sqliteFileOf } from "../data-dir";
import type { Db } from "../db/connect";
import { fail, FerryError } from "../errors";
import { type Connection, copyDatabase, type CopyProgress, ferryTableNames, ferryTablesIn, openTarget, serverVersion } from "./copy";
import { createSwitchStore, redactUrl, targetUrl } from "./switch-file";

/** The database page's logic (docs/database.md): what runs now, a target's test, and the one copy at a time. */
export interface DatabaseAdmin {
  current(): Promise<CurrentDatabase>;
  test(target: DatabaseTarget): Promise<TestResult>;
  /** Checks the target, then copies in the background: the answer is the status of the copy started. */
  startCopy(body: CopyBody): Promise<CopyStatus>;
  status(): CopyStatus;
  /** Forgets a verified copy waiting for the restart: the next start stays on this database. */
  cancelPending(): Promise<CurrentDatabase>;
  /** Settles when the copy under way (if any) has ended; for stop(). */
  idle(): Promise<void>;
}

const idleStatus = (): CopyStatus => ({ state: "idle", phase: null, target: null, table: null, rowsDone: 0, rowsTotal: 0, startedAt: null, finishedAt: null, elapsedMs: 0, tables: [], code: null, message: null });

const sameHost = (a: string, b: string) => {
  const n = (h: string) => (h === "localhost" || h === "::1" || h === "[::1]" ? "127.0.0.1" : h.toLowerCase());
  return n(a) === n(b);
};

export function createDatabaseAdmin(deps: { config: Config; db: Db; clock: Clock }): DatabaseAdmin {
  const { config, db, clock } = deps;
  const store = createSwitchStore(config.dataDir, config.secret);
  let status: CopyStatus = idleStatus();
  let running: Promise<void> | null = null;
  /** The running copy's status, read live from its progress. */
  let live: (() => CopyStatus) | null = null;

  /** The target is the database Ferry runs on now: a "replace" there would drop the live tables. */
  function refuseCurrent(target: DatabaseTarget) {
    if (db.dialect !== target.dialect) return;
    try {
      const u = new URL(config.databaseUrl);
      const port = Number(u.port || (target.dialect === "mysql" ? 3306 : 5432));
      if (sameHost(u.hostname, target.host) && port === target.port && decodeURIComponent(u.pathname.slice(1)) === target.database) fail("DatabaseSameAsCurrent");
    } catch (error) {
      if (error instanceof FerryError) throw error;
    }
  }

  async function size(): Promise<number | null> {
    try {
      if (db.dialect === "sqlite") {
        const file = sqliteFileOf(config.databaseUrl);
        if (!file) return null;
        let bytes = statSync(file).size;
        for (const suffix of SQLITE_SIDE_FILES) bytes += statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0;
        return bytes;
      }
      const query = db.dialect === "postgres" ? sql<{ n: number }>`select pg_database_size(current_database()) as n` : sql<{ n: string }>`select sum(data_length + index_length) as n from information_schema.tables where table_schema = database()`;
      const { rows } = await query.execute(db.kysely);
      return Number(rows[0]?.n ?? 0);
    } catch {
      return null;
    }
  }

  return {
    async current() {
      const tables = [];
      for (const name of await ferryTableNames(db.kysely)) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db.kysely);
        tables.push({ name, rows: Number(rows[0]?.n ?? 0) });
      }
      const file = store.read();
      return {
        dialect: db.dialect,
        version: await serverVersion(db.kysely, db.dialect),
        location: db.dialect === "sqlite" ? (sqliteFileOf(config.databaseUrl) ?? config.databaseUrl) : redactUrl(config.databaseUrl),
        switched: file?.active != null,
        size: await size(),
        tables,
        pending: file?.pending ? { dialect: file.pending.dialect, location: redactUrl(targetUrl({ ...file.pending, password: "" })), at: file.pending.at } : null,
        lastFailure: file?.lastFailure ?? null,
      };
    },

    async test(target) {
      refuseCurrent(target);
      const connection = await openTarget(target);
      try {
        const present = await ferryTablesIn(connection.kysely, await ferryTableNames(db.kysely));
        return { version: await serverVersion(connection.kysely, connection.dialect), location: redactUrl(targetUrl(target)), ferryTables: present.tables.length, leftover: present.leftover };
      } finally {
        await connection.kysely.destroy().catch(() => {});
      }
    },

    async startCopy(body) {
      if (running) fail("DatabaseCopyRunning");
      refuseCurrent(body);
      const location = redactUrl(targetUrl(body));
      // Claimed before the first await: two posts at once start one copy.
      let release!: () => void;
      running = new Promise<void>((resolve) => (release = resolve));
      let connection: Connection | null = null;
      try {
        connection = await openTarget(body);
        const present = await ferryTablesIn(connection.kysely, await ferryTableNames(db.kysely));
        if (present.tables.length && !present.leftover && !body.replace) fail("DatabaseNotEmpty", { tables: present.tables.length }, { tables: present.tables.length });
      } catch (error) {
        await connection?.kysely.destroy().catch(() => {});
        running = null;
        release();
        throw error;
      }
      const progress: CopyProgress = { phase: "connecting", table: null, rowsDone: 0, rowsTotal: 0, tables: [] };
      const startedAt = clock.now();
      const began = performance.now();
      const view = (): CopyStatus => ({ state: "running", phase: progress.phase, target: location, table: progress.table, rowsDone: progress.rowsDone, rowsTotal: progress.rowsTotal, startedAt, finishedAt: null, elapsedMs: Math.round(performance.now() - began), tables: progress.tables.map((t) => ({ ...t })), code: null, message: null });
      live = view;
      const target = connection;
      const job = (async () => {
        try {
          await copyDatabase({ sourceUrl: config.databaseUrl, target, targetInfo: body, replace: body.replace, progress });
          progress.phase = "switching";
          // Only a verified copy is written down; the restart repeats it with the engine not serving (docs/database.md).
          const file = store.read() ?? { active: null, pending: null, lastFailure: null };
          store.write({ ...file, pending: store.seal(body, clock.now()), lastFailure: null });
          live = null;
          status = { ...view(), state: "done", phase: null, table: null, finishedAt: clock.now(), code: ErrorCode.NeedRestart };
        } catch (error) {
          const known = error instanceof FerryError ? error : null;
          live = null;
          status = { ...view(), state: "failed", finishedAt: clock.now(), code: known?.code ?? ErrorCode.MysqlSwitchError, message: known ? formatErrorMessage(errorByCode(known.code)!, "en", known.vars) : (error as Error).message };
        } finally {
          await target.kysely.destroy().catch(() => {});
        }
      })();
      job.finally(() => {
        live = null;
        running = null;
        release();
      });
      return view();
    },

    status: () => (live ? live() : status),

    async cancelPending() {
      if (running) fail("DatabaseCopyRunning");
      const file = store.read();
      if (file?.pending) {
        if (file.active || file.lastFailure) store.write({ ...file, pending: null });
        else store.remove();
      }
      if (status.state === "done") status = idleStatus();
      return this.current();
    },

    async idle() {
      await running;
    },
  };
}
