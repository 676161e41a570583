import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { errorByCode, formatErrorMessage } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { startTestSmtp, type TestSmtp } from "../support/smtp";

/**
 * Share links against SECURITY.md: the share base URL a link (and its mail) points at, and the
 * "Authorization" class — recreated paths and links, accounts disabled or deleted, permission bits
 * taken away, nothing of another user's in any answer, and error answers that do not tell whether
 * a link exists (docs/shares.md, "Share base URL" and "Authorization").
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const BASE = "https://files.example.com";
const SECOND = "http://10.0.0.5:3000";
const SMTP_USER = "relay@example.com";
const SMTP_PASS = "Relay#Pass-88";

let t: TestEngine;
let smtp: TestSmtp;
type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let owner: User;
let other: User;
const homeOf = (account: string) => path.join(t.dataDir, "storage", "users", account);

beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_WEB_ORIGINS: `${BASE}/, ${SECOND}`, FERRY_SMTP_ALLOW_PRIVATE: "1" });
  smtp = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
  owner = await t.createUser("hard_owner", { permission: PERMISSION_FULL, email: "hard_owner@owner.example.org", emailSenderType: 2 });
  other = await t.createUser("hard_other", { permission: PERMISSION_FULL });
  await mkdir(path.join(homeOf("hard_owner"), "docs"), { recursive: true });
  await mkdir(path.join(homeOf("hard_owner"), "inbox"), { recursive: true });
  await writeFile(path.join(homeOf("hard_owner"), "docs", "a.txt"), "alpha");
  await writeFile(path.join(homeOf("hard_other"), "theirs.txt"), "theirs");
});
afterAll(async () => {
  await smtp?.close();
  await t?.stop();
});
beforeEach(async () => {
  owner.token = await t.tokenFor(owner.account, owner.password);
  other.token = await t.tokenFor(other.account, other.password);
});

const create = (engine: TestEngine, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  engine.call("POST", "/api/share/link/create", { token, body: { shareUrlType: 1, ...body }, headers });
async function link(body: Record<string, unknown>, token = owner.token) {
  const reply = await create(t, token, { shareBaseUrl: BASE, ...body });
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ code: 200 });
  return reply.body.data as { shareUrl: string; shareId: string; sharePassword: string };
}
const ip = (address: string) => ({ "x-forwarded-for": address });
const verify = (url: string, body: Record<string, unknown> = {}) =>
  t.call("POST", "/api/share/link/verify/url", { body: { url, fingerprint: "fp", ...body }, headers: ip("10.3.0.1") });
const info = (url: string, params: Record<string, string> = {}, token?: string) =>
  t.call("GET", `/api/share/link/info?${new URLSearchParams({ url, ...params })}`, { token, headers: ip("10.3.0.1") });
const countGet = (sid: string, token?: string) => t.call("GET", `/api/share/link/download/count?sid=${encodeURIComponent(sid)}`, { token });
const countPost = (token: string, accessDest: string[]) => t.call("POST", "/api/share/link/download/count", { token, body: { accessDest }, headers: ip("10.3.0.9") });
const listOf = async (token: string, kind = 1) => (await t.call("GET", `/api/share/link/list?pageSize=100&shareUrlType=${kind}`, { token })).body.data;
/** Downloads one file of a share through the file server, as the visitor's page does. */
async function download(token: string, visitorPath: string): Promise<{ code: number; text?: string }> {
  const ticket = await t.call("POST", "/api/share/files/download", { token, body: { paths: [visitorPath] } });
  if (ticket.body.code !== 200) return { code: ticket.body.code };
  const res = await fetch(t.fileUrl + (ticket.body.data as { url: string }).url);
  return { code: res.status === 200 ? 200 : res.status, text: await res.text() };
}

