import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * An upload that creates folders (docs/security.md, "Make-folder on upload"): a target whose
 * parent folders do not exist takes the Mkdir bit as well as Upload, at tus creation and again at
 * commit, for users in their own and group spaces and for invitation visitors (the owner's bits).
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const NO_MKDIR = PERMISSION_FULL & ~Permission.Mkdir;
type User = Awaited<ReturnType<TestEngine["createUser"]>>;

let t: TestEngine;
let plain: User;
let full: User;
let plainFiles: FileClient;
let fullFiles: FileClient;
let groupId: number;
const homeOf = (account: string) => path.join(t.dataDir, "storage", "users", account);

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  plain = await t.createUser("nomkdir", { permission: NO_MKDIR });
  full = await t.createUser("mkdirok", { permission: PERMISSION_FULL });
  plainFiles = await connectFiles(t.fileUrl, plain.socketToken);
  fullFiles = await connectFiles(t.fileUrl, full.socketToken);
  await writeTree(homeOf("nomkdir"), { "existing/here.txt": "here", "inbox/seen.txt": "seen" });
  const admin = await t.adminToken();
  groupId = (await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "mk-team" } })).body.data.id as number;
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${plain.id}`, { token: admin, body: { groupPermission: NO_MKDIR } });
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${full.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
});
afterAll(async () => {
  await plainFiles?.close();
  await fullFiles?.close();
  await t?.stop();
});

/** Creates an upload of `data` at `target` with `token`, sends its bytes; the tus reply and the id. */
async function send(token: string, target: string, data: Buffer, groupIdText = "0") {
  const tus = tusClient(t.fileUrl, token);
  const created = await tus.create({ groupId: groupIdText, path: target }, data.length);
  if (created.id) expect((await tus.patch(created.id, 0, data)).status).toBe(204);
  return created;
}

describe("uploads that would create folders", () => {
  it("are refused at creation without the Mkdir bit, in the personal and the group space, and create nothing", async () => {
    const before = await snapshot(path.join(t.dataDir, "storage"));
    for (const target of ["/a/b/c/file.txt", "/a/file.txt", "/existing/new/file.txt", "/existing/new/deeper/file.txt"]) {
      const created = await send(plain.socketToken, target, Buffer.from("data"));
      expect(created.body?.code, target).toBe(1008);
      expect(created.status, target).toBe(403);
      expect(created.id, target).toBeNull();
      const group = await send(plain.socketToken, target, Buffer.from("data"), String(groupId));
      expect(group.body?.code, target).toBe(1008);
      expect(group.id, target).toBeNull();
    }
    expect(await snapshot(path.join(t.dataDir, "storage"))).toEqual(before);
  });

  it("into folders that exist need only Upload", async () => {
    const data = Buffer.from("fits");
    for (const target of ["/top.txt", "/existing/inside.txt"]) {
      const created = await send(plain.socketToken, target, data);
      expect(created.status, target).toBe(201);
      expect(await plainFiles.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: target });
    }
  });

  it("are refused at commit when a folder went away meanwhile, and the folder is not made again", async () => {
    await mkdir(path.join(homeOf("nomkdir"), "soon-gone", "inner"), { recursive: true });
    const data = Buffer.from("late");
    const created = await send(plain.socketToken, "/soon-gone/inner/late.txt", data);
    expect(created.status).toBe(201);
    await rm(path.join(homeOf("nomkdir"), "soon-gone"), { recursive: true });
    const before = await snapshot(homeOf("nomkdir"));
    expect((await plainFiles.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).code).toBe(1008);
    expect(await snapshot(homeOf("nomkdir"))).toEqual(before);
  });

  it("work with the Mkdir bit, making every missing folder, personal and group", async () => {
    const data = Buffer.from("made");
    for (const [target, group] of [
      ["/a/b/c/file.txt", "0"],
      ["/x/y/file.txt", String(groupId)],
    ] as const) {
      const created = await send(full.socketToken, target, data, group);
      expect(created.status, target).toBe(201);
      expect(await fullFiles.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: target });
    }
    expect((await fullFiles.ok("list", { groupId: 0, path: "/a/b/c" })).names).toEqual(["file.txt"]);
    expect((await fullFiles.ok("list", { groupId, path: "/x/y" })).names).toEqual(["file.txt"]);
  });
});

describe("an invitation visitor's uploads, with the owner's bits", () => {
  it("cannot make folders when the owner lacks Mkdir, at creation or at commit; files into existing folders work", async () => {
    const token = await shareTokenOf(t, await makeLink(t, plain.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "mk" }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      const before = await snapshot(homeOf("nomkdir"));
      for (const target of ["/sub/file.txt", "/sub/deeper/file.txt"]) {
        const created = await tusClient(t.fileUrl, token).create({ groupId: "0", path: target }, 4);
        expect(created.body?.code, target).toBe(1008);
        expect(created.id, target).toBeNull();
      }
      expect((await visitor.cmd("mkdir", { groupId: 0, path: "/", name: "sub" })).code).toBe(1008);
      expect(await snapshot(homeOf("nomkdir"))).toEqual(before);

      const data = Buffer.from("ok!");
      const direct = await send(token, "/direct.txt", data);
      expect(direct.status).toBe(201);
      expect(await visitor.ok("commit", { uploadId: direct.id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/direct.txt" });

      // A folder that existed at creation and is gone at commit is not made again.
      await mkdir(path.join(homeOf("nomkdir"), "inbox", "brief"));
      const late = await send(token, "/brief/late.txt", data);
      expect(late.status).toBe(201);
      await rm(path.join(homeOf("nomkdir"), "inbox", "brief"), { recursive: true });
      const beforeCommit = await snapshot(homeOf("nomkdir"));
      expect((await visitor.cmd("commit", { uploadId: late.id!, hash: await blake3Hex(data) })).code).toBe(1008);
      expect(await snapshot(homeOf("nomkdir"))).toEqual(beforeCommit);
    } finally {
      await visitor.close();
    }
  });

  it("make folders when the owner holds Mkdir", async () => {
    await writeTree(homeOf("mkdirok"), { "inbox/seen.txt": "seen" });
    const token = await shareTokenOf(t, await makeLink(t, full.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "mk" }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      const data = Buffer.from("deep");
      const created = await send(token, "/new/deeper/file.txt", data);
      expect(created.status).toBe(201);
      expect(await visitor.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/new/deeper/file.txt" });
    } finally {
      await visitor.close();
    }
  });
});
