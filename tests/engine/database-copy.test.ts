import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CopyStatus, CurrentDatabase, DatabaseTarget } from "../../contract/database";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { connectUrl } from "../../server/database/copy";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * The database page's copy (issue 15, docs/database.md) against the real servers: an engine with
 * real data made through the API is copied into a fresh PostgreSQL database and switched to at a
 * restart, then copied from there into a fresh MariaDB database and switched again; after each
 * restart every row of every table is compared with the database it came from, and the copied
 * user signs in. A copy cut halfway (the target database dropped from a second connection) fails
 * and leaves the current database in use, unchanged, with no switch written.
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let t: TestEngine;
let admin: string;
const targets: TestDatabase[] = [];
const sockets: FileClient[] = [];
const ALICE = { account: "copy_alice", password: "Str0ng#Pass" };

/** A fresh database on a real server, and the page's fields for it. */
async function freshTarget(kind: "mysql" | "postgres"): Promise<{ db: TestDatabase; target: DatabaseTarget }> {
  const db = await createTestDatabase(t.dataDir, kind);
  targets.push(db);
  const u = new URL(db.url);
  return { db, target: { dialect: kind, host: u.hostname, port: Number(u.port), database: u.pathname.slice(1), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } };
}

const current = async () => {
  const reply = await t.call<CurrentDatabase>("GET", "/api/admin/database", { token: admin });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data!;
};
const status = async () => (await t.call<CopyStatus>("GET", "/api/admin/database/copy", { token: admin })).body.data!;

