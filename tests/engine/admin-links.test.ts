import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { closed, connectVisitor, downloadShared, FINGERPRINT, makeLink, type MadeLink, SHARE_BASE, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * The administrator's Links screens over the engine (docs/admin-api.md, "Links"): every user's
 * download links and invitations filtered, sorted and paged; each link's downloads (address, files,
 * time, bytes) paged; disable (visitors refused with 1055 everywhere) and enable again; unbind; delete.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let t: TestEngine;
let admin: string;
let ann: User;
let ben: User;
const big = randomBytes(40_000);
const links: Record<string, MadeLink> = {};
let beforeBen = 0;

const list = async (query: string) => {
  const reply = await t.call("GET", `/api/admin/shares${query}`, { token: admin });
  expect(reply.body.code, `${query} ${JSON.stringify(reply.body)}`).toBe(200);
  return reply.body.data as { list: { shareId: string; filename: string[]; downloadCount: number; shareStatus: number; disabled: boolean; account: string }[]; total: number };
};
const idsOf = (data: { list: { shareId: string }[] }) => data.list.map((l) => l.shareId);
const from = (address: string) => ({ "x-forwarded-for": address });
const tokenFrom = async (link: MadeLink, address: string, fingerprint = FINGERPRINT) => {
  const params = new URLSearchParams({ url: link.shareUrl, fingerprint, ...(link.sharePassword ? { passwd: link.sharePassword } : {}) });
  const reply = await t.call("GET", `/api/share/link/info?${params}`, { headers: from(address) });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.token as string;
};

