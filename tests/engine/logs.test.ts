import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { ADMIN_PASSWORD, startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, downloadShared, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * The administrator's logs (docs/admin-api.md, "Logs"): every kind of operation is written by the
 * real action over HTTP, the file server's socket and tus, read back through GET /api/admin/logs
 * (filters, paging, order) and its CSV export; transfers land in transfer_log with their bytes;
 * retention deletes old rows; the preview log lists a preview in flight and stops it.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

type Entry = { id: number; at: number; userId: number | null; account: string; accountType: number; role: string; address: string; kind: string; target: string; detail: string; result: string; code: number };
type User = Awaited<ReturnType<TestEngine["createUser"]>>;

let t: TestEngine;
let admin: string;
let u: User;
let files: FileClient;
let home: string;

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_PREVIEW: "on" });
  admin = await t.adminToken();
  u = await t.createUser("log_user", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, u.socketToken);
  home = path.join(t.dataDir, "storage", "users", "log_user");
  await writeTree(home, { "docs/a.txt": "alpha", "docs/b.txt": "bravo-bravo", "big.bin": randomBytes(200_000), "shared/s.txt": "shared text" });
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

async function logs(query: Record<string, string | number> = {}): Promise<{ list: Entry[]; total: number; size: number; current: number }> {
  const params = new URLSearchParams(Object.entries({ pageSize: 100, ...query }).map(([k, v]) => [k, String(v)]));
  const reply = await t.call("GET", `/api/admin/logs?${params}`, { token: admin });
  expect(reply.body.code).toBe(200);
  return reply.body.data;
}
const latest = async (kind: string, user?: string) => (await logs({ kind, ...(user ? { user } : {}) })).list[0];

async function transfers() {
  await t.engine.services.recorder.flush();
  return t.engine.services.db.kysely.selectFrom("transfer_log").selectAll().orderBy("id").execute();
}

async function upload(client: FileClient, token: string, p: string, data: Buffer) {
  const created = await tusClient(t.fileUrl, token).create({ groupId: "0", path: p }, data.length, data);
  expect(created.status).toBe(201);
  return client.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
}

