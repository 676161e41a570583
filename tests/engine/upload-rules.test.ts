import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { socketUsers, type SocketUser } from "../support/socket-users";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Issue 14 (Users/enforcement): a user's file-format rule (whitelist or blacklist of extensions)
 * and the upload-new-files-only limit of a user or a group hold on every path a file takes into a
 * space — tus creation, parallel parts, commit, a share visitor's upload (the owner's rules), and
 * rename/move/copy — with 4340 FileFormatRefused and 4341 UploadNewOnly (docs/file-server.md,
 * "Upload rules"); `uploadRules` tells the web the rules, permission and quota of a space.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
const users = socketUsers(() => t);

const meta = (p: string, groupId = 0, overwrite = false) => ({ groupId: String(groupId), path: p, overwrite: overwrite ? "1" : "0" });
const patchUser = async (id: number, body: Record<string, unknown>) => expect((await t.call("PATCH", `/api/admin/users/${id}`, { token: admin, body })).body.code).toBe(200);

/** Creates an upload with all its bytes; the tus reply plus the bytes' hash. */
async function send(user: SocketUser, p: string, data: Buffer, groupId = 0, overwrite = false, headers: Record<string, string> = {}) {
  const created = await tusClient(t.fileUrl, user.socketToken, headers).create(meta(p, groupId, overwrite), data.length, data);
  return { ...created, hash: await blake3Hex(data) };
}

async function upload(user: SocketUser, p: string, data: Buffer, groupId = 0, overwrite = false) {
  const created = await send(user, p, data, groupId, overwrite);
  expect(created.status, created.text).toBe(201);
  return user.files.cmd("commit", { uploadId: created.id!, hash: created.hash });
}

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  admin = await t.adminToken();
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

describe("file-format rule", () => {
  it("blacklist: refuses the listed extensions (any case, '*.' or '.' in the list) at creation, in both languages; the rest goes up", async () => {
    const user = await users.userWith("fr_black", { fileFormatMode: 2, fileFormats: " *.EXE;.bat; tar.gz ;" });
    const refused = await send(user, "/setup.Exe", Buffer.from("MZ"));
    expect(refused.status).toBe(400);
    expect(refused.id).toBeNull();
    expect(refused.body).toMatchObject({ code: ErrorCode.FileFormatRefused, message: "setup.Exe cannot be uploaded: files of this type are not allowed for your account", data: { name: "setup.Exe" } });
    const zh = await send(user, "/docs/run.bat", Buffer.from("@echo"), 0, false, { "accept-language": "zh-CN" });
    expect(zh.body).toMatchObject({ code: ErrorCode.FileFormatRefused, message: "无法上传 run.bat：您的账号不允许此类型的文件" });
    expect((await send(user, "/a.tar.gz", Buffer.from("gz"))).body?.code).toBe(ErrorCode.FileFormatRefused);

    for (const name of ["/notes.txt", "/exe", "/a.exe.txt", "/b.gz"]) expect(await upload(user, name, Buffer.from(name))).toMatchObject({ code: 200 });
    expect((await user.files.ok("list", { groupId: 0, path: "/" })).names.sort()).toEqual(["a.exe.txt", "b.gz", "exe", "notes.txt"]);
  });

  it("whitelist: only the listed extensions go up (a name without one is refused); off lets everything in", async () => {
    const user = await users.userWith("fr_white", { fileFormatMode: 1, fileFormats: "jpg;png" });
    expect(await upload(user, "/photo.JPG", Buffer.from("jpg"))).toMatchObject({ code: 200 });
    for (const name of ["/notes.txt", "/README", "/png"]) expect((await send(user, name, Buffer.from("x"))).body?.code).toBe(ErrorCode.FileFormatRefused);
    await patchUser(user.id, { fileFormatMode: 0 });
    expect(await upload(user, "/notes.txt", Buffer.from("txt"))).toMatchObject({ code: 200 });
  });

  it("is checked again at commit: a rule set after the creation stops the file, the bytes stay until the rule allows it", async () => {
    const user = await users.userWith("fr_commit");
    const created = await send(user, "/late.exe", randomBytes(1000));
    expect(created.status).toBe(201);
    await patchUser(user.id, { fileFormatMode: 2, fileFormats: "exe" });
    const refused = await user.files.cmd("commit", { uploadId: created.id!, hash: created.hash });
    expect(refused).toMatchObject({ code: ErrorCode.FileFormatRefused, data: { name: "late.exe" } });
    expect((await user.files.ok("list", { groupId: 0, path: "/" })).names).toEqual([]);
    await patchUser(user.id, { fileFormatMode: 0 });
    expect(await user.files.cmd("commit", { uploadId: created.id!, hash: created.hash })).toMatchObject({ code: 200, data: { path: "/late.exe" } });
  });

  it("applies in group spaces too", async () => {
    const user = await users.userWith("fr_parts", { fileFormatMode: 2, fileFormats: "iso" });

    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "FormatGroup" } });
    const groupId = group.body.data.id as number;
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    expect((await send(user, "/disk.iso", Buffer.from("iso"), groupId)).body?.code).toBe(ErrorCode.FileFormatRefused);
    expect(await upload(user, "/disk.img", Buffer.from("img"), groupId)).toMatchObject({ code: 200 });
  });

  it("refuses renaming a file to a refused type (folders are not files), and leaves moves and copies of names alone", async () => {
    const user = await users.userWith("fr_rename");
    expect(await upload(user, "/tool.txt", Buffer.from("tool"))).toMatchObject({ code: 200 });
    await user.files.ok("mkdir", { groupId: 0, path: "/", name: "dir" });
    await patchUser(user.id, { fileFormatMode: 2, fileFormats: "exe" });
    expect(await user.files.cmd("rename", { groupId: 0, path: "/tool.txt", newName: "tool.EXE" })).toMatchObject({ code: ErrorCode.FileFormatRefused, data: { name: "tool.EXE" } });
    expect(await user.files.ok("rename", { groupId: 0, path: "/tool.txt", newName: "tool.bin" })).toEqual({ path: "/tool.bin" });
    expect(await user.files.ok("rename", { groupId: 0, path: "/dir", newName: "dir.exe" })).toEqual({ path: "/dir.exe" });
    expect(await user.files.ok("copy", { groupId: 0, paths: ["/tool.bin"], target: "/dir.exe" })).toEqual({ done: ["/tool.bin"], failed: [] });
    expect((await user.files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["dir.exe", "tool.bin"]);
  });
});

