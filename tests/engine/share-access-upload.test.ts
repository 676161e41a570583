import { randomBytes } from "node:crypto";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listingEntries } from "../../contract/files";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Upload invitations on the file server (docs/file-server.md, "Share visitors"): the visitor lists
 * the invitation folder, creates folders in it and uploads into it through tus + commit; nothing
 * outside it, no overwrite, no other command; uploads are bound to the link.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let t: TestEngine;
let owner: User;
let home: string;
let token: string;
let visitor: FileClient;

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  owner = await t.createUser("su_owner", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "su_owner");
  await writeTree(home, {
    "inbox/existing.txt": "already here",
    "inbox/locked/l.txt": "forbidden to the owner",
    "inbox2/other.txt": "prefix sibling",
    "outside.txt": "outside",
  });
  const patched = await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: await t.adminToken(), body: { forbiddenPaths: ["/inbox/locked"] } });
  expect(patched.body.code).toBe(200);
  // This suite is about what a visitor may do in a folder it sees: the owner shows its contents (file drops: share-drop.test.ts).
  token = await shareTokenOf(t, await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in", shareShowContents: 1 }));
  visitor = await connectVisitor(t.fileUrl, token);
});
afterAll(async () => {
  await visitor?.close();
  await t?.stop();
});

/** Uploads `data` to the visitor path `target` through tus, then commits it on `client`; the commit reply. */
async function upload(client: FileClient, shareToken: string, target: string, data: Uint8Array) {
  const tus = tusClient(t.fileUrl, shareToken);
  const created = await tus.create({ groupId: "0", path: target }, data.length);
  expect(created.status, created.text).toBe(201);
  const patched = await tus.patch(created.id!, 0, data);
  expect(patched.status, patched.text).toBe(204);
  return client.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
}

