import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../server/config";
import { type Engine, startEngine } from "../../server/engine";
import { syncDb } from "../../server/sync/schema";
import { syncOf } from "../../server/sync/wiring";
import { SALT, startTestEngine, type TestEngine } from "../support/engine";
import { S3RVER_KEYS, startS3rver, type S3Server } from "../support/s3";

/*
 * Sync tasks (issue 17, docs/sync.md) against the real engine: tasks made and run through the
 * administrator API, files on the built-in local storage (storage 1, the engine's storage root)
 * and, for local → S3, on an s3rver bucket added as a storage.
 */

let t: TestEngine;
let admin: string;
let root: string;
let s3: S3Server;
beforeAll(async () => {
  [t, s3] = await Promise.all([startTestEngine(), startS3rver("sync")]);
  admin = await t.adminToken();
  root = path.join(t.dataDir, "storage");
});
afterAll(async () => {
  await t?.stop();
  await s3?.stop();
});

/** Adds a storage on the s3rver bucket (or on a dead endpoint) through the administrator API; its id. */
async function addS3Storage(name: string, endpoint = s3.endpoint): Promise<number> {
  const reply = await t.call("POST", "/api/admin/storages", {
    token: admin,
    body: { name, provider: "s3compatible", endpoint, bucket: s3.bucket, region: "us-east-1", path: "", ...S3RVER_KEYS },
  });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.id as number;
}

const RUNNING = ["in_queue", "activated", "stopping"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Files below `dir` as { "/a.txt": "content" } (the staging area left out). */
async function tree(dir: string, rel = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let names: string[];
  try {
    names = await readdir(path.join(dir, rel));
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === ".ferry-tmp") continue;
    const p = path.join(dir, rel, name);
    if ((await stat(p)).isDirectory()) Object.assign(out, await tree(dir, `${rel}/${name}`));
    else out[`${rel}/${name}`] = await readFile(p, "utf8");
  }
  return out;
}

/** Writes files (path → content, or [content, mtime seconds]) below `dir`. */
async function put(dir: string, files: Record<string, string | [string, number]>) {
  for (const [rel, value] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    const [content, mtime] = typeof value === "string" ? [value, undefined] : value;
    await writeFile(file, content);
    if (mtime !== undefined) await utimes(file, mtime, mtime);
  }
}

let counter = 0;
/** A task between two fresh folders of the built-in storage; the folders' absolute paths with it. */
async function makeTask(body: Record<string, unknown> = {}) {
  const name = `task-${++counter}`;
  const src = `/sync/${name}/src`;
  const dst = `/sync/${name}/dst`;
  await mkdir(path.join(root, src), { recursive: true });
  const reply = await t.call("POST", "/api/admin/sync-tasks", {
    token: admin,
    body: { name, source: { storageId: 1, path: src }, target: { storageId: 1, path: dst }, frequency: { kind: "manual" }, ...body },
  });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return { id: reply.body.data.id as number, task: reply.body.data, src: path.join(root, src), dst: path.join(root, dst) };
}

async function getTask(id: number) {
  const reply = await t.call("GET", `/api/admin/sync-tasks/${id}`, { token: admin });
  expect(reply.body.code).toBe(200);
  return reply.body.data;
}

/** Waits until the task's run has ended; the task as it is then. */
async function settled(id: number, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(id);
    if (!RUNNING.includes(task.status) && task.lastRun !== null && task.lastRun.endedAt !== null) return task;
    if (Date.now() > until) throw new Error(`task ${id} still ${task.status}`);
    await sleep(50);
  }
}

async function run(id: number) {
  const reply = await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return settled(id);
}