describe("upload new files only", () => {
  it("a limited user may upload new files but not replace one: 4341 at creation, 4158 without overwrite as before", async () => {
    const user = await users.userWith("nw_user", { uploadNewOnly: true });
    expect(await upload(user, "/a.txt", Buffer.from("one"))).toMatchObject({ code: 200 });
    const replaced = await send(user, "/a.txt", Buffer.from("two"), 0, true);
    expect(replaced.status).toBe(400);
    expect(replaced.body).toMatchObject({ code: ErrorCode.UploadNewOnly, message: "Only new files may be uploaded here: a.txt already exists and cannot be replaced", data: { name: "a.txt" } });
    const zh = await send(user, "/a.txt", Buffer.from("two"), 0, true, { "accept-language": "zh-CN" });
    expect(zh.body?.message).toBe("此处只能上传新文件：a.txt 已存在，不能替换");
    expect((await send(user, "/a.txt", Buffer.from("two"))).body?.code).toBe(ErrorCode.PathExists);
    // overwrite on a name that does not exist yet is a new file.
    expect(await upload(user, "/b.txt", Buffer.from("b"), 0, true)).toMatchObject({ code: 200 });
    expect(await readFile(path.join(t.dataDir, "storage", "users", "nw_user", "a.txt"), "utf8")).toBe("one");
  });

  it("is checked again at commit, and refuses move and copy over an existing name", async () => {
    const user = await users.userWith("nw_commit");
    expect(await upload(user, "/a.txt", Buffer.from("one"))).toMatchObject({ code: 200 });
    expect(await upload(user, "/sub/a.txt", Buffer.from("sub"))).toMatchObject({ code: 200 });
    const pending = await send(user, "/a.txt", Buffer.from("two"), 0, true);
    expect(pending.status).toBe(201);
    await patchUser(user.id, { uploadNewOnly: true });
    expect(await user.files.cmd("commit", { uploadId: pending.id!, hash: pending.hash })).toMatchObject({ code: ErrorCode.UploadNewOnly });
    for (const cmd of ["move", "copy"] as const) {
      expect(await user.files.cmd(cmd, { groupId: 0, paths: ["/sub/a.txt"], target: "/", overwrite: true })).toMatchObject({ code: ErrorCode.UploadNewOnly, data: { name: "a.txt", existing: ["a.txt"] } });
    }
    expect(await user.files.cmd("copy", { groupId: 0, paths: ["/sub/a.txt"], target: "/" })).toMatchObject({ code: ErrorCode.TargetExists });
    expect(await readFile(path.join(t.dataDir, "storage", "users", "nw_commit", "a.txt"), "utf8")).toBe("one");
    await patchUser(user.id, { uploadNewOnly: false });
    expect(await user.files.cmd("commit", { uploadId: pending.id!, hash: pending.hash })).toMatchObject({ code: 200 });
  });

  it("a group's limit holds in its space for every member, not in their personal spaces", async () => {
    const user = await users.userWith("nw_member");
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "NewOnlyGroup", uploadNewOnly: true } });
    const groupId = group.body.data.id as number;
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    expect(await upload(user, "/g.txt", Buffer.from("one"), groupId)).toMatchObject({ code: 200 });
    expect((await send(user, "/g.txt", Buffer.from("two"), groupId, true)).body?.code).toBe(ErrorCode.UploadNewOnly);
    expect(await upload(user, "/g.txt", Buffer.from("one"))).toMatchObject({ code: 200 });
    expect(await upload(user, "/g.txt", Buffer.from("two"), 0, true)).toMatchObject({ code: 200 });
    await t.call("PATCH", `/api/admin/groups/${groupId}`, { token: admin, body: { uploadNewOnly: false } });
    expect(await upload(user, "/g.txt", Buffer.from("two"), groupId, true)).toMatchObject({ code: 200 });
  });
});

