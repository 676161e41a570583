import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { USAGE_TTL_MS } from "../../server/storage/usage";
import { runCli } from "../support/cli";
import { connectFiles, type FileClient } from "../support/file-client";
import { SALT, startTestEngine, type TestEngine } from "../support/engine";
import { blake3Hex, tusClient } from "../support/tus-client";

let t: TestEngine;
let admin: string;

type User = Awaited<ReturnType<TestEngine["createUser"]>> & { files: FileClient };
const users: User[] = [];

async function userWith(account: string, quota?: number): Promise<User> {
  const created = await t.createUser(account, { permission: PERMISSION_FULL, ...(quota === undefined ? {} : { quota }) });
  const user = { ...created, files: await connectFiles(t.fileUrl, created.socketToken) };
  users.push(user);
  return user;
}

const meta = (p: string, groupId = 0, extra: Record<string, string> = {}) => ({ groupId: String(groupId), path: p, ...extra });
const adminView = async (id: number) => (await t.call("GET", `/api/admin/users/${id}`, { token: admin })).body.data;
const homeOf = async (userId: number, groupId = 0) => path.join(t.engine.services.spaces.root, (await t.engine.services.spaces.open(userId, groupId)).home);

/** Creates an upload with all its bytes in the POST; returns the id and the bytes' BLAKE3. */
async function send(user: User, p: string, data: Buffer, groupId = 0, extra: Record<string, string> = {}) {
  const created = await tusClient(t.fileUrl, user.socketToken).create(meta(p, groupId, extra), data.length, data);
  expect(created.status, created.text).toBe(201);
  return { id: created.id!, hash: await blake3Hex(data) };
}

async function upload(user: User, p: string, data: Buffer, groupId = 0, extra: Record<string, string> = {}) {
  const { id, hash } = await send(user, p, data, groupId, extra);
  return user.files.ok("commit", { uploadId: id, hash });
}

beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(async () => {
  for (const u of users) await u.files.close();
  await t?.stop();
});

describe("quota field (admin API)", () => {
  it("is set at creation, changed by PATCH, 0 by default, and refused when not a whole non-negative number", async () => {
    const plain = await userWith("q_plain");
    expect((await adminView(plain.id)).quota).toBe(0);

    const user = await userWith("q_field", 5000);
    const view = await adminView(user.id);
    expect(view.quota).toBe(5000);
    expect(view.space).toEqual({ used: 0, files: 0, folders: 0, measuredAt: expect.any(Number) });

    const patched = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { quota: 7 * 1024 ** 4 } });
    expect(patched.body.data.quota).toBe(7 * 1024 ** 4);
    const listed = await t.call("GET", "/api/admin/users?search=q_field", { token: admin });
    expect(listed.body.data.list[0]).toMatchObject({ account: "q_field", quota: 7 * 1024 ** 4, space: { used: 0, files: 0, folders: 0 } });

    const bad: [unknown, number][] = [[-1, ErrorCode.ParameterError], [1.5, ErrorCode.ParameterTypeError], ["10GB", ErrorCode.ParameterTypeError], [null, ErrorCode.ParameterTypeError]];
    for (const [quota, code] of bad) {
      const reply = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { quota } });
      expect({ quota, code: reply.body.code }).toEqual({ quota, code });
    }
    expect((await adminView(user.id)).quota).toBe(7 * 1024 ** 4);
  });

  it("reports the space occupation: bytes, files and folders of the home, kept current after engine changes", async () => {
    const user = await userWith("q_usage", 1_000_000);
    await user.files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
    await upload(user, "/docs/a.bin", randomBytes(1000));
    await upload(user, "/new/deep/b.bin", randomBytes(500));
    expect((await adminView(user.id)).space).toMatchObject({ used: 1500, files: 2, folders: 3 });

    await user.files.ok("copy", { groupId: 0, paths: ["/docs"], target: "/new", overwrite: false });
    expect((await adminView(user.id)).space).toMatchObject({ used: 2500, files: 3, folders: 4 });

    await user.files.ok("remove", { groupId: 0, paths: ["/new"] });
    expect((await adminView(user.id)).space).toMatchObject({ used: 1000, files: 1, folders: 1 });
  });

  it("sees files put into a home behind the engine's back once the count expires", async () => {
    const user = await userWith("q_outside", 1_000_000);
    await upload(user, "/a.bin", randomBytes(100));
    expect((await adminView(user.id)).space.used).toBe(100);
    await writeFile(path.join(await homeOf(user.id), "outside.bin"), randomBytes(300));
    t.clock.advance(USAGE_TTL_MS);
    expect((await adminView(user.id)).space).toMatchObject({ used: 400, files: 2 });
  });
});