beforeAll(async () => {
  t = await startTestEngine({ FERRY_WEB_ORIGINS: SHARE_BASE, FERRY_TRUSTED_PROXIES: "127.0.0.1" });
  admin = await t.adminToken();
  ann = await t.createUser("la_ann", { permission: PERMISSION_FULL });
  ben = await t.createUser("la_ben", { permission: PERMISSION_FULL });
  await writeTree(path.join(t.dataDir, "storage", "users", "la_ann"), { "pub/big.bin": big, "pub/small.txt": "12345", "notes/plan.txt": "plan", "inbox/.keep": "" });
  await writeTree(path.join(t.dataDir, "storage", "users", "la_ben"), { "report.pdf": "report", "docs/a.txt": "a", "drop/.keep": "" });
  const make = async (name: string, user: User, body: Record<string, unknown>) => {
    t.clock.advance(1000);
    links[name] = await makeLink(t, user.token, body);
  };
  await make("annPub", ann, { shareFiles: ["/pub"] });
  await make("annPlan", ann, { shareFiles: ["/notes/plan.txt"], shareExpireTime: Math.floor(t.clock.now() / 1000) + 3600, bindSwitch: 1 });
  await make("annInvite", ann, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in1" });
  beforeBen = Math.floor(t.clock.now() / 1000);
  t.clock.advance(5000);
  await make("benReport", ben, { shareFiles: ["/report.pdf", "/docs"], needPassword: true, shareUrlPasswd: "r3p" });
  await make("benDrop", ben, { shareUrlType: 0, shareServerPath: "/drop", needPassword: true, shareUrlPasswd: "dr0" });
});
afterAll(() => t?.stop());

describe("download statistics", () => {
  it("records each visitor download with its address, files, time and bytes, newest first and paged", async () => {
    const first = await tokenFrom(links.annPub!, "10.20.0.1");
    const second = await tokenFrom(links.annPub!, "10.20.0.2");
    expect((await downloadShared(t, first, ["/pub/big.bin"], from("10.20.0.1"))).code).toBe(200);
    t.clock.advance(1000);
    expect((await downloadShared(t, second, ["/pub"], from("10.20.0.2"))).code).toBe(200);
    t.clock.advance(1000);
    expect((await downloadShared(t, second, ["/pub/small.txt"], from("10.20.0.3"))).code).toBe(200);

    const page1 = await t.call("GET", `/api/admin/shares/${links.annPub!.shareId}/downloads?pageSize=2`, { token: admin });
    expect(page1.body.data).toMatchObject({ total: 3, size: 2, current: 1 });
    expect(page1.body.data.list).toEqual([
      { ip: "10.20.0.3", files: ["/pub/small.txt"], time: expect.any(Number), bytes: 5 },
      { ip: "10.20.0.2", files: ["/pub"], time: expect.any(Number), bytes: big.length + 5 },
    ]);
    const page2 = await t.call("GET", `/api/admin/shares/${links.annPub!.shareId}/downloads?pageSize=2&pageNum=2`, { token: admin });
    expect(page2.body.data.list).toEqual([{ ip: "10.20.0.1", files: ["/pub/big.bin"], time: expect.any(Number), bytes: big.length }]);
    expect(page1.body.data.list[0].time - page2.body.data.list[0].time).toBe(2);
    expect((await list("?shareUrlType=1")).list.find((l) => l.shareId === links.annPub!.shareId)?.downloadCount).toBe(3);
    // Unknown links and bad pages are refused; nothing else is read.
    expect((await t.call("GET", "/api/admin/shares/00000000-0000-4000-8000-000000000000/downloads", { token: admin })).body.code).toBe(4025);
    expect((await t.call("GET", `/api/admin/shares/${links.annPub!.shareId}/downloads?pageSize=500`, { token: admin })).body.code).toBe(400);
  });
});

describe("the list", () => {
  it("filters by kind, owner, status, created range and text in names or paths; sorts by downloads; pages", async () => {
    expect((await list("?shareUrlType=0")).total).toBe(2);
    expect((await list("?shareUrlType=1")).total).toBe(3);
    expect((await list("?account=la_BEN")).total).toBe(2);
    expect((await list(`?userId=${ann.id}&shareUrlType=0`)).list.map((l) => l.shareId)).toEqual([links.annInvite!.shareId]);
    // Text: a shared item's name, a path inside the owner's space, or an invitation's directory.
    expect(idsOf(await list("?name=PLAN"))).toEqual([links.annPlan!.shareId]);
    expect(idsOf(await list("?name=%2Fnotes%2F"))).toEqual([links.annPlan!.shareId]);
    expect(idsOf(await list("?name=inbox"))).toEqual([links.annInvite!.shareId]);
    expect((await list("?name=%25")).total).toBe(0);
    expect((await list(`?EndTime=${beforeBen}`)).total).toBe(3);
    expect((await list(`?StartTime=${beforeBen + 1}`)).total).toBe(2);
    // Sorted by downloads, the most first; ties newest first.
    const byDownloads = await list("?shareUrlType=1&orderBy=6&order=desc");
    expect(idsOf(byDownloads)[0]).toBe(links.annPub!.shareId);
    expect(idsOf(await list("?shareUrlType=1&orderBy=6&order=asc")).at(-1)).toBe(links.annPub!.shareId);
    // Expiry: "never" after every date.
    expect(idsOf(await list("?shareUrlType=1&orderBy=3&order=asc"))[0]).toBe(links.annPlan!.shareId);
    const page = await list("?pageSize=2&pageNum=3");
    expect(page).toMatchObject({ total: 5 });
    expect(page.list).toHaveLength(1);
    for (const bad of ["?orderBy=7", "?shareStatus=0", "?pageSize=0", "?name=" + "x".repeat(300)]) {
      expect((await t.call("GET", `/api/admin/shares${bad}`, { token: admin })).body.code, bad).toBe(400);
    }
  });
});

describe("disable and enable", () => {
  it("a disabled link refuses its visitors with 1055 everywhere: page, token, listing, download, zip, invitation upload; enable lets them in again", async () => {
    const downloadToken = await tokenFrom(links.benReport!, "10.30.0.1");
    const inviteToken = await tokenFrom(links.benDrop!, "10.30.0.2");
    const downloader = await connectVisitor(t.fileUrl, downloadToken);
    const uploader = await connectVisitor(t.fileUrl, inviteToken);
    const ticket = await t.call("POST", "/api/share/files/download", { token: downloadToken, body: { paths: ["/report.pdf"] } });
    expect(ticket.body.code).toBe(200);
    const zipTicket = await t.call("POST", "/api/share/files/download", { token: downloadToken, body: { paths: ["/docs"] } });
    expect(zipTicket.body.code).toBe(200);
    const data = Buffer.from("uploaded by a visitor");
    const tus = tusClient(t.fileUrl, inviteToken);
    const created = await tus.create({ groupId: "0", path: "/sent.txt" }, data.length);
    expect(created.status).toBe(201);

    const disabled = await t.call("POST", "/api/admin/shares/disable", { token: admin, body: { shareUrlList: [links.benReport!.shareUrl, links.benDrop!.shareId] } });
    expect(disabled.body.data).toEqual({ affected: 2 });
    // Again: nothing more to disable.
    expect((await t.call("POST", "/api/admin/shares/disable", { token: admin, body: { shareUrlList: [links.benReport!.shareId] } })).body.data).toEqual({ affected: 0 });

    // The visitor's page: verify and a new token.
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.benReport!.shareUrl, fingerprint: "x" } })).body.code).toBe(1055);
    const info = await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: links.benDrop!.shareUrl, passwd: "dr0" })}`);
    expect(info.body.code).toBe(1055);
    // Tokens already handed out: REST, socket, the download URL, the zip, the upload.
    expect((await t.call("GET", "/api/share/files/list", { token: downloadToken })).body.code).toBe(1055);
    expect((await t.call("POST", "/api/share/files/download", { token: downloadToken, body: { paths: ["/"] } })).body.code).toBe(1055);
    for (const url of [ticket.body.data.url, zipTicket.body.data.url]) {
      const got = await fetch(t.fileUrl + url);
      expect(got.status).toBe(403);
      expect(await got.text()).toContain("The link has been disabled");
    }
    const downloaderClosed = closed(downloader);
    expect((await downloader.cmd("list", { groupId: 0, path: "/" })).code).toBe(1055);
    expect(await downloaderClosed).toBe(4001);
    const uploaderClosed = closed(uploader);
    expect((await uploader.cmd("list", { groupId: 0, path: "/" })).code).toBe(1055);
    expect(await uploaderClosed).toBe(4001);
    expect((await tus.patch(created.id!, 0, data)).body?.code).toBe(1055);
    expect((await tusClient(t.fileUrl, inviteToken).create({ groupId: "0", path: "/other.txt" }, 3)).body?.code).toBe(1055);

    // The administrator and the owner see it disabled.
    const rows = (await list(`?userId=${ben.id}&shareStatus=3`)).list;
    expect(rows.map((r) => [r.shareId, r.disabled]).sort()).toEqual([[links.benDrop!.shareId, true], [links.benReport!.shareId, true]].sort());
    expect((await list(`?userId=${ben.id}&shareStatus=1`)).total).toBe(0);
    const own = (await t.call("GET", "/api/share/link/list?shareUrlType=1", { token: ben.token })).body.data.sharelinkinfo;
    expect(own[0]).toMatchObject({ shareId: links.benReport!.shareId, shareStatus: 3 });

    // Enabled again: the same tokens work, a new visitor gets in and uploads.
    expect((await t.call("POST", "/api/admin/shares/enable", { token: admin, body: { shareUrlList: [links.benReport!.shareId, links.benDrop!.shareId, links.annPub!.shareId] } })).body.data).toEqual({ affected: 2 });
    expect((await list(`?userId=${ben.id}&shareStatus=1`)).list.every((r) => !r.disabled)).toBe(true);
    expect((await t.call("GET", "/api/share/files/list", { token: downloadToken })).body.code).toBe(200);
    expect((await downloadShared(t, downloadToken, ["/report.pdf"], from("10.30.0.1"))).code).toBe(200);
    const again = await connectVisitor(t.fileUrl, inviteToken);
    const upload = await tusClient(t.fileUrl, inviteToken).create({ groupId: "0", path: "/sent.txt" }, data.length);
    expect((await tusClient(t.fileUrl, inviteToken).patch(upload.id!, 0, data)).status).toBe(204);
    expect((await again.cmd("commit", { uploadId: upload.id!, hash: await blake3Hex(data) })).code).toBe(200);
    await again.close();
  });

  it("an owner's own cancel stays a cancel (1041): enable does not undo it", async () => {
    await t.call("PATCH", "/api/share/link/cancel", { token: ann.token, body: { shareUrlList: [links.annInvite!.shareId] } });
    expect((await t.call("POST", "/api/admin/shares/enable", { token: admin, body: { shareUrlList: [links.annInvite!.shareId] } })).body.data).toEqual({ affected: 0 });
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.annInvite!.shareUrl, fingerprint: "x" } })).body.code).toBe(1041);
    // Disabled on top of the cancel: the administrator's word (1055) is what visitors get.
    expect((await t.call("POST", "/api/admin/shares/disable", { token: admin, body: { shareUrlList: [links.annInvite!.shareId] } })).body.data).toEqual({ affected: 1 });
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.annInvite!.shareUrl, fingerprint: "x" } })).body.code).toBe(1055);
  });
});

describe("unbind and delete", () => {
  it("unbind frees the first device: its token stops (1096), another device may bind", async () => {
    const bound = await tokenFrom(links.annPlan!, "10.40.0.1", "first-device");
    expect((await t.call("GET", `/api/admin/shares/${links.annPlan!.shareId}`, { token: admin })).body.data).toMatchObject({ bindSwitch: 1, bindDevice: "first-device" });
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.annPlan!.shareUrl, fingerprint: "second-device" } })).body.code).toBe(1096);
    expect((await t.call("POST", "/api/admin/shares/unbind", { token: admin, body: { shareUrlList: [links.annPlan!.shareId] } })).body.data).toEqual({ affected: 1 });
    expect((await t.call("GET", "/api/share/files/list", { token: bound })).body.code).toBe(1009);
    expect((await t.call("GET", `/api/admin/shares/${links.annPlan!.shareId}`, { token: admin })).body.data.bindDevice).toBe("");
    await tokenFrom(links.annPlan!, "10.40.0.2", "second-device");
    expect((await t.call("GET", `/api/admin/shares/${links.annPlan!.shareId}`, { token: admin })).body.data.bindDevice).toBe("second-device");
  });

  it("delete removes exactly the links sent, with their download statistics", async () => {
    const before = (await list("?pageSize=50")).total;
    expect((await t.call("POST", "/api/admin/shares/delete", { token: admin, body: { shareUrlList: [links.annPub!.shareId] } })).body.data).toEqual({ affected: 1 });
    expect((await list("?pageSize=50")).total).toBe(before - 1);
    expect((await t.call("GET", `/api/admin/shares/${links.annPub!.shareId}/downloads`, { token: admin })).body.code).toBe(4025);
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.annPub!.shareUrl, fingerprint: "x" } })).body.code).toBe(4025);
    expect(await t.engine.services.db.kysely.selectFrom("share_downloads").select("id").where("link_id", "=", links.annPub!.shareId).execute()).toHaveLength(0);
  });

  it("every action is the administrator's: users get 1008, anonymous callers 1009, nothing changes", async () => {
    const body = { shareUrlList: [links.benReport!.shareId] };
    for (const [method, url] of [
      ["POST", "/api/admin/shares/disable"],
      ["POST", "/api/admin/shares/enable"],
      ["GET", `/api/admin/shares/${links.benReport!.shareId}/downloads`],
    ] as const) {
      expect((await t.call(method, url, { token: ben.token, body: method === "POST" ? body : undefined })).body.code, url).toBe(1008);
      expect((await t.call(method, url, { body: method === "POST" ? body : undefined })).body.code, url).toBe(1009);
    }
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: links.benReport!.shareUrl, fingerprint: "x" } })).body.code).toBe(200);
  });
});