describe("an invitation's visitor", () => {
  it("logs in as an upload invitation and sees the whole invitation folder, without the owner's forbidden paths", async () => {
    const fresh = await connectFiles(t.fileUrl, null);
    expect((await fresh.cmd("login", { shareToken: token })).data).toMatchObject({ account: "su_owner", shareUrlType: 0, shareAllowDownload: 0 });
    await fresh.close();
    const root = await visitor.ok("list", { groupId: 0, path: "/" });
    expect(root.path).toBe("/");
    expect(listingEntries(root).map((e) => e.name)).toEqual(["existing.txt"]);
    expect((await visitor.cmd("list", { groupId: 0, path: "/locked" })).code).toBe(1043);
    expect((await visitor.cmd("list", { groupId: 0, path: "/../inbox2" })).code).toBe(1066);
    expect((await visitor.cmd("list", { groupId: 0, path: "/inbox2" })).code).toBe(1043);
  });

  it("uploads a file through tus + commit into the invitation folder", async () => {
    const data = randomBytes(300_000);
    const committed = await upload(visitor, token, "/report.bin", data);
    expect(committed).toMatchObject({ code: 200, data: { path: "/report.bin", size: data.length } });
    expect((await readFile(path.join(home, "inbox", "report.bin"))).equals(data)).toBe(true);
    expect(listingEntries(await visitor.ok("list", { groupId: 0, path: "/" })).map((e) => e.name)).toEqual(["existing.txt", "report.bin"]);
    // The owner sees it in the personal space.
    const ownerFiles = await connectFiles(t.fileUrl, owner.socketToken);
    expect((await ownerFiles.ok("list", { groupId: 0, path: "/inbox" })).names).toContain("report.bin");
    await ownerFiles.close();
  });

  it("uploads a folder: mkdir, then files with sub-folders created at commit", async () => {
    expect(await visitor.ok("mkdir", { groupId: 0, path: "/", name: "photos" })).toEqual({ path: "/photos" });
    expect(await visitor.ok("mkdir", { groupId: 0, path: "/photos", name: "2024" })).toEqual({ path: "/photos/2024" });
    expect((await upload(visitor, token, "/photos/2024/one.jpg", Buffer.from("one"))).data).toMatchObject({ path: "/photos/2024/one.jpg" });
    expect((await upload(visitor, token, "/photos/deep/er/two.jpg", Buffer.from("two"))).data).toMatchObject({ path: "/photos/deep/er/two.jpg" });
    expect(await readFile(path.join(home, "inbox", "photos", "2024", "one.jpg"), "utf8")).toBe("one");
    expect(await readFile(path.join(home, "inbox", "photos", "deep", "er", "two.jpg"), "utf8")).toBe("two");
    expect((await visitor.ok("list", { groupId: 0, path: "/photos" })).names).toEqual(["2024", "deep"]);
    // Names follow the same rules as for users.
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/", name: "a/b" })).code).toBe(4161);
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/", name: "photos" })).code).toBe(4158);
  });

  it("refuses anything outside the invitation folder, overwrites and forbidden paths, and writes nothing", async () => {
    const before = await snapshot(path.join(t.dataDir, "storage", "users"));
    const tus = tusClient(t.fileUrl, token);
    const cases: [Record<string, string>, number][] = [
      [{ groupId: "0", path: "/../outside.txt" }, 1066],
      [{ groupId: "0", path: "/../inbox2/x.txt" }, 1066],
      [{ groupId: "0", path: "..\\x.txt" }, 1066],
      [{ groupId: "0", path: "/a/../../x.txt" }, 1066],
      [{ groupId: "0", path: "/．．/x.txt" }, 1066],
      [{ groupId: "0", path: "/" }, 1066],
      [{ groupId: "0", path: "/locked/new.txt" }, 1008],
      [{ groupId: "0", path: "/existing.txt" }, 4158],
      [{ groupId: "0", path: "/existing.txt", overwrite: "1" }, 1008],
      [{ groupId: "1", path: "/x.txt" }, 1008],
      [{ groupId: "0", path: "/bad:name.txt" }, 4161],
    ];
    for (const [meta, code] of cases) {
      const created = await tus.create(meta, 4);
      expect(created.body?.code, JSON.stringify(meta)).toBe(code);
      expect(created.id, JSON.stringify(meta)).toBeNull();
    }
    // tus concatenation is offered to nobody (Ferry's chunks replace it).
    expect((await tus.create({ groupId: "0", path: "/part.bin" }, 4, undefined, { "upload-concat": "partial" })).body?.code).toBe(4175);
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/..", name: "x" })).code).toBe(1066);
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/locked", name: "x" })).code).toBe(1043);
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/../inbox2", name: "x" })).code).toBe(1066);
    expect(await snapshot(path.join(t.dataDir, "storage", "users"))).toEqual(before);
  });

  it("answers 1008 to every other command", async () => {
    const before = await snapshot(path.join(t.dataDir, "storage", "users"));
    const refused: [string, Record<string, unknown>][] = [
      ["tree", { groupId: 0, path: "/" }],
      ["attributes", { groupId: 0, paths: ["/existing.txt"] }],
      ["download", { groupId: 0, paths: ["/existing.txt"] }],
      ["preview", { groupId: 0, path: "/existing.txt" }],
      ["rename", { groupId: 0, path: "/existing.txt", newName: "x.txt" }],
      ["exists", { groupId: 0, target: "/", names: ["existing.txt"] }],
      ["move", { groupId: 0, paths: ["/existing.txt"], target: "/photos" }],
      ["copy", { groupId: 0, paths: ["/existing.txt"], target: "/photos" }],
      ["remove", { groupId: 0, paths: ["/existing.txt"] }],
      ["search", { groupId: 0, path: "/", keyword: "e" }],
      ["list", { groupId: 3, path: "/" }],
      ["mkdir", { groupId: 3, path: "/", name: "x" }],
    ];
    for (const [i, [cmd, args]] of refused.entries()) {
      expect((await visitor.raw(JSON.stringify({ id: 500 + i, cmd, args }), 500 + i)).code, cmd).toBe(1008);
    }
    expect((await t.call("POST", "/api/share/files/download", { token, body: { paths: ["/existing.txt"] } })).body.code).toBe(1008);
    expect(await snapshot(path.join(t.dataDir, "storage", "users"))).toEqual(before);
  });

  it("binds an upload to its link: neither the owner's sign-in nor another link's visitor can touch it, nor the visitor the owner's", async () => {
    const data = Buffer.from("bound to the link");
    const tus = tusClient(t.fileUrl, token);
    const created = await tus.create({ groupId: "0", path: "/bound.txt" }, data.length);
    expect(created.status).toBe(201);
    // The owner's own socket token.
    const asOwner = tusClient(t.fileUrl, owner.socketToken);
    expect((await asOwner.patch(created.id!, 0, data)).status).toBe(403);
    expect((await asOwner.head(created.id!)).status).toBe(403);
    const ownerFiles = await connectFiles(t.fileUrl, owner.socketToken);
    expect((await ownerFiles.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).code).toBe(1008);
    // A second invitation of the same owner.
    const otherToken = await shareTokenOf(t, await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "two" }));
    const otherTus = tusClient(t.fileUrl, otherToken);
    expect((await otherTus.patch(created.id!, 0, data)).status).toBe(403);
    const otherVisitor = await connectVisitor(t.fileUrl, otherToken);
    expect((await otherVisitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).code).toBe(1008);
    // The owner's upload is out of the visitor's reach.
    const ownersUpload = await asOwner.create({ groupId: "0", path: "/mine.txt" }, 4);
    expect(ownersUpload.status).toBe(201);
    expect((await tus.patch(ownersUpload.id!, 0, Buffer.from("evil"))).status).toBe(403);
    expect((await tus.remove(ownersUpload.id!)).status).toBe(403);
    expect((await visitor.cmd("commit", { uploadId: ownersUpload.id!, hash: "0".repeat(64) })).code).toBe(1008);
    // The visitor finishes its own upload.
    expect((await tus.patch(created.id!, 0, data)).status).toBe(204);
    expect((await visitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).data).toMatchObject({ path: "/bound.txt" });
    // A repeated commit answers the same.
    expect((await visitor.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).data).toMatchObject({ path: "/bound.txt", size: data.length });
    expect(await readdir(path.join(home, "inbox"))).toContain("bound.txt");
    await Promise.all([ownerFiles.close(), otherVisitor.close()]);
  });

  it("applies the owner's Upload bit, Mkdir bit and quota", async () => {
    const admin = await t.adminToken();
    const data = Buffer.from("x".repeat(5000));
    await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Upload & ~Permission.Mkdir } });
    const tus = tusClient(t.fileUrl, token);
    expect((await tus.create({ groupId: "0", path: "/no-upload.txt" }, 4)).body?.code).toBe(1008);
    expect((await visitor.cmd("mkdir", { groupId: 0, path: "/", name: "no-mkdir" })).code).toBe(1008);
    await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: admin, body: { permission: PERMISSION_FULL } });
    // The home already holds more than this: a visitor's upload counts against the owner's quota.
    expect((await stat(path.join(home, "inbox", "report.bin"))).size).toBeGreaterThan(1000);
    await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: admin, body: { quota: 1000 } });
    expect((await tus.create({ groupId: "0", path: "/too-big.txt" }, data.length)).body?.code).toBe(4155);
    await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: admin, body: { quota: 0 } });
    expect((await upload(visitor, token, "/fits.txt", data)).code).toBe(200);
  });
});
