import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import type { FileClient } from "../support/file-client";
import { closed, connectVisitor, makeLink, type MadeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Every use of a share token checks the link again (docs/file-server.md, "Share visitors"):
 * cancelling, deleting or expiring a link, locking its owner or taking the owner's Share bit stops
 * an open visitor socket at its next command, a pending tus upload at its next PATCH and a signed
 * download URL already handed out.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let t: TestEngine;
const data = randomBytes(64 * 1024);

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
});
afterAll(() => t?.stop());

interface Visitors {
  owner: User;
  download: MadeLink;
  invite: MadeLink;
  downloadToken: string;
  inviteToken: string;
  downloader: FileClient;
  uploader: FileClient;
  /** A download URL issued before the change. */
  url: string;
  /** A tus upload created and half sent before the change. */
  uploadId: string;
}

/** An owner with a download link and an invitation, a visitor in each, a download URL and a pending upload. */
async function visitors(account: string, expireInSeconds = 0): Promise<Visitors> {
  const owner = await t.createUser(account, { permission: PERMISSION_FULL });
  await writeTree(path.join(t.dataDir, "storage", "users", account), { "pub/f.bin": data, "inbox/.keep": "" });
  const shareExpireTime = expireInSeconds ? Math.floor(t.clock.now() / 1000) + expireInSeconds : 0;
  const download = await makeLink(t, owner.token, { shareFiles: ["/pub"], shareExpireTime });
  const invite = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up", shareExpireTime });
  const downloadToken = await shareTokenOf(t, download);
  const inviteToken = await shareTokenOf(t, invite);
  const downloader = await connectVisitor(t.fileUrl, downloadToken);
  const uploader = await connectVisitor(t.fileUrl, inviteToken);
  const { url } = await downloader.ok("download", { groupId: 0, paths: ["/pub/f.bin"] });
  expect((await fetch(t.fileUrl + url)).status).toBe(200);
  const tus = tusClient(t.fileUrl, inviteToken);
  const created = await tus.create({ groupId: "0", path: "/sent.bin" }, data.length);
  expect(created.status).toBe(201);
  expect((await tus.patch(created.id!, 0, data.subarray(0, 1000))).status).toBe(204);
  return { owner, download, invite, downloadToken, inviteToken, downloader, uploader, url, uploadId: created.id! };
}

/** Everything a visitor holds is refused with `code`; open sockets close (4001). */
async function expectStopped(v: Visitors, code: number, urlStatus: number) {
  const downloaderClosed = closed(v.downloader);
  const uploaderClosed = closed(v.uploader);
  expect((await v.downloader.cmd("list", { groupId: 0, path: "/pub" })).code).toBe(code);
  expect(await downloaderClosed).toBe(4001);
  expect((await v.uploader.cmd("list", { groupId: 0, path: "/" })).code).toBe(code);
  expect(await uploaderClosed).toBe(4001);

  const got = await fetch(t.fileUrl + v.url);
  expect(got.status).toBe(urlStatus);
  expect(got.headers.get("content-type")).toContain("text/plain");

  const tus = tusClient(t.fileUrl, v.inviteToken);
  const patch = await tus.patch(v.uploadId, 1000, data.subarray(1000));
  expect(patch.body?.code).toBe(code);
  expect(patch.status).toBe(code === 1009 ? 401 : 400);
  expect((await tus.head(v.uploadId)).status).not.toBe(200);

  // A new socket, a new upload and the REST calls are refused the same way.
  const again = await connectVisitor(t.fileUrl, v.downloadToken).catch((error: Error) => error);
  expect(String(again)).toContain(`share login failed: ${code}`);
  expect((await tusClient(t.fileUrl, v.inviteToken).create({ groupId: "0", path: "/new.bin" }, 4)).body?.code).toBe(code);
  expect((await t.call("GET", "/api/share/files/list", { token: v.downloadToken })).body.code).toBe(code);
  expect((await t.call("POST", "/api/share/files/download", { token: v.downloadToken, body: { paths: ["/pub/f.bin"] } })).body.code).toBe(code);
}

describe("a link that stops working stops its visitors at once", () => {
  it("cancel: 1041", async () => {
    const v = await visitors("rv_cancel");
    const cancelled = await t.call("PATCH", "/api/share/link/cancel", { token: v.owner.token, body: { shareUrlList: [v.download.shareUrl, v.invite.shareUrl] } });
    expect(cancelled.body.data).toEqual({ affected: 2 });
    await expectStopped(v, 1041, 403);
  });

  it("delete: the tokens are gone (1009)", async () => {
    const v = await visitors("rv_delete");
    const deleted = await t.call("POST", "/api/share/link/delete", { token: v.owner.token, body: { shareUrlList: [v.download.shareId, v.invite.shareId] } });
    expect(deleted.body.data).toEqual({ affected: 2 });
    await expectStopped(v, 1009, 403);
  });

  it("expiry, on the engine's clock: 1037, and the URL answers 410 before its own expiry", async () => {
    const v = await visitors("rv_expire", 120);
    t.clock.advance(121_000);
    // The ticket itself is valid for FERRY_DOWNLOAD_TICKET_TTL (300 s): the link's expiry is what stops it.
    await expectStopped(v, 1037, 410);
  });

  it("the owner locked: 1055", async () => {
    const v = await visitors("rv_locked");
    const locked = await t.call("PATCH", `/api/admin/users/${v.owner.id}`, { token: await t.adminToken(), body: { locked: true } });
    expect(locked.body.code).toBe(200);
    await expectStopped(v, 1055, 403);
  });

  it("the owner's Share bit and Download bit are read at every use", async () => {
    const v = await visitors("rv_bits");
    const admin = await t.adminToken();
    // Without Download the visitor may still look, but not download, and the URL handed out stops.
    await t.call("PATCH", `/api/admin/users/${v.owner.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Download } });
    expect((await v.downloader.ok("list", { groupId: 0, path: "/pub" })).names).toEqual(["f.bin"]);
    expect((await v.downloader.cmd("download", { groupId: 0, paths: ["/pub/f.bin"] })).code).toBe(1008);
    expect((await fetch(t.fileUrl + v.url)).status).toBe(403);
    // Without Share the download link is disabled; the invitation (Invite) still works.
    await t.call("PATCH", `/api/admin/users/${v.owner.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Share } });
    const downloaderClosed = closed(v.downloader);
    expect((await v.downloader.cmd("list", { groupId: 0, path: "/" })).code).toBe(1055);
    expect(await downloaderClosed).toBe(4001);
    const tus = tusClient(t.fileUrl, v.inviteToken);
    expect((await tus.patch(v.uploadId, 1000, data.subarray(1000))).status).toBe(204);
    expect((await v.uploader.cmd("commit", { uploadId: v.uploadId, hash: await blake3Hex(data) })).data).toMatchObject({ path: "/sent.bin", size: data.length });
    // Without Invite the invitation stops too, between the last PATCH and the commit.
    const second = await tus.create({ groupId: "0", path: "/second.bin" }, 3);
    expect((await tus.patch(second.id!, 0, Buffer.from("abc"))).status).toBe(204);
    await t.call("PATCH", `/api/admin/users/${v.owner.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Invite } });
    expect((await v.uploader.cmd("commit", { uploadId: second.id!, hash: await blake3Hex(Buffer.from("abc")) })).code).toBe(1055);
  });
});