describe("uploads past the quota", () => {
  it("refuses a creation whose declared size does not fit, with used and quota in data and a translated message", async () => {
    const user = await userWith("q_create", 1000);
    await upload(user, "/first.bin", randomBytes(600));

    const tus = tusClient(t.fileUrl, user.socketToken);
    const refused = await tus.create(meta("/second.bin"), 401);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: ErrorCode.QuotaExceeded, message: "The storage quota has been exceeded", data: { used: 600, quota: 1000, needed: 401 } });
    expect(refused.id).toBeNull();
    const zh = await tusClient(t.fileUrl, user.socketToken, { "accept-language": "zh-CN" }).create(meta("/second.bin"), 401);
    expect(zh.body).toMatchObject({ code: ErrorCode.QuotaExceeded, message: "已超出存储配额" });

    // Exactly the room left fits, and is held by that upload until it ends.
    const second = await tus.create(meta("/second.bin"), 400);
    expect(second.status).toBe(201);
    expect((await tus.create(meta("/third.bin"), 1)).body).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 1000, quota: 1000, needed: 1 } });
    expect((await tus.remove(second.id!)).status).toBe(204);
    // An overwrite needs only the difference to the file it replaces.
    expect((await tus.create(meta("/first.bin", 0, { overwrite: "1" }), 1000)).status).toBe(201);
    expect((await tus.create(meta("/first.bin", 0, { overwrite: "1" }), 1001)).body?.code).toBe(ErrorCode.QuotaExceeded);
    expect((await adminView(user.id)).space.used).toBe(600);
  });

  it("checks again at commit, keeps the bytes of a refused commit, and commits once room is made", async () => {
    const user = await userWith("q_commit", 1000);
    const late = await send(user, "/late.bin", randomBytes(700));
    // Room taken behind the engine's back (an administrator's copy), seen once the count is redone.
    await writeFile(path.join(await homeOf(user.id), "early.bin"), randomBytes(700));
    t.clock.advance(USAGE_TTL_MS);

    const refused = await user.files.cmd("commit", { uploadId: late.id, hash: late.hash });
    expect(refused).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 700, quota: 1000, needed: 700 } });
    const home = await homeOf(user.id);
    await expect(readFile(path.join(home, "late.bin"))).rejects.toThrow();

    await user.files.ok("remove", { groupId: 0, paths: ["/early.bin"] });
    expect(await user.files.ok("commit", { uploadId: late.id, hash: late.hash })).toMatchObject({ path: "/late.bin", size: 700 });
    expect((await adminView(user.id)).space).toMatchObject({ used: 700, files: 1 });
  });

  it("lets only one of two commits that fit alone but not together take the last room (the quota was lowered after their creation)", async () => {
    const user = await userWith("q_race", 1200);
    const one = await send(user, "/one.bin", randomBytes(600));
    const two = await send(user, "/two.bin", randomBytes(600));
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { quota: 1000 } });
    const replies = await Promise.all([user.files.cmd("commit", { uploadId: one.id, hash: one.hash }), user.files.cmd("commit", { uploadId: two.id, hash: two.hash })]);
    expect(replies.map((r) => r.code).sort()).toEqual([200, ErrorCode.QuotaExceeded].sort());
    expect((await adminView(user.id)).space).toMatchObject({ used: 600, files: 1 });
  });

  it("leaves users without a quota unlimited", async () => {
    const user = await userWith("q_free");
    await upload(user, "/big.bin", randomBytes(2 * 1024 * 1024));
    expect((await adminView(user.id)).space).toMatchObject({ used: 2 * 1024 * 1024, files: 1 });
  });
});

