import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { downloadShared, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { tusClient } from "../support/tus-client";

/**
 * Speed limits (docs/file-server.md, "Speed limits"): a limited user's download or upload measures
 * within ±10 % of the limit, per user across all its connections, on every path its bytes take —
 * ranged downloads, zips, tus uploads, its share links' downloads and visitor uploads — and a
 * group's limit holds in the group space. Each transfer is sized to take about 3 s at its limit.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type User = Awaited<ReturnType<TestEngine["createUser"]>>;
const KB = 1024;
/** The limited user's limit, KB/s (1 KB = 1024 bytes). */
const LIMIT_KB = 512;
const LIMIT = LIMIT_KB * KB;
/** The group's limit, Mbps (10^6 bits/s), below its member's own limit. */
const GROUP_MBPS = 4;
const GROUP_LIMIT = (GROUP_MBPS * 1_000_000) / 8;
const SIZE = 3 * LIMIT; // 3 s at the limit
const data = randomBytes(SIZE);

let t: TestEngine;
let slow: User;
let fast: User;
let member: User;
let groupId: number;
let slowFiles: FileClient;
let fastFiles: FileClient;
let memberFiles: FileClient;
let admin: string;

async function put(userId: number, rel: string, bytes: Uint8Array, group = 0) {
  const space = await t.engine.services.spaces.open(userId, group);
  const file = path.join(t.engine.services.spaces.root, space.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

/** Bytes per second of `transfer`, from its start to its last byte; checks the byte count. */
async function rate(bytes: number, transfer: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const got = await transfer();
  const seconds = (performance.now() - started) / 1000;
  expect(got).toBe(bytes);
  return bytes / seconds;
}

/** Fetches a file-server URL whole; the number of body bytes. */
async function fetched(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(t.fileUrl + url, { headers });
  expect(res.status).toBeLessThan(300);
  return (await res.arrayBuffer()).byteLength;
}

async function downloadUrl(files: FileClient, paths: string[], group = 0): Promise<string> {
  return ((await files.ok("download", { groupId: group, paths })) as { url: string }).url;
}

/**
 * Creates a tus upload for `bytes`; `send` then sends all of them in one PATCH and answers the
 * bytes the engine stored (its answer comes after the last one is written). Tests time `send`
 * only: the creation is per-request work of the engine (a database row), not bytes the limit governs.
 */
async function upload(token: string, meta: Record<string, string>, bytes: Uint8Array) {
  const tus = tusClient(t.fileUrl, token);
  const created = await tus.create(meta, bytes.length);
  expect(created.status, created.text).toBe(201);
  return {
    async send(): Promise<number> {
      const patched = await tus.patch(created.id!, 0, bytes);
      expect(patched.status, patched.text).toBe(204);
      return Number(patched.headers.get("upload-offset"));
    },
  };
}

/** Bytes per second of one tus upload of `bytes`. */
async function uploadRate(token: string, meta: Record<string, string>, bytes: Uint8Array): Promise<number> {
  const created = await upload(token, meta, bytes);
  return rate(bytes.length, () => created.send());
}

const within10 = (measured: number, limit: number) => {
  expect(measured / limit).toBeGreaterThan(0.9);
  expect(measured / limit).toBeLessThan(1.1);
};

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  admin = await t.adminToken();
  slow = await t.createUser("slow_user", { permission: PERMISSION_FULL, maxDownloadSpeed: LIMIT_KB, maxUploadSpeed: LIMIT_KB });
  fast = await t.createUser("fast_user", { permission: PERMISSION_FULL });
  // The member's own limit is above the group's: in the group space the group's binds.
  member = await t.createUser("member_user", { permission: PERMISSION_FULL, maxDownloadSpeed: 4 * LIMIT_KB, maxUploadSpeed: 4 * LIMIT_KB });
  const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "slowteam", maxDownloadSpeed: GROUP_MBPS, maxUploadSpeed: GROUP_MBPS } });
  expect(group.body.code).toBe(200);
  groupId = (group.body.data as { id: number }).id;
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${member.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
  slowFiles = await connectFiles(t.fileUrl, slow.socketToken);
  fastFiles = await connectFiles(t.fileUrl, fast.socketToken);
  memberFiles = await connectFiles(t.fileUrl, member.socketToken);
  await put(slow.id, "/file.bin", data);
  await put(slow.id, "/half-a.bin", data.subarray(0, SIZE / 2));
  await put(slow.id, "/half-b.bin", data.subarray(SIZE / 2));
  await put(slow.id, "/folder/a.bin", data.subarray(0, SIZE / 2));
  await put(slow.id, "/folder/b.bin", data.subarray(SIZE / 2));
  await put(slow.id, "/big.bin", Buffer.concat([data, data]));
  await mkdir(path.join(t.engine.services.spaces.root, (await t.engine.services.spaces.open(slow.id, 0)).home, "inbox"), { recursive: true });
  await put(fast.id, "/file.bin", data);
  await put(member.id, "/file.bin", data, groupId);
});
afterAll(async () => {
  await slowFiles?.close();
  await fastFiles?.close();
  await memberFiles?.close();
  await t?.stop();
});