describe("the share base URL", () => {
  it("accepts only the configured web origins, in any spelling of them; none given is the first", async () => {
    const accepted: [string, string][] = [
      [BASE, BASE],
      [`${BASE}/`, BASE],
      ["https://FILES.example.com:443", BASE],
      [SECOND, SECOND],
      ["", BASE],
    ];
    for (const [given, base] of accepted) {
      const reply = await create(t, owner.token, { shareBaseUrl: given, shareFiles: ["/docs/a.txt"] });
      expect(reply.body.code, given).toBe(200);
      expect(reply.body.data.shareUrl).toBe(`${base}/share/${reply.body.data.shareId}`);
    }
  });

  it("refuses any other site with 4236 (en and zh), bad URLs with 4235, creates nothing and sends no mail", async () => {
    const saved = await t.call("POST", "/api/user/smtp/update", {
      token: owner.token,
      body: { emailFromName: "Owner", emailType: 9, emailAccount: SMTP_USER, emailPassword: codec.encode(SMTP_PASS), emailSmtpHost: smtp.host, emailSmtpPort: smtp.port, emailEncryptType: 0 },
    });
    expect(saved.body.code).toBe(200);
    const before = (await listOf(owner.token)).total;
    const mailsBefore = smtp.received.length;
    const refused: [string, number][] = [
      ["https://evil.example", 4236],
      ["https://files.example.com.evil.example", 4236],
      ["https://evil.example/https://files.example.com", 4236],
      ["http://files.example.com", 4236],
      ["https://files.example.com:8443", 4236],
      ["https://files.example.com/phish", 4236],
      ["https://xn--fles-example-8ib.com", 4236],
      ["javascript:alert(1)", 4235],
      ["ftp://files.example.com", 4235],
      ["https://files.example.com/?next=//evil.example", 4235],
      ["https://files.example.com#x", 4235],
      ["https://user:pw@files.example.com", 4235],
      ["//evil.example", 4235],
    ];
    for (const [given, code] of refused) {
      const reply = await create(t, owner.token, { shareBaseUrl: given, shareFiles: ["/docs/a.txt"], shareEmail: "friend@example.net" });
      expect(reply.body.code, given).toBe(code);
    }
    const en = await create(t, owner.token, { shareBaseUrl: "https://evil.example", shareFiles: ["/docs/a.txt"] }, { "accept-language": "en" });
    const zh = await create(t, owner.token, { shareBaseUrl: "https://evil.example", shareFiles: ["/docs/a.txt"] }, { "accept-language": "zh-CN" });
    expect(en.body.message).toBe(formatErrorMessage(errorByCode(4236)!, "en"));
    expect(zh.body.message).toBe(formatErrorMessage(errorByCode(4236)!, "zh"));
    expect(en.body.message).not.toBe(zh.body.message);
    expect((await listOf(owner.token)).total).toBe(before);

    // The same mail with an allowed base goes out, and it is the only one.
    expect((await create(t, owner.token, { shareBaseUrl: BASE, shareFiles: ["/docs/a.txt"], shareEmail: "friend@example.net" })).body.code).toBe(200);
    const mails = (await smtp.waitFor(mailsBefore + 1)).slice(mailsBefore);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length - mailsBefore).toBe(1);
    expect(mails[0]!.mail.text).toContain(`${BASE}/share/`);
    expect(mails[0]!.mail.text).not.toContain("evil.example");
  });

  it("without FERRY_WEB_ORIGINS uses the web the engine was started with, never the request's Host, Origin or X-Forwarded-Host", async () => {
    const u = await startTestEngine({ FERRY_WEB_PORT: "3456" });
    try {
      const user = await u.createUser("base_owner", { permission: PERMISSION_FULL });
      await writeFile(path.join(u.dataDir, "storage", "users", "base_owner", "f.txt"), "f");
      const make = (shareBaseUrl: string, headers: Record<string, string> = {}) => create(u, user.token, { shareBaseUrl, shareFiles: ["/f.txt"] }, headers);
      // None given: http://localhost:<FERRY_WEB_PORT>, whatever the request says about itself.
      const claims: Record<string, string>[] = [{}, { origin: "https://evil.example" }, { host: "evil.example" }, { "x-forwarded-host": "evil.example" }, { origin: "https://evil.example", host: "evil.example", "x-forwarded-host": "evil.example" }];
      for (const headers of claims) {
        const made = await make("", headers);
        expect(made.body.data.shareUrl, JSON.stringify(headers)).toBe(`http://localhost:3456/share/${made.body.data.shareId}`);
      }
      // The engine's own web, under any loopback name; nothing else, whatever the headers claim.
      for (const given of ["http://localhost:3456", "http://127.0.0.1:3456/", "http://[::1]:3456"]) expect((await make(given)).body.code, given).toBe(200);
      const forged = [
        ["https://evil.example", { origin: "https://evil.example" }],
        ["https://evil.example", { host: "evil.example" }],
        ["https://evil.example", { "x-forwarded-host": "evil.example" }],
        ["http://evil.example:3456", { origin: "http://evil.example:3456", host: "evil.example:3456" }],
        ["http://127.0.0.1:3000", {}],
        ["https://localhost:3456", {}],
        ["http://localhost:3456/prefix", {}],
        ["http://localhost.evil.example:3456", { origin: "http://localhost.evil.example:3456" }],
        ["http://10.0.0.1:3456", { host: "10.0.0.1:3456" }],
      ] as const;
      for (const [given, headers] of forged) expect((await make(given, headers)).body.code, `${given} ${JSON.stringify(headers)}`).toBe(4236);
      const rows = await u.engine.services.db.kysely.selectFrom("share_links").select("base_url").execute();
      expect(new Set(rows.map((r) => r.base_url))).toEqual(new Set(["http://localhost:3456", "http://127.0.0.1:3456", "http://[::1]:3456"]));
    } finally {
      await u.stop();
    }
  });

  it("behind a trusted proxy still ignores X-Forwarded-Host and Origin", async () => {
    const u = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1" });
    try {
      const user = await u.createUser("proxied_owner", { permission: PERMISSION_FULL });
      await writeFile(path.join(u.dataDir, "storage", "users", "proxied_owner", "f.txt"), "f");
      const make = (shareBaseUrl: string, headers: Record<string, string> = {}) => create(u, user.token, { shareBaseUrl, shareFiles: ["/f.txt"] }, headers);
      const proxied = { "x-forwarded-host": "files.proxied.example", origin: "https://files.proxied.example" };
      expect((await make("https://files.proxied.example", proxied)).body.code).toBe(4236);
      const made = await make("", proxied);
      expect(made.body.data.shareUrl).toBe(`http://localhost:3000/share/${made.body.data.shareId}`);
    } finally {
      await u.stop();
    }
  });
});