describe("copies past the quota", () => {
  it("refuses a copy that does not fit before copying anything, and copies what fits", async () => {
    const user = await userWith("q_copy", 3000);
    await upload(user, "/src/a.bin", randomBytes(800));
    await upload(user, "/src/b.bin", randomBytes(700));
    await user.files.ok("mkdir", { groupId: 0, path: "/", name: "dest" });

    // 1500 held, 1500 more would reach 3000 exactly; a second copy of the folder would not fit.
    const refused = await user.files.cmd("copy", { groupId: 0, paths: ["/src", "/src/a.bin"], target: "/dest", overwrite: false });
    expect(refused).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 1500, quota: 3000, needed: 2300 } });
    expect((await user.files.ok("list", { groupId: 0, path: "/dest" })).names).toEqual([]);

    expect(await user.files.ok("copy", { groupId: 0, paths: ["/src"], target: "/dest", overwrite: false })).toEqual({ done: ["/src"], failed: [] });
    expect((await adminView(user.id)).space).toMatchObject({ used: 3000, files: 4 });
    // Overwriting a file with one of the same size needs no room.
    await user.files.ok("mkdir", { groupId: 0, path: "/", name: "again" });
    expect((await user.files.cmd("copy", { groupId: 0, paths: ["/src/a.bin"], target: "/again", overwrite: false })).code).toBe(ErrorCode.QuotaExceeded);
    expect((await user.files.ok("copy", { groupId: 0, paths: ["/src/a.bin"], target: "/dest/src", overwrite: true })).done).toEqual(["/src/a.bin"]);
  });
});

describe("group quota", () => {
  it("limits a group space by the group's quota, for every member together", async () => {
    const alice = await userWith("q_galice");
    const bob = await userWith("q_gbob");
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "quota_team", quota: 1000 } });
    expect(group.body.data).toMatchObject({ quota: 1000, space: { used: 0, files: 0, folders: 0 } });
    const groupId = group.body.data.id as number;
    for (const u of [alice, bob]) {
      await t.call("PUT", `/api/admin/groups/${groupId}/members/${u.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    }
    await upload(alice, "/a.bin", randomBytes(600), groupId);
    const refused = await tusClient(t.fileUrl, bob.socketToken).create(meta("/b.bin", groupId), 600);
    expect(refused.body).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 600, quota: 1000 } });
    // The personal spaces are not limited by the group's quota.
    await upload(bob, "/b.bin", randomBytes(600));

    const raised = await t.call("PATCH", `/api/admin/groups/${groupId}`, { token: admin, body: { quota: 0 } });
    expect(raised.body.data).toMatchObject({ quota: 0, space: { used: 600, files: 1 } });
    await upload(bob, "/b.bin", randomBytes(600), groupId);
  });
});

describe("nested homes", () => {
  it("counts a change in every home that holds it", async () => {
    const outer = await userWith("q_outer");
    const home = (await t.call("PATCH", `/api/admin/users/${outer.id}`, { token: admin, body: { home: "/nest" } })).body.data.home as string;
    expect(home).toBe("/nest");
    const inner = await userWith("q_inner", 10_000);
    await t.call("PATCH", `/api/admin/users/${inner.id}`, { token: admin, body: { home: "/nest/inner" } });
    expect((await adminView(outer.id)).space).toMatchObject({ used: 0, folders: 1 });
    await upload(inner, "/x.bin", randomBytes(250));
    expect((await adminView(outer.id)).space).toMatchObject({ used: 250, files: 1, folders: 1 });
    await outer.files.ok("remove", { groupId: 0, paths: ["/inner"] });
    expect((await adminView(inner.id)).space).toMatchObject({ used: 0, files: 0 });
  });
});

describe("operator CLI", () => {
  /** The CLI as a child process on the engine's database, as an operator runs it. */
  const ferry = (args: string[]) =>
    runCli(args, { DATABASE_URL: t.databaseUrl, FERRY_DATA_DIR: t.dataDir, FERRY_HASHID_SALT: SALT, FERRY_ADMIN_PASSWORD: "", FERRY_CLI_PASSWORD: "Cli#Quota2026" });

  it("sets a quota on user and group create, with units, and refuses a size it cannot read", { timeout: 90_000 }, async () => {
    const [user, group, bad] = await Promise.all([
      ferry(["user", "create", "--account", "q_cli", "--quota", "10MB"]),
      ferry(["group", "create", "--name", "q_cli_team", "--quota", "2 GB"]),
      ferry(["user", "create", "--account", "q_cli_bad", "--quota", "1.5GB"]),
    ]);
    expect(user, user.stderr).toMatchObject({ code: 0 });
    expect(group, group.stderr).toMatchObject({ code: 0 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--quota");
    const found = (await t.call("GET", "/api/admin/users?search=q_cli", { token: admin })).body.data.list;
    expect(found.map((u: { account: string; quota: number }) => [u.account, u.quota])).toEqual([["q_cli", 10 * 1024 ** 2]]);
    const groups = (await t.call("GET", "/api/admin/groups?search=q_cli_team", { token: admin })).body.data.list;
    expect(groups[0]).toMatchObject({ name: "q_cli_team", quota: 2 * 1024 ** 3 });
  });
});