describe("a user's download limit", () => {
  it("holds for one file", async () => {
    const url = await downloadUrl(slowFiles, ["/file.bin"]);
    within10(await rate(SIZE, () => fetched(url)), LIMIT);
  });

  it("holds for a range", async () => {
    // The last SIZE bytes of a file twice as long.
    const url = await downloadUrl(slowFiles, ["/big.bin"]);
    within10(await rate(SIZE, () => fetched(url, { range: `bytes=${SIZE}-` })), LIMIT);
  });

  it("holds for a zip", async () => {
    const url = await downloadUrl(slowFiles, ["/folder"]);
    // The zip's headers add a few hundred bytes to the file bytes.
    const started = performance.now();
    const got = await fetched(url);
    expect(got).toBeGreaterThan(SIZE);
    within10(got / ((performance.now() - started) / 1000), LIMIT);
  });

  it("is shared by two parallel downloads of the same user, on two connections", async () => {
    const second = await connectFiles(t.fileUrl, (await t.login(slow.account, slow.password)).body.data.websocket_token as string);
    try {
      const a = await downloadUrl(slowFiles, ["/half-a.bin"]);
      const b = await downloadUrl(second, ["/half-b.bin"]);
      within10(await rate(SIZE, async () => (await Promise.all([fetched(a), fetched(b)])).reduce((x, y) => x + y)), LIMIT);
    } finally {
      await second.close();
    }
  });

  it("holds for its share link's visitors (the link owner's limit)", async () => {
    const token = await shareTokenOf(t, await makeLink(t, slow.token, { shareFiles: ["/file.bin"] }));
    const measured = await rate(SIZE, async () => {
      const got = await downloadShared(t, token, ["/file.bin"]);
      expect(got.code).toBe(200);
      return got.body!.length;
    });
    within10(measured, LIMIT);
  });

  it("leaves an unlimited user's download unthrottled", async () => {
    const url = await downloadUrl(fastFiles, ["/file.bin"]);
    expect(await rate(SIZE, () => fetched(url))).toBeGreaterThan(4 * LIMIT);
  });
});

