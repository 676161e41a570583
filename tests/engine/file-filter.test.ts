import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { socketUsers, type SocketUser } from "../support/socket-users";
import { connectVisitor, downloadShared, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";
import { zipNames } from "../support/zip-listing";

/**
 * The transfer filter of a user or a group (transIgnoreReg / transIgnoreSize and their switches;
 * docs/file-server.md, "File filter"): on every path a file takes into a space — tus creation,
 * creation-with-upload, parallel parts, commit, an invitation visitor's upload (the owner's
 * filter) — a file the filter names is refused with 4342 FileFiltered and nothing is written; a
 * download names such a file: refused; a folder's zip (also a share link's) leaves such files out.
 * The personal space has the user's filter, a group space the group's. `uploadRules` tells it.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
const users = socketUsers(() => t);

const filter = (patterns: string, size = 0) => ({ transIgnoreRegSwitch: patterns !== "", transIgnoreReg: patterns, transIgnoreSizeSwitch: size > 0, transIgnoreSize: size });
const meta = (p: string, groupId = 0) => ({ groupId: String(groupId), path: p, overwrite: "0" });
const patchUser = async (id: number, body: Record<string, unknown>) => expect((await t.call("PATCH", `/api/admin/users/${id}`, { token: admin, body })).body.code).toBe(200);
const homeOf = (account: string) => path.join(t.dataDir, "storage", "users", account);

/** Creation-with-upload: the tus reply plus the bytes' hash. */
async function send(user: SocketUser, p: string, data: Buffer, groupId = 0, headers: Record<string, string> = {}) {
  const created = await tusClient(t.fileUrl, user.socketToken, headers).create(meta(p, groupId), data.length, data);
  return { ...created, hash: await blake3Hex(data) };
}

async function upload(user: SocketUser, p: string, data: Buffer, groupId = 0) {
  const created = await send(user, p, data, groupId);
  expect(created.status, created.text).toBe(201);
  return user.files.cmd("commit", { uploadId: created.id!, hash: created.hash });
}

/** Downloads what a `download` answer's URL serves. */
async function fetchDownload(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.fileUrl + url, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  admin = await t.adminToken();
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

describe("uploads", () => {
  it("tus creation and creation-with-upload refuse a file a pattern names (any case, by its name), in both languages, and write nothing", async () => {
    const user = await users.userWith("ff_names", filter(" *.TMP; ~* ;Thumbs.db;a?c.txt"));
    const refused = await send(user, "/docs/work.tmp", Buffer.from("temp"));
    expect(refused.status).toBe(400);
    expect(refused.id).toBeNull();
    expect(refused.body).toMatchObject({
      code: ErrorCode.FileFiltered,
      message: "work.tmp is skipped: the file filter of this space leaves out files of this name or size",
      data: { name: "work.tmp", pattern: "*.TMP" },
    });
    const zh = await send(user, "/~lock.docx", Buffer.from("lock"), 0, { "accept-language": "zh-CN" });
    expect(zh.body).toMatchObject({ code: ErrorCode.FileFiltered, message: "已跳过 ~lock.docx：此空间的文件过滤规则不传输此名称或大小的文件" });
    // Creation without bytes is refused the same way.
    const bare = await tusClient(t.fileUrl, user.socketToken).create(meta("/thumbs.DB"), 10);
    expect(bare.body).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "thumbs.DB" } });
    expect((await send(user, "/abc.txt", Buffer.from("x"))).body?.code).toBe(ErrorCode.FileFiltered);

    for (const name of ["/docs/work.tmp.txt", "/notes~.txt", "/abbc.txt", "/tmp"]) expect(await upload(user, name, Buffer.from(name))).toMatchObject({ code: 200 });
    expect((await readdir(homeOf("ff_names"))).sort()).toEqual(["abbc.txt", "docs", "notes~.txt", "tmp"]);
    expect(await readdir(path.join(homeOf("ff_names"), "docs"))).toEqual(["work.tmp.txt"]);
  });

  it("a pattern with '/' names a path in the space: from its root when it starts with '/', else at any depth; '*' there crosses folders", async () => {
    const user = await users.userWith("ff_paths", filter("/build/*;cache/*.bin"));
    expect((await send(user, "/build/out/a.o", Buffer.from("o"))).body?.code).toBe(ErrorCode.FileFiltered);
    expect((await send(user, "/cache/a.bin", Buffer.from("b"))).body?.code).toBe(ErrorCode.FileFiltered);
    expect((await send(user, "/x/y/cache/a.bin", Buffer.from("b"))).body?.code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/src/build/a.o", Buffer.from("o"))).toMatchObject({ code: 200 });
    expect(await upload(user, "/cache/a.txt", Buffer.from("t"))).toMatchObject({ code: 200 });
    // '*' runs across folders: everything below a cache folder.
    expect((await send(user, "/cache/deep/a.bin", Buffer.from("b"))).body?.code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/mycache/a.bin", Buffer.from("b"))).toMatchObject({ code: 200 });
  });

  it("refuses a file over the skip size at creation (the declared size), at a parallel upload's assembly, and takes one at the size; switched off, both go up", async () => {
    const user = await users.userWith("ff_size", filter("", 100));
    const over = await send(user, "/big.bin", randomBytes(101));
    expect(over.body).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "big.bin", size: 100 } });
    expect((await tusClient(t.fileUrl, user.socketToken).create(meta("/big2.bin"), 5000)).body?.code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/fits.bin", randomBytes(100))).toMatchObject({ code: 200 });

    await patchUser(user.id, { transIgnoreSizeSwitch: false });
    expect(await upload(user, "/big.bin", randomBytes(101))).toMatchObject({ code: 200 });
    expect((await readdir(homeOf("ff_size"))).sort()).toEqual(["big.bin", "fits.bin"]);
  });

  it("is checked again at commit: a filter set after the creation stops the file, the bytes wait until it allows it", async () => {
    const user = await users.userWith("ff_commit");
    const created = await send(user, "/late.log", randomBytes(500));
    expect(created.status).toBe(201);
    await patchUser(user.id, filter("*.log"));
    expect(await user.files.cmd("commit", { uploadId: created.id!, hash: created.hash })).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "late.log" } });
    expect(await readdir(homeOf("ff_commit"))).toEqual([]);
    await patchUser(user.id, { transIgnoreRegSwitch: false });
    expect(await user.files.cmd("commit", { uploadId: created.id!, hash: created.hash })).toMatchObject({ code: 200, data: { path: "/late.log" } });
  });

  it("an invitation's visitor uploads under the link owner's filter", async () => {
    const owner = await users.userWith("ff_owner", filter("*.exe", 50));
    await owner.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    const token = await shareTokenOf(t, await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in" }));
    const visitor = await connectVisitor(t.fileUrl, token);
    users.keep(visitor);
    const tus = tusClient(t.fileUrl, token);
    expect((await tus.create({ groupId: "0", path: "/setup.exe" }, 2, Buffer.from("MZ"))).body).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "setup.exe" } });
    expect((await tus.create({ groupId: "0", path: "/big.txt" }, 51, randomBytes(51))).body).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "big.txt" } });
    const data = Buffer.from("report");
    const created = await tus.create({ groupId: "0", path: "/report.txt" }, data.length, data);
    expect(created.status, created.text).toBe(201);
    expect(await visitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ code: 200 });
    expect(await readdir(path.join(homeOf("ff_owner"), "inbox"))).toEqual(["report.txt"]);
  });
});

