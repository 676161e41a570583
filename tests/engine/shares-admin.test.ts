import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { downloadShared } from "../support/share-visitor";
import { startTestEngine, type TestEngine } from "../support/engine";

/** The administrator's view of share links and invitations (docs/admin-api.md, "Share links"). */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const BASE = "https://files.example.com";
let t: TestEngine;
let admin: string;
type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let alice: User;
let bob: User;
const ids: Record<string, string> = {};
const urls: Record<string, string> = {};
let inviteEnd = 0;

const make = async (user: User, name: string, body: Record<string, unknown>) => {
  t.clock.advance(1000);
  const reply = await t.call("POST", "/api/share/link/create", { token: user.token, body: { shareBaseUrl: BASE, shareUrlType: 1, ...body } });
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ code: 200 });
  ids[name] = reply.body.data.shareId;
  urls[name] = reply.body.data.shareUrl;
};
const adminList = (query = "", token = admin) => t.call("GET", `/api/admin/shares${query}`, { token });
const names = (body: { data: { list: { filename: string[] }[] } }) => body.data.list.map((i) => i.filename.join(","));

beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_WEB_ORIGINS: BASE });
  admin = await t.adminToken();
  alice = await t.createUser("adm_alice", { permission: PERMISSION_FULL });
  bob = await t.createUser("adm_bob", { permission: PERMISSION_FULL });
  for (const [account, files] of [["adm_alice", ["a1.txt", "a2.txt", "a3.txt"]], ["adm_bob", ["b1.txt", "b2.txt"]]] as const) {
    const home = path.join(t.dataDir, "storage", "users", account);
    await mkdir(path.join(home, "drop"), { recursive: true });
    for (const f of files) await writeFile(path.join(home, f), f);
  }
  await make(alice, "a1", { shareFiles: ["/a1.txt"], needPassword: true, shareUrlPasswd: "Al1c", bindSwitch: 1 });
  await make(alice, "a2", { shareFiles: ["/a2.txt"], shareExpireTime: Math.floor(t.clock.now() / 1000) + 60 });
  await make(alice, "a3", { shareFiles: ["/a3.txt"] });
  inviteEnd = Math.floor(t.clock.now() / 1000) + 86_400;
  await make(alice, "aInvite", { shareUrlType: 0, shareServerPath: "/drop", needPassword: true, shareUrlPasswd: "Dr0p", shareExpireTime: inviteEnd });
  await make(bob, "b1", { shareFiles: ["/b1.txt", "/b2.txt"], needPassword: true, shareUrlPasswd: "B0b" });
  // a2 expires; a3 is cancelled by its owner.
  t.clock.advance(120_000);
  alice.token = await t.tokenFor(alice.account, alice.password);
  bob.token = await t.tokenFor(bob.account, bob.password);
  admin = await t.adminToken();
  await t.call("PATCH", "/api/share/link/cancel", { token: alice.token, body: { shareUrlList: [ids.a3] } });
  // A visitor binds a1 and downloads from it.
  await t.call("POST", "/api/share/link/verify/url", { body: { url: urls.a1, fingerprint: "visitor-device", passwd: "Al1c" }, headers: { "x-forwarded-for": "10.7.0.1" } });
  const token = (await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: urls.a1!, passwd: "Al1c", fingerprint: "visitor-device" })}`, { headers: { "x-forwarded-for": "10.7.0.1" } })).body.data.token;
  expect((await downloadShared(t, token, ["/a1.txt"], { "x-forwarded-for": "10.7.0.2" })).code).toBe(200);
});
afterAll(() => t?.stop());

describe("GET /api/admin/shares", () => {
  it("lists every user's links and invitations with owner, files, times, status, binding and downloads, never a password", async () => {
    const all = (await adminList("?pageSize=100")).body;
    expect(all).toMatchObject({ code: 200, data: { total: 5, size: 100, current: 1 } });
    // Newest first by default.
    expect(names(all)).toEqual(["b1.txt,b2.txt", "drop", "a3.txt", "a2.txt", "a1.txt"]);
    const row = (name: string) => all.data.list.find((i: { shareId: string }) => i.shareId === ids[name]);
    expect(row("a1")).toMatchObject({
      userId: alice.id,
      account: "adm_alice",
      ownerLocked: false,
      shareLink: urls.a1,
      sharePassword: "",
      needPassword: true,
      shareFiles: ["/a1.txt"],
      shareUrlType: 1,
      shareStatus: 1,
      bindSwitch: 1,
      bindDevice: "visitor-device",
      downloadCount: 1,
      shareExpireTime: 0,
    });
    expect(row("a2")).toMatchObject({ shareStatus: 2 });
    expect(row("a3")).toMatchObject({ shareStatus: 3 });
    // An invitation: its directory, invite (start) time and end time.
    expect(row("aInvite")).toMatchObject({ shareUrlType: 0, shareServerPath: "/drop", sharePassword: "", needPassword: true, shareStatus: 1 });
    expect(row("aInvite").shareExpireTime).toBe(inviteEnd);
    expect(row("aInvite").shareCreateTime).toBeLessThan(inviteEnd);
    expect(row("b1")).toMatchObject({ userId: bob.id, account: "adm_bob", sharePassword: "", filename: ["b1.txt", "b2.txt"], type: 2 });
  });

  it("pages, filters by user, account, status, kind and name, and sorts", async () => {
    const page1 = (await adminList("?pageSize=2&pageNum=1")).body.data;
    const page3 = (await adminList("?pageSize=2&pageNum=3")).body.data;
    expect(page1).toMatchObject({ total: 5, size: 2, current: 1 });
    expect(page1.list).toHaveLength(2);
    expect(page3.list).toHaveLength(1);
    expect((await adminList(`?userId=${bob.id}`)).body.data.total).toBe(1);
    expect((await adminList("?account=ALICE")).body.data.total).toBe(4);
    expect((await adminList("?account=%25")).body.data.total).toBe(0);
    expect(names((await adminList("?shareStatus=2")).body)).toEqual(["a2.txt"]);
    expect(names((await adminList("?shareStatus=3")).body)).toEqual(["a3.txt"]);
    expect((await adminList("?shareStatus=1")).body.data.total).toBe(3);
    expect(names((await adminList("?shareUrlType=0")).body)).toEqual(["drop"]);
    expect((await adminList("?shareUrlType=1")).body.data.total).toBe(4);
    expect(names((await adminList("?name=B2")).body)).toEqual(["b1.txt,b2.txt"]);
    expect(names((await adminList("?orderBy=1&order=asc")).body)).toEqual(["a1.txt", "a2.txt", "a3.txt", "b1.txt,b2.txt", "drop"]);
    expect((await adminList("?orderBy=5&order=desc")).body.data.list[0].account).toBe("adm_bob");
    expect((await adminList("?orderBy=5&order=asc")).body.data.list[0].account).toBe("adm_alice");
    expect((await adminList("?orderBy=4&order=desc")).body.data.list.map((i: { shareStatus: number }) => i.shareStatus).slice(0, 2)).toEqual([3, 2]);
    for (const bad of ["?orderBy=7", "?shareStatus=4", "?pageSize=101", "?userId=x", "?unknown=1"]) {
      expect((await adminList(bad)).body.code, bad).not.toBe(200);
    }
  });

  it("shows one link with its download records", async () => {
    const one = (await t.call("GET", `/api/admin/shares/${ids.a1}`, { token: admin })).body;
    expect(one).toMatchObject({ code: 200, data: { shareId: ids.a1, account: "adm_alice", downloadCount: 1 } });
    expect(one.data.downloads).toEqual([{ ip: "10.7.0.2", files: ["/a1.txt"], time: expect.any(Number) }]);
    expect((await t.call("GET", `/api/admin/shares/${encodeURIComponent(urls.b1!)}`, { token: admin })).body.data.shareId).toBe(ids.b1);
    expect((await t.call("GET", "/api/admin/shares/00000000-0000-4000-8000-000000000000", { token: admin })).body.code).toBe(4025);
    expect((await t.call("GET", "/api/admin/shares/not-an-id", { token: admin })).body.code).toBe(4025);
  });

  it("marks links of a locked owner, which answer 1055", async () => {
    await t.call("POST", `/api/admin/users/${bob.id}/lock`, { token: admin });
    try {
      expect((await adminList(`?userId=${bob.id}`)).body.data.list[0]).toMatchObject({ ownerLocked: true, shareStatus: 1 });
      expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: urls.b1, fingerprint: "x" } })).body.code).toBe(1055);
    } finally {
      await t.call("POST", `/api/admin/users/${bob.id}/unlock`, { token: admin });
      bob.token = await t.tokenFor(bob.account, bob.password);
    }
  });
});

describe("the administrator's actions", () => {
  it("are refused to users and to callers without a token, and change nothing", async () => {
    const calls: [string, string, unknown][] = [
      ["GET", "/api/admin/shares", undefined],
      ["GET", `/api/admin/shares/${ids.b1}`, undefined],
      ["POST", "/api/admin/shares/disable", { shareUrlList: [ids.b1] }],
      ["POST", "/api/admin/shares/delete", { shareUrlList: [ids.b1] }],
      ["POST", "/api/admin/shares/unbind", { shareUrlList: [ids.a1] }],
    ];
    for (const [method, url, body] of calls) {
      const asUser = await t.call(method, url, { token: alice.token, body });
      expect(asUser.body.code, `${method} ${url}`).toBe(1008);
      expect(JSON.stringify(asUser.body)).not.toContain("B0b");
      expect((await t.call(method, url, { body })).body.code, `${method} ${url}`).toBe(1009);
    }
    const b1 = (await t.call("GET", `/api/admin/shares/${ids.b1}`, { token: admin })).body.data;
    expect(b1).toMatchObject({ shareStatus: 1 });
    expect((await t.call("GET", `/api/admin/shares/${ids.a1}`, { token: admin })).body.data.bindDevice).toBe("visitor-device");
  });

  it("unbind frees the device and voids its tokens", async () => {
    const before = await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: urls.a1!, passwd: "Al1c", fingerprint: "visitor-device" })}`, { headers: { "x-forwarded-for": "10.7.0.1" } });
    const token = before.body.data.token as string;
    // b1 binds nothing: its visitors keep their tokens.
    const b1Token = (await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: urls.b1!, passwd: "B0b" })}`, { headers: { "x-forwarded-for": "10.7.0.5" } })).body.data.token as string;
    expect((await t.call("POST", "/api/admin/shares/unbind", { token: admin, body: { shareUrlList: [urls.a1, ids.b1, "00000000-0000-4000-8000-000000000000"] } })).body.data).toEqual({ affected: 1 });
    expect(await t.engine.services.shares.access.resolveShareToken(b1Token)).toMatchObject({ linkId: ids.b1 });
    expect((await t.call("GET", `/api/admin/shares/${ids.a1}`, { token: admin })).body.data.bindDevice).toBe("");
    expect((await t.call("POST", "/api/share/link/download/count", { token, body: { accessDest: ["/a1.txt"] } })).body.code).toBe(1009);
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: urls.a1, fingerprint: "second-device", passwd: "Al1c" } })).body.code).toBe(200);
  });

  it("disable stops any user's link at once (1055), also for visitors already in", async () => {
    const token = (await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: urls.b1!, passwd: "B0b" })}`, { headers: { "x-forwarded-for": "10.7.0.3" } })).body.data.token as string;
    expect((await t.call("POST", "/api/admin/shares/disable", { token: admin, body: { shareUrlList: [urls.b1, ids.a3] } })).body.data).toEqual({ affected: 2 });
    expect((await t.call("POST", "/api/share/link/download/count", { token, body: { accessDest: ["/b1.txt"] } })).body.code).toBe(1055);
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: urls.b1, fingerprint: "x" } })).body.code).toBe(1055);
    const own = (await t.call("GET", "/api/share/link/list?pageSize=100", { token: bob.token })).body.data.sharelinkinfo;
    expect(own.find((i: { shareId: string }) => i.shareId === ids.b1)).toMatchObject({ shareStatus: 3 });
  });

  it("delete removes any user's link with its tokens and records", async () => {
    const token = (await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: urls.aInvite!, passwd: "Dr0p" })}`, { headers: { "x-forwarded-for": "10.7.0.4" } })).body.data.token as string;
    expect((await t.call("POST", "/api/admin/shares/delete", { token: admin, body: { shareUrlList: [ids.aInvite, ids.a1] } })).body.data).toEqual({ affected: 2 });
    expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
    expect((await t.call("POST", "/api/share/link/verify/url", { body: { url: urls.aInvite, fingerprint: "x" } })).body.code).toBe(4025);
    expect((await t.call("GET", `/api/admin/shares/${ids.a1}`, { token: admin })).body.code).toBe(4025);
    expect((await adminList(`?userId=${alice.id}`)).body.data.total).toBe(2);
    const downloads = await t.engine.services.db.kysely.selectFrom("share_downloads").select("id").where("link_id", "=", ids.a1!).execute();
    expect(downloads).toHaveLength(0);
    expect((await t.call("POST", "/api/admin/shares/delete", { token: admin, body: { shareUrlList: [ids.a1] } })).body.data).toEqual({ affected: 0 });
  });
});