describe("a user's upload limit", () => {
  it("holds for a tus upload", async () => {
    within10(await uploadRate(slow.socketToken, { groupId: "0", path: "/up.bin" }, data), LIMIT);
  });

  it("holds for the bytes of a creation-with-upload POST", async () => {
    // The creation's own work is inside this one request: twice the bytes, so it weighs half as much.
    const twice = Buffer.concat([data, data]);
    const measured = await rate(twice.length, async () => {
      const created = await tusClient(t.fileUrl, slow.socketToken).create({ groupId: "0", path: "/posted.bin" }, twice.length, twice);
      expect(created.status, created.text).toBe(201);
      return Number(created.headers.get("upload-offset"));
    });
    within10(measured, LIMIT);
  });

  it("is shared by two parallel uploads of the same user", async () => {
    const halves = [data.subarray(0, SIZE / 2), data.subarray(SIZE / 2)];
    const uploads = await Promise.all(halves.map((half, i) => upload(slow.socketToken, { groupId: "0", path: `/up-${i}.bin` }, half)));
    const measured = await rate(SIZE, async () => (await Promise.all(uploads.map((u) => u.send()))).reduce((x, y) => x + y));
    within10(measured, LIMIT);
  });

  it("holds for a visitor's upload through its invitation (the link owner's limit)", async () => {
    const token = await shareTokenOf(t, await makeLink(t, slow.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in" }));
    within10(await uploadRate(token, { groupId: "0", path: "/dropped.bin" }, data), LIMIT);
  });

  it("leaves an unlimited user's upload unthrottled", async () => {
    expect(await uploadRate(fast.socketToken, { groupId: "0", path: "/up.bin" }, data)).toBeGreaterThan(4 * LIMIT);
  });
});

describe("a changed limit", () => {
  it("reaches a download already running", async () => {
    const user = await t.createUser("change_user", { permission: PERMISSION_FULL, maxDownloadSpeed: LIMIT_KB / 2 });
    const files = await connectFiles(t.fileUrl, user.socketToken);
    try {
      await put(user.id, "/file.bin", data);
      const url = await downloadUrl(files, ["/file.bin"]);
      const raise = new Promise((resolve) => setTimeout(resolve, 500)).then(() =>
        t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { maxDownloadSpeed: 8 * LIMIT_KB } }),
      );
      // 6 s at the first limit; raised after half a second, the download ends far sooner.
      const measured = await rate(SIZE, () => fetched(url));
      expect((await raise).body.code).toBe(200);
      expect(measured / (LIMIT / 2)).toBeGreaterThan(1.5);
    } finally {
      await files.close();
    }
  });
});

describe("a group's limit", () => {
  it("holds for downloads in the group space, below the member's own limit", async () => {
    const url = await downloadUrl(memberFiles, ["/file.bin"], groupId);
    within10(await rate(SIZE, () => fetched(url)), GROUP_LIMIT);
  });

  it("holds for uploads in the group space", async () => {
    within10(await uploadRate(member.socketToken, { groupId: String(groupId), path: "/up.bin" }, data), GROUP_LIMIT);
  });

  it("does not apply to the member's personal space, where the member's own limit does", async () => {
    await put(member.id, "/own.bin", Buffer.concat([data, data, data, data]));
    const url = await downloadUrl(memberFiles, ["/own.bin"]);
    within10(await rate(4 * SIZE, () => fetched(url)), 4 * LIMIT);
  });
});

describe("behind nginx (FERRY_ACCEL_REDIRECT)", () => {
  it("sends a limited user's download itself, and leaves an unlimited user's to nginx", async () => {
    const e = await startTestEngine({ FERRY_ACCEL_REDIRECT: "/ferry-storage" });
    try {
      const small = data.subarray(0, LIMIT / 4);
      const headersOf = async (account: string, options: Record<string, unknown>) => {
        const user = await e.createUser(account, { permission: PERMISSION_FULL, ...options });
        const space = await e.engine.services.spaces.open(user.id, 0);
        await writeFile(path.join(e.engine.services.spaces.root, space.home, "small.bin"), small);
        const files = await connectFiles(e.fileUrl, user.socketToken);
        try {
          const res = await fetch(e.fileUrl + (await downloadUrl(files, ["/small.bin"])));
          return { accel: res.headers.get("x-accel-redirect"), bytes: (await res.arrayBuffer()).byteLength };
        } finally {
          await files.close();
        }
      };
      expect(await headersOf("accel_slow", { maxDownloadSpeed: LIMIT_KB })).toEqual({ accel: null, bytes: small.length });
      expect(await headersOf("accel_fast", {})).toEqual({ accel: "/ferry-storage/users/accel_fast/small.bin", bytes: 0 });
    } finally {
      await e.stop();
    }
  });
});
