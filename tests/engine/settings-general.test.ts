import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { startTestEngine, type TestEngine } from "../support/engine";
import { downloadShared, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { socketUsers, type SocketUser } from "../support/socket-users";
import { blake3Hex, tusClient } from "../support/tus-client";
import { zipNames } from "../support/zip-listing";

/**
 * The General and Transfer protocol settings (issue 15, "Settings"; docs/admin-api.md "Settings"):
 * every change reaches the engine's next request — the lockout count, the server-wide file-format
 * limit on uploads and downloads (4340), the speed periods' validation (4380), the share links'
 * bind-first-device default, the space statistics, the watermark's edition gate, the hash check
 * and what /api/service/info tells the web.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
const users = socketUsers(() => t);

const patch = (group: string, body: unknown) => t.call("PATCH", `/api/admin/settings/${group}`, { token: admin, body });
const get = async (group: string) => (await t.call("GET", `/api/admin/settings/${group}`, { token: admin })).body.data as Record<string, unknown>;
const from = (ip: string) => ({ "x-forwarded-for": ip });

async function put(user: SocketUser, rel: string, bytes: string) {
  const space = await t.engine.services.spaces.open(user.id, 0);
  const file = path.join(t.engine.services.spaces.root, space.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

async function send(user: SocketUser, p: string, data: Buffer) {
  const created = await tusClient(t.fileUrl, user.socketToken).create({ groupId: "0", path: p, overwrite: "0" }, data.length, data);
  return { ...created, hash: await blake3Hex(data) };
}

async function fetchDownload(url: string) {
  const res = await fetch(t.fileUrl + url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_TRUSTED_PROXIES: "127.0.0.1" });
  admin = await t.adminToken();
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

describe("security", () => {
  it("a new lockTimes holds from the next sign-in: the Nth wrong password locks", async () => {
    await t.createUser("lock_five");
    expect((await patch("security", { lockTimes: 5, lockMinutes: 10 })).body.code).toBe(200);
    for (let i = 1; i <= 4; i++) expect((await t.login("lock_five", `Wrong#Pass${i}`, from(`10.20.0.${i}`))).body.code).toBe(ErrorCode.WrongPassword);
    expect((await t.login("lock_five", "Wrong#Pass5", from("10.20.0.5"))).body.code).toBe(ErrorCode.AccountLocked);

    await t.createUser("lock_three");
    expect((await patch("security", { lockTimes: 3 })).body.code).toBe(200);
    for (let i = 1; i <= 2; i++) expect((await t.login("lock_three", `Wrong#Pass${i}`, from(`10.20.1.${i}`))).body.code).toBe(ErrorCode.WrongPassword);
    expect((await t.login("lock_three", "Wrong#Pass3", from("10.20.1.3"))).body.code).toBe(ErrorCode.AccountLocked);
  });

  it("refuses lockTimes outside 3–30 and a format list of 255 characters or more, changing nothing", async () => {
    const before = await get("security");
    for (const body of [{ lockTimes: 2 }, { lockTimes: 31 }, { fileFormats: "a;".repeat(128) }, { fileFormatMode: 3 }]) {
      expect((await patch("security", body)).status).toBe(400);
    }
    expect(await get("security")).toEqual(before);
  });

  it("the server-wide format limit refuses uploads (creation and commit) and named downloads with 4340, leaves such files out of zips; off lets them through", async () => {
    const user = await users.userWith("fmt_user");
    await put(user, "/tools/setup.exe", "MZ");
    await put(user, "/tools/readme.txt", "read me");
    const early = await send(user, "/late.EXE", randomBytes(100));
    expect(early.status, early.text).toBe(201);
    try {
      expect((await patch("security", { fileFormatMode: 2, fileFormats: "*.exe; bat" })).body.code).toBe(200);
      const refused = await send(user, "/new.bat", Buffer.from("@echo"));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: ErrorCode.FileFormatRefused, message: "new.bat cannot be transferred: the server does not allow files of this type", data: { name: "new.bat", scope: "server", context: "server" } });
      expect(await user.files.cmd("commit", { uploadId: early.id!, hash: early.hash })).toMatchObject({ code: ErrorCode.FileFormatRefused, data: { name: "late.EXE" } });
      expect(await user.files.cmd("download", { groupId: 0, paths: ["/tools/setup.exe"] })).toMatchObject({ code: ErrorCode.FileFormatRefused, data: { name: "setup.exe", scope: "server" } });
      const zip = await user.files.ok("download", { groupId: 0, paths: ["/tools"] });
      expect(await zipNames((await fetchDownload(zip.url)).body)).toEqual(["tools/", "tools/readme.txt"]);
      const link = await shareTokenOf(t, await makeLink(t, user.token, { shareFiles: ["/tools"] }));
      expect((await downloadShared(t, link, ["/tools/setup.exe"])).code).toBe(ErrorCode.FileFormatRefused);

      // A whitelist lets only its formats through.
      expect((await patch("security", { fileFormatMode: 1, fileFormats: "txt" })).body.code).toBe(200);
      expect((await send(user, "/photo.jpg", Buffer.from("jpg"))).body).toMatchObject({ code: ErrorCode.FileFormatRefused });
      expect((await fetchDownload((await user.files.ok("download", { groupId: 0, paths: ["/tools/readme.txt"] })).url)).status).toBe(200);
    } finally {
      expect((await patch("security", { fileFormatMode: 0, fileFormats: "" })).body.code).toBe(200);
    }
    expect(await user.files.cmd("commit", { uploadId: early.id!, hash: early.hash })).toMatchObject({ code: 200 });
    expect((await fetchDownload((await user.files.ok("download", { groupId: 0, paths: ["/tools/setup.exe"] })).url)).body.toString()).toBe("MZ");
  });
});

describe("the file-format refusal says whose rule refused", () => {
  it("the server's limit names the server, the user's own rule the account (en and zh), when both are set", async () => {
    const user = await users.userWith("fmt_both", { fileFormatMode: 2, fileFormats: "exe" });
    const sendWith = async (p: string, headers: Record<string, string> = {}) =>
      (await tusClient(t.fileUrl, user.socketToken, headers).create({ groupId: "0", path: p, overwrite: "0" }, 2, Buffer.from("xx"))).body;
    try {
      expect((await patch("security", { fileFormatMode: 2, fileFormats: "bat" })).body.code).toBe(200);
      expect(await sendWith("/server.bat")).toMatchObject({ code: ErrorCode.FileFormatRefused, message: "server.bat cannot be transferred: the server does not allow files of this type", data: { scope: "server" } });
      expect(await sendWith("/server.bat", { "accept-language": "zh-CN" })).toMatchObject({ message: "无法传输 server.bat：服务器不允许此类型的文件" });
      const own = await sendWith("/own.exe");
      expect(own).toMatchObject({ code: ErrorCode.FileFormatRefused, message: "own.exe cannot be uploaded: files of this type are not allowed for your account" });
      expect(own!.data).not.toHaveProperty("scope");
      expect(await sendWith("/own.exe", { "accept-language": "zh-CN" })).toMatchObject({ message: "无法上传 own.exe：您的账号不允许此类型的文件" });
    } finally {
      expect((await patch("security", { fileFormatMode: 0, fileFormats: "" })).body.code).toBe(200);
    }
  });
});

describe("speed settings", () => {
  it("refuses a period whose end is not after its start with 4380 (its number), in both languages, changing nothing", async () => {
    const good = { start: "08:00", end: "18:00", repeat: "weekdays", uploadSpeed: 1024, downloadSpeed: 0 };
    expect((await patch("speed", { maxUploadSpeed: 2048, periods: [good] })).body.code).toBe(200);
    const refused = await patch("speed", { maxUploadSpeed: 10, periods: [good, { ...good, start: "18:00", end: "18:00" }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: ErrorCode.SpeedPeriodOrder, data: { index: 1 } });
    expect(refused.body.message).toContain("Speed period 2");
    const zh = await t.call("PATCH", "/api/admin/settings/speed", { token: admin, body: { periods: [{ ...good, start: "23:00", end: "01:00" }] }, headers: { "accept-language": "zh-CN" } });
    expect(zh.body.message).toContain("限速时段 1");
    for (const period of [{ ...good, start: "8:00" }, { ...good, end: "24:00" }, { ...good, repeat: "holidays" }, { ...good, uploadSpeed: -1 }]) {
      expect((await patch("speed", { periods: [period] })).status).toBe(400);
    }
    expect(await get("speed")).toEqual({ maxUploadSpeed: 2048, maxDownloadSpeed: 0, periods: [good], clientPromptMB: 0 });
    expect((await patch("speed", { maxUploadSpeed: 0, periods: [] })).body.code).toBe(200);
  });
});

describe("general settings", () => {
  it("bind first device is the default of a new link that does not say; a link that says keeps its own", async () => {
    const user = await users.userWith("bind_user");
    await put(user, "/a.txt", "a");
    const bindOf = async (body: Record<string, unknown>) => {
      const link = await makeLink(t, user.token, { shareFiles: ["/a.txt"], ...body });
      const verified = await t.call("POST", "/api/share/link/verify/url", { body: { url: link.shareUrl, fingerprint: "fp-1" } });
      return (verified.body.data as { bindSwitch: number }).bindSwitch;
    };
    expect(await bindOf({})).toBe(0);
    try {
      expect((await patch("general", { bindFirstDevice: true })).body.code).toBe(200);
      expect(await bindOf({})).toBe(1);
      expect(await bindOf({ bindSwitch: false })).toBe(0);
      expect((await t.call("GET", "/api/service/info", { token: user.token })).body.data.server.bindFirstDevice).toBe(true);
    } finally {
      await patch("general", { bindFirstDevice: false });
    }
  });

  it("space statistics off: the console's lists answer no measured space; on again: measured", async () => {
    await t.createUser("stats_user");
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "statsteam" } });
    expect(group.body.code).toBe(200);
    const spaces = async () => {
      const list = (await t.call("GET", "/api/admin/users?search=stats_user", { token: admin })).body.data.list as { space: unknown }[];
      const groups = (await t.call("GET", "/api/admin/groups?search=statsteam", { token: admin })).body.data.list as { space: unknown }[];
      return [list[0]!.space, groups[0]!.space];
    };
    expect((await spaces()).every((s) => s !== null && typeof (s as { used: number }).used === "number")).toBe(true);
    try {
      expect((await patch("general", { userSpaceStatistics: false, groupSpaceStatistics: false })).body.code).toBe(200);
      expect(await spaces()).toEqual([null, null]);
      expect((await patch("general", { groupSpaceStatistics: true })).body.code).toBe(200);
      const [userSpace, groupSpace] = await spaces();
      expect(userSpace).toBeNull();
      expect(groupSpace).not.toBeNull();
    } finally {
      await patch("general", { userSpaceStatistics: true, groupSpaceStatistics: true });
    }
  });

  it("the watermark needs the enterprise edition (4381 in free), and nothing else in the patch is saved", async () => {
    const refused = await patch("general", { watermark: true, eventNotifications: false });
    expect(refused.body.code).toBe(ErrorCode.WatermarkEnterprise);
    expect(await get("general")).toMatchObject({ watermark: false, eventNotifications: true });
    expect((await patch("general", { watermark: false })).body.code).toBe(200);
  });
});

describe("transfer protocol", () => {
  it("parallel uploads and part size reach /api/service/info; out of range is refused", async () => {
    const user = await users.userWith("proto_user");
    try {
      expect((await patch("protocol", { parallelUploads: 5, uploadPartMB: 64 })).body.code).toBe(200);
      expect((await patch("speed", { clientPromptMB: 500 })).body.code).toBe(200);
      const info = (await t.call("GET", "/api/service/info", { token: user.token })).body.data.server;
      expect(info).toMatchObject({ parallelUploads: 5, uploadPartMB: 64, clientPromptMB: 500 });
      for (const body of [{ parallelUploads: 0 }, { parallelUploads: 11 }, { uploadPartMB: -1 }]) expect((await patch("protocol", body)).status).toBe(400);
    } finally {
      await patch("protocol", { parallelUploads: 3, uploadPartMB: 0 });
      await patch("speed", { clientPromptMB: 0 });
    }
  });

  it("hash check on: a commit without the client's hash is refused; off: it commits, and a wrong hash is not compared", async () => {
    const user = await users.userWith("hash_user");
    const first = await send(user, "/one.bin", randomBytes(2000));
    expect(await user.files.cmd("commit", { uploadId: first.id! })).toMatchObject({ code: ErrorCode.BadRequired });
    try {
      expect((await patch("transfer", { cHashVerifySwitch: false })).body.code).toBe(200);
      expect((await t.call("GET", "/api/service/info", { token: user.token })).body.data.server.cHashVerifySwitch).toBe(false);
      expect(await user.files.cmd("commit", { uploadId: first.id! })).toMatchObject({ code: 200, data: { path: "/one.bin", size: 2000, hash: first.hash } });
    } finally {
      await patch("transfer", { cHashVerifySwitch: true });
    }
    const second = await send(user, "/two.bin", randomBytes(2000));
    expect(await user.files.cmd("commit", { uploadId: second.id!, hash: first.hash })).toMatchObject({ code: ErrorCode.HashCheckError });
  });
});