describe("authorization (SECURITY.md)", () => {
  it("a deleted link never reopens, not for a new file at the same path nor for a row with the same id", async () => {
    const dir = path.join(homeOf("hard_owner"), "re");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "x.txt"), "old contents");
    const old = await link({ shareFiles: ["/re/x.txt"] });
    const oldToken = (await info(old.shareUrl)).body.data.token as string;
    expect(await download(oldToken, "/x.txt")).toEqual({ code: 200, text: "old contents" });
    expect((await t.call("POST", "/api/share/link/delete", { token: owner.token, body: { shareUrlList: [old.shareUrl] } })).body.data).toEqual({ affected: 1 });

    await rm(path.join(dir, "x.txt"));
    await writeFile(path.join(dir, "x.txt"), "new contents");
    const fresh = await link({ shareFiles: ["/re/x.txt"], needPassword: true, shareUrlPasswd: "Nw8k" });
    expect(fresh.shareId).not.toBe(old.shareId);

    expect((await verify(old.shareUrl)).body.code).toBe(4025);
    expect((await info(old.shareUrl, {}, oldToken)).body.code).toBe(4025);
    expect((await countPost(oldToken, ["/x.txt"])).body.code).toBe(1009);
    expect((await download(oldToken, "/x.txt")).code).toBe(1009);
    // The old token is no key to the new link of the same file: its password is still asked.
    expect((await info(fresh.shareUrl, {}, oldToken)).body.code).toBe(1006);
    expect(await t.engine.services.shares.access.resolveShareToken(oldToken)).toBeNull();

    // Even a link row that came back under the old id (ids are random uuids; this forces it) has none of the old tokens.
    const row = await t.engine.services.db.kysely.selectFrom("share_links").selectAll().where("id", "=", fresh.shareId).executeTakeFirstOrThrow();
    await t.engine.services.db.kysely.insertInto("share_links").values({ ...row, id: old.shareId, need_password: 0, password: "" }).execute();
    await t.engine.services.db.kysely.insertInto("share_items").values({ link_id: old.shareId, position: 0, path: "/re/x.txt", name: "x.txt", alias: "", is_folder: 0 }).execute();
    expect((await verify(old.shareUrl)).body.code).toBe(200);
    expect((await countPost(oldToken, ["/x.txt"])).body.code).toBe(1009);
    expect((await download(oldToken, "/x.txt")).code).toBe(1009);
    expect(await t.engine.services.shares.access.resolveShareToken(oldToken)).toBeNull();
  });

  it("a link kept while its file is deleted and recreated serves the path: missing meanwhile, the new file after", async () => {
    const dir = path.join(homeOf("hard_owner"), "kept");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "y.txt"), "first");
    const made = await link({ shareFiles: ["/kept/y.txt"] });
    const token = (await info(made.shareUrl)).body.data.token as string;
    expect(await download(token, "/y.txt")).toEqual({ code: 200, text: "first" });
    await rm(path.join(dir, "y.txt"));
    expect((await download(token, "/y.txt")).code).toBe(1043);
    await writeFile(path.join(dir, "y.txt"), "second");
    expect(await download(token, "/y.txt")).toEqual({ code: 200, text: "second" });
    // A folder of the same name in its place: nothing below a shared file is ever inside the share.
    await rm(path.join(dir, "y.txt"));
    await mkdir(path.join(dir, "y.txt"));
    await writeFile(path.join(dir, "y.txt", "inside.txt"), "inside");
    expect((await countPost(token, ["/y.txt/inside.txt"])).body.code).toBe(1066);
    expect((await download(token, "/y.txt/inside.txt")).code).toBe(1043);
    // Nor is the folder itself: no listing of it, no zip of it, and the share's root no longer shows it.
    expect((await download(token, "/y.txt")).code).toBe(1043);
    expect((await t.call("GET", `/api/share/files/list?path=${encodeURIComponent("/y.txt")}`, { token })).body.code).toBe(1043);
    const root = await t.call("GET", "/api/share/files/list?path=%2F", { token });
    expect(root.body.code).toBe(200);
    expect(root.body.data.names).not.toContain("y.txt");
  });

  it("locking the owner stops every link and token at once; deleting the owner removes them for good", async () => {
    const u = await t.createUser("hard_leaver", { permission: PERMISSION_FULL });
    await mkdir(path.join(homeOf("hard_leaver"), "in"), { recursive: true });
    await writeFile(path.join(homeOf("hard_leaver"), "l.txt"), "leaver");
    const dl = await link({ shareFiles: ["/l.txt"] }, u.token);
    const up = await link({ shareUrlType: 0, shareServerPath: "/in", needPassword: true, shareUrlPasswd: "in12" }, u.token);
    const dlToken = (await info(dl.shareUrl)).body.data.token as string;
    const upToken = (await info(up.shareUrl, { passwd: "in12" })).body.data.token as string;
    expect(await download(dlToken, "/l.txt")).toEqual({ code: 200, text: "leaver" });
    const admin = await t.adminToken();

    expect((await t.call("POST", `/api/admin/users/${u.id}/lock`, { token: admin })).body.code).toBe(200);
    for (const url of [dl.shareUrl, up.shareUrl]) expect((await verify(url)).body.code, url).toBe(1055);
    expect((await info(dl.shareUrl, {}, dlToken)).body.code).toBe(1055);
    expect((await countPost(dlToken, ["/l.txt"])).body.code).toBe(1055);
    expect((await download(dlToken, "/l.txt")).code).toBe(1055);
    expect(await t.engine.services.shares.access.resolveShareToken(upToken)).toBeNull();
    await t.call("POST", `/api/admin/users/${u.id}/unlock`, { token: admin });
    expect(await download(dlToken, "/l.txt")).toEqual({ code: 200, text: "leaver" });

    expect((await t.call("DELETE", `/api/admin/users/${u.id}`, { token: admin })).body.code).toBe(200);
    for (const url of [dl.shareUrl, up.shareUrl]) expect((await verify(url)).body.code, url).toBe(4025);
    for (const token of [dlToken, upToken]) {
      expect((await countGet(dl.shareId, token)).body.code).toBe(1009);
      expect(await t.engine.services.shares.access.resolveShareToken(token)).toBeNull();
    }
    expect((await download(dlToken, "/l.txt")).code).toBe(1009);
    const k = t.engine.services.db.kysely;
    for (const table of ["share_links", "share_tokens", "share_items"] as const) {
      const column = table === "share_links" ? "id" : "link_id";
      expect((await k.selectFrom(table).select(column).where(column, "in", [dl.shareId, up.shareId]).execute()).length, table).toBe(0);
    }
    // A new account of the same name starts with no links and reopens none.
    const again = await t.createUser("hard_leaver", { permission: PERMISSION_FULL });
    expect((await listOf(again.token)).total).toBe(0);
    expect((await listOf(again.token, 0)).total).toBe(0);
    expect((await verify(dl.shareUrl)).body.code).toBe(4025);
  });

  it("taking the Share bit stops download links only, taking Invite stops invitations only, both at once", async () => {
    const u = await t.createUser("hard_bits", { permission: PERMISSION_FULL });
    await mkdir(path.join(homeOf("hard_bits"), "in"), { recursive: true });
    await writeFile(path.join(homeOf("hard_bits"), "b.txt"), "bits");
    const dl = await link({ shareFiles: ["/b.txt"] }, u.token);
    const up = await link({ shareUrlType: 0, shareServerPath: "/in", needPassword: true, shareUrlPasswd: "in34" }, u.token);
    const dlToken = (await info(dl.shareUrl)).body.data.token as string;
    const upToken = (await info(up.shareUrl, { passwd: "in34" })).body.data.token as string;
    const admin = await t.adminToken();
    const setBits = (permission: number) => t.call("PATCH", `/api/admin/users/${u.id}`, { token: admin, body: { permission } });

    await setBits(PERMISSION_FULL & ~Permission.Share);
    expect((await verify(dl.shareUrl)).body.code).toBe(1055);
    expect((await download(dlToken, "/b.txt")).code).toBe(1055);
    expect((await verify(up.shareUrl)).body.code).toBe(200);
    expect(await t.engine.services.shares.access.resolveShareToken(upToken)).toMatchObject({ kind: "upload", directory: "/in" });

    await setBits(PERMISSION_FULL & ~Permission.Invite);
    expect((await verify(up.shareUrl)).body.code).toBe(1055);
    expect(await t.engine.services.shares.access.resolveShareToken(upToken)).toBeNull();
    expect((await info(up.shareUrl, { passwd: "in34" })).body.code).toBe(1055);
    expect((await verify(dl.shareUrl)).body.code).toBe(200);
    expect(await download(dlToken, "/b.txt")).toEqual({ code: 200, text: "bits" });

    await setBits(PERMISSION_FULL);
    expect(await t.engine.services.shares.access.resolveShareToken(upToken)).toMatchObject({ kind: "upload" });
  });

  it("no answer carries a share password or token of a link the caller does not own", async () => {
    const made = await link({ shareFiles: ["/docs/a.txt"], needPassword: true, shareUrlPasswd: "Pz7q", bindSwitch: 0 });
    const invite = await link({ shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "Iv5w" });
    const visitorA = (await info(made.shareUrl, { passwd: "Pz7q", fingerprint: "A" })).body.data.token as string;
    await countPost(visitorA, ["/a.txt"]);
    const secrets = ["Pz7q", "Iv5w", visitorA, owner.token];

    const seen: [string, unknown][] = [];
    const keep = async (what: string, reply: Promise<{ body: unknown }>) => seen.push([what, (await reply).body]);
    // Another user.
    await keep("other list 1", t.call("GET", "/api/share/link/list?pageSize=100", { token: other.token }));
    await keep("other list 0", t.call("GET", "/api/share/link/list?pageSize=100&shareUrlType=0", { token: other.token }));
    await keep("other count", countGet(made.shareId, other.token));
    await keep("other unbind", t.call("POST", "/api/share/link/unbind", { token: other.token, body: { urls: [made.shareUrl] } }));
    await keep("other cancel", t.call("PATCH", "/api/share/link/cancel", { token: other.token, body: { shareUrlList: [made.shareUrl, invite.shareUrl] } }));
    await keep("other info", info(made.shareUrl, {}, other.token));
    // Anonymous visitors and a second visitor.
    await keep("verify", verify(made.shareUrl));
    await keep("verify invite", verify(invite.shareUrl));
    await keep("verify wrong", verify(made.shareUrl, { passwd: "nope" }));
    await keep("info nopass", info(made.shareUrl));
    await keep("info wrong", info(made.shareUrl, { passwd: "nope" }));
    await keep("info invite nopass", info(invite.shareUrl));
    await keep("count anon", countGet(made.shareId));
    const visitorB = await info(made.shareUrl, { passwd: "Pz7q", fingerprint: "B" });
    const tokenB = visitorB.body.data.token as string;
    expect(tokenB).not.toBe(visitorA);
    await keep("visitor B count", countGet(made.shareId, tokenB));
    await keep("visitor B count post", countPost(tokenB, ["/a.txt"]));
    await keep("visitor B renew", info(made.shareUrl, {}, tokenB));
    await keep("visitor B on invite", info(invite.shareUrl, {}, tokenB));
    await keep("visitor B count of invite", countGet(invite.shareId, tokenB));
    // A visitor's own answer echoes only what it sent; the password it did not send is not there.
    expect(JSON.stringify(visitorB.body)).not.toContain(visitorA);

    for (const [what, body] of seen) {
      const text = JSON.stringify(body);
      for (const secret of secrets) expect(text.includes(secret), `${what} carries ${secret.slice(0, 6)}…`).toBe(false);
      expect(text, what).not.toMatch(/"(password|sharePassword|passwordHash|hash)"/);
    }
    // The owner's download records never carry the visitors' tokens.
    const records = JSON.stringify((await countGet(made.shareId, owner.token)).body);
    expect(records).not.toContain(visitorA);
    expect(records).not.toContain(tokenB);
  });

  it("error answers are the same for another user's link, a deleted one and one that never existed", async () => {
    const theirs = await link({ shareFiles: ["/theirs.txt"], bindSwitch: 1 }, other.token);
    const gone = await link({ shareFiles: ["/docs/a.txt"] });
    await t.call("POST", "/api/share/link/delete", { token: owner.token, body: { shareUrlList: [gone.shareId] } });
    const never = `${BASE}/share/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`;
    const refs = { theirs: theirs.shareUrl, gone: gone.shareUrl, never };

    const answers = async (ref: string) => ({
      unbind: (await t.call("POST", "/api/share/link/unbind", { token: owner.token, body: { urls: [ref] } })).body,
      count: (await countGet(ref, owner.token)).body,
      cancel: (await t.call("PATCH", "/api/share/link/cancel", { token: owner.token, body: { shareUrlList: [ref] } })).body,
      remove: (await t.call("POST", "/api/share/link/delete", { token: owner.token, body: { shareUrlList: [ref] } })).body,
    });
    const [a, b, c] = await Promise.all([answers(refs.theirs), answers(refs.gone), answers(refs.never)]);
    expect(a).toEqual(c);
    expect(b).toEqual(c);
    expect(c.unbind).toMatchObject({ code: 4025 });
    expect(c.count).toMatchObject({ code: 4025 });
    expect(c.cancel).toMatchObject({ code: 200, data: { affected: 0 } });

    // Visitors: a deleted link and one that never existed answer alike.
    for (const call of [(r: string) => verify(r), (r: string) => info(r, { passwd: "x" })]) {
      expect((await call(refs.gone)).body).toEqual((await call(refs.never)).body);
    }
    // A share token asking about another link learns nothing about it.
    const mine = await link({ shareFiles: ["/docs/a.txt"] });
    const token = (await info(mine.shareUrl)).body.data.token as string;
    expect((await countGet(refs.theirs, token)).body).toEqual((await countGet(refs.never, token)).body);
    // The other user's link still stands, untouched.
    expect((await listOf(other.token)).sharelinkinfo.find((i: { shareId: string }) => i.shareId === theirs.shareId)).toMatchObject({ shareStatus: 1 });
  });
});