describe("downloads", () => {
  it("a folder's zip leaves out the files the filter names; a file named in the download is refused, also by a URL issued before", async () => {
    const user = await users.userWith("ff_zip");
    for (const [p, size] of [["/proj/a.txt", 10], ["/proj/b.tmp", 10], ["/proj/sub/c.txt", 10], ["/proj/sub/big.iso", 300], ["/proj/sub/~d.txt", 5]] as const) {
      expect(await upload(user, p, randomBytes(size))).toMatchObject({ code: 200 });
    }
    const early = await user.files.ok("download", { groupId: 0, paths: ["/proj/b.tmp"] });
    await patchUser(user.id, filter("*.tmp;~*", 200));

    const zip = await user.files.ok("download", { groupId: 0, paths: ["/proj"] });
    expect(zip.name).toBe("proj.zip");
    const got = await fetchDownload(zip.url);
    expect(got.status).toBe(200);
    expect(await zipNames(got.body)).toEqual(["proj/", "proj/a.txt", "proj/sub/", "proj/sub/c.txt"]);

    expect(await user.files.cmd("download", { groupId: 0, paths: ["/proj/b.tmp"] })).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "b.tmp", pattern: "*.tmp" } });
    expect(await user.files.cmd("download", { groupId: 0, paths: ["/proj/a.txt", "/proj/sub/big.iso"] })).toMatchObject({ code: ErrorCode.FileFiltered, data: { name: "big.iso", size: 200 } });
    const late = await fetchDownload(early.url, { "accept-language": "en" });
    expect(late.status).toBe(403);
    expect(late.body.toString()).toBe("b.tmp is skipped: the file filter of this space leaves out files of this name or size\n");
    expect((await fetchDownload((await user.files.ok("download", { groupId: 0, paths: ["/proj/a.txt"] })).url)).status).toBe(200);
  });

  it("a share link's zip leaves out what the owner's filter names; a named file is refused", async () => {
    const owner = await users.userWith("ff_sharer");
    for (const p of ["/shared/keep.txt", "/shared/drop.bak", "/shared/in/keep2.txt", "/shared/in/drop2.bak"]) expect(await upload(owner, p, Buffer.from(p))).toMatchObject({ code: 200 });
    await patchUser(owner.id, filter("*.bak"));
    const token = await shareTokenOf(t, await makeLink(t, owner.token, { shareFiles: ["/shared"] }));
    const zipped = await downloadShared(t, token, ["/shared"]);
    expect(zipped.code).toBe(200);
    expect(await zipNames(zipped.body!)).toEqual(["shared/", "shared/in/", "shared/in/keep2.txt", "shared/keep.txt"]);
    expect((await downloadShared(t, token, ["/shared/drop.bak"])).code).toBe(ErrorCode.FileFiltered);
    expect((await downloadShared(t, token, ["/shared/keep.txt"])).body?.toString()).toBe("/shared/keep.txt");
  });
});

