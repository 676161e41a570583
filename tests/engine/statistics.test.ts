import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { StatisticsReport, StatisticsRow } from "../../contract/statistics";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Transfer statistics (docs/admin-api.md, "Statistics"): real uploads (tus + commit) and downloads
 * (signed URL, every byte) by two users, one of them in a group space, on two days; the engine's
 * sums per user, per group space and per calendar day (in UTC and in Asia/Shanghai), its CSV, the
 * statistics period and the refusals.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const DAY = 86_400_000;
const HOUR = 3_600_000;
const GROUP_NAME = "=Design+1";

let t: TestEngine;
let admin: string;
let groupId: number;
/** Midnight UTC of the first day the transfers happen on (at 20:01 UTC, 04:01 the next day in Shanghai). */
let day0: number;
const sockets: FileClient[] = [];

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function signIn(account: string, password: string) {
  const reply = await t.login(account, password);
  expect(reply.body.code).toBe(200);
  const socketToken = reply.body.data.websocket_token as string;
  const files = await connectFiles(t.fileUrl, socketToken);
  sockets.push(files);
  return { token: reply.body.data.token as string, socketToken, files };
}

/** Uploads `data` to `path` with tus and commits it, as the web's transfer list does. */
async function upload(user: { socketToken: string; files: FileClient }, group: number, path: string, size: number) {
  const data = Buffer.alloc(size, path.length);
  const created = await tusClient(t.fileUrl, user.socketToken).create({ groupId: String(group), path }, data.length, data);
  expect(created.status, created.text).toBe(201);
  expect(await user.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path });
}

/** Downloads `path` as the web does: a signed URL from the socket, then every byte of it. */
async function download(user: { files: FileClient }, group: number, path: string, size: number) {
  const { url } = await user.files.ok("download", { groupId: group, paths: [path] });
  const res = await fetch(t.fileUrl + url);
  expect(res.status).toBe(200);
  expect((await res.arrayBuffer()).byteLength).toBe(size);
}

async function report(query: Record<string, string | number>): Promise<StatisticsReport> {
  const reply = await t.call<StatisticsReport>("GET", `/api/admin/statistics?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`, { token: admin });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data!;
}

const range = () => ({ from: day0, to: day0 + 2 * DAY });
const sums = (row: StatisticsRow | undefined) =>
  row && { uploadBytes: row.uploadBytes, uploads: row.uploads, uploadFiles: row.uploadFiles, downloadBytes: row.downloadBytes, downloads: row.downloads, downloadFiles: row.downloadFiles, failed: row.failed };

