import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { EVENT_TYPES, type AdminEvent, type EventRun, type EventType } from "../../contract/events";
import { UPLOAD_BATCH } from "../../contract/files";
import { systemClock } from "../../server/clock";
import { openDatabase } from "../../server/db/connect";
import { createRunner, EVENT_OUTPUT_MAX, type RunOutcome, type RunSpec } from "../../server/events/runner";
import { eventsDb } from "../../server/events/schema";
import { createEvents } from "../../server/events/service";
import { createTestDatabase } from "../support/databases";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectVisitor, downloadShared, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { socketUsers, type SocketUser } from "../support/socket-users";
import { blake3Hex, tusClient } from "../support/tus-client";

/*
 * Issue 17, events (docs/events.md) against the real engine: each type fires exactly once per
 * occurrence through the real REST / socket / tus / batch / download paths; file names that try a
 * shell injection reach the executable as exactly one argument holding exactly their bytes, and
 * nothing else runs; executables outside the events directory (also through a link) are refused at
 * save and at run; the completion wait time kills the executable and its child; output is kept and
 * bounded; a deactivated event does not run.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
let binDir: string;
let outDir: string;
let outsideDir: string;
const users = socketUsers(() => t);
let alice: SocketUser;

/** A script of the events directory: node, with the shebang naming this node (the run's PATH is minimal). */
async function script(dir: string, name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!${process.execPath}\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** What the recording script wrote: one file per run, its argv and what it saw. */
interface Recorded {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

async function recorded(): Promise<Recorded[]> {
  const names = (await readdir(outDir)).filter((n) => n.endsWith(".json")).sort();
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(path.join(outDir, n), "utf8")) as Recorded));
}

async function clearRecorded() {
  for (const n of await readdir(outDir)) await rm(path.join(outDir, n), { force: true });
}

async function createEvent(body: Record<string, unknown>) {
  return t.call<AdminEvent>("POST", "/api/admin/events", { token: admin, body: { waitSeconds: 10, ...body } });
}

async function runsOf(id: number): Promise<EventRun[]> {
  const reply = await t.call<{ list: EventRun[]; total: number }>("GET", `/api/admin/events/${id}/runs?pageSize=100`, { token: admin });
  expect(reply.body.code).toBe(200);
  return reply.body.data!.list;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await sleep(50);
  }
}