describe("sync tasks: the administrator API", () => {
  it("creates, lists, edits and deletes tasks; a manual task is not set, a scheduled one idle until it runs", async () => {
    const manual = await makeTask();
    expect(manual.task).toMatchObject({ status: "not_set", nextRunAt: null, lastRun: null, updateMode: "overwrite", options: { keepMtime: false, twoWay: false }, filters: "", skipOverSize: 0 });
    const scheduled = await makeTask({ frequency: { kind: "interval", every: 5, unit: "minutes" } });
    expect(scheduled.task.status).toBe("idle");
    expect(scheduled.task.nextRunAt).toBe(t.clock.now() + 5 * 60_000);

    const list = await t.call("GET", `/api/admin/sync-tasks?search=${manual.task.name}&pageSize=5`, { token: admin });
    expect(list.body.data.list.map((x: { id: number }) => x.id)).toEqual([manual.id]);
    expect(list.body.data.total).toBe(1);

    const edited = await t.call("PATCH", `/api/admin/sync-tasks/${manual.id}`, { token: admin, body: { name: "Renamed", updateMode: "append", options: { keepMtime: true }, filters: " *.tmp ;; cache " } });
    expect(edited.body.data).toMatchObject({ name: "Renamed", updateMode: "append", options: { keepMtime: true, onlyTopLevel: false }, filters: "*.tmp;cache" });
    // A task that never ran follows its frequency: given a schedule it waits for it, made manual again it is not set.
    const daily = await t.call("PATCH", `/api/admin/sync-tasks/${manual.id}`, { token: admin, body: { frequency: { kind: "daily", at: "03:30" } } });
    expect(daily.body.data).toMatchObject({ status: "idle", frequency: { kind: "daily", at: "03:30" } });
    expect(daily.body.data.nextRunAt).toBeGreaterThan(t.clock.now());
    const back = await t.call("PATCH", `/api/admin/sync-tasks/${manual.id}`, { token: admin, body: { frequency: { kind: "manual" } } });
    expect(back.body.data).toMatchObject({ status: "not_set", nextRunAt: null });

    expect((await t.call("DELETE", `/api/admin/sync-tasks/${manual.id}`, { token: admin })).body.code).toBe(200);
    expect((await t.call("GET", `/api/admin/sync-tasks/${manual.id}`, { token: admin })).body.code).toBe(4680);
    expect((await t.call("GET", "/api/admin/sync-tasks", {})).body.code).toBe(1009);
  });

  it("refuses a duplicate name, overlapping folders, a path out of its storage, an unknown storage and two-way with delete source", async () => {
    const first = await makeTask();
    const base = { source: { storageId: 1, path: "/sync/x/src" }, target: { storageId: 1, path: "/sync/x/dst" }, frequency: { kind: "manual" } };
    const create = (body: Record<string, unknown>) => t.call("POST", "/api/admin/sync-tasks", { token: admin, body: { name: "other", ...base, ...body } });
    expect((await create({ name: first.task.name.toUpperCase() })).body.code).toBe(4681);
    expect((await create({ target: { storageId: 1, path: "/sync/x/src/inner" } })).body.code).toBe(4683);
    expect((await create({ target: { storageId: 1, path: "/sync/x/src" } })).body.code).toBe(4683);
    expect((await create({ source: { storageId: 1, path: "/sync/../../etc" } })).body.code).toBe(1066);
    expect((await create({ target: { storageId: 999, path: "/x" } })).body.code).toBe(4004);
    expect((await create({ options: { twoWay: true, deleteSourceAfterSync: true } })).body.code).toBe(4684);
    expect((await create({ frequency: { kind: "interval", every: 5, unit: "seconds" } })).body.code).toBe(400);
    expect((await create({ frequency: { kind: "daily", at: "24:00" } })).body.code).toBe(400);
  });
});

