import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { CompiledQuery } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { writeTree } from "../support/share-visitor";

/**
 * The log recorder off the hot path (server/logs/recorder.ts, docs/admin-api.md "Logs"): many
 * logged actions reach the database in a few batched INSERTs, not one per action; a database that
 * refuses the log's writes fails no action, and the recorder writes again once the database takes
 * rows. What the log costs a transfer is measured by `npm run bench` (part `logs`), not here.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let files: FileClient;
let home: string;

beforeAll(async () => {
  t = await startTestEngine();
  await t.createUser("rec_user", { permission: PERMISSION_FULL });
  const u = await t.createUser("rec_user2", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, u.socketToken);
  home = path.join(t.dataDir, "storage", "users", "rec_user2");
  await writeTree(home, { "big.bin": randomBytes(300_000) });
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

const kysely = () => t.engine.services.db.kysely;
const rowsOf = async (table: "operation_log" | "transfer_log", column: "target" | "path", prefix: string) =>
  (await kysely().selectFrom(table).select(column).where(column, "like", `${prefix}%`).execute()).length;

/** The SQL statements the engine's database runs from now on (the real executor, observed). */
function watchStatements() {
  const executor = kysely().getExecutor();
  const seen: string[] = [];
  const original = executor.executeQuery.bind(executor);
  const spy = vi.spyOn(executor, "executeQuery").mockImplementation((query: CompiledQuery, ...rest) => {
    seen.push(query.sql);
    return original(query, ...rest) as never;
  });
  return { inserts: (table: string) => seen.filter((sql) => new RegExp(`^insert into [\`"]${table}[\`"]`, "i").test(sql)).length, stop: () => spy.mockRestore() };
}

describe("the log recorder batches", () => {
  it("writes 150 logged socket actions in a few INSERTs, all rows there after the batch is written", async () => {
    const n = 150;
    await t.engine.services.recorder.flush();
    const watch = watchStatements();
    try {
      for (let i = 0; i < n; i++) await files.ok("mkdir", { groupId: 0, path: "/", name: `batch-${i}` });
      await t.engine.services.recorder.flush();
      // One INSERT per batch (up to 500 rows) each time the 1 s timer fires, never one per action.
      expect(watch.inserts("operation_log")).toBeGreaterThan(0);
      expect(watch.inserts("operation_log")).toBeLessThan(n / 10);
    } finally {
      watch.stop();
    }
    expect(await rowsOf("operation_log", "target", "/batch-")).toBe(n);
  });

  it("fails no action when the database refuses the log's rows, and writes again once it takes them", async () => {
    const warnings: string[] = [];
    t.engine.services.recorder.setLog({ warn: (_obj, msg) => warnings.push(msg) });
    await t.engine.services.recorder.flush();
    // A real failure: the log tables are gone while the actions run.
    await kysely().schema.alterTable("operation_log").renameTo("operation_log_away").execute();
    await kysely().schema.alterTable("transfer_log").renameTo("transfer_log_away").execute();
    try {
      for (let i = 0; i < 5; i++) expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: `lost-${i}` })).code).toBe(200);
      expect((await files.cmd("rename", { groupId: 0, path: "/lost-0", newName: "lost-renamed" })).code).toBe(200);
      const { url } = await files.ok("download", { groupId: 0, paths: ["/big.bin"] });
      const res = await fetch(t.fileUrl + url);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(300_000);
      // The download's row is queued when its response closes, just after the client has the bytes.
      await vi.waitFor(async () => {
        await t.engine.services.recorder.flush();
        expect(warnings).toContain("writing the logs failed");
      });
      expect(warnings.length).toBeGreaterThan(0);
    } finally {
      await kysely().schema.alterTable("operation_log_away").renameTo("operation_log").execute();
      await kysely().schema.alterTable("transfer_log_away").renameTo("transfer_log").execute();
    }
    // The actions happened.
    expect((await stat(path.join(home, "lost-renamed"))).isDirectory()).toBe(true);
    expect((await stat(path.join(home, "lost-4"))).isDirectory()).toBe(true);
    // The failed batch's rows are lost (and said so); the next actions are written again.
    await t.engine.services.recorder.flush();
    expect(await rowsOf("operation_log", "target", "/lost-")).toBe(0);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "after-1" });
    const { url } = await files.ok("download", { groupId: 0, paths: ["/big.bin"] });
    expect((await (await fetch(t.fileUrl + url)).arrayBuffer()).byteLength).toBe(300_000);
    await vi.waitFor(async () => {
      await t.engine.services.recorder.flush();
      expect(await rowsOf("operation_log", "target", "/after-")).toBe(1);
      expect(await rowsOf("transfer_log", "path", "/big.bin")).toBe(1);
    });
    expect(t.engine.services.recorder.dropped).toBe(0);
  });
});

describe("FERRY_BENCH_LOGS_OFF (bench only)", () => {
  it("writes no operation or transfer row at all", async () => {
    const off = await startTestEngine({ FERRY_BENCH_LOGS_OFF: "1" });
    try {
      const u = await off.createUser("quiet_user", { permission: PERMISSION_FULL });
      await writeTree(path.join(off.dataDir, "storage", "users", "quiet_user"), { "f.bin": randomBytes(1000) });
      const client = await connectFiles(off.fileUrl, u.socketToken);
      try {
        await client.ok("mkdir", { groupId: 0, path: "/", name: "quiet" });
        const { url } = await client.ok("download", { groupId: 0, paths: ["/f.bin"] });
        expect((await (await fetch(off.fileUrl + url)).arrayBuffer()).byteLength).toBe(1000);
      } finally {
        await client.close();
      }
      await off.engine.services.recorder.flush();
      const db = off.engine.services.db.kysely;
      expect(await db.selectFrom("operation_log").select("id").execute()).toEqual([]);
      expect(await db.selectFrom("transfer_log").select("id").execute()).toEqual([]);
    } finally {
      await off.stop();
    }
  });
});