describe("operation log written by the real actions", () => {
  it("records sign-in and failed sign-in of users and of the administrator, with account type and address", async () => {
    expect((await t.login("log_user", "Wrong#Pass-1")).body.code).toBe(1005);
    expect((await t.login("no_such_account", "Wrong#Pass-1")).body.code).toBe(1005);
    expect((await t.login("log_user", u.password)).body.code).toBe(200);
    expect((await t.login("admin", "Wrong#Pass-1")).body.code).toBe(1005);

    const failed = (await logs({ kind: "signin_failed", user: "log_user" })).list;
    expect(failed[0]).toMatchObject({ userId: u.id, account: "log_user", role: "user", address: "127.0.0.1", result: "failed", code: 1005 });
    expect(failed[0]!.accountType).toBeGreaterThan(0);
    expect((await latest("signin_failed", "no_such_account"))).toMatchObject({ userId: null, account: "no_such_account", code: 1005 });
    expect(await latest("signin_failed", "admin")).toMatchObject({ role: "admin", result: "failed" });
    expect(await latest("signin", "log_user")).toMatchObject({ userId: u.id, result: "ok", code: 0, address: "127.0.0.1" });
    expect(await latest("signin", "admin")).toMatchObject({ role: "admin", result: "ok" });
  });

  it("records an upload (tus + commit) and its transfer with the bytes", async () => {
    const data = randomBytes(123_456);
    expect((await upload(files, u.socketToken, "/up/new.bin", data)).code).toBe(200);
    expect(await latest("upload", "log_user")).toMatchObject({ target: "/up/new.bin", result: "ok", role: "user" });
    const row = (await transfers()).find((r) => r.direction === "upload" && r.path === "/up/new.bin");
    expect(row).toMatchObject({ user_id: u.id, account: "log_user", bytes: 123_456, files: 1, result: "ok", via: "web", group_id: null });
  });

  it("records downloads: a whole file, a range that stops short of the end (transfer only), a zip", async () => {
    const before = (await logs({ kind: "download" })).total;
    const whole = await files.ok("download", { groupId: 0, paths: ["/big.bin"] });
    const res = await fetch(t.fileUrl + whole.url);
    expect((await res.arrayBuffer()).byteLength).toBe(200_000);

    const ranged = await fetch(t.fileUrl + whole.url, { headers: { range: "bytes=0-999" } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(1000);

    const zip = await files.ok("download", { groupId: 0, paths: ["/docs"] });
    const zipped = await (await fetch(t.fileUrl + zip.url)).arrayBuffer();

    await vi.waitFor(async () => expect((await logs({ kind: "download" })).total).toBe(before + 2));
    const [zipEntry, fileEntry] = (await logs({ kind: "download" })).list;
    expect(fileEntry).toMatchObject({ target: "/big.bin", result: "ok", account: "log_user" });
    expect(zipEntry).toMatchObject({ target: "/docs", detail: "zip", result: "ok" });

    const rows = (await transfers()).filter((r) => r.direction === "download");
    expect(rows.find((r) => r.path === "/big.bin" && r.files === 1)).toMatchObject({ bytes: 200_000, result: "ok", via: "web", user_id: u.id });
    expect(rows.find((r) => r.path === "/big.bin" && r.files === 0)).toMatchObject({ bytes: 1000, result: "ok" });
    expect(rows.find((r) => r.path === "/docs")).toMatchObject({ via: "zip", bytes: zipped.byteLength, files: 1, result: "ok" });
  });

  it("records mkdir, rename, move, copy and delete over the socket, and a failure with its code", async () => {
    await files.ok("mkdir", { groupId: 0, path: "/", name: "made" });
    await files.ok("rename", { groupId: 0, path: "/docs/a.txt", newName: "renamed.txt" });
    await files.ok("copy", { groupId: 0, paths: ["/docs/renamed.txt"], target: "/made" });
    await files.ok("move", { groupId: 0, paths: ["/docs/b.txt"], target: "/made" });
    await files.ok("remove", { groupId: 0, paths: ["/made/renamed.txt"] });
    expect((await files.cmd("rename", { groupId: 0, path: "/no-such.txt", newName: "x.txt" })).code).not.toBe(200);

    expect(await latest("mkdir", "log_user")).toMatchObject({ target: "/made", result: "ok" });
    expect(await latest("copy", "log_user")).toMatchObject({ target: "/docs/renamed.txt", detail: "→ /made" });
    expect(await latest("move", "log_user")).toMatchObject({ target: "/docs/b.txt", detail: "→ /made" });
    expect(await latest("delete", "log_user")).toMatchObject({ target: "/made/renamed.txt", result: "ok" });
    const renames = (await logs({ kind: "rename", user: "log_user" })).list;
    expect(renames[1]).toMatchObject({ target: "/docs/a.txt", detail: "→ renamed.txt", result: "ok" });
    expect(renames[0]).toMatchObject({ target: "/no-such.txt", result: "failed" });
    expect(renames[0]!.code).toBeGreaterThan(0);
  });

  it("records share create, a visitor's share-link download and an invitation upload, and share cancel", async () => {
    const link = await makeLink(t, u.token, { shareFiles: ["/shared/s.txt"] });
    expect(await latest("share_create", "log_user")).toMatchObject({ target: link.shareId, result: "ok" });
    expect((await latest("share_create", "log_user"))!.detail).toContain("/shared/s.txt");

    const visitorToken = await shareTokenOf(t, link);
    const got = await downloadShared(t, visitorToken, ["/s.txt"]);
    expect(got.code).toBe(200);
    expect(got.body?.toString()).toBe("shared text");
    await vi.waitFor(async () => expect(await latest("share_download")).toMatchObject({ role: "visitor", userId: null, target: "/s.txt", result: "ok" }));
    expect((await latest("share_download"))!.detail).toContain(link.shareId);
    expect((await transfers()).find((r) => r.share_id === link.shareId)).toMatchObject({ direction: "download", via: "share", bytes: "shared text".length, files: 1 });

    const invitation = await makeLink(t, u.token, { shareUrlType: 0, shareServerPath: "/up", needPassword: true, shareUrlPasswd: "in" });
    const invitationToken = await shareTokenOf(t, invitation);
    const visitor = await connectVisitor(t.fileUrl, invitationToken);
    expect((await upload(visitor, invitationToken, "/from-visitor.txt", Buffer.from("hello owner"))).code).toBe(200);
    await visitor.close();
    expect(await latest("invitation_use")).toMatchObject({ role: "visitor", userId: null, target: "/up/from-visitor.txt", detail: `link ${invitation.shareId}` });
    expect((await transfers()).find((r) => r.share_id === invitation.shareId)).toMatchObject({ direction: "upload", via: "share", bytes: 11 });

    expect((await t.call("PATCH", "/api/share/link/cancel", { token: u.token, body: { shareUrlList: [link.shareId] } })).body.code).toBe(200);
    expect(await latest("share_cancel", "log_user")).toMatchObject({ target: link.shareId, result: "ok" });
  });

  it("records admin changes and setting changes (field names, never values), and a refused one", async () => {
    expect((await t.call("PATCH", `/api/admin/users/${u.id}`, { token: admin, body: { fullname: "Logged User" } })).body.code).toBe(200);
    expect(await latest("admin_change", "admin")).toMatchObject({ role: "admin", target: String(u.id), detail: `PATCH /api/admin/users/:id fullname`, result: "ok" });
    expect((await t.call("PATCH", "/api/admin/settings/security", { token: admin, body: { lockTimes: 6 } })).body.code).toBe(200);
    expect(await latest("setting_change", "admin")).toMatchObject({ detail: "PATCH /api/admin/settings/security lockTimes", result: "ok" });
    expect((await t.call("DELETE", "/api/admin/users/999999", { token: admin })).body.code).not.toBe(200);
    expect(await latest("admin_change", "admin")).toMatchObject({ target: "999999", result: "failed" });
  });
});

describe("reading the log", () => {
  it("filters by user, kind, time range, result and text; pages; sorts by time", async () => {
    const all = await logs({ user: "log_user" });
    expect(all.list.every((e) => e.account === "log_user")).toBe(true);
    expect(all.list.map((e) => e.at)).toEqual([...all.list.map((e) => e.at)].sort((a, b) => b - a));
    const asc = await logs({ user: "LOG_USER", order: "asc" });
    expect(asc.list.map((e) => e.id)).toEqual([...all.list.map((e) => e.id)].reverse());

    const page2 = await logs({ user: "log_user", pageSize: 3, pageNum: 2 });
    expect(page2).toMatchObject({ total: all.total, size: 3, current: 2 });
    expect(page2.list.map((e) => e.id)).toEqual(all.list.slice(3, 6).map((e) => e.id));

    expect((await logs({ text: "RENAMED" })).list.every((e) => `${e.target} ${e.detail}`.toLowerCase().includes("renamed"))).toBe(true);
    expect((await logs({ text: "renamed" })).total).toBeGreaterThanOrEqual(3);
    expect((await logs({ text: "100%_!" })).total).toBe(0);
    expect((await logs({ result: "failed", user: "log_user" })).list.every((e) => e.result === "failed")).toBe(true);

    const now = t.clock.now();
    expect((await logs({ from: now + 1 })).total).toBe(0);
    expect((await logs({ to: now - 60_000 })).total).toBe(0);
    expect((await logs({ from: now - 60_000, to: now + 1 })).total).toBeGreaterThan(0);

    expect((await t.call("GET", "/api/admin/logs?kind=nonsense", { token: admin })).status).toBe(400);
    expect((await t.call("GET", "/api/admin/logs?pageSize=101", { token: admin })).status).toBe(400);
    expect((await t.call("GET", "/api/admin/logs", { token: u.token })).body.code).not.toBe(200);
  });

  it("exports the filtered rows as CSV, cells safe for spreadsheets", async () => {
    // A name typed at sign-in that a spreadsheet would run as a formula.
    expect((await t.login("=SUM(1)", "Wrong#Pass-1")).body.code).toBe(1005);
    const formula = await fetch(`${t.url}/api/admin/logs/export?kind=signin_failed&text=sum(`, { headers: { authorization: `Bearer ${admin}` } });
    const formulaLines = (await formula.text()).trim().split("\r\n");
    expect(formulaLines).toHaveLength(2);
    expect(formulaLines[1]).toMatch(/^[^,]+,'=SUM\(1\),0,user,127\.0\.0\.1,signin_failed,'=SUM\(1\),,failed,1005$/);

    const res = await fetch(`${t.url}/api/admin/logs/export?user=log_user&kind=mkdir`, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain("ferry-operation-log.csv");
    const lines = (await res.text()).replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(lines[0]).toBe("time,account,account type,role,address,kind,target,detail,result,code");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT[^,]+,log_user,2,user,127\.0\.0\.1,mkdir,\/made,,ok,0$/);
    const unauth = await fetch(`${t.url}/api/admin/logs/export`, { headers: { authorization: `Bearer ${u.token}` } });
    expect(unauth.status).not.toBe(200);
  });
});

describe("preview log", () => {
  it("lists a preview in flight and stops it: the response ends at once and its URL is refused", async () => {
    await writeFile(path.join(home, "manual.pdf"), randomBytes(64 * 1024 * 1024));
    const { url } = await files.ok("preview", { groupId: 0, path: "/manual.pdf" });
    // A reader that takes one piece and then waits: the response stays in flight (back-pressure) until it is cut.
    const res = await fetch(t.fileUrl + url);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = (await reader.read()).value?.length ?? 0;

    let previews: { id: string; account: string; path: string; streaming: number; address: string }[] = [];
    await vi.waitFor(async () => {
      previews = (await t.call("GET", "/api/admin/logs/previews", { token: admin })).body.data.list;
      expect(previews.find((p) => p.path === "/manual.pdf")?.streaming).toBe(1);
    });
    const live = previews.find((p) => p.path === "/manual.pdf")!;
    expect(live).toMatchObject({ account: "log_user", address: "127.0.0.1" });
    expect(await latest("preview", "log_user")).toMatchObject({ target: "/manual.pdf", result: "ok" });

    expect((await t.call("POST", `/api/admin/logs/previews/${live.id}/stop`, { token: admin })).body.code).toBe(200);
    // The rest never comes: the connection is cut before the file's end.
    const cut = await (async () => {
      for (;;) {
        const piece = await reader.read();
        if (piece.done) return false;
        received += piece.value.length;
      }
    })().catch(() => true);
    expect(cut).toBe(true);
    expect(received).toBeLessThan(64 * 1024 * 1024);
    expect((await t.call("GET", "/api/admin/logs/previews", { token: admin })).body.data.list.some((p: { id: string }) => p.id === live.id)).toBe(false);
    expect((await fetch(t.fileUrl + url)).status).toBe(403);
    expect((await t.call("POST", `/api/admin/logs/previews/${live.id}/stop`, { token: admin })).body.code).toBe(4480);
    expect(await latest("admin_change", "admin")).toMatchObject({ detail: "POST /api/admin/logs/previews/:id/stop", target: live.id });
  });
});

describe("retention", () => {
  it("deletes rows older than the retention days (settings group logs), keeps newer ones; bad input changes nothing", async () => {
    expect((await t.call("GET", "/api/admin/settings/logs", { token: admin })).body.data).toEqual({ transferLogDays: 180, operationLogDays: 180 });
    const oldOps = (await logs()).total;
    const oldTransfers = (await transfers()).length;
    expect(oldOps).toBeGreaterThan(10);
    expect(oldTransfers).toBeGreaterThan(3);

    t.clock.advance(40 * 86_400_000);
    // The sign-ins expired meanwhile: sign in again.
    admin = await t.tokenFor("admin", ADMIN_PASSWORD);
    const signedIn = (await t.login("log_user", u.password)).body.data as { websocket_token: string };
    await files.close();
    files = await connectFiles(t.fileUrl, signedIn.websocket_token);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "later" });
    const d = await files.ok("download", { groupId: 0, paths: ["/made/b.txt"] });
    await (await fetch(t.fileUrl + d.url)).arrayBuffer();
    await vi.waitFor(async () => expect((await transfers()).length).toBe(oldTransfers + 1));

    const bad = await t.call("PATCH", "/api/admin/settings/logs", { token: admin, body: { operationLogDays: 0, transferLogDays: 30 } });
    expect(bad.status).toBe(400);
    expect((await t.call("GET", "/api/admin/settings/logs", { token: admin })).body.data).toEqual({ transferLogDays: 180, operationLogDays: 180 });
    expect((await t.call("PATCH", "/api/admin/settings/logs", { token: admin, body: { operationLogDays: 3651 } })).status).toBe(400);

    const saved = await t.call("PATCH", "/api/admin/settings/logs", { token: admin, body: { operationLogDays: 30, transferLogDays: 30 } });
    expect(saved.body.data).toEqual({ transferLogDays: 30, operationLogDays: 30 });
    const left = await logs();
    expect(left.list.some((e) => e.kind === "mkdir" && e.target === "/later")).toBe(true);
    // Every row from before the 40 days is gone; what is left is the new mkdir and what came after (the PATCHes).
    expect(left.list.every((e) => e.at >= t.clock.now() - 30 * 86_400_000)).toBe(true);
    expect(left.total).toBeLessThan(oldOps);
    const rows = await transfers();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ path: "/made/b.txt", bytes: "bravo-bravo".length });
    // Put back what other tests of this engine expect.
    await t.call("PATCH", "/api/admin/settings/logs", { token: admin, body: { operationLogDays: 180, transferLogDays: 180 } });
  });
});
