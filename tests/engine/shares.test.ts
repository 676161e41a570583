import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { SHARE_ATTEMPTS_PER_ADDRESS, SHARE_ATTEMPTS_PER_LINK, SHARE_MAX_FILES } from "../../contract/share";
import { startTestEngine, type TestEngine } from "../support/engine";
import { downloadShared } from "../support/share-visitor";

/** Share links and invitations over the REST API (docs/shares.md). */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
const BASE = "https://files.example.com";
type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let owner: User;
let other: User;
let homeOf: (account: string) => string;

beforeAll(async () => {
  // 127.0.0.1 is a trusted proxy here, so tests pick the visitor's address with X-Forwarded-For.
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_WEB_ORIGINS: BASE });
  homeOf = (account) => path.join(t.dataDir, "storage", "users", account);
  owner = await t.createUser("share_owner", { permission: PERMISSION_FULL });
  other = await t.createUser("share_other", { permission: PERMISSION_FULL });
  const home = homeOf("share_owner");
  await mkdir(path.join(home, "docs", "inner"), { recursive: true });
  await mkdir(path.join(home, "inbox"), { recursive: true });
  await mkdir(path.join(home, "secret"), { recursive: true });
  await writeFile(path.join(home, "docs", "a.txt"), "alpha");
  await writeFile(path.join(home, "docs", "b.txt"), "bravo");
  await writeFile(path.join(home, "docs", "inner", "c.txt"), "charlie");
  await writeFile(path.join(home, "secret", "s.txt"), "hidden");
  await writeFile(path.join(home, "top.txt"), "top");
  await writeFile(path.join(homeOf("share_other"), "theirs.txt"), "theirs");
  // "secret" is forbidden for the owner.
  const admin = await t.adminToken();
  const patched = await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: admin, body: { forbiddenPaths: ["/secret"] } });
  expect(patched.body.code).toBe(200);
});
afterAll(() => t?.stop());
// Tests move the clock by hours; sign in afresh so the owners' access tokens stay valid.
beforeEach(async () => {
  owner.token = await t.tokenFor(owner.account, owner.password);
  other.token = await t.tokenFor(other.account, other.password);
});

const create = (token: string, body: Record<string, unknown>) =>
  t.call("POST", "/api/share/link/create", { token, body: { shareBaseUrl: BASE, shareUrlType: 1, ...body } });
async function link(body: Record<string, unknown>, token = owner.token) {
  const reply = await create(token, body);
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ code: 200 });
  return reply.body.data as { shareUrl: string; shareId: string; sharePassword: string };
}
const list = (token: string, query = "") => t.call("GET", `/api/share/link/list${query}`, { token });
const ip = (address: string) => ({ "x-forwarded-for": address });
const verify = (url: string, body: Record<string, unknown> = {}, address = "10.0.0.1") =>
  t.call("POST", "/api/share/link/verify/url", { body: { url, fingerprint: "fp-one", ...body }, headers: ip(address) });
const info = (url: string, params: Record<string, string> = {}, options: { token?: string; address?: string } = {}) =>
  t.call("GET", `/api/share/link/info?${new URLSearchParams({ url, ...params })}`, { token: options.token, headers: ip(options.address ?? "10.0.0.1") });
const countGet = (sid: string, token?: string) => t.call("GET", `/api/share/link/download/count?sid=${encodeURIComponent(sid)}`, { token });
const countPost = (token: string, accessDest: string[]) => t.call("POST", "/api/share/link/download/count", { token, body: { accessDest }, headers: ip("10.9.9.9") });