async function finished(): Promise<CopyStatus> {
  for (;;) {
    const s = await status();
    if (s.state !== "running") return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every row of every Ferry table, each as its values' text, sorted: the same for equal contents on any database. */
async function dump(url: string): Promise<Record<string, string[]>> {
  const { kysely } = await connectUrl(url);
  try {
    const out: Record<string, string[]> = {};
    for (const table of await kysely.introspection.getTables()) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(kysely);
      out[table.name] = rows
        .map((row) =>
          JSON.stringify(
            Object.keys(row)
              .sort()
              .map((k) => [k, row[k] === null ? null : typeof row[k] === "number" || typeof row[k] === "bigint" ? Number(row[k]) : String(row[k])]),
          ),
        )
        .sort();
    }
    return out;
  } finally {
    await kysely.destroy();
  }
}

const MYSQL_ROOT = "mysql://root@127.0.0.1:3306/test";
const accounts: string[] = [];

/** A MariaDB account with a password, allowed on one database only. */
async function passwordAccount(database: string): Promise<{ user: string; password: string }> {
  const user = `ferry_cp_${accounts.length}_${process.pid}`;
  const password = "Db#Pass 'quoted' 9";
  const c = await createConnection(MYSQL_ROOT);
  try {
    for (const host of ["localhost", "127.0.0.1", "%"]) {
      await c.query(`DROP USER IF EXISTS ?@?`, [user, host]);
      await c.query(`CREATE USER ?@? IDENTIFIED BY ?`, [user, host, password]);
      await c.query(`GRANT ALL PRIVILEGES ON \`${database}\`.* TO ?@?`, [user, host]);
    }
  } finally {
    await c.end();
  }
  accounts.push(user);
  return { user, password };
}

async function signIn(account: string, password: string) {
  const reply = await t.login(account, password);
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return { token: reply.body.data.token as string, socketToken: reply.body.data.websocket_token as string };
}

beforeAll(async () => {
  t = await startTestEngine({ FERRY_WEB_ORIGINS: "https://files.example.com" });
  admin = await t.adminToken();
  // Real data, made the way people make it: users, a group with a member, a notice, a setting, an upload (its hash) and a share link of it.
  const alice = await t.createUser(ALICE.account, { permission: PERMISSION_FULL, email: "alice@copy.example", fullname: "Alice 复制" });
  await t.createUser("copy_bob", { permission: PERMISSION_FULL });
  const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "Copy Team" } });
  expect(group.body.code).toBe(200);
  expect((await t.call("PUT", `/api/admin/groups/${group.body.data.id}/members/${alice.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);
  expect((await t.call("POST", "/api/admin/notices", { token: admin, body: { title: "Moving day", content: "数据库搬家", receivers: [alice.id], way: ["website"] } })).body.code).toBe(200);
  expect((await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 4096 } })).body.code).toBe(200);
  const files = await connectFiles(t.fileUrl, alice.socketToken);
  sockets.push(files);
  const data = Buffer.from("the bytes of a file that moves databases");
  const created = await tusClient(t.fileUrl, alice.socketToken).create({ groupId: "0", path: "/moving.txt" }, data.length, data);
  expect(created.status, created.text).toBe(201);
  expect(await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/moving.txt" });
  const link = await t.call("POST", "/api/share/link/create", { token: alice.token, body: { shareBaseUrl: "https://files.example.com", shareUrlType: 1, shareFiles: ["/moving.txt"], needPassword: true, shareUrlPasswd: "Zq9x" } });
  expect(link.body.code, JSON.stringify(link.body)).toBe(200);
  await t.engine.services.recorder.flush();
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.stop();
  for (const db of targets) await db.drop().catch(() => {});
  if (accounts.length) {
    const c = await createConnection(MYSQL_ROOT);
    for (const user of accounts) for (const host of ["localhost", "127.0.0.1", "%"]) await c.query(`DROP USER IF EXISTS ?@?`, [user, host]);
    await c.end();
  }
});

describe("database page", () => {
  it("shows the database Ferry runs on, with every table's rows", async () => {
    const now = await current();
    expect(now.dialect).toBe(t.databaseUrl.startsWith("sqlite:") ? "sqlite" : t.databaseUrl.startsWith("postgres") ? "postgres" : "mysql");
    expect(now.switched).toBe(false);
    expect(now.pending).toBeNull();
    expect(now.location).not.toMatch(/:[^/@:]*@/); // never a password
    expect(now.tables.find((x) => x.name === "users")?.rows).toBe(3);
    expect(now.tables.find((x) => x.name === "file_hashes")?.rows).toBe(1);
    expect(now.version).toMatch(/\d+\.\d+/);
  });

  it("tests a target: its version and emptiness; a wrong password, a missing database, no server and the current database are refused with their codes", async () => {
    const { target } = await freshTarget("mysql");
    const ok = await t.call("POST", "/api/admin/database/test", { token: admin, body: target });
    expect(ok.body.code, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({ ferryTables: 0, leftover: false });
    expect(ok.body.data.version).toMatch(/MariaDB|^\d/);

    const { target: pgTarget } = await freshTarget("postgres");
    expect((await t.call("POST", "/api/admin/database/test", { token: admin, body: pgTarget })).body.data).toMatchObject({ ferryTables: 0 });

    const wrongUser = await t.call("POST", "/api/admin/database/test", { token: admin, body: { ...target, user: "ferry_nobody", password: "wrong" } });
    expect(wrongUser.body.code).toBe(ErrorCode.DatabaseAuthFailed);
    const missing = await t.call("POST", "/api/admin/database/test", { token: admin, body: { ...target, database: "ferry_no_such_db" } });
    expect(missing.body.code).toBe(ErrorCode.DatabaseNotExist);
    expect(missing.body.message).toContain("ferry_no_such_db");
    const missingPg = await t.call("POST", "/api/admin/database/test", { token: admin, body: { ...pgTarget, database: "ferry_no_such_db" } });
    expect(missingPg.body.code).toBe(ErrorCode.DatabaseNotExist);
    const nobody = await t.call("POST", "/api/admin/database/test", { token: admin, body: { ...target, port: 1 } });
    expect(nobody.body.code).toBe(ErrorCode.DatabaseUnreachable);
    const bad = await t.call("POST", "/api/admin/database/test", { token: admin, body: { ...target, host: "db host; drop" } });
    expect(bad.body.code).not.toBe(200);
    if (!t.databaseUrl.startsWith("sqlite:")) {
      const u = new URL(t.databaseUrl);
      const self = { dialect: u.protocol.startsWith("postgres") ? "postgres" : "mysql", host: u.hostname, port: Number(u.port), database: u.pathname.slice(1), user: u.username || "root", password: "" };
      expect((await t.call("POST", "/api/admin/database/copy", { token: admin, body: { ...self, replace: true } })).body.code).toBe(ErrorCode.DatabaseSameAsCurrent);
    }
    // Without an administrator's token nothing is said about any database.
    expect((await t.call("POST", "/api/admin/database/test", { body: target })).body.code).not.toBe(200);
    expect((await t.call("GET", "/api/admin/database")).body.code).not.toBe(200);
  });

  it("a copy cut halfway (the target dropped from another connection) fails: the current database stays in use, unchanged, and no switch is written", async () => {
    // Enough rows that the copy is still under way when the test cuts it.
    const { kysely } = await connectUrl(t.databaseUrl);
    const filler = Array.from({ length: 120_000 }, (_, i) => ({ space_key: "filler", path_key: String(i).padStart(64, "0"), path: `/filler/${i}`, size: i, mtime: 1_700_000_000_000 + i, hash: "ab".repeat(16) }));
    for (let i = 0; i < filler.length; i += 2000) await kysely.insertInto("file_hashes").values(filler.slice(i, i + 2000)).execute();
    try {
      for (const kind of ["postgres", "mysql"] as const) {
        const before = await dump(t.databaseUrl);
        const { target } = await freshTarget(kind);
        const started = await t.call<CopyStatus>("POST", "/api/admin/database/copy", { token: admin, body: target });
        expect(started.body.code, JSON.stringify(started.body)).toBe(200);
        expect(started.body.data!.state).toBe("running");
        expect((await t.call("POST", "/api/admin/database/copy", { token: admin, body: target })).body.code).toBe(ErrorCode.DatabaseCopyRunning);
        let s = await status();
        while (s.state === "running" && !(s.phase === "copying" && s.rowsDone > 0)) s = await status();
        expect(s).toMatchObject({ state: "running", phase: "copying" });
        expect(s.rowsDone).toBeLessThan(s.rowsTotal);
        if (kind === "postgres") {
          const c = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
          await c.connect();
          await c.query(`DROP DATABASE ${target.database} WITH (FORCE)`);
          await c.end();
        } else {
          const c = await createConnection(MYSQL_ROOT);
          await c.query(`DROP DATABASE ${target.database}`);
          await c.end();
        }
        const end = await finished();
        expect(end.state).toBe("failed");
        expect(end.code).toBe(ErrorCode.MysqlSwitchError);
        expect(end.message).toBeTruthy();
        expect(existsSync(path.join(t.dataDir, "database.json"))).toBe(false);
        const now = await current();
        expect(now.pending).toBeNull();
        expect(now.location).toBe(t.databaseUrl.startsWith("sqlite:") ? t.databaseUrl.slice("sqlite:".length) : now.location);
        const afterCut = await dump(t.databaseUrl);
        // Unchanged by the copy; the operation log only gained the administrator's own requests (the copy's included).
        for (const table of Object.keys(before)) {
          if (table === "operation_log") expect(afterCut[table]).toEqual(expect.arrayContaining(before[table]!));
          else expect(afterCut[table], table).toEqual(before[table]);
        }
        await signIn(ALICE.account, ALICE.password);
      }
    } finally {
      await kysely.deleteFrom("file_hashes").where("space_key", "=", "filler").execute();
      await kysely.destroy();
    }
  });

  it("a target holding Ferry's tables is refused unless replacing them is confirmed; the rest of an unfinished copy is cleaned without asking", async () => {
    const { db, target } = await freshTarget("postgres");
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query("CREATE TABLE users (id integer primary key, account varchar(64))");
    await c.query("INSERT INTO users VALUES (1, 'someone_else')");
    await c.end();
    const tested = await t.call("POST", "/api/admin/database/test", { token: admin, body: target });
    expect(tested.body.data).toMatchObject({ ferryTables: 1, leftover: false });
    const refused = await t.call("POST", "/api/admin/database/copy", { token: admin, body: target });
    expect(refused.body.code).toBe(ErrorCode.DatabaseNotEmpty);
    expect(existsSync(path.join(t.dataDir, "database.json"))).toBe(false);

    // An unfinished copy's marker: the next copy cleans the target itself.
    const m = new pg.Client({ connectionString: db.url });
    await m.connect();
    await m.query("CREATE TABLE ferry_copy_unfinished (at bigint)");
    await m.end();
    expect((await t.call("POST", "/api/admin/database/test", { token: admin, body: target })).body.data).toMatchObject({ ferryTables: 2, leftover: true });
    const started = await t.call("POST", "/api/admin/database/copy", { token: admin, body: target });
    expect(started.body.code, JSON.stringify(started.body)).toBe(200);
    const end = await finished();
    expect(end, JSON.stringify(end)).toMatchObject({ state: "done", code: ErrorCode.NeedRestart });
    expect(end.tables.every((x) => x.verified && x.done === x.total)).toBe(true);
    expect((await t.call("POST", "/api/admin/database/test", { token: admin, body: target })).body.data).toMatchObject({ leftover: false });

    // Changed one's mind: the waiting switch is forgotten, the next start stays here.
    expect((await current()).pending).toMatchObject({ dialect: "postgres" });
    const cancelled = await t.call<CurrentDatabase>("DELETE", "/api/admin/database/pending", { token: admin });
    expect(cancelled.body.data?.pending).toBeNull();
    expect(existsSync(path.join(t.dataDir, "database.json"))).toBe(false);
    expect((await status()).state).toBe("idle");
  });

  for (const kind of ["postgres", "mysql"] as const) {
    it(`copies every table into a fresh ${kind === "mysql" ? "MariaDB" : "PostgreSQL"} database, switches to it at the restart (1077), and serves the same data there`, async () => {
      const source = (await current()).dialect;
      const sourceUrl = t.engine.services.config.databaseUrl;
      const { db, target } = await freshTarget(kind);
      // MariaDB through an account of its own with a password (kept sealed in the switch file, never in clear).
      if (kind === "mysql") Object.assign(target, await passwordAccount(target.database));
      const started = await t.call<CopyStatus>("POST", "/api/admin/database/copy", { token: admin, body: target });
      expect(started.body.code, JSON.stringify(started.body)).toBe(200);
      const end = await finished();
      expect(end, JSON.stringify(end)).toMatchObject({ state: "done", code: ErrorCode.NeedRestart });
      expect(end.rowsDone).toBe(end.rowsTotal);
      expect(end.tables.map((x) => x.name)).toEqual(expect.arrayContaining(["users", "user_groups", "group_members", "notices", "settings", "file_hashes", "share_links", "sessions"]));
      expect(end.tables.every((x) => x.verified)).toBe(true);
      const waiting = await current();
      expect(waiting.dialect).toBe(source);
      expect(waiting.pending).toMatchObject({ dialect: kind });
      expect(waiting.pending!.location).not.toContain(target.password || "\u0000");
      // The password is kept sealed, never in clear, in the switch file.
      if (kind === "mysql") expect(readFileSync(path.join(t.dataDir, "database.json"), "utf8")).not.toContain(target.password);

      await t.restart();
      // Straight after the restart, before anyone writes: every row of every table as in the database it came from.
      expect(await dump(db.url)).toEqual(await dump(sourceUrl));

      admin = await t.adminToken();
      const after = await current();
      expect(after).toMatchObject({ dialect: kind, switched: true, pending: null, lastFailure: null });
      expect(after.location).toContain(target.database);
      const alice = await signIn(ALICE.account, ALICE.password);
      const notices = await t.call("GET", "/api/notice/list", { token: alice.token });
      expect(JSON.stringify(notices.body.data)).toContain("Moving day");
      const links = await t.call("GET", "/api/share/link/list", { token: alice.token });
      expect(JSON.stringify(links.body.data)).toContain("moving.txt");
      // New rows get new ids after the copied ones (PostgreSQL's counters were moved past them).
      const carol = await t.createUser(`copy_carol_${kind}`);
      const ids = (await t.call("GET", "/api/admin/users?pageSize=50", { token: admin })).body.data.list.map((u: { id: number }) => u.id);
      expect(ids.filter((id: number) => id === carol.id)).toHaveLength(1);
      expect(Math.max(...ids.filter((id: number) => id !== carol.id))).toBeLessThan(carol.id);
    });
  }

  it("an engine whose switched database is down refuses to start, naming the file that goes back", async () => {
    const last = targets[targets.length - 1]!;
    await t.engine.stop();
    await last.drop();
    const { startEngine } = await import("../../server/engine");
    const config = { ...t.engine.services.config, apiPort: 0, filePort: 0 };
    config.databaseUrl = t.databaseUrl;
    await expect(startEngine(config)).rejects.toThrow(/database\.json/);
    // Stopped already: the suite's stop has nothing left to stop.
    Object.assign(t.engine, { stop: async () => {} });
  });
});