beforeAll(async () => {
  const root = await mkdtemp(path.join(tmpdir(), "ferry-events-"));
  binDir = path.join(root, "bin");
  outDir = path.join(root, "out");
  outsideDir = path.join(root, "outside");
  await Promise.all([mkdir(binDir), mkdir(outDir), mkdir(outsideDir)]);
  // Records its argv exactly (JSON), the environment and the directory it ran in; says something on both streams.
  await script(
    binDir,
    "record.js",
    `const fs = require("fs");
fs.writeFileSync(${JSON.stringify(outDir)} + "/" + Date.now() + "-" + process.pid + "-" + Math.random().toString(36).slice(2) + ".json", JSON.stringify({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() }));
process.stdout.write("recorded " + process.argv.length + "\\n");
process.stderr.write("note on stderr\\n");`,
  );
  await script(binDir, "loud.js", `process.stdout.write("x".repeat(${EVENT_OUTPUT_MAX * 4})); process.stderr.write("e".repeat(${EVENT_OUTPUT_MAX * 2}));`);
  await script(binDir, "fails.js", `process.stderr.write("it went wrong\\n"); process.exit(3);`);
  // Starts a child that would live forever, writes both pids, then waits forever itself.
  await script(
    binDir,
    "hangs.js",
    `const { spawn } = require("child_process");
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
require("fs").writeFileSync(${JSON.stringify(outDir)} + "/pids.txt", process.pid + " " + child.pid);
setInterval(() => {}, 1000);`,
  );
  await script(binDir, "nul.js", `process.stdout.write("a\\0b\\n");`);
  // Exits at once, but leaves a grandchild in a session of its own (setsid: out of the run's process group) holding stdout and stderr open.
  await writeFile(path.join(binDir, "escapes.sh"), `#!/bin/sh\nsetsid sh -c 'echo $$ > ${outDir}/escaped.pid; exec sleep 60' &\necho started\n`);
  await chmod(path.join(binDir, "escapes.sh"), 0o755);
  await script(binDir, "slow.js", "setTimeout(() => {}, 1500);");
  await script(outsideDir, "evil.js", `require("fs").writeFileSync(${JSON.stringify(outDir)} + "/EVIL-RAN", "yes");`);
  await symlink(path.join(outsideDir, "evil.js"), path.join(binDir, "link-out.js"));
  // Not executable.
  await writeFile(path.join(binDir, "plain.txt"), "data");
  // A sentinel a `rm -rf x` would remove.
  await mkdir(path.join(binDir, "x"));

  t = await startTestEngine({ ...SHARE_ENV, FERRY_EVENT_BIN_DIR: binDir, FERRY_EVENT_CONCURRENCY: "2", FERRY_EVENT_QUEUE: "20" });
  admin = await t.adminToken();
  alice = await users.userWith("events_alice");
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

async function tusUpload(user: SocketUser, p: string, data: Buffer, hash?: string) {
  const created = await tusClient(t.fileUrl, user.socketToken).create({ groupId: "0", path: p }, data.length, data);
  expect(created.status).toBe(201);
  return user.files.cmd("commit", { uploadId: created.id!, hash: hash ?? (await blake3Hex(data)) });
}

async function batchUpload(user: SocketUser, files: { path: string; data: Buffer; hash?: string }[]) {
  const header = { files: await Promise.all(files.map(async (f) => ({ groupId: 0, path: f.path, size: f.data.length, overwrite: false, hash: f.hash ?? (await blake3Hex(f.data)) }))) };
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(json.length, 0);
  const res = await fetch(`${t.fileUrl}${UPLOAD_BATCH.path}`, { method: "POST", headers: { authorization: `Bearer ${user.socketToken}`, "content-type": "application/octet-stream" }, body: Buffer.concat([len, json, ...files.map((f) => f.data)]) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { files: { path: string; ok: boolean }[] } }).data.files;
}

describe("events: each type fires exactly once per occurrence", () => {
  const ids = new Map<EventType, number>();
  const seen = new Map<EventType, number>();

  /** Runs the action, then insists that exactly the `expected` runs (type → paths) were added and no other event ran. */
  async function fires(action: () => Promise<unknown>, expected: Partial<Record<EventType, string[]>>) {
    await action();
    const want = EVENT_TYPES.reduce((n, type) => n + (expected[type]?.length ?? 0), 0);
    const total = async () => (await Promise.all(EVENT_TYPES.map(async (type) => (await runsOf(ids.get(type)!)).length))).reduce((a, b) => a + b, 0);
    const before = [...seen.values()].reduce((a, b) => a + b, 0);
    await until(total, (n) => n >= before + want);
    // A repeat would come right after: wait a little more before counting.
    await sleep(400);
    for (const type of EVENT_TYPES) {
      const runs = await runsOf(ids.get(type)!);
      const fresh = runs.slice(0, runs.length - (seen.get(type) ?? 0));
      expect(fresh.map((r) => r.path).sort(), type).toEqual([...(expected[type] ?? [])].sort());
      for (const run of fresh) {
        expect(run.exitCode, `${type} ${run.error} ${run.stderr}`).toBe(0);
        expect(run.trigger).toBe(type);
        // {user}: the account whose space it was (a share visitor's: the link owner's).
        expect(run.user, type).toBe("events_alice");
        // The argv the executable got: [type, path, newPath, user, size].
        expect(run.stdout).toBe("recorded 7\n");
      }
      seen.set(type, runs.length);
    }
  }

  beforeAll(async () => {
    for (const type of EVENT_TYPES) {
      const made = await createEvent({ name: `on ${type}`, type, executable: path.join(binDir, "record.js"), commandLine: "{type} {path} {newPath} {user} {size}" });
      expect(made.body.code, JSON.stringify(made.body)).toBe(200);
      ids.set(type, made.body.data!.id);
      seen.set(type, 0);
    }
  });
  afterAll(async () => {
    for (const id of ids.values()) await t.call("DELETE", `/api/admin/events/${id}`, { token: admin });
  });

  it("uploads (tus + commit, batch, a share visitor's) and failed uploads", async () => {
    await clearRecorded();
    const data = Buffer.from("hello events");
    await fires(async () => expect((await tusUpload(alice, "/up.txt", data)).code).toBe(200), { uploaded: ["/up.txt"] });
    const args = (await recorded()).map((r) => r.argv);
    expect(args).toEqual([["uploaded", "/up.txt", "", "events_alice", String(data.length)]]);
    // A commit whose hash is not the bytes': refused, once.
    await fires(async () => expect((await tusUpload(alice, "/bad.txt", data, await blake3Hex(Buffer.from("other")))).code).toBe(ErrorCode.HashCheckError), { upload_failed: ["/bad.txt"] });
    // A batch: one placed, one refused (its name is taken).
    await fires(
      async () => {
        const results = await batchUpload(alice, [
          { path: "/batch-a.txt", data: Buffer.from("a") },
          { path: "/up.txt", data: Buffer.from("taken") },
        ]);
        expect(results.map((r) => r.ok)).toEqual([true, false]);
      },
      { uploaded: ["/batch-a.txt"], upload_failed: ["/up.txt"] },
    );
    // A visitor of an upload invitation: the owner's space, once.
    await alice.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    seen.set("created", seen.get("created")! + 1);
    const token = await shareTokenOf(t, await makeLink(t, alice.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in" }));
    await fires(async () => {
      const created = await tusClient(t.fileUrl, token).create({ groupId: "0", path: "/from-visitor.txt" }, data.length, data);
      expect(created.status).toBe(201);
      const visitor = users.keep(await connectVisitor(t.fileUrl, token));
      expect((await visitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).code).toBe(200);
    }, { uploaded: ["/inbox/from-visitor.txt"] });
  });

  it("downloads: whole, zip, a share visitor's, and one broken off", async () => {
    await fires(async () => {
      const { url } = await alice.files.ok("download", { groupId: 0, paths: ["/up.txt"] });
      expect(await (await fetch(t.fileUrl + url)).text()).toBe("hello events");
    }, { downloaded: ["/up.txt"] });
    await fires(async () => {
      const { url } = await alice.files.ok("download", { groupId: 0, paths: ["/up.txt", "/batch-a.txt"] });
      await (await fetch(t.fileUrl + url)).arrayBuffer();
    }, { downloaded: ["/up.txt", "/batch-a.txt"] });
    const link = await makeLink(t, alice.token, { shareFiles: ["/batch-a.txt"] });
    await fires(async () => expect((await downloadShared(t, await shareTokenOf(t, link), ["/batch-a.txt"])).code).toBe(200), { downloaded: ["/batch-a.txt"] });
    // A share of a subfolder: the visitor names "/inner/deep.txt"; the event has the owner's path and account.
    await writeTree(path.join(t.dataDir, "storage", "users", "events_alice"), { "sub/inner/deep.txt": "deep" });
    const sub = await makeLink(t, alice.token, { shareServerPath: "/sub", shareFiles: ["inner"] });
    await clearRecorded();
    await fires(async () => expect((await downloadShared(t, await shareTokenOf(t, sub), ["/inner/deep.txt"])).code).toBe(200), { downloaded: ["/sub/inner/deep.txt"] });
    expect((await recorded()).map((r) => r.argv)).toEqual([["downloaded", "/sub/inner/deep.txt", "", "events_alice", "4"]]);
    // A large file whose reader goes away after the first bytes.
    await writeTree(path.join(t.dataDir, "storage", "users", "events_alice"), { "big.bin": randomBytes(48 * 1024 * 1024) });
    await fires(async () => {
      const { url } = await alice.files.ok("download", { groupId: 0, paths: ["/big.bin"] });
      const controller = new AbortController();
      const res = await fetch(t.fileUrl + url, { signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => undefined);
    }, { download_failed: ["/big.bin"] });
  });

  it("mkdir, renames and deletes over the socket", async () => {
    await fires(() => alice.files.ok("mkdir", { groupId: 0, path: "/", name: "folder" }), { created: ["/folder"] });
    await fires(() => alice.files.ok("rename", { groupId: 0, path: "/folder", newName: "folder2" }), { folder_renamed: ["/folder"] });
    await fires(() => alice.files.ok("rename", { groupId: 0, path: "/batch-a.txt", newName: "batch-b.txt" }), { file_renamed: ["/batch-a.txt"] });
    const renamed = (await recorded()).map((r) => r.argv).filter((a) => a[0]!.endsWith("renamed"));
    expect(renamed).toContainEqual(["file_renamed", "/batch-a.txt", "/batch-b.txt", "events_alice", "1"]);
    expect(renamed).toContainEqual(["folder_renamed", "/folder", "/folder2", "events_alice", ""]);
    // A move to another folder is a rename ({path} old, {newPath} new); a copy is "created" for the new item.
    await clearRecorded();
    await fires(() => alice.files.ok("mkdir", { groupId: 0, path: "/", name: "dest" }), { created: ["/dest"] });
    await fires(() => alice.files.ok("move", { groupId: 0, paths: ["/batch-b.txt", "/folder2"], target: "/dest", overwrite: false }), { file_renamed: ["/batch-b.txt"], folder_renamed: ["/folder2"] });
    await fires(() => alice.files.ok("copy", { groupId: 0, paths: ["/dest/batch-b.txt", "/dest/folder2"], target: "/", overwrite: false }), { created: ["/batch-b.txt", "/folder2"] });
    const moved = (await recorded()).map((r) => r.argv);
    expect(moved).toContainEqual(["file_renamed", "/batch-b.txt", "/dest/batch-b.txt", "events_alice", "1"]);
    expect(moved).toContainEqual(["folder_renamed", "/folder2", "/dest/folder2", "events_alice", ""]);
    expect(moved).toContainEqual(["created", "/batch-b.txt", "", "events_alice", "1"]);
    expect(moved).toContainEqual(["created", "/folder2", "", "events_alice", ""]);
    await fires(() => alice.files.ok("remove", { groupId: 0, paths: ["/batch-b.txt", "/folder2", "/dest"] }), { file_deleted: ["/batch-b.txt"], folder_deleted: ["/folder2", "/dest"] });
    // A refused operation is no occurrence.
    await fires(async () => expect((await alice.files.cmd("remove", { groupId: 0, paths: ["/"] })).code).not.toBe(200), {});
  });
});

describe("events: file names are data, never code", () => {
  const NAMES = ["; rm -rf x", "$(touch pwned)", "`touch pwned2`", "it's 'quoted' & more", "-rf --help", "a  b\tc".replace("\t", " "), "{user} {path}", "$HOME && id", "x && touch pwned3"];

  it("each name reaches the executable as exactly one argument with exactly its bytes; nothing else runs", async () => {
    const made = await createEvent({ name: "injection", type: "created", executable: path.join(binDir, "record.js"), commandLine: "--name={path} '{path}' \"{user}\"" });
    expect(made.body.code).toBe(200);
    expect(made.body.data!.args).toEqual(["--name={path}", "{path}", "{user}"]);
    await clearRecorded();
    for (const name of NAMES) expect((await alice.files.cmd("mkdir", { groupId: 0, path: "/", name })).code, name).toBe(200);
    // A newline cannot be in a name: refused, and no run.
    expect((await alice.files.cmd("mkdir", { groupId: 0, path: "/", name: "line\nbreak" })).code).not.toBe(200);
    const got = await until(recorded, (r) => r.length >= NAMES.length);
    await sleep(400);
    expect((await recorded()).length).toBe(NAMES.length);
    expect(got.map((r) => r.argv).sort()).toEqual(NAMES.map((n) => [`--name=/${n}`, `/${n}`, "events_alice"]).sort());
    // No shell ran: nothing was touched or removed, no output file; the environment is the cleared one; the directory is the events directory.
    const left = await readdir(binDir);
    expect(left.filter((n) => /pwned/.test(n))).toEqual([]);
    expect(left).toContain("x");
    for (const r of got) {
      expect(Object.keys(r.env).sort()).toEqual(["LANG", "PATH"]);
      expect(r.cwd).toBe(await realpath(binDir));
    }
    await expect(stat(path.join(process.cwd(), "pwned"))).rejects.toThrow();
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });

  it("the runner passes a newline, quotes and a leading dash inside one argument", async () => {
    const outcomes: RunOutcome[] = [];
    const runner = createRunner({ binDir, concurrency: 1, maxQueued: 1, now: Date.now, record: async (_s, o) => void outcomes.push(o), warn: () => undefined });
    await clearRecorded();
    const nasty = "line1\nline2; rm -rf x \"q\" 'q' `id` $(id) -x";
    const outcome = await runner.run({ eventId: 0, executable: path.join(binDir, "record.js"), args: [nasty, "-"], waitSeconds: 10, trigger: "test", path: "", account: "" });
    expect(outcome.exitCode).toBe(0);
    expect((await recorded()).map((r) => r.argv)).toEqual([[nasty, "-"]]);
    expect(await readdir(binDir)).toContain("x");
  });
});

describe("events: the events directory", () => {
  it("refuses at save an executable outside it, a link leading out of it, a missing or non-executable file, a relative path", async () => {
    const cases: [string, number][] = [
      [path.join(outsideDir, "evil.js"), ErrorCode.EventExecutableRefused],
      [path.join(binDir, "link-out.js"), ErrorCode.EventExecutableRefused],
      [path.join(binDir, "..", "outside", "evil.js"), ErrorCode.EventExecutableRefused],
      [path.join(binDir, "missing.js"), ErrorCode.EventExecutableRefused],
      [path.join(binDir, "plain.txt"), ErrorCode.EventExecutableRefused],
      [binDir, ErrorCode.EventExecutableRefused],
      ["/bin/sh", ErrorCode.EventExecutableRefused],
    ];
    for (const [executable, code] of cases) {
      const reply = await createEvent({ name: `bad ${executable}`, type: "created", executable, commandLine: "{path}" });
      expect(reply.body.code, executable).toBe(code);
    }
    expect((await createEvent({ name: "relative", type: "created", executable: "record.js" })).body.code).toBe(ErrorCode.ParameterError);
    expect((await createEvent({ name: "bad op", type: "created", operation: "send_mail", executable: path.join(binDir, "record.js") })).body.code).toBe(ErrorCode.InvalidEventOperation);
    expect((await createEvent({ name: "bad line", type: "created", executable: path.join(binDir, "record.js"), commandLine: "'{path}" })).body.code).toBe(ErrorCode.EventCommandLineInvalid);
    expect((await createEvent({ name: "bad holder", type: "created", executable: path.join(binDir, "record.js"), commandLine: "{password}" })).body.code).toBe(ErrorCode.EventCommandLineInvalid);
    // NUL cannot be passed in an argument (spawn would throw); other control characters make no sense in a template.
    for (const commandLine of ["{path} a\u0000b", "'\u0000'", "x\u0001", "\u007f"]) {
      const reply = await createEvent({ name: `bad control ${commandLine.length}`, type: "created", executable: path.join(binDir, "record.js"), commandLine });
      expect(reply.body.code, JSON.stringify(commandLine)).toBe(ErrorCode.EventCommandLineInvalid);
    }
    const list = await t.call<{ total: number }>("GET", "/api/admin/events?search=bad", { token: admin });
    expect(list.body.data!.total).toBe(0);
  });

  it("refuses at run time an executable swapped for a link leading out after it was saved", async () => {
    const swapped = await script(binDir, "swapped.js", `require("fs").writeFileSync(${JSON.stringify(outDir)} + "/SWAPPED-RAN", "yes");`);
    const made = await createEvent({ name: "swapped", type: "created", executable: swapped, commandLine: "{path}" });
    expect(made.body.code).toBe(200);
    await rm(swapped);
    await symlink(path.join(outsideDir, "evil.js"), swapped);
    const test = await t.call<EventRun>("POST", `/api/admin/events/${made.body.data!.id}/test`, { token: admin });
    expect(test.body.code).toBe(ErrorCode.EventTestFailed);
    expect(test.body.data!.error).toMatch(/refused: the executable is outside the events directory/);
    await alice.files.ok("mkdir", { groupId: 0, path: "/", name: "swap-trigger" });
    const runs = await until(() => runsOf(made.body.data!.id), (r) => r.length >= 2);
    expect(runs.map((r) => r.error)).toEqual([expect.stringMatching(/^refused/), expect.stringMatching(/^refused/)]);
    expect(await readdir(outDir)).not.toContain("EVIL-RAN");
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });
});

describe("events: running", () => {
  it("a test run answers the exit code and output; a failing one 4144 with its output", async () => {
    const ok = await createEvent({ name: "test ok", type: "uploaded", executable: path.join(binDir, "record.js"), commandLine: "{path} {size}", status: "inactivated" });
    const run = await t.call<EventRun>("POST", `/api/admin/events/${ok.body.data!.id}/test`, { token: admin });
    expect(run.body.code).toBe(200);
    expect(run.body.data).toMatchObject({ exitCode: 0, trigger: "test", stdout: "recorded 4\n", stderr: "note on stderr\n", timedOut: false, error: "" });
    const bad = await createEvent({ name: "test fails", type: "uploaded", executable: path.join(binDir, "fails.js") });
    const failed = await t.call<EventRun>("POST", `/api/admin/events/${bad.body.data!.id}/test`, { token: admin });
    expect(failed.body.code).toBe(ErrorCode.EventTestFailed);
    expect(failed.body.data).toMatchObject({ exitCode: 3, stderr: "it went wrong\n" });
    expect((await runsOf(bad.body.data!.id))[0]).toMatchObject({ exitCode: 3, trigger: "test" });
    expect((await t.call("POST", "/api/admin/events/999999/test", { token: admin })).body.code).toBe(ErrorCode.EventIdMissing);
    for (const id of [ok.body.data!.id, bad.body.data!.id]) await t.call("DELETE", `/api/admin/events/${id}`, { token: admin });
  });

  it("the completion wait time stops the executable and the child it started", async () => {
    const made = await createEvent({ name: "hangs", type: "created", executable: path.join(binDir, "hangs.js"), waitSeconds: 1 });
    const started = Date.now();
    const test = await t.call<EventRun>("POST", `/api/admin/events/${made.body.data!.id}/test`, { token: admin });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(test.body.code).toBe(ErrorCode.EventTestFailed);
    expect(test.body.data).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM" });
    const [main, child] = (await readFile(path.join(outDir, "pids.txt"), "utf8")).split(" ").map(Number);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const gone = await until(async () => [alive(main!), alive(child!)], (a) => !a[0] && !a[1], 5000);
    expect(gone).toEqual([false, false]);
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });

  it("keeps the output bounded", async () => {
    const made = await createEvent({ name: "loud", type: "created", executable: path.join(binDir, "loud.js") });
    const test = await t.call<EventRun>("POST", `/api/admin/events/${made.body.data!.id}/test`, { token: admin });
    expect(test.body.code).toBe(200);
    expect(test.body.data!.stdout.startsWith("x".repeat(EVENT_OUTPUT_MAX))).toBe(true);
    expect(test.body.data!.stdout).toContain(`[${EVENT_OUTPUT_MAX * 3} more bytes not kept]`);
    expect(test.body.data!.stderr).toContain(`[${EVENT_OUTPUT_MAX} more bytes not kept]`);
    expect(test.body.data!.stdout.length).toBeLessThan(EVENT_OUTPUT_MAX + 100);
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });

  it("a deactivated event does not run; activated again it does; the name is unique; delete forgets it", async () => {
    const made = await createEvent({ name: "Toggle", type: "created", executable: path.join(binDir, "record.js"), commandLine: "{path}" });
    const id = made.body.data!.id;
    expect((await createEvent({ name: "toggle", type: "uploaded", executable: path.join(binDir, "record.js") })).body.code).toBe(ErrorCode.EventNameExists);
    const off = await t.call<AdminEvent>("PUT", `/api/admin/events/${id}/status`, { token: admin, body: { status: "inactivated" } });
    expect(off.body.data!.status).toBe("inactivated");
    await alice.files.ok("mkdir", { groupId: 0, path: "/", name: "while-off" });
    await sleep(800);
    expect(await runsOf(id)).toEqual([]);
    await t.call("PUT", `/api/admin/events/${id}/status`, { token: admin, body: { status: "activated" } });
    await alice.files.ok("mkdir", { groupId: 0, path: "/", name: "while-on" });
    const runs = await until(() => runsOf(id), (r) => r.length >= 1);
    expect(runs.map((r) => r.path)).toEqual(["/while-on"]);
    const edited = await t.call<AdminEvent>("PATCH", `/api/admin/events/${id}`, { token: admin, body: { remark: "note", commandLine: "a {path} b" } });
    expect(edited.body.data).toMatchObject({ remark: "note", args: ["a", "{path}", "b"], status: "activated" });
    expect((await t.call("DELETE", `/api/admin/events/${id}`, { token: admin })).body.code).toBe(200);
    expect((await t.call("GET", `/api/admin/events/${id}`, { token: admin })).body.code).toBe(ErrorCode.EventIdMissing);
    expect((await t.call("GET", `/api/admin/events/${id}/runs`, { token: admin })).body.code).toBe(ErrorCode.EventIdMissing);
    // Users are not administrators.
    expect((await t.call("GET", "/api/admin/events", { token: alice.token })).body.code).not.toBe(200);
  });

  it("output holding NUL is written (as U+2400) and a test run answers its own run's id", async () => {
    const made = await createEvent({ name: "nul output", type: "created", executable: path.join(binDir, "nul.js"), status: "inactivated" });
    expect(made.body.code).toBe(200);
    const test = await t.call<EventRun>("POST", `/api/admin/events/${made.body.data!.id}/test`, { token: admin });
    expect(test.body.code, JSON.stringify(test.body)).toBe(200);
    expect(test.body.data!.stdout).toBe("a\u2400b\n");
    const runs = await runsOf(made.body.data!.id);
    expect(runs.map((r) => [r.id, r.stdout])).toEqual([[test.body.data!.id, "a\u2400b\n"]]);
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });

  it("a full queue drops runs and says so; the file operation does not wait", async () => {
    const made = await createEvent({ name: "slow", type: "created", executable: path.join(binDir, "hangs.js"), waitSeconds: 2 });
    const started = Date.now();
    // 2 run (FERRY_EVENT_CONCURRENCY), 20 may wait (FERRY_EVENT_QUEUE): 40 mkdirs leave some dropped.
    for (let i = 0; i < 40; i++) await alice.files.ok("mkdir", { groupId: 0, path: "/", name: `q${i}` });
    expect(Date.now() - started).toBeLessThan(10_000);
    const runs = await until(() => runsOf(made.body.data!.id), (r) => r.some((x) => x.error.startsWith("dropped")));
    expect(runs.some((x) => x.error === "dropped: the event queue is full")).toBe(true);
    // Deactivated and deleted: what is queued is let go with the engine's stop.
    await t.call("DELETE", `/api/admin/events/${made.body.data!.id}`, { token: admin });
  });
});

describe("events: a run never hurts the engine", () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const spec = (over: Partial<RunSpec>): RunSpec => ({ eventId: 1, executable: path.join(binDir, "record.js"), args: [], waitSeconds: 10, trigger: "created", path: "/p", account: "a", ...over });
  const killEscaped = async () => {
    const pid = Number(await readFile(path.join(outDir, "escaped.pid"), "utf8").catch(() => "0"));
    if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
    await rm(path.join(outDir, "escaped.pid"), { force: true });
  };

  it("a NUL byte in an argument is a refused run, not a crash of the engine", async () => {
    const records: RunOutcome[] = [];
    const runner = createRunner({ binDir, concurrency: 1, maxQueued: 4, now: Date.now, record: async (_s, o) => void records.push(o), warn: () => undefined });
    await clearRecorded();
    // Fired (not awaited): before the fix the spawn error became an unhandled rejection, which ends Node 20.
    runner.enqueue(spec({ args: ["/a\u0000b"] }));
    runner.enqueue(spec({ args: ["after"] }));
    await until(async () => records.length, (n) => n >= 2);
    expect(records[0]).toMatchObject({ exitCode: null, error: "refused: an argument holds a NUL byte" });
    expect(records[1]).toMatchObject({ exitCode: 0, error: "" });
    expect((await recorded()).map((r) => r.argv)).toEqual([["after"]]);
    expect(process.exitCode ?? 0).toBe(0);
  });

  it("a grandchild that left the process group holding the output pipes does not hold the slot or the stop", async () => {
    const records: RunOutcome[] = [];
    const runner = createRunner({ binDir, concurrency: 1, maxQueued: 4, killGraceMs: 200, pipeGraceMs: 300, now: Date.now, record: async (_s, o) => void records.push(o), warn: () => undefined });
    try {
      const started = Date.now();
      runner.enqueue(spec({ executable: path.join(binDir, "escapes.sh"), waitSeconds: 1 }));
      // The only slot: this run waits for the first to end.
      runner.enqueue(spec({ args: ["next"] }));
      await until(async () => records.length, (n) => n >= 2, 10_000);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(records[0]).toMatchObject({ exitCode: 0, timedOut: true, stdout: "started\n" });
      expect(records[1]).toMatchObject({ exitCode: 0, error: "" });
      // The grandchild really kept the pipes (it is alive, out of reach of the group kill).
      const pid = Number(await readFile(path.join(outDir, "escaped.pid"), "utf8"));
      expect(alive(pid)).toBe(true);
      await killEscaped();

      // Engine shutdown while such a run goes on: stop() ends within its bound and the run is written.
      runner.enqueue(spec({ executable: path.join(binDir, "escapes.sh"), waitSeconds: 60 }));
      await until(() => readFile(path.join(outDir, "escaped.pid"), "utf8").catch(() => ""), (v) => v.length > 0, 5000);
      await sleep(200);
      const stopping = Date.now();
      await runner.stop();
      expect(Date.now() - stopping).toBeLessThan(3000);
      await until(async () => records.length, (n) => n >= 3, 3000);
      expect(records[2]).toMatchObject({ exitCode: 0, timedOut: false, error: "stopped: the engine is stopping" });
    } finally {
      await killEscaped();
    }
  });

  it("dropped runs of an event become one run log row per interval", async () => {
    const records: { spec: RunSpec; outcome: RunOutcome }[] = [];
    const runner = createRunner({ binDir, concurrency: 1, maxQueued: 0, dropIntervalMs: 500, now: Date.now, record: async (s, o) => void records.push({ spec: s, outcome: o }), warn: () => undefined });
    runner.enqueue(spec({ executable: path.join(binDir, "slow.js") }));
    for (let i = 0; i < 20; i++) runner.enqueue(spec({ path: `/d${i}` }));
    expect(runner.dropped).toBe(20);
    await sleep(100);
    expect(records.map((r) => r.outcome.error)).toEqual(["dropped: the event queue is full"]);
    await until(async () => records.length, (n) => n >= 3, 5000);
    await sleep(300);
    expect(records.map((r) => r.outcome.error).sort()).toEqual(["", "dropped: the event queue is full", "dropped: the event queue is full (19 runs)"]);
    await runner.stop();
  });

  it("a failed first read of the events is not kept: the next fire and a retry read again", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ferry-events-db-"));
    const database = await createTestDatabase(dir);
    const db = await openDatabase(database.url);
    const events = createEvents({ db, clock: systemClock, config: { events: { binDir, concurrency: 1, maxQueued: 4 } } });
    try {
      const now = Date.now();
      await eventsDb(db)
        .insertInto("events")
        .values({ name: "early", name_key: "early", type: "created", operation: "run_executable", active: 1, remark: "", executable: path.join(binDir, "record.js"), command_line: "{user} {path}", args: JSON.stringify(["{user}", "{path}"]), wait_seconds: 10, created_at: now, updated_at: now })
        .execute();
      await sql`alter table events rename to events_away`.execute(db.kysely);
      await expect(events.load()).rejects.toThrow();
      await sql`alter table events_away rename to events`.execute(db.kysely);
      // The retry (after a short pause) reads them: then an event type nothing listens to is known as such.
      await until(async () => events.wants("uploaded"), (w) => !w, 5000);
      expect(events.wants("uploaded")).toBe(false);
      expect(events.wants("created")).toBe(true);
      events.fire({ type: "created", userId: null, account: "early_user", path: "/fired" });
      const runs = await until(() => eventsDb(db).selectFrom("event_runs").selectAll().execute(), (r) => r.length >= 1, 10_000);
      expect(runs.map((r) => [r.path, r.account, Number(r.exit_code)])).toEqual([["/fired", "early_user", 0]]);
    } finally {
      await events.stop();
      await db.close();
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