describe("creating links", () => {
  it("makes a download link with a long random id, listed with every field", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: " Zq 9x ", shareExpireTime: 0 });
    expect(made.shareUrl).toMatch(/^https:\/\/files\.example\.com\/share\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(made.sharePassword).toBe("Zq9x");
    const item = (await list(owner.token)).body.data.sharelinkinfo.find((i: { shareId: string }) => i.shareId === made.shareId);
    expect(item).toMatchObject({
      shareLink: made.shareUrl,
      sharePassword: "Zq9x",
      needPassword: true,
      filename: ["a.txt"],
      shareFiles: ["/docs/a.txt"],
      shareServerPath: "/docs",
      type: 0,
      shareUrlType: 1,
      shareAllowDownload: 1,
      shareExpireTime: 0,
      shareEmail: "",
      notifyEmail: 0,
      shareStatus: 1,
      bindSwitch: 0,
      bindDevice: "",
      downloadCount: 0,
    });
    expect(item.shareCreateTime).toBe(Math.floor(t.clock.now() / 1000));
  });

  it("takes names relative to shareServerPath, folders and several items, with aliases", async () => {
    const folder = await link({ shareServerPath: "/docs", shareFiles: ["inner"] });
    const several = await link({ shareServerPath: "/docs", shareFiles: ["a.txt", "/docs/b.txt"], fileAlias: [{ file: "a.txt", alias: "first.txt" }] });
    const items = (await list(owner.token, "?pageSize=100")).body.data.sharelinkinfo;
    expect(items.find((i: { shareId: string }) => i.shareId === folder.shareId)).toMatchObject({ type: 1, filename: ["inner"], shareFiles: ["/docs/inner"] });
    expect(items.find((i: { shareId: string }) => i.shareId === several.shareId)).toMatchObject({ type: 2, filename: ["first.txt", "b.txt"], shareServerPath: "/docs" });
  });

  it("refuses what the rules refuse, and creates nothing", async () => {
    const before = (await list(owner.token, "?pageSize=100")).body.data.total;
    const cases: [Record<string, unknown>, number][] = [
      [{ shareFiles: [] }, 4233],
      [{ shareFiles: ["/docs/missing.txt"] }, 1043],
      [{ shareFiles: ["/secret/s.txt"] }, 1008],
      [{ shareFiles: ["/secret"] }, 1008],
      [{ shareFiles: ["/"] }, 1066],
      [{ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: "1234567" }, 4230],
      [{ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: "   " }, 4230],
      [{ shareFiles: ["/docs/a.txt"], shareExpireTime: Math.floor(t.clock.now() / 1000) - 10 }, 4232],
      [{ shareFiles: ["/docs/a.txt"], shareBaseUrl: "javascript:alert(1)" }, 4235],
      [{ shareFiles: ["/docs/a.txt"], shareBaseUrl: "https://user:pw@evil.example" }, 4235],
      [{ shareFiles: ["/docs/a.txt"], shareEmail: "not-an-address" }, 1022],
      [{ shareFiles: ["/docs/a.txt"], shareEmail: "a@example.com\r\nBcc: x@example.com" }, 1022],
      // No mail account is set for this user or the server.
      [{ shareFiles: ["/docs/a.txt"], shareEmail: "friend@example.com" }, 4135],
      [{ shareFiles: ["/docs/a.txt"], notifyEmail: 1 }, 4135],
      // Aliases: error1 a folder, error2 ten files, error3 format, error4 another file's name, error5 duplicates.
      [{ shareFiles: ["/docs/inner", "/docs/a.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "x.txt" }] }, 4197],
      [{ shareFiles: ["/docs/a.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "bad/name" }] }, 4198],
      [{ shareFiles: ["/docs/a.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "line\nbreak" }] }, 4198],
      [{ shareFiles: ["/docs/a.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "x".repeat(256) }] }, 4198],
      [{ shareFiles: ["/docs/a.txt", "/docs/b.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "b.txt" }] }, 4199],
      [{ shareFiles: ["/docs/a.txt", "/docs/b.txt"], fileAlias: [{ file: "/docs/a.txt", alias: "same" }, { file: "/docs/b.txt", alias: "same" }] }, 4200],
      // Invitations: one folder, always a password.
      [{ shareUrlType: 0, shareServerPath: "/inbox", needPassword: false }, 4230],
      [{ shareUrlType: 0, shareServerPath: "/top.txt", needPassword: true, shareUrlPasswd: "abcd" }, 4234],
      [{ shareUrlType: 0, shareFiles: ["/inbox", "/docs"], needPassword: true, shareUrlPasswd: "abcd" }, 4234],
      [{ shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "abcd", fileAlias: [{ file: "/inbox", alias: "x" }] }, 4197],
    ];
    for (const [body, code] of cases) {
      expect((await create(owner.token, body)).body.code, JSON.stringify(body)).toBe(code);
    }
    const tenFiles = Array.from({ length: 10 }, (_, i) => `/many/f${i}.txt`);
    await mkdir(path.join(homeOf("share_owner"), "many"), { recursive: true });
    await Promise.all(tenFiles.map((f) => writeFile(path.join(homeOf("share_owner"), f), f)));
    expect((await create(owner.token, { shareFiles: tenFiles, fileAlias: [{ file: tenFiles[0], alias: "z.txt" }] })).body.code).toBe(4197);
    // Two items of one name from different folders would hide one another in the visitor's view.
    await mkdir(path.join(homeOf("share_owner"), "other"), { recursive: true });
    await writeFile(path.join(homeOf("share_owner"), "other", "a.txt"), "other a");
    expect((await create(owner.token, { shareFiles: ["/docs/a.txt", "/other/a.txt"] })).body.code).toBe(4237);
    expect((await list(owner.token, "?pageSize=100")).body.data.total).toBe(before);
    // An alias tells them apart.
    const aliased = await create(owner.token, { shareFiles: ["/docs/a.txt", "/other/a.txt"], fileAlias: [{ file: "/other/a.txt", alias: "a (other).txt" }] });
    expect(aliased.body.code).toBe(200);
  });

  it("needs the Share bit for links and the Invite bit for invitations", async () => {
    const shareOnly = await t.createUser("share_only", { permission: Permission.List | Permission.Download | Permission.Share });
    const inviteOnly = await t.createUser("invite_only", { permission: Permission.List | Permission.Upload | Permission.Invite });
    await mkdir(path.join(homeOf("share_only"), "in"), { recursive: true });
    await writeFile(path.join(homeOf("share_only"), "f.txt"), "f");
    await mkdir(path.join(homeOf("invite_only"), "in"), { recursive: true });
    await writeFile(path.join(homeOf("invite_only"), "f.txt"), "f");
    const invite = { shareUrlType: 0, shareServerPath: "/in", needPassword: true, shareUrlPasswd: "abcd" };
    expect((await create(shareOnly.token, { shareFiles: ["/f.txt"] })).body.code).toBe(200);
    expect((await create(shareOnly.token, invite)).body.code).toBe(1008);
    expect((await create(inviteOnly.token, { shareFiles: ["/f.txt"] })).body.code).toBe(1008);
    expect((await create(inviteOnly.token, invite)).body.code).toBe(200);
    expect((await t.call("POST", "/api/share/link/create", { body: { shareUrlType: 1, shareFiles: ["/f.txt"] } })).body.code).toBe(1009);
  });

  it("counts files through folders: at most 10,000", async () => {
    const big = path.join(homeOf("share_owner"), "big");
    await mkdir(path.join(big, "sub"), { recursive: true });
    const names = Array.from({ length: SHARE_MAX_FILES }, (_, i) => path.join(big, i % 2 ? "sub" : "", `f${i}`));
    for (let i = 0; i < names.length; i += 500) await Promise.all(names.slice(i, i + 500).map((n) => writeFile(n, "")));
    expect((await create(owner.token, { shareFiles: ["/big"] })).body.code).toBe(200);
    expect((await create(owner.token, { shareFiles: ["/big", "/top.txt"] })).body).toMatchObject({ code: 4196, message: expect.stringContaining("10000") });
  });

  it("confines shareFiles and shareServerPath (path attacks of SECURITY.md)", async () => {
    const attacks = [
      "/../share_other/theirs.txt",
      "../share_other/theirs.txt",
      "/docs/../../share_other/theirs.txt",
      "..\\share_other\\theirs.txt",
      "/docs/%2e%2e/%2e%2e/share_other/theirs.txt",
      "/docs/a.txt\u0000",
      "C:\\Windows",
      "/\uff0e\uff0e/share_other/theirs.txt",
      "/docs/\uff0e\uff0e\uff0fsecret",
      "/.ferry-tmp",
    ];
    for (const p of attacks) {
      const reply = await create(owner.token, { shareFiles: [p] });
      expect([1066, 1043], p).toContain(reply.body.code);
      const byServerPath = await create(owner.token, { shareServerPath: p, shareFiles: ["a.txt"] });
      expect([1066, 1043], p).toContain(byServerPath.body.code);
      const invite = await create(owner.token, { shareUrlType: 0, shareServerPath: p, needPassword: true, shareUrlPasswd: "abcd" });
      expect([1066, 1043], p).toContain(invite.body.code);
    }
    // "file..name" is a legal name; "/share_owner2"-style siblings are other homes, never reachable.
    await writeFile(path.join(homeOf("share_owner"), "file..name"), "ok");
    expect((await create(owner.token, { shareFiles: ["/file..name"] })).body.code).toBe(200);
  });
});

describe("the link list", () => {
  it("pages, sorts by each column and filters by name, status and create time", async () => {
    const u = await t.createUser("share_lister", { permission: PERMISSION_FULL });
    const home = homeOf("share_lister");
    const names = ["delta.txt", "alpha.txt", "charlie.txt", "bravo.txt", "echo.txt", "foxtrot.txt", "golf.txt"];
    await Promise.all(names.map((n) => writeFile(path.join(home, n), n)));
    const start = Math.floor(t.clock.now() / 1000);
    const ids: string[] = [];
    for (const [i, n] of names.entries()) {
      t.clock.advance(10_000);
      const expiry = i % 2 === 0 ? 0 : Math.floor(t.clock.now() / 1000) + 3600 * (i + 1);
      ids.push((await link({ shareFiles: [`/${n}`], shareExpireTime: expiry }, u.token)).shareId);
    }
    await mkdir(path.join(home, "box"));
    await link({ shareUrlType: 0, shareServerPath: "/box", needPassword: true, shareUrlPasswd: "abcd" }, u.token);

    const page = (q: string) => list(u.token, q).then((r) => r.body.data);
    const first = await page("?shareUrlType=1&pageNum=1&pageSize=3");
    expect(first).toMatchObject({ total: 7, size: 3, current: 1, pages: 3 });
    expect(first.sharelinkinfo.map((i: { filename: string[] }) => i.filename[0])).toEqual(["golf.txt", "foxtrot.txt", "echo.txt"]);
    expect((await page("?pageNum=3&pageSize=3")).sharelinkinfo).toHaveLength(1);
    expect((await page("?orderBy=1&order=asc&pageSize=10")).sharelinkinfo.map((i: { filename: string[] }) => i.filename[0])).toEqual([...names].sort());
    expect((await page("?orderBy=1&order=descend")).sharelinkinfo[0].filename[0]).toBe("golf.txt");
    expect((await page("?orderBy=2&order=asc")).sharelinkinfo[0].filename[0]).toBe("delta.txt");
    // Expire time: the soonest first ascending; "never" (0) sorts after every date.
    const byExpiry = (await page("?orderBy=3&order=asc")).sharelinkinfo.map((i: { shareExpireTime: number }) => i.shareExpireTime);
    expect(byExpiry.slice(0, 3)).toEqual([...byExpiry.slice(0, 3)].sort((a, b) => a - b));
    expect(byExpiry.slice(3)).toEqual([0, 0, 0, 0]);

    // Cancel one, let one expire: status column, status filter, status sort.
    await t.call("PATCH", "/api/share/link/cancel", { token: u.token, body: { shareUrlList: [ids[2]] } });
    t.clock.advance(2 * 3600 * 1000 + 1000);
    u.token = await t.tokenFor(u.account, u.password);
    const all = (await page("?pageSize=100")).sharelinkinfo;
    const statusOf = (n: string) => all.find((i: { filename: string[] }) => i.filename[0] === n).shareStatus;
    expect([statusOf("alpha.txt"), statusOf("charlie.txt"), statusOf("delta.txt")]).toEqual([2, 3, 1]);
    expect((await page("?shareStatus=2")).sharelinkinfo.map((i: { filename: string[] }) => i.filename[0])).toEqual(["alpha.txt"]);
    expect((await page("?shareStatus=3")).total).toBe(1);
    expect((await page("?shareStatus=1")).total).toBe(5);
    expect((await page("?orderBy=4&order=desc")).sharelinkinfo.map((i: { shareStatus: number }) => i.shareStatus).slice(0, 2)).toEqual([3, 2]);

    expect((await page("?name=ALPH")).sharelinkinfo.map((i: { filename: string[] }) => i.filename[0])).toEqual(["alpha.txt"]);
    expect((await page("?name=%25")).total).toBe(0);
    expect((await page(`?StartTime=${start + 15}&EndTime=${start + 35}`)).sharelinkinfo.map((i: { filename: string[] }) => i.filename[0]).sort()).toEqual(["alpha.txt", "charlie.txt"]);

    const invites = await page("?shareUrlType=0");
    expect(invites).toMatchObject({ total: 1 });
    expect(invites.sharelinkinfo[0]).toMatchObject({ shareUrlType: 0, type: 1, filename: ["box"], shareServerPath: "/box", sharePassword: "abcd" });
    expect((await list(u.token, "?orderBy=9")).body.code).toBe(400);
  });
});

describe("other users", () => {
  it("cannot list, cancel, delete or unbind someone else's links", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: "Kx7p", bindSwitch: 1 });
    await verify(made.shareUrl, { passwd: "Kx7p", fingerprint: "owner-device" });
    const theirs = (await list(other.token, "?pageSize=100")).body;
    expect(theirs.data.sharelinkinfo.some((i: { shareId: string }) => i.shareId === made.shareId)).toBe(false);
    expect(JSON.stringify(theirs)).not.toContain("Kx7p");
    expect((await t.call("PATCH", "/api/share/link/cancel", { token: other.token, body: { shareUrlList: [made.shareUrl] } })).body.data).toEqual({ affected: 0 });
    expect((await t.call("POST", "/api/share/link/delete", { token: other.token, body: { shareUrlList: [made.shareId] } })).body.data).toEqual({ affected: 0 });
    expect((await t.call("POST", "/api/share/link/unbind", { token: other.token, body: { urls: [made.shareUrl] } })).body.code).toBe(4025);
    expect((await countGet(made.shareId, other.token)).body.code).toBe(4025);
    const mine = (await list(owner.token, "?pageSize=100")).body.data.sharelinkinfo.find((i: { shareId: string }) => i.shareId === made.shareId);
    expect(mine).toMatchObject({ shareStatus: 1, bindDevice: "owner-device" });
    expect((await verify(made.shareUrl, { passwd: "Kx7p", fingerprint: "owner-device" })).body.code).toBe(200);
  });
});

describe("visitors", () => {
  it("verify, sign in with the password, record downloads, and never see a stored password", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt", "/docs/inner"], needPassword: true, shareUrlPasswd: "Wq3z" });
    const seen: string[] = [];
    const keep = <T extends { body: unknown }>(r: T) => (seen.push(JSON.stringify(r.body)), r);

    expect(keep(await verify(made.shareUrl)).body).toMatchObject({ code: 200, data: { account: "share_owner", needPassword: true } });
    expect(keep(await verify(made.shareUrl, { passwd: "nope" }, "10.1.0.1")).body).toMatchObject({ code: 1005, data: { wrongTimes: 1, maxLockTimes: SHARE_ATTEMPTS_PER_ADDRESS } });
    expect(keep(await verify(made.shareUrl, { passwd: " W q3z" })).body).toMatchObject({ code: 200, data: { needPassword: true } });
    expect(keep(await info(made.shareUrl)).body.code).toBe(1006);
    expect(keep(await info(made.shareUrl, { passwd: "wrong" }, { address: "10.1.0.2" })).body.code).toBe(1005);
    const signedIn = keep(await info(made.shareUrl, { passwd: "Wq3z" }));
    expect(signedIn.body).toMatchObject({ code: 200, data: { shareAccount: "share_owner", account: "share_owner", sharePasswd: "Wq3z", needPassword: true, bindSwitch: 0, bindDevice: "", shareUrlType: 1, shareAllowDownload: 1, shareId: made.shareId } });
    const token = signedIn.body.data.token as string;
    expect(token.length).toBeGreaterThanOrEqual(40);
    // Renewing with the token needs no password.
    expect(keep(await info(made.shareUrl, {}, { token })).body).toMatchObject({ code: 200, data: { token, sharePasswd: "" } });

    expect(keep(await countGet(made.shareId, token)).body).toMatchObject({ code: 200, data: { count: 0 } });
    // A post counts nothing: the file server counts the download when it serves it.
    expect(keep(await countPost(token, ["/a.txt", "/inner/c.txt"])).body).toMatchObject({ code: 200, data: { count: 0 } });
    expect((await downloadShared(t, token, ["/a.txt", "/inner/c.txt"], ip("10.9.9.9"))).code).toBe(200);
    expect(keep(await countGet(made.shareUrl, token)).body.data).toEqual({ count: 1 });
    for (const outside of ["/b.txt", "/../b.txt", "/inner/../../b.txt", "/a.txt/x", "/", "/%2e%2e/b.txt"]) {
      expect(keep(await countPost(token, [outside])).body.code, outside).toBe(1066);
    }
    const byOwner = await countGet(made.shareId, owner.token);
    expect(byOwner.body.data).toEqual({ count: 1, records: [{ ip: "10.9.9.9", files: ["/a.txt", "/inner/c.txt"], time: Math.floor(t.clock.now() / 1000) }] });

    // A share token is not a user token, and a user token is not a share token.
    expect((await t.call("GET", "/api/user/info", { token })).body.code).toBe(1009);
    expect((await countPost(owner.token, ["/a.txt"])).body.code).toBe(1009);
    expect((await countPost("x".repeat(43), ["/a.txt"])).body.code).toBe(1009);

    // The access the file server gets.
    const access = await t.engine.services.shares.access.resolveShareToken(token);
    expect(access).toMatchObject({ linkId: made.shareId, ownerId: owner.id, kind: "download", allowDownload: true, directory: null, shareUrl: made.shareUrl });
    expect(access!.items.map((i) => [i.path, i.name, i.isFolder])).toEqual([
      ["/docs/a.txt", "a.txt", false],
      ["/docs/inner", "inner", true],
    ]);

    for (const body of seen) expect(body.includes("Wq3z") ? body : "").not.toMatch(/"sharePassword"|"password"/);
    expect(seen.filter((b) => b.includes("Wq3z"))).toHaveLength(1); // only the echo of what the visitor sent
  });

  it("answers unknown, malformed and missing links with 4025", async () => {
    for (const url of [`${BASE}/share/00000000-0000-4000-8000-000000000000`, "not-a-link", `${BASE}/share/../../etc/passwd`]) {
      expect((await verify(url)).body.code).toBe(4025);
      expect((await info(url, { passwd: "x" })).body.code).toBe(4025);
    }
  });

  it("stops a cancelled link at once, also for a token already issued", async () => {
    const made = await link({ shareFiles: ["/docs/b.txt"] });
    const token = (await info(made.shareUrl)).body.data.token as string;
    expect((await t.call("PATCH", "/api/share/link/cancel", { token: owner.token, body: { shareUrlList: [made.shareUrl] } })).body.data).toEqual({ affected: 1 });
    expect((await verify(made.shareUrl)).body.code).toBe(1041);
    expect((await info(made.shareUrl, {}, { token })).body.code).toBe(1041);
    expect((await countGet(made.shareId, token)).body.code).toBe(1041);
    expect((await countPost(token, ["/b.txt"])).body.code).toBe(1041);
    expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
    // Cancelling again changes nothing.
    expect((await t.call("PATCH", "/api/share/link/cancel", { token: owner.token, body: { shareUrlList: [made.shareId] } })).body.data).toEqual({ affected: 0 });
  });

  it("stops a deleted link at once, also for a token already issued", async () => {
    const made = await link({ shareFiles: ["/docs/b.txt"] });
    const token = (await info(made.shareUrl)).body.data.token as string;
    await countPost(token, ["/b.txt"]);
    expect((await t.call("POST", "/api/share/link/delete", { token: owner.token, body: { shareUrlList: [made.shareUrl] } })).body.data).toEqual({ affected: 1 });
    expect((await verify(made.shareUrl)).body.code).toBe(4025);
    expect((await info(made.shareUrl, {}, { token })).body.code).toBe(4025);
    expect((await countPost(token, ["/b.txt"])).body.code).toBe(1009);
    expect((await countGet(made.shareId, owner.token)).body.code).toBe(4025);
    expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
    expect((await list(owner.token, "?pageSize=100")).body.data.sharelinkinfo.some((i: { shareId: string }) => i.shareId === made.shareId)).toBe(false);
  });

  it("stops an expired link at once, also for a token already issued", async () => {
    const made = await link({ shareFiles: ["/docs/b.txt"], shareExpireTime: Math.floor(t.clock.now() / 1000) + 60 });
    const token = (await info(made.shareUrl)).body.data.token as string;
    expect((await countPost(token, ["/b.txt"])).body.code).toBe(200);
    t.clock.advance(61_000);
    expect((await verify(made.shareUrl)).body.code).toBe(1037);
    expect((await info(made.shareUrl, {}, { token })).body.code).toBe(1037);
    expect((await countPost(token, ["/b.txt"])).body.code).toBe(1037);
    expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
  });

  it("answers 1055 when the owner is locked or loses the Share bit, and works again when restored", async () => {
    const u = await t.createUser("share_revoked", { permission: PERMISSION_FULL });
    await writeFile(path.join(homeOf("share_revoked"), "r.txt"), "r");
    const made = await link({ shareFiles: ["/r.txt"] }, u.token);
    const token = (await info(made.shareUrl)).body.data.token as string;
    const admin = await t.adminToken();
    await t.call("PATCH", `/api/admin/users/${u.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Share } });
    expect((await verify(made.shareUrl)).body.code).toBe(1055);
    expect((await countPost(token, ["/r.txt"])).body.code).toBe(1055);
    await t.call("PATCH", `/api/admin/users/${u.id}`, { token: admin, body: { permission: PERMISSION_FULL } });
    expect((await countPost(token, ["/r.txt"])).body.code).toBe(200);
    await t.call("POST", `/api/admin/users/${u.id}/lock`, { token: admin });
    expect((await verify(made.shareUrl)).body.code).toBe(1055);
    expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
  });

  it("issues upload access for an invitation; it cannot record downloads", async () => {
    const made = await link({ shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up12" });
    expect((await verify(made.shareUrl)).body.data).toEqual({ account: "share_owner", needPassword: true, bindSwitch: 0 });
    const signedIn = (await info(made.shareUrl, { passwd: "up12" })).body.data;
    expect(signedIn).toMatchObject({ shareUrlType: 0 });
    const access = await t.engine.services.shares.access.resolveShareToken(signedIn.token);
    expect(access).toMatchObject({ kind: "upload", directory: "/inbox", allowDownload: false, items: [] });
    expect((await countPost(signedIn.token, ["/x.txt"])).body.code).toBe(4175);
  });
});

describe("share-password attempts", () => {
  it("are throttled exactly under 50 parallel wrong passwords from one address", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: "Rt5u" });
    const replies = await Promise.all(Array.from({ length: 50 }, () => verify(made.shareUrl, { passwd: "bad" }, "10.50.0.1")));
    const codes = replies.map((r) => r.body.code);
    expect(codes.filter((c) => c === 1005)).toHaveLength(SHARE_ATTEMPTS_PER_ADDRESS);
    expect(codes.filter((c) => c === 4231)).toHaveLength(50 - SHARE_ATTEMPTS_PER_ADDRESS);
    // The right password is refused from that address while it is locked, but works from another.
    expect((await verify(made.shareUrl, { passwd: "Rt5u" }, "10.50.0.1")).body).toMatchObject({ code: 4231, message: expect.stringContaining("15") });
    expect((await info(made.shareUrl, { passwd: "Rt5u" }, { address: "10.50.0.1" })).body.code).toBe(4231);
    expect((await verify(made.shareUrl, { passwd: "Rt5u" }, "10.50.0.2")).body.code).toBe(200);

    // Per link: from many addresses, the link's own limit holds exactly.
    const left = SHARE_ATTEMPTS_PER_LINK - SHARE_ATTEMPTS_PER_ADDRESS;
    const spread = await Promise.all(Array.from({ length: 25 }, (_, i) => verify(made.shareUrl, { passwd: "bad" }, `10.60.0.${i + 1}`)));
    expect(spread.filter((r) => r.body.code === 1005)).toHaveLength(left);
    expect(spread.filter((r) => r.body.code === 4231)).toHaveLength(25 - left);
    expect((await verify(made.shareUrl, { passwd: "Rt5u" }, "10.70.0.1")).body.code).toBe(4231);

    // The lock ends after the window.
    t.clock.advance(15 * 60 * 1000 + 1000);
    expect((await verify(made.shareUrl, { passwd: "Rt5u" }, "10.50.0.1")).body.code).toBe(200);
  });

  it("count the spoofed X-Forwarded-For of an untrusted client as the client's own address", async () => {
    const u = await startTestEngine({ FERRY_WEB_ORIGINS: BASE });
    try {
      const user = await u.createUser("spoof_owner", { permission: PERMISSION_FULL });
      await writeFile(path.join(u.dataDir, "storage", "users", "spoof_owner", "f.txt"), "f");
      const made = (await u.call("POST", "/api/share/link/create", { token: user.token, body: { shareUrlType: 1, shareBaseUrl: BASE, shareFiles: ["/f.txt"], needPassword: true, shareUrlPasswd: "abcd" } })).body.data;
      const codes = [];
      for (let i = 0; i < SHARE_ATTEMPTS_PER_ADDRESS + 2; i++) {
        const r = await u.call("POST", "/api/share/link/verify/url", { body: { url: made.shareUrl, fingerprint: "f", passwd: "bad" }, headers: { "x-forwarded-for": `192.0.2.${i}` } });
        codes.push(r.body.code);
      }
      expect(codes.filter((c) => c === 1005)).toHaveLength(SHARE_ATTEMPTS_PER_ADDRESS);
      expect(codes.filter((c) => c === 4231)).toHaveLength(2);
    } finally {
      await u.stop();
    }
  });
});

describe("bind-first-device", () => {
  it("binds the first device, refuses a second one, and lets the owner unbind", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt"], bindSwitch: 1 });
    // Without a password, verify/url only tells that the link binds; getting in (info) binds.
    expect((await verify(made.shareUrl, { fingerprint: "device-A" })).body.data).toMatchObject({ needPassword: false, bindSwitch: 1 });
    expect((await verify(made.shareUrl, { fingerprint: "device-B" })).body.code).toBe(200);
    const a = (await info(made.shareUrl, { fingerprint: "device-A" })).body.data;
    expect(a).toMatchObject({ bindSwitch: 1, bindDevice: "device-A" });
    expect((await verify(made.shareUrl, { fingerprint: "device-B" })).body.code).toBe(1096);
    expect((await info(made.shareUrl, { fingerprint: "device-B" })).body.code).toBe(1096);
    expect((await info(made.shareUrl)).body.code).toBe(1096);
    // B cannot ride on A's token either: the token is checked against the device it was issued to.
    expect((await info(made.shareUrl, { fingerprint: "device-B" }, { token: a.token })).body.data.bindDevice).toBe("device-A");
    const row = (await list(owner.token, "?pageSize=100")).body.data.sharelinkinfo.find((i: { shareId: string }) => i.shareId === made.shareId);
    expect(row).toMatchObject({ bindSwitch: 1, bindDevice: "device-A" });

    expect((await t.call("POST", "/api/share/link/unbind", { token: owner.token, body: { urls: [made.shareUrl] } })).body).toMatchObject({ code: 200, data: { affected: 1 } });
    expect((await countPost(a.token, ["/a.txt"])).body.code).toBe(1009);
    expect((await verify(made.shareUrl, { fingerprint: "device-B" })).body.code).toBe(200);
    const b = (await info(made.shareUrl, { fingerprint: "device-B" })).body.data;
    expect(b.bindDevice).toBe("device-B");
    expect((await verify(made.shareUrl, { fingerprint: "device-A" })).body.code).toBe(1096);
    expect((await countPost(b.token, ["/a.txt"])).body.code).toBe(200);
  });
});

describe("recordShareUpload", () => {
  it("never throws, whatever the link", async () => {
    const made = await link({ shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up34" });
    const token = (await info(made.shareUrl, { passwd: "up34" })).body.data.token as string;
    const access = (await t.engine.services.shares.access.resolveShareToken(token))!;
    await expect(t.engine.services.shares.recordShareUpload({ access, files: ["/x.txt"], visitorAddress: "10.0.0.1" })).resolves.toBeUndefined();
  });
});