describe("sync tasks: each option", () => {
  it("copies a tree, records the run, and a second run copies nothing (idempotent)", async () => {
    const { id, src, dst } = await makeTask();
    await put(src, { "/a.txt": "alpha", "/docs/b.txt": "bravo", "/docs/deep/c.txt": "charlie" });
    const task = await run(id);
    expect(task.status).toBe("succeed");
    expect(task.lastRun).toMatchObject({ status: "succeed", trigger: "manual", filesCopied: 3, filesDeleted: 0, filesSkipped: 0, bytes: 17, errorCode: 0 });
    expect(await tree(dst)).toEqual({ "/a.txt": "alpha", "/docs/b.txt": "bravo", "/docs/deep/c.txt": "charlie" });
    const again = await run(id);
    expect(again.lastRun).toMatchObject({ status: "succeed", filesCopied: 0, bytes: 0 });
    const runs = await t.call("GET", `/api/admin/sync-tasks/${id}/runs?pageSize=1`, { token: admin });
    expect(runs.body.data.total).toBe(2);
    expect(runs.body.data.list).toHaveLength(1);
    expect(runs.body.data.list[0].id).toBe(again.lastRun.id);
  });

  it("overwrite replaces a changed target file; append only copies what the target lacks", async () => {
    const over = await makeTask({ updateMode: "overwrite" });
    await put(over.src, { "/a.txt": ["new content", 2_000_000_000], "/b.txt": "bravo" });
    await put(over.dst, { "/a.txt": ["old", 1_000_000_000] });
    expect((await run(over.id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 2, filesSkipped: 0 });
    expect(await tree(over.dst)).toEqual({ "/a.txt": "new content", "/b.txt": "bravo" });

    const append = await makeTask({ updateMode: "append" });
    await put(append.src, { "/a.txt": ["new content", 2_000_000_000], "/b.txt": "bravo" });
    await put(append.dst, { "/a.txt": ["old", 1_000_000_000] });
    expect((await run(append.id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 1, filesSkipped: 1 });
    expect(await tree(append.dst)).toEqual({ "/a.txt": "old", "/b.txt": "bravo" });
    // A source file changed later is not brought over either: the target has it.
    await put(append.src, { "/b.txt": ["bravo 2", 2_000_000_100] });
    expect((await run(append.id)).lastRun).toMatchObject({ filesCopied: 0, filesSkipped: 2 });
    expect((await tree(append.dst))["/b.txt"]).toBe("bravo");
  });

  it("keep modified time gives the target the source's time; without it the target has the time of the copy", async () => {
    const keep = await makeTask({ options: { keepMtime: true } });
    await put(keep.src, { "/old.txt": ["from 2020", 1_600_000_000] });
    await run(keep.id);
    expect(Math.floor((await stat(path.join(keep.dst, "old.txt"))).mtimeMs / 1000)).toBe(1_600_000_000);

    const plain = await makeTask();
    await put(plain.src, { "/old.txt": ["from 2020", 1_600_000_000] });
    await run(plain.id);
    expect((await stat(path.join(plain.dst, "old.txt"))).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    // The state remembers what was synced: unchanged, so the next run copies nothing, though the times differ.
    expect((await run(plain.id)).lastRun.filesCopied).toBe(0);
    // A change at the target is seen (size or time differs from the record) and put right.
    await put(plain.dst, { "/old.txt": "tampered" });
    expect((await run(plain.id)).lastRun.filesCopied).toBe(1);
    expect((await tree(plain.dst))["/old.txt"]).toBe("from 2020");
  });

  it("only source directory files leaves subfolders out", async () => {
    const { id, src, dst } = await makeTask({ options: { onlyTopLevel: true } });
    await put(src, { "/top.txt": "top", "/sub/deep.txt": "deep" });
    expect((await run(id)).lastRun.filesCopied).toBe(1);
    expect(await tree(dst)).toEqual({ "/top.txt": "top" });
    await expect(stat(path.join(dst, "sub"))).rejects.toThrow();
  });

  it("delete target when source deleted: only files an earlier run synced, never on the first run, never the target's own", async () => {
    const { id, src, dst } = await makeTask({ options: { deleteTargetWhenSourceDeleted: true } });
    await put(src, { "/a.txt": "alpha", "/b.txt": "bravo" });
    await put(dst, { "/own.txt": "the target's own" });
    // First run: nothing to delete, the target's own file stays.
    expect((await run(id)).lastRun).toMatchObject({ filesCopied: 2, filesDeleted: 0 });
    await rm(path.join(src, "a.txt"));
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 0, filesDeleted: 1 });
    expect(await tree(dst)).toEqual({ "/b.txt": "bravo", "/own.txt": "the target's own" });

    // Without the option the target keeps a file gone from the source.
    const keep = await makeTask();
    await put(keep.src, { "/a.txt": "alpha" });
    await run(keep.id);
    await rm(path.join(keep.src, "a.txt"));
    expect((await run(keep.id)).lastRun.filesDeleted).toBe(0);
    expect(await tree(keep.dst)).toEqual({ "/a.txt": "alpha" });
  });

  it("delete source after sync removes each source file once it is at the target", async () => {
    const { id, src, dst } = await makeTask({ options: { deleteSourceAfterSync: true } });
    await put(src, { "/a.txt": "alpha", "/docs/b.txt": "bravo" });
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 2 });
    expect(await tree(dst)).toEqual({ "/a.txt": "alpha", "/docs/b.txt": "bravo" });
    expect(await tree(src)).toEqual({});
  });

  it("two-way: new files both ways, no deletion on the first run, deletions propagate later, the newer file wins a conflict", async () => {
    const { id, src, dst } = await makeTask({ options: { twoWay: true, deleteTargetWhenSourceDeleted: true } });
    await put(src, { "/from-src.txt": "s", "/both.txt": ["same", 1_700_000_000], "/docs/c.txt": ["c0", 1_700_000_000] });
    await put(dst, { "/from-dst.txt": "d", "/both.txt": ["same", 1_700_000_000] });
    // First run: each side's own file goes to the other; nothing is deleted.
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 3, filesDeleted: 0 });
    const all = { "/from-src.txt": "s", "/from-dst.txt": "d", "/both.txt": "same", "/docs/c.txt": "c0" };
    expect(await tree(src)).toEqual(all);
    expect(await tree(dst)).toEqual(all);

    // Deleted at the target: deleted at the source too. Changed on both sides: the newer wins.
    await rm(path.join(dst, "from-src.txt"));
    await put(src, { "/docs/c.txt": ["source, older", 1_700_000_100] });
    await put(dst, { "/docs/c.txt": ["target, newer", 1_700_000_200] });
    await put(src, { "/both.txt": ["changed at the source", 1_700_000_300] });
    const second = await run(id);
    expect(second.lastRun).toMatchObject({ status: "succeed", filesDeleted: 1, filesCopied: 2 });
    const now = { "/from-dst.txt": "d", "/both.txt": "changed at the source", "/docs/c.txt": "target, newer" };
    expect(await tree(src)).toEqual(now);
    expect(await tree(dst)).toEqual(now);

    // Without the delete option a file deleted on one side comes back from the other.
    const plain = await makeTask({ options: { twoWay: true } });
    await put(plain.src, { "/a.txt": "alpha" });
    await run(plain.id);
    await rm(path.join(plain.dst, "a.txt"));
    expect((await run(plain.id)).lastRun).toMatchObject({ filesCopied: 1, filesDeleted: 0 });
    expect(await tree(plain.dst)).toEqual({ "/a.txt": "alpha" });
  });

  it("filters and the size limit skip files (and filtered folders), counted as skipped", async () => {
    const { id, src, dst } = await makeTask({ filters: "*.tmp;cache;/docs/private*", skipOverSize: 10 });
    await put(src, { "/keep.txt": "keep", "/x.tmp": "tmp", "/cache/a.txt": "cached", "/docs/private.txt": "p", "/docs/ok.txt": "ok", "/big.bin": "0123456789ABC" });
    const task = await run(id);
    expect(task.lastRun).toMatchObject({ status: "succeed", filesCopied: 2, filesSkipped: 3 });
    expect(await tree(dst)).toEqual({ "/keep.txt": "keep", "/docs/ok.txt": "ok" });
  });
});