describe("share visitors", () => {
  it("an invitation's visitor uploads under the owner's format rule", async () => {
    const owner = await users.userWith("fr_owner", { fileFormatMode: 2, fileFormats: "exe" });
    await owner.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    const token = await shareTokenOf(t, await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in" }));
    const visitor = await connectVisitor(t.fileUrl, token);
    users.keep(visitor);
    const tus = tusClient(t.fileUrl, token);
    const refused = await tus.create({ groupId: "0", path: "/virus.exe" }, 2, Buffer.from("MZ"));
    expect(refused.body).toMatchObject({ code: ErrorCode.FileFormatRefused, data: { name: "virus.exe" } });
    const data = Buffer.from("report");
    const created = await tus.create({ groupId: "0", path: "/report.txt" }, data.length, data);
    expect(created.status, created.text).toBe(201);
    expect(await visitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ code: 200 });
    expect((await owner.files.ok("list", { groupId: 0, path: "/inbox" })).names).toEqual(["report.txt"]);
  });
});

describe("uploadRules", () => {
  it("tells the caller's permission, quota, usage and rules of the space, fresh at every call", async () => {
    const user = await users.userWith("ur_user", { quota: 1000, uploadNewOnly: true, fileFormatMode: 2, fileFormats: "EXE; bat", permission: Permission.List | Permission.Upload });
    const personal = await user.files.ok("uploadRules", { groupId: 0 });
    expect(personal).toEqual({ permission: expect.any(Number), quota: 1000, used: 0, uploadNewOnly: true, fileFormatMode: 2, fileFormats: ["exe", "bat"], fileFilter: { patterns: [], maxSize: 0 } });
    // The stored bits (a selection keeps the two unused ones): Upload without Delete.
    expect([personal.permission & Permission.Upload, personal.permission & Permission.Delete]).toEqual([Permission.Upload, 0]);
    expect(await upload(user, "/a.bin", randomBytes(300))).toMatchObject({ code: 200 });
    // An upload in progress holds its bytes.
    expect((await send(user, "/b.bin", randomBytes(200))).status).toBe(201);
    expect(await user.files.ok("uploadRules", { groupId: 0 })).toMatchObject({ quota: 1000, used: 500 });

    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "RulesGroup", quota: 5000 } });
    const groupId = group.body.data.id as number;
    expect((await user.files.cmd("uploadRules", { groupId })).code).toBe(ErrorCode.PermissionDenied);
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token: admin, body: { groupPermission: Permission.List } });
    expect((await user.files.ok("uploadRules", { groupId })).permission & Permission.Upload).toBe(0);
    expect(await user.files.ok("uploadRules", { groupId })).toEqual({ permission: expect.any(Number), quota: 5000, used: 0, uploadNewOnly: true, fileFormatMode: 2, fileFormats: ["exe", "bat"], fileFilter: { patterns: [], maxSize: 0 } });
  });
});
