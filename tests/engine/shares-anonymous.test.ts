import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { SHARE_ATTEMPT_WINDOW_SECONDS, SHARE_TOKEN_TTL_SECONDS } from "../../contract/share";
import { purgeExpired } from "../../server/limits/purge";
import { startTestEngine, type TestEngine } from "../support/engine";
import { downloadShared, type MadeLink, makeLink, SHARE_BASE, writeTree } from "../support/share-visitor";

/**
 * Anonymous share calls cannot grow the database without bound nor forge counts (issue 12,
 * docs/security.md section 1): share tokens are rate-limited per client address and capped per
 * link and address, expired rows are purged, and a download is counted by the file server when it
 * serves one — a POST of the download count records nothing.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const LIMITS = { FERRY_SHARE_TOKENS_PER_ADDRESS: "8", FERRY_SHARE_LIVE_TOKENS: "3", FERRY_SHARE_COUNTS_PER_ADDRESS: "4", FERRY_SHARE_RATE_WINDOW: "600" };

let t: TestEngine;
let owner: Awaited<ReturnType<TestEngine["createUser"]>>;
let open: MadeLink;
let locked: MadeLink;

const ip = (address: string) => ({ "x-forwarded-for": address });
const info = (url: string, address: string, params: Record<string, string> = {}) =>
  t.call("GET", `/api/share/link/info?${new URLSearchParams({ url, fingerprint: "fp", ...params })}`, { headers: ip(address) });
const countPost = (token: string, accessDest: string[], address = "10.20.0.1") =>
  t.call("POST", "/api/share/link/download/count", { token, body: { accessDest }, headers: ip(address) });
const countOf = async (link: MadeLink) => (await t.call("GET", `/api/share/link/download/count?sid=${link.shareId}`, { token: owner.token })).body.data as { count: number; records: { ip: string; files: string[] }[] };
const rows = async (table: "share_tokens" | "share_downloads" | "login_counters", linkId?: string) => {
  let q = t.engine.services.db.kysely.selectFrom(table).selectAll();
  if (linkId && table !== "login_counters") q = q.where("link_id", "=", linkId) as typeof q;
  return q.execute();
};

beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_WEB_ORIGINS: SHARE_BASE, ...LIMITS });
  owner = await t.createUser("anon_owner", { permission: PERMISSION_FULL });
  await writeTree(path.join(t.dataDir, "storage", "users", "anon_owner"), { "pub/a.txt": "alpha", "pub/b.txt": "bravo", "pub/c.txt": "charlie", "pub/d.txt": "delta", "pub/e.txt": "echo", "pub/f.txt": "foxtrot" });
  open = await makeLink(t, owner.token, { shareFiles: ["/pub"] });
  locked = await makeLink(t, owner.token, { shareFiles: ["/pub/a.txt"], needPassword: true, shareUrlPasswd: "Kq7w" });
});
afterAll(() => t?.stop());
// Tests move the clock by hours: the owner signs in again before each.
beforeEach(async () => {
  owner.token = await t.tokenFor(owner.account, owner.password);
});

describe("share tokens from GET /api/share/link/info", () => {
  it("are rate-limited per client address with 4238 (status 429), and stay few per link and address", async () => {
    const answers = [];
    // A millisecond apart, as real requests are: "oldest" is by issue time (tokens of one millisecond have no order).
    for (let i = 0; i < 40; i++) {
      t.clock.advance(1);
      answers.push(await info(open.shareUrl, "10.10.0.1"));
    }
    const codes = answers.map((a) => a.body.code);
    expect(codes.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(codes.slice(8)).toEqual(Array(32).fill(4238));
    expect(answers[8]!.status).toBe(429);
    expect(answers[8]!.body.message).toMatch(/\d+ min\b/);
    // Only the live-token cap's worth of rows for that address, the newest ones; older tokens are gone.
    const kept = (await rows("share_tokens", open.shareId)).filter((r) => r.client_ip === "10.10.0.1");
    expect(kept).toHaveLength(3);
    const newest = answers[7]!.body.data.token as string;
    const oldest = answers[0]!.body.data.token as string;
    expect((await t.call("POST", "/api/share/files/download", { token: newest, body: { paths: ["/pub/a.txt"] } })).body.code).toBe(200);
    expect((await t.call("POST", "/api/share/files/download", { token: oldest, body: { paths: ["/pub/a.txt"] } })).body.code).toBe(1009);

    // Another address is not held back; wrong and right passwords alike go through the same limit.
    expect((await info(open.shareUrl, "10.10.0.2")).body.code).toBe(200);
    const other = [];
    for (let i = 0; i < 12; i++) other.push((await info(locked.shareUrl, "10.10.0.3", { passwd: "Kq7w" })).body.code);
    expect(other).toEqual([...Array(8).fill(200), ...Array(4).fill(4238)]);
    expect((await rows("share_tokens", locked.shareId)).filter((r) => r.client_ip === "10.10.0.3")).toHaveLength(3);

    // The window passes: the address gets tokens again.
    t.clock.advance(601_000);
    expect((await info(open.shareUrl, "10.10.0.1")).body.code).toBe(200);
  });

  it("calls whose address is unknown are not one client: they are limited per link, ten times the address limit", async () => {
    // A trusted proxy (here 127.0.0.1) that forwards no address leaves it unknown.
    const unknown = (url: string) => t.call("GET", `/api/share/link/info?${new URLSearchParams({ url, fingerprint: "fp" })}`);
    const link = await makeLink(t, owner.token, { shareFiles: ["/pub/b.txt"] });
    const codes = [];
    for (let i = 0; i < 84; i++) codes.push((await unknown(link.shareUrl)).body.code);
    expect(codes).toEqual([...Array(80).fill(200), ...Array(4).fill(4238)]);
    const second = await makeLink(t, owner.token, { shareFiles: ["/pub/c.txt"] });
    expect((await unknown(second.shareUrl)).body.code).toBe(200);
    // A known address is counted on its own.
    expect((await info(link.shareUrl, "10.10.9.9")).body.code).toBe(200);
  });

  it("renewing with a valid token creates no row", async () => {
    const token = (await info(open.shareUrl, "10.11.0.1")).body.data.token as string;
    const before = (await rows("share_tokens")).length;
    for (let i = 0; i < 20; i++) {
      const renewed = await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: open.shareUrl })}`, { token, headers: ip("10.11.0.1") });
      expect(renewed.body).toMatchObject({ code: 200, data: { token } });
    }
    expect((await rows("share_tokens")).length).toBe(before);
  });
});

describe("purging expired rows", () => {
  it("removes expired share tokens, spent attempt counters and spent rate counters, and keeps live ones", async () => {
    const live = (await info(open.shareUrl, "10.12.0.1")).body.data.token as string;
    // Wrong passwords leave attempt counters ("share:<id>", "share-ip:<address>").
    for (let i = 0; i < 3; i++) expect((await info(locked.shareUrl, `10.12.1.${i}`, { passwd: "nope" })).body.code).toBe(1005);
    const counters = await rows("login_counters");
    expect(counters.some((r) => r.key.startsWith("share-ip:10.12.1."))).toBe(true);
    expect(counters.some((r) => r.key.startsWith("rate:share-token:"))).toBe(true);

    // Nothing has expired yet: a purge keeps everything that still counts.
    await purgeExpired(t.engine.services.db, t.clock);
    expect((await t.call("POST", "/api/share/files/download", { token: live, body: { paths: ["/pub/a.txt"] } })).body.code).toBe(200);
    expect((await rows("login_counters")).some((r) => r.key === "share-ip:10.12.1.0")).toBe(true);

    t.clock.advance(Math.max(SHARE_TOKEN_TTL_SECONDS, SHARE_ATTEMPT_WINDOW_SECONDS) * 1000 + 1000);
    const purged = await purgeExpired(t.engine.services.db, t.clock);
    expect(purged.shareTokens).toBeGreaterThan(0);
    expect(await rows("share_tokens")).toEqual([]);
    expect((await rows("login_counters")).filter((r) => r.key.startsWith("share") || r.key.startsWith("rate:"))).toEqual([]);
    // The link itself still works: a new token is issued.
    expect((await info(open.shareUrl, "10.12.0.1")).body.code).toBe(200);
  });

  it("runs on a timer in the engine (FERRY_PURGE_INTERVAL), stopped with the engine", async () => {
    const u = await startTestEngine({ FERRY_WEB_ORIGINS: SHARE_BASE, FERRY_PURGE_INTERVAL: "1" });
    try {
      const user = await u.createUser("timer_owner", { permission: PERMISSION_FULL });
      await writeTree(path.join(u.dataDir, "storage", "users", "timer_owner"), { "x.txt": "x" });
      const link = await makeLink(u, user.token, { shareFiles: ["/x.txt"] });
      expect((await u.call("GET", `/api/share/link/info?${new URLSearchParams({ url: link.shareUrl })}`)).body.code).toBe(200);
      const tokens = () => u.engine.services.db.kysely.selectFrom("share_tokens").select("token_hash").execute();
      expect(await tokens()).toHaveLength(1);
      u.clock.advance(SHARE_TOKEN_TTL_SECONDS * 1000 + 1000);
      await vi.waitFor(async () => expect(await tokens()).toHaveLength(0), { timeout: 20_000, interval: 200 });
    } finally {
      await u.stop();
    }
  });
});

describe("download counts", () => {
  it("a POST of the count records nothing, however often and whatever it names", async () => {
    const link = await makeLink(t, owner.token, { shareFiles: ["/pub/b.txt", "/pub/c.txt"] });
    const token = (await info(link.shareUrl, "10.13.0.1")).body.data.token as string;
    for (let i = 0; i < 50; i++) {
      const posted = await countPost(token, [i % 2 ? "/b.txt" : "/c.txt"], `10.13.1.${i}`);
      expect(posted.body).toMatchObject({ code: 200, data: { count: 0 } });
    }
    expect(await rows("share_downloads", link.shareId)).toEqual([]);
    expect((await countOf(link)).count).toBe(0);
    // Paths outside the share are still refused.
    expect((await countPost(token, ["/a.txt"])).body.code).toBe(1066);
  });

  it("the file server counts a download when it serves one: once per address and selection per window, at most the limit per address", async () => {
    const link = await makeLink(t, owner.token, { shareFiles: ["/pub"] });
    const token = (await info(link.shareUrl, "10.14.0.1")).body.data.token as string;
    const get = (paths: string[], address: string) => downloadShared(t, token, paths, ip(address));

    // A ticket asked for but never used counts nothing.
    expect((await t.call("POST", "/api/share/files/download", { token, body: { paths: ["/pub/a.txt"] } })).body.code).toBe(200);
    expect((await countOf(link)).count).toBe(0);

    const first = await get(["/pub/a.txt"], "10.14.0.1");
    expect(first).toMatchObject({ code: 200 });
    expect(first.body!.toString()).toBe("alpha");
    expect((await countOf(link)).count).toBe(1);
    // The same download again (a retry, a resumed range) from the same address: still one.
    for (let i = 0; i < 5; i++) expect((await get(["/pub/a.txt"], "10.14.0.1")).code).toBe(200);
    expect((await countOf(link)).count).toBe(1);
    // HEAD serves nothing and counts nothing.
    const ticket = (await t.call("POST", "/api/share/files/download", { token, body: { paths: ["/pub/b.txt"] } })).body.data.url as string;
    expect((await fetch(t.fileUrl + ticket, { method: "HEAD", headers: ip("10.14.0.1") })).status).toBe(200);
    expect((await countOf(link)).count).toBe(1);

    // Other selections count, up to FERRY_SHARE_COUNTS_PER_ADDRESS (4) per address and window.
    for (const name of ["b", "c", "d", "e", "f"]) expect((await get([`/pub/${name}.txt`], "10.14.0.1")).code).toBe(200);
    expect((await countOf(link)).count).toBe(4);
    // The downloads themselves never stop; another address counts on its own.
    expect((await get(["/pub/a.txt"], "10.14.0.2")).code).toBe(200);
    const counted = await countOf(link);
    expect(counted.count).toBe(5);
    expect(counted.records.map((r) => r.ip).sort()).toEqual(["10.14.0.1", "10.14.0.1", "10.14.0.1", "10.14.0.1", "10.14.0.2"]);
    expect(counted.records.find((r) => r.ip === "10.14.0.2")!.files).toEqual(["/pub/a.txt"]);

    // The next window counts the same address again.
    t.clock.advance(601_000);
    const fresh = (await info(link.shareUrl, "10.14.0.1")).body.data.token as string;
    expect((await downloadShared(t, fresh, ["/pub/a.txt"], ip("10.14.0.1"))).code).toBe(200);
    expect((await countOf(link)).count).toBe(6);
  });
});