describe("sync tasks: schedule, stop, restart, failures", () => {
  it("an interval task runs when its time comes on the engine's clock, and is planned again", async () => {
    const { id, src, dst } = await makeTask({ frequency: { kind: "interval", every: 10, unit: "seconds" } });
    await put(src, { "/a.txt": "alpha" });
    await sleep(1500);
    expect((await getTask(id)).lastRun).toBeNull();
    t.clock.advance(10_001);
    const until = Date.now() + 10_000;
    let task = await getTask(id);
    while (!task.lastRun || task.lastRun.endedAt === null) {
      if (Date.now() > until) throw new Error("the schedule did not fire");
      await sleep(100);
      task = await getTask(id);
    }
    expect(task.lastRun).toMatchObject({ trigger: "schedule", status: "succeed", filesCopied: 1 });
    expect(task.nextRunAt).toBeGreaterThan(t.clock.now());
    expect(await tree(dst)).toEqual({ "/a.txt": "alpha" });
  });

  it("a once task runs once at its time", async () => {
    const at = Math.floor(t.clock.now() / 1000) + 3600;
    const { id, src } = await makeTask({ frequency: { kind: "once", at } });
    await put(src, { "/a.txt": "alpha" });
    expect((await getTask(id)).nextRunAt).toBe(at * 1000);
    t.clock.advance(3601_000);
    admin = await t.adminToken();
    const until = Date.now() + 10_000;
    let task = await getTask(id);
    while (!task.lastRun || task.lastRun.endedAt === null) {
      if (Date.now() > until) throw new Error("the schedule did not fire");
      await sleep(100);
      task = await getTask(id);
    }
    expect(task).toMatchObject({ status: "succeed", nextRunAt: null });
    t.clock.advance(3601_000);
    admin = await t.adminToken();
    await sleep(1500);
    expect((await t.call("GET", `/api/admin/sync-tasks/${id}/runs`, { token: admin })).body.data.total).toBe(1);
  });

  it("a daily task runs once when its time of day comes on the engine's clock (in FERRY_TIME_ZONE), and not again until the next day", async () => {
    // An engine of its own: its clock and its time zone (UTC+8, no DST) are this test's alone.
    const z = await startTestEngine({ FERRY_TIME_ZONE: "Asia/Shanghai" });
    onTestFinished(() => z.stop());
    const sync = syncOf(z.engine.services);
    const DAY = 24 * 3_600_000;
    // Two hours ahead on the minute: a time of day that has not come yet today (or tomorrow's, past midnight).
    const due = Math.floor((z.clock.now() + 2 * 3_600_000) / 60_000) * 60_000;
    const at = new Intl.DateTimeFormat("en-GB", { timeZone: "Asia/Shanghai", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(due);
    const moveTo = (instant: number) => z.clock.advance(instant - z.clock.now());
    const zRoot = path.join(z.dataDir, "storage");
    await mkdir(path.join(zRoot, "daily/src"), { recursive: true });
    const created = await z.call("POST", "/api/admin/sync-tasks", {
      token: await z.adminToken(),
      body: { name: "daily", source: { storageId: 1, path: "/daily/src" }, target: { storageId: 1, path: "/daily/dst" }, frequency: { kind: "daily", at } },
    });
    expect(created.body.code, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as number;
    expect(created.body.data).toMatchObject({ status: "idle", nextRunAt: due, frequency: { kind: "daily", at } });
    await put(path.join(zRoot, "daily/src"), { "/a.txt": "alpha" });

    const runsOf = async () => (await z.call("GET", `/api/admin/sync-tasks/${id}/runs`, { token: await z.adminToken() })).body.data;
    /** Waits until the task has `n` runs, the newest ended; the task then. */
    const ranTimes = async (n: number) => {
      const until = Date.now() + 15_000;
      for (;;) {
        const task = (await z.call("GET", `/api/admin/sync-tasks/${id}`, { token: await z.adminToken() })).body.data;
        if ((await runsOf()).total === n && task.lastRun?.endedAt != null && !RUNNING.includes(task.status)) return task;
        if (Date.now() > until) throw new Error(`no run ${n}: ${JSON.stringify(task)}`);
        await sleep(50);
      }
    };

    // A second before its time: the scheduler does nothing.
    moveTo(due - 1000);
    await sync.tick();
    expect((await runsOf()).total).toBe(0);
    expect((await z.call("GET", `/api/admin/sync-tasks/${id}`, { token: await z.adminToken() })).body.data).toMatchObject({ lastRun: null, nextRunAt: due });

    // Its time: one run by the schedule, and the next is the same time tomorrow.
    moveTo(due);
    await sync.tick();
    let task = await ranTimes(1);
    expect(task.lastRun).toMatchObject({ trigger: "schedule", status: "succeed", filesCopied: 1 });
    expect(task.nextRunAt).toBe(due + DAY);
    expect(await tree(path.join(zRoot, "daily/dst"))).toEqual({ "/a.txt": "alpha" });

    // The rest of the day, up to a second before tomorrow's time: no other run.
    await put(path.join(zRoot, "daily/src"), { "/b.txt": "bravo" });
    for (const later of [due + 1000, due + 60_000, due + 12 * 3_600_000, due + DAY - 1000]) {
      moveTo(later);
      await sync.tick();
      await sync.tick();
    }
    expect((await runsOf()).total).toBe(1);
    expect((await z.call("GET", `/api/admin/sync-tasks/${id}`, { token: await z.adminToken() })).body.data.nextRunAt).toBe(due + DAY);
    expect(await tree(path.join(zRoot, "daily/dst"))).toEqual({ "/a.txt": "alpha" });

    // The next day at that time: the second run, and the day after planned.
    moveTo(due + DAY);
    await sync.tick();
    task = await ranTimes(2);
    expect(task.lastRun).toMatchObject({ trigger: "schedule", status: "succeed", filesCopied: 1 });
    expect(task.nextRunAt).toBe(due + 2 * DAY);
    expect(await tree(path.join(zRoot, "daily/dst"))).toEqual({ "/a.txt": "alpha", "/b.txt": "bravo" });
  });

  /** A source big enough that a run takes a while: `n` files of 64 KiB in 10 folders. */
  async function bigSource(src: string, n: number) {
    const chunk = "x".repeat(64 * 1024);
    for (let f = 0; f < 10; f++) {
      await mkdir(path.join(src, `f${f}`), { recursive: true });
      await Promise.all(Array.from({ length: n / 10 }, (_, i) => writeFile(path.join(src, `f${f}`, `file-${i}.bin`), chunk)));
    }
  }

  /** Every file at the target is whole (no partial file at a final path); how many there are. */
  async function wholeFiles(dst: string): Promise<number> {
    const files = await tree(dst);
    for (const [p, content] of Object.entries(files)) expect(content.length, p).toBe(64 * 1024);
    return Object.keys(files).length;
  }

  it("stop cancels a running sync promptly: stopping, then stopped; no partial file; run again finishes", async () => {
    const { id, src, dst } = await makeTask();
    await bigSource(src, 500);
    expect((await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin })).body.code).toBe(200);
    // Only one run at a time.
    expect((await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin })).body.code).toBe(4682);
    expect((await t.call("DELETE", `/api/admin/sync-tasks/${id}`, { token: admin })).body.code).toBe(4682);
    let task = await getTask(id);
    while (!task.progress || task.progress.filesCopied < 5) {
      expect(task.status).toMatch(/in_queue|activated/);
      await sleep(20);
      task = await getTask(id);
    }
    const stopped = await t.call("POST", `/api/admin/sync-tasks/${id}/stop`, { token: admin });
    expect(["stopping", "stopped"]).toContain(stopped.body.data.status);
    task = await settled(id, 5000);
    expect(task.status).toBe("stopped");
    expect(task.lastRun.status).toBe("stopped");
    expect(task.lastRun.filesCopied).toBeLessThan(500);
    const copied = await wholeFiles(dst);
    expect(copied).toBe(task.lastRun.filesCopied);
    expect((await readdir(path.join(dst, ".ferry-tmp")).catch(() => [])).length).toBe(0);

    const again = await run(id);
    expect(again.lastRun).toMatchObject({ status: "succeed", filesCopied: 500 - copied });
    expect(await wholeFiles(dst)).toBe(500);
  });

  it("a run cut short by an engine stop is stopped by server after the restart", async () => {
    const { id, src, dst } = await makeTask();
    await bigSource(src, 500);
    await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin });
    let task = await getTask(id);
    while (!task.progress || task.progress.filesCopied < 5) {
      await sleep(20);
      task = await getTask(id);
    }
    await t.restart();
    admin = await t.adminToken();
    task = await getTask(id);
    expect(task.status).toBe("stopped_by_server");
    expect(task.lastRun).toMatchObject({ status: "stopped_by_server" });
    expect(task.lastRun.endedAt).not.toBeNull();
    const copied = await wholeFiles(dst);
    expect(copied).toBe(task.lastRun.filesCopied);
    expect(copied).toBeGreaterThanOrEqual(5);
    expect(copied).toBeLessThan(500);
    expect((await run(id)).lastRun.status).toBe("succeed");
    expect(await wholeFiles(dst)).toBe(500);
  });

  it("local to S3: a tree reaches the bucket through the storage's driver; a second run copies nothing; a deletion follows", async () => {
    const bucket = await addS3Storage("Bucket");
    const { id, src } = await makeTask({ target: { storageId: bucket, path: "/backup" }, options: { deleteTargetWhenSourceDeleted: true, keepMtime: true } });
    await put(src, { "/a.txt": ["alpha", 1_600_000_000], "/docs/b.txt": "bravo", "/docs/deep/c.bin": "x".repeat(100_000) });
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 3, bytes: 100_010 });
    const objects = async () => {
      const names = (await readdir(path.join(s3.directory, s3.bucket), { recursive: true })).filter((n) => n.endsWith("._S3rver_object")).map((n) => n.replace(/\._S3rver_object$/, ""));
      return names.filter((n) => !n.endsWith("/")).sort();
    };
    expect(await objects()).toEqual(expect.arrayContaining(["backup/a.txt", "backup/docs/b.txt", "backup/docs/deep/c.bin"]));
    // S3 cannot take the source's time: the state record keeps the run idempotent all the same.
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 0, bytes: 0 });
    await rm(path.join(src, "docs", "b.txt"));
    await put(src, { "/a.txt": ["alpha, changed", 1_600_000_100] });
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 1, filesDeleted: 1 });
    expect((await objects()).filter((n) => n.startsWith("backup/") && !n.endsWith("/"))).not.toContain("backup/docs/b.txt");
  });

  it("an unreachable target storage ends the run as connect failed (4152)", async () => {
    const dead = await addS3Storage("Dead", "http://127.0.0.1:9");
    const { id, src } = await makeTask({ target: { storageId: dead, path: "/x" } });
    await put(src, { "/a.txt": "alpha" });
    const task = await run(id);
    expect(task.status).toBe("connect_failed");
    expect(task.lastRun).toMatchObject({ status: "connect_failed", errorCode: 4152, filesCopied: 0 });
  });

  it("a missing source folder fails the run with 1043 (failed)", async () => {
    const { id, src } = await makeTask();
    await rm(src, { recursive: true });
    const task = await run(id);
    expect(task.status).toBe("failed");
    expect(task.lastRun).toMatchObject({ status: "failed", errorCode: 1043 });
  });
});