/** The recorder writes in batches off the hot path: write what is queued, until the last download (finished after its last byte) is in. */
async function settled(downloads: number) {
  for (let i = 0; i < 500; i++) {
    await t.engine.services.recorder.flush();
    if ((await report({ ...range(), groupBy: "day" })).totals.downloads >= downloads) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  t = await startTestEngine();
  // Day 0 at 20:01 UTC: 04:01 of day 1 in Shanghai, so the two zones count the same transfer on different days.
  const now = t.clock.now();
  day0 = Math.floor(now / DAY) * DAY;
  if (day0 + 20 * HOUR <= now) day0 += DAY;
  t.clock.advance(day0 + 20 * HOUR + 60_000 - now);
  admin = await t.adminToken();

  await t.createUser("stat_alice", { permission: PERMISSION_FULL });
  const bobUser = await t.createUser("stat_bob", { permission: PERMISSION_FULL });
  const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: GROUP_NAME } });
  expect(group.body.code, JSON.stringify(group.body)).toBe(200);
  groupId = group.body.data.id as number;
  expect((await t.call("PUT", `/api/admin/groups/${groupId}/members/${bobUser.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);

  // Day 0: alice in her own space, bob in the group space.
  const alice = await signIn("stat_alice", "Str0ng#Pass");
  const bob = await signIn("stat_bob", "Str0ng#Pass");
  await upload(alice, 0, "/a.bin", 1000);
  await upload(alice, 0, "/b.bin", 500);
  await download(alice, 0, "/a.bin", 1000);
  await upload(bob, groupId, "/g.bin", 300);
  await download(bob, groupId, "/g.bin", 300);
  await settled(2);

  // Day 1: bob in his own space.
  t.clock.advance(DAY);
  admin = await t.adminToken();
  const bobAgain = await signIn("stat_bob", "Str0ng#Pass");
  await upload(bobAgain, 0, "/p.bin", 200);
  await settled(2);
});

afterAll(async () => {
  for (const s of sockets.splice(0)) await s.close();
  await t?.stop();
});

describe("transfer statistics", () => {
  it("sums per user, sorted, searched and paged", async () => {
    const byUser = await report({ ...range(), groupBy: "user" });
    expect(byUser.total).toBe(2);
    // Largest total first by default.
    expect(byUser.list.map((r) => r.name)).toEqual(["stat_alice", "stat_bob"]);
    expect(sums(byUser.list[0])).toEqual({ uploadBytes: 1500, uploads: 2, uploadFiles: 2, downloadBytes: 1000, downloads: 1, downloadFiles: 1, failed: 0 });
    expect(sums(byUser.list[1])).toEqual({ uploadBytes: 500, uploads: 2, uploadFiles: 2, downloadBytes: 300, downloads: 1, downloadFiles: 1, failed: 0 });
    expect(byUser.totals).toEqual({ uploadBytes: 2000, uploads: 4, uploadFiles: 4, downloadBytes: 1300, downloads: 2, downloadFiles: 2, failed: 0 });
    expect(byUser.list[0]!.id).toBeGreaterThan(0);

    expect((await report({ ...range(), groupBy: "user", orderBy: "totalBytes", order: "asc" })).list.map((r) => r.name)).toEqual(["stat_bob", "stat_alice"]);
    expect((await report({ ...range(), groupBy: "user", orderBy: "uploads", order: "desc" })).list.map((r) => r.name)).toEqual(["stat_alice", "stat_bob"]);
    expect((await report({ ...range(), groupBy: "user", orderBy: "name", order: "desc" })).list.map((r) => r.name)).toEqual(["stat_bob", "stat_alice"]);
    const searched = await report({ ...range(), groupBy: "user", search: "BOB" });
    expect(searched.list.map((r) => r.name)).toEqual(["stat_bob"]);
    expect(searched.total).toBe(1);
    const page2 = await report({ ...range(), groupBy: "user", pageSize: 1, pageNum: 2 });
    expect(page2).toMatchObject({ total: 2, size: 1, current: 2 });
    expect(page2.list.map((r) => r.name)).toEqual(["stat_bob"]);

    const downloadsOnly = await report({ ...range(), groupBy: "user", direction: "download" });
    expect(downloadsOnly.totals).toMatchObject({ uploadBytes: 0, uploads: 0, downloadBytes: 1300, downloads: 2 });
  });

  it("sums per group space: only transfers in the group's space", async () => {
    const byGroup = await report({ ...range(), groupBy: "group" });
    expect(byGroup.total).toBe(1);
    expect(byGroup.list[0]).toMatchObject({ key: String(groupId), id: groupId, name: GROUP_NAME });
    expect(sums(byGroup.list[0])).toEqual({ uploadBytes: 300, uploads: 1, uploadFiles: 1, downloadBytes: 300, downloads: 1, downloadFiles: 1, failed: 0 });
    expect((await report({ ...range(), groupBy: "group", search: "design" })).total).toBe(1);
    expect((await report({ ...range(), groupBy: "group", search: "nothing" })).list).toEqual([]);
  });

  it("sums per calendar day of the time zone asked for, every day of the range", async () => {
    const utc = await report({ ...range(), groupBy: "day", tz: "UTC" });
    expect(utc.list.map((r) => r.key)).toEqual([iso(day0), iso(day0 + DAY)]);
    expect(utc.list.map((r) => [r.uploadBytes, r.uploads, r.downloadBytes, r.downloads])).toEqual([
      [1800, 3, 1300, 2],
      [200, 1, 0, 0],
    ]);
    expect(utc.list[0]!.start).toBe(day0);

    // 20:01 UTC is 04:01 of the next day in Shanghai; the range (UTC midnights) touches three of its days.
    const shanghai = await report({ ...range(), groupBy: "day", tz: "Asia/Shanghai" });
    expect(shanghai.list.map((r) => r.key)).toEqual([iso(day0), iso(day0 + DAY), iso(day0 + 2 * DAY)]);
    expect(shanghai.list.map((r) => r.uploadBytes)).toEqual([0, 1800, 200]);
    expect(shanghai.list[1]!.start).toBe(day0 + DAY - 8 * HOUR);
  });

  it("exports CSV with a header row, the rows, and formula-like cells defused", async () => {
    const csv = async (query: Record<string, string | number>) => {
      const res = await fetch(`${t.url}/api/admin/statistics/export?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`, { headers: { authorization: `Bearer ${admin}` } });
      return { res, text: await res.text() };
    };
    const users = await csv({ ...range(), groupBy: "user" });
    expect(users.res.status).toBe(200);
    expect(users.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(users.res.headers.get("content-disposition")).toContain("attachment");
    expect(users.text.split("\r\n")).toEqual([
      "key,name,uploadBytes,uploads,uploadFiles,downloadBytes,downloads,downloadFiles,failed",
      "stat_alice,stat_alice,1500,2,2,1000,1,1,0",
      "stat_bob,stat_bob,500,2,2,300,1,1,0",
      "",
    ]);
    const groups = await csv({ ...range(), groupBy: "group" });
    expect(groups.text.split("\r\n")[1]).toBe(`${groupId},'${GROUP_NAME},300,1,1,300,1,1,0`);
    const days = await csv({ ...range(), groupBy: "day", tz: "UTC" });
    expect(days.text.split("\r\n").slice(1, 3)).toEqual([`${iso(day0)},${iso(day0)},1800,3,3,1300,2,2,0`, `${iso(day0 + DAY)},${iso(day0 + DAY)},200,1,1,0,0,0,0`]);

    // A bad range is an error answer, not a broken file; only the administrator may export.
    const bad = await csv({ from: 10, to: 5 });
    expect(bad.res.status).toBe(400);
    const bob = await t.login("stat_bob", "Str0ng#Pass");
    const refused = await fetch(`${t.url}/api/admin/statistics/export`, { headers: { authorization: `Bearer ${bob.body.data.token}` } });
    expect((await refused.json()).code).toBe(ErrorCode.PermissionDenied);
  });

  it("sums the last statistics period when no range is given; the period is a setting", async () => {
    expect((await t.call("GET", "/api/admin/settings/statistics", { token: admin })).body.data).toEqual({ periodHours: 168 });
    const week = await report({ groupBy: "user" });
    expect(week.periodHours).toBe(168);
    expect(week.to - week.from).toBe(168 * HOUR);
    expect(week.totals.uploadBytes).toBe(2000);
    try {
      // The clock is 20:01 of day 1: the last 2 hours hold only bob's personal upload.
      const saved = await t.call("PATCH", "/api/admin/settings/statistics", { token: admin, body: { periodHours: 2 } });
      expect(saved.body.data).toEqual({ periodHours: 2 });
      const recent = await report({ groupBy: "user" });
      expect(recent.to - recent.from).toBe(2 * HOUR);
      expect(recent.list.map((r) => [r.name, r.uploadBytes])).toEqual([["stat_bob", 200]]);
      expect((await report({ groupBy: "day", tz: "UTC" })).list.map((r) => r.key)).toEqual([iso(day0 + DAY)]);
    } finally {
      await t.call("PATCH", "/api/admin/settings/statistics", { token: admin, body: { periodHours: 168 } });
    }
    for (const periodHours of [0, 8785, 1.5, "24"]) {
      const refused = await t.call("PATCH", "/api/admin/settings/statistics", { token: admin, body: { periodHours } });
      expect(refused.status, String(periodHours)).toBe(400);
    }
    expect((await t.call("GET", "/api/admin/settings/statistics", { token: admin })).body.data).toEqual({ periodHours: 168 });
  });

  it("refuses ranges backwards or past the cap, unknown zones and fields, and other users", async () => {
    const get = (query: string, token = admin) => t.call("GET", `/api/admin/statistics?${query}`, { token });
    expect((await get(`from=${day0}&to=${day0}`)).status).toBe(400);
    expect((await get(`from=${day0}&to=${day0 + 368 * DAY}`)).status).toBe(400);
    expect((await get(`from=${day0}&to=${day0 + 367 * DAY}&groupBy=day`)).body.data).toMatchObject({ total: 367 });
    expect((await get("tz=Mars/Olympus")).status).toBe(400);
    expect((await get("groupBy=hour")).status).toBe(400);
    expect((await get("orderBy=password")).status).toBe(400);
    expect((await get("pageSize=101")).status).toBe(400);
    expect((await get("from=abc")).status).toBe(400);
    const bob = await t.login("stat_bob", "Str0ng#Pass");
    expect((await get("groupBy=user", bob.body.data.token as string)).body.code).toBe(ErrorCode.PermissionDenied);
    expect((await t.call("PATCH", "/api/admin/settings/statistics", { token: bob.body.data.token as string, body: { periodHours: 1 } })).body.code).toBe(ErrorCode.PermissionDenied);
  });
});