describe("group spaces", () => {
  it("a group space has the group's filter, the personal space the user's; uploadRules tells the one that applies", async () => {
    const user = await users.userWith("ff_member", filter("*.tmp"));
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "FilterGroup", ...filter("*.log", 1000) } });
    expect(group.body.code).toBe(200);
    const groupId = group.body.data.id as number;
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });

    expect(await user.files.ok("uploadRules", { groupId: 0 })).toMatchObject({ fileFilter: { patterns: ["*.tmp"], maxSize: 0 } });
    expect(await user.files.ok("uploadRules", { groupId })).toMatchObject({ fileFilter: { patterns: ["*.log"], maxSize: 1000 } });

    expect((await send(user, "/run.log", Buffer.from("log"), groupId)).body?.code).toBe(ErrorCode.FileFiltered);
    expect((await send(user, "/big.bin", randomBytes(1001), groupId)).body?.code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/work.tmp", Buffer.from("tmp"), groupId)).toMatchObject({ code: 200 });
    expect(await upload(user, "/run.log", Buffer.from("log"))).toMatchObject({ code: 200 });
    expect((await send(user, "/work.tmp", Buffer.from("tmp"))).body?.code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/dir/keep.txt", Buffer.from("keep"), groupId)).toMatchObject({ code: 200 });
    expect(await upload(user, "/dir/x.tmp", Buffer.from("x"), groupId)).toMatchObject({ code: 200 });

    // The group's filter changes: its zip follows it at once.
    await t.call("PATCH", `/api/admin/groups/${groupId}`, { token: admin, body: { transIgnoreReg: "*.tmp" } });
    const zip = await user.files.ok("download", { groupId, paths: ["/dir"] });
    expect(await zipNames((await fetchDownload(zip.url)).body)).toEqual(["dir/", "dir/keep.txt"]);
    expect((await user.files.cmd("download", { groupId, paths: ["/work.tmp"] })).code).toBe(ErrorCode.FileFiltered);
    expect(await upload(user, "/run.log", Buffer.from("log"), groupId)).toMatchObject({ code: 200 });
  });
});

describe("desktop client switches", () => {
  it("the user info the client reads carries the user's and each group's switches", async () => {
    const user = await users.userWith("ff_client", { syncSwitch: true, forbidClientFilterSwitch: true, ...filter("*.tmp", 10) });
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "ClientGroup", forbidClientFilterSwitch: true } });
    await t.call("PUT", `/api/admin/groups/${group.body.data.id}/members/${user.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    const info = await t.call("GET", "/api/user/info", { token: user.token });
    expect(info.body.data.user).toMatchObject({ syncSwitch: true, forbidClientFilterSwitch: true, transIgnoreRegSwitch: true, transIgnoreReg: "*.tmp", transIgnoreSizeSwitch: true, transIgnoreSize: 10 });
    expect(info.body.data.user.groupList).toEqual([expect.objectContaining({ groupName: "ClientGroup", forbidClientFilterSwitch: true, syncSwitch: false })]);
  });
});