/** A local storage added through the administrator API at `dir`; its id. */
async function addLocalStorage(name: string, dir: string): Promise<number> {
  const reply = await t.call("POST", "/api/admin/storages", { token: admin, body: { name, provider: "local", path: dir } });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.id as number;
}

describe("sync tasks: review fixes", () => {
  it("a side that lists nothing while records exist fails the run (4154) and deletes nothing; forgetting the storage's state lets a run copy back", async () => {
    const two = await makeTask({ options: { twoWay: true, deleteTargetWhenSourceDeleted: true } });
    await put(two.src, { "/a.txt": "alpha", "/docs/b.txt": "bravo" });
    expect((await run(two.id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 2 });
    // The target's mount went empty: to a two-way run with deletions that looks as if every file was deleted there.
    await rm(two.dst, { recursive: true });
    await mkdir(two.dst);
    const failed = await run(two.id);
    expect(failed.status).toBe("server_connection_failed");
    expect(failed.lastRun).toMatchObject({ status: "server_connection_failed", errorCode: 4154, filesDeleted: 0, filesCopied: 0 });
    expect(await tree(two.src)).toEqual({ "/a.txt": "alpha", "/docs/b.txt": "bravo" });

    // One way: an empty source with records would empty the target.
    const one = await makeTask({ options: { deleteTargetWhenSourceDeleted: true } });
    await put(one.src, { "/a.txt": "alpha" });
    await run(one.id);
    await rm(path.join(one.src, "a.txt"));
    expect((await run(one.id)).lastRun).toMatchObject({ status: "server_connection_failed", errorCode: 4154, filesDeleted: 0 });
    expect(await tree(one.dst)).toEqual({ "/a.txt": "alpha" });

    // The storage admin forgets the records of the storage's tasks when its place changes: the next
    // run starts afresh (no deletion, the files go back to the empty side).
    const sync = syncOf(t.engine.services);
    expect(await sync.tasksUsing(1)).toBeGreaterThanOrEqual(2);
    expect(await sync.forgetStorageState(1)).toBeGreaterThanOrEqual(2);
    expect((await run(two.id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 2, filesDeleted: 0 });
    expect(await tree(two.dst)).toEqual({ "/a.txt": "alpha", "/docs/b.txt": "bravo" });
  });

  it("folders overlap across storages that reach one place (a local storage inside the built-in one): refused with 4683", async () => {
    await mkdir(path.join(root, "users", "alice"), { recursive: true });
    // The storage administration refuses a local storage inside the built-in one; a folder that
    // later becomes a link there (a remount) reaches the same place all the same.
    const outside = await mkdtemp(path.join(tmpdir(), "ferry-sync-place-"));
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    const place = path.join(outside, "users");
    const users = await addLocalStorage("Users", place);
    await rm(place, { recursive: true, force: true });
    await symlink(path.join(root, "users"), place);
    expect(await syncOf(t.engine.services).tasksUsing(users)).toBe(0);
    const create = (name: string, source: object, target: object) => t.call("POST", "/api/admin/sync-tasks", { token: admin, body: { name, source, target, frequency: { kind: "manual" } } });
    expect((await create("overlap-1", { storageId: 1, path: "/users/alice" }, { storageId: users, path: "/alice" })).body.code).toBe(4683);
    expect((await create("overlap-2", { storageId: 1, path: "/users" }, { storageId: users, path: "/alice/backup" })).body.code).toBe(4683);
    expect((await create("overlap-3", { storageId: users, path: "/" }, { storageId: 1, path: "/users/alice/x" })).body.code).toBe(4683);
    const apart = await create("apart", { storageId: 1, path: "/users/alice" }, { storageId: users, path: "/bob" });
    expect(apart.body.code, JSON.stringify(apart.body)).toBe(200);
    expect(await syncOf(t.engine.services).tasksUsing(users)).toBe(1);
    // An edit is checked the same way.
    expect((await t.call("PATCH", `/api/admin/sync-tasks/${apart.body.data.id}`, { token: admin, body: { target: { storageId: users, path: "/alice" } } })).body.code).toBe(4683);
  });

  it("delete source after sync: the same size and time at the target without a record is no proof; different bytes are copied before the source goes", async () => {
    const { id, src, dst } = await makeTask({ options: { deleteSourceAfterSync: true } });
    await put(src, { "/differs.txt": ["source bytes", 1_700_000_000], "/same.txt": ["same bytes", 1_700_000_000] });
    // Another file of the same size and time at the target: only its bytes differ.
    await put(dst, { "/differs.txt": ["target bytes", 1_700_000_000], "/same.txt": ["same bytes", 1_700_000_000] });
    expect((await run(id)).lastRun).toMatchObject({ status: "succeed", filesCopied: 1 });
    expect(await tree(dst)).toEqual({ "/differs.txt": "source bytes", "/same.txt": "same bytes" });
    expect(await tree(src)).toEqual({});
  });

  it("a once turn that comes while the task runs is kept until a run of it is queued", async () => {
    const at = Math.floor(t.clock.now() / 1000) + 3600;
    const { id, src } = await makeTask({ frequency: { kind: "once", at } });
    await bigSourceOf(src, 1000);
    expect((await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin })).body.code).toBe(200);
    let task = await getTask(id);
    while (!task.progress || task.progress.filesCopied < 5) {
      await sleep(20);
      task = await getTask(id);
    }
    t.clock.advance(3601_000);
    admin = await t.adminToken();
    await sleep(1500);
    task = await getTask(id);
    expect(task.status).toBe("activated");
    expect(task.nextRunAt).toBe(at * 1000);
    await t.call("POST", `/api/admin/sync-tasks/${id}/stop`, { token: admin });
    const until = Date.now() + 15_000;
    for (;;) {
      task = await getTask(id);
      if (task.lastRun?.trigger === "schedule" && task.lastRun.endedAt !== null) break;
      if (Date.now() > until) throw new Error(`the once turn was lost: ${JSON.stringify(task)}`);
      await sleep(100);
    }
    expect(task).toMatchObject({ status: "succeed", nextRunAt: null });
    expect((await t.call("GET", `/api/admin/sync-tasks/${id}/runs`, { token: admin })).body.data.total).toBe(2);
  });

  describe("several engines on one database", () => {
    let other: Engine;
    const callOther = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(other.apiUrl + p, { method, headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as { code: number; data: any };
    };
    afterAll(async () => {
      await other?.stop();
    });

    it("the second engine's start leaves the first's run alone, cannot run, edit or delete it, and its stop reaches it", async () => {
      const { id, src } = await makeTask();
      await bigSourceOf(src, 2000);
      expect((await t.call("POST", `/api/admin/sync-tasks/${id}/run`, { token: admin })).body.code).toBe(200);
      let task = await getTask(id);
      while (!task.progress || task.progress.filesCopied < 5) {
        await sleep(20);
        task = await getTask(id);
      }
      other = await startEngine(
        loadConfig({ FERRY_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, FERRY_HOST: "127.0.0.1", FERRY_API_PORT: "0", FERRY_FILE_PORT: "0", FERRY_HASHID_SALT: SALT, FERRY_LOG_LEVEL: "silent" }),
        t.clock,
      );
      task = await getTask(id);
      expect(task.status).toBe("activated");
      expect(task.lastRun).toMatchObject({ status: "activated", endedAt: null });
      expect((await callOther("POST", `/api/admin/sync-tasks/${id}/run`)).code).toBe(4682);
      expect((await callOther("PATCH", `/api/admin/sync-tasks/${id}`, { name: "renamed elsewhere" })).code).toBe(4682);
      expect((await callOther("DELETE", `/api/admin/sync-tasks/${id}`)).code).toBe(4682);
      const asked = await callOther("POST", `/api/admin/sync-tasks/${id}/stop`);
      expect(asked.data.status).toBe("stopping");
      task = await settled(id, 15_000);
      expect(task.status).toBe("stopped");
      expect(task.lastRun.status).toBe("stopped");
      expect(task.lastRun.filesCopied).toBeLessThan(2000);
    });

    it("a due turn runs once, on one of the engines", async () => {
      const { id, src, dst } = await makeTask({ frequency: { kind: "interval", every: 10, unit: "seconds" } });
      await put(src, { "/a.txt": "alpha" });
      t.clock.advance(10_001);
      const until = Date.now() + 10_000;
      let task = await getTask(id);
      while (!task.lastRun || task.lastRun.endedAt === null) {
        if (Date.now() > until) throw new Error("the schedule did not fire");
        await sleep(100);
        task = await getTask(id);
      }
      await sleep(2500);
      expect((await t.call("GET", `/api/admin/sync-tasks/${id}/runs`, { token: admin })).body.data.total).toBe(1);
      expect(await tree(dst)).toEqual({ "/a.txt": "alpha" });
    });

    it("a run of an engine that is gone (no heartbeat for a minute) is marked stopped by server; a live one is not", async () => {
      const k = syncDb(t.engine.services.db);
      const gone = await makeTask();
      const alive = await makeTask();
      const now = t.clock.now();
      for (const [task, heartbeat] of [
        [gone, now - 61_000],
        [alive, now],
      ] as const) {
        await k.insertInto("sync_runs").values({ task_id: task.id, started_at: now - 120_000, status: "activated", started_by: "manual", instance_id: `crashed-${task.id}`, updated_at: heartbeat }).execute();
        const run = await k.selectFrom("sync_runs").select("id").where("task_id", "=", task.id).executeTakeFirstOrThrow();
        await k.updateTable("sync_tasks").set({ status: "activated", last_run_id: run.id, updated_at: now - 120_000 }).where("id", "=", task.id).execute();
      }
      const until = Date.now() + 15_000;
      let task = await getTask(gone.id);
      while (task.status !== "stopped_by_server") {
        if (Date.now() > until) throw new Error(`not swept: ${JSON.stringify(task)}`);
        await sleep(200);
        task = await getTask(gone.id);
      }
      expect(task.lastRun).toMatchObject({ status: "stopped_by_server" });
      expect(task.lastRun.endedAt).not.toBeNull();
      expect((await getTask(alive.id)).status).toBe("activated");
      expect((await t.call("POST", `/api/admin/sync-tasks/${alive.id}/run`, { token: admin })).body.code).toBe(4682);
      // Runs again once swept.
      expect((await run(gone.id)).lastRun.status).toBe("succeed");
    });
  });
});

/** `n` files of 64 KiB in 10 folders below `src`. */
async function bigSourceOf(src: string, n: number) {
  const chunk = "x".repeat(64 * 1024);
  for (let f = 0; f < 10; f++) {
    await mkdir(path.join(src, `f${f}`), { recursive: true });
    await Promise.all(Array.from({ length: n / 10 }, (_, i) => writeFile(path.join(src, `f${f}`, `file-${i}.bin`), chunk)));
  }
}
