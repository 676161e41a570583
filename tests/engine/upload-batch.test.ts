import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { type FileHandle, mkdir, mkdtemp, open, readdir, rename, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { request, type IncomingMessage } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { UPLOAD_BATCH, type UploadBatchResult } from "../../contract/files";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { PROTOCOL_DEFAULTS } from "../../contract/settings";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles } from "../support/file-client";
import { socketUsers, type SocketUser } from "../support/socket-users";
import { blake3Hex } from "../support/tus-client";

/**
 * Issue 16, many small files: `POST /uploads/batch` (docs/file-server.md, "Small files in batches
 * (Ferry extension)") over real HTTP. Each file of a batch is checked, hashed, quota-reserved and
 * placed on its own, refused on its own; the batch's caps hold before its body is read; a dropped
 * connection leaves the files fully received before it placed and never a partial file.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const MIB = 1024 * 1024;
let t: TestEngine;
let admin: string;
const users = socketUsers(() => t);

interface BatchFile {
  path: string;
  data: Buffer;
  groupId?: number;
  overwrite?: boolean;
  /** The hash to announce; the data's own when left out, none when null. */
  hash?: string | null;
}

/** The wire format: uint32 BE header length, the JSON header, the files' bytes back to back. */
async function batchBody(files: BatchFile[]): Promise<Buffer> {
  const header = {
    files: await Promise.all(
      files.map(async (f) => ({
        groupId: f.groupId ?? 0,
        path: f.path,
        size: f.data.length,
        overwrite: f.overwrite ?? false,
        ...(f.hash === null ? {} : { hash: f.hash ?? (await blake3Hex(f.data)) }),
      })),
    ),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length, 0);
  return Buffer.concat([length, json, ...files.map((f) => f.data)]);
}

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  body: { code: number; message: string; data: { files: UploadBatchResult[] } & Record<string, unknown> };
}

/** Opens a batch request announcing `length` bytes; the test writes the body itself. */
function openBatch(token: string, length: number | null, lang = "en") {
  const req = request(`${t.fileUrl}${UPLOAD_BATCH.path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "accept-language": lang,
      "content-type": "application/octet-stream",
      ...(length === null ? { "transfer-encoding": "chunked" } : { "content-length": String(length) }),
    },
  });
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { req, reply };
}

async function sendBatch(user: SocketUser, files: BatchFile[], lang = "en"): Promise<Reply> {
  const body = await batchBody(files);
  const { req, reply } = openBatch(user.socketToken, body.length, lang);
  req.end(body);
  const answer = await reply;
  req.destroy();
  return answer;
}

async function readPlaced(user: SocketUser, p: string, groupId = 0): Promise<Buffer | null> {
  const space = await t.engine.services.spaces.open(user.id, groupId);
  const info = await space.storage.stat(p).catch(() => null);
  if (!info) return null;
  const chunks: Buffer[] = [];
  for await (const c of await space.storage.createReadStream(p)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A refusal of the whole batch announced by headers alone: the answer must come before any body byte. */
async function refusedUpFront(user: SocketUser, length: number | null, prefix?: Buffer) {
  const { req, reply } = openBatch(user.socketToken, length);
  if (prefix) req.write(prefix);
  const answer = await reply;
  req.destroy();
  return answer;
}

const stagingLeftovers = async () => (await readdir(path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus"))).filter((n) => n.startsWith("batch-"));

beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

describe("POST /uploads/batch", () => {
  it("places 200 small files in one request, byte-identical, with their hashes, in their folders", async () => {
    const user = await users.userWith("ub_many");
    const files: BatchFile[] = Array.from({ length: 200 }, (_, i) => ({ path: `/many/d${i % 10}/f${i}.bin`, data: randomBytes(i === 0 ? 0 : 1 + ((i * 97) % 8192)) }));
    const reply = await sendBatch(user, files);
    expect(reply.status).toBe(200);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.files).toHaveLength(200);
    for (const [i, f] of files.entries()) {
      expect(reply.body.data.files[i]).toEqual({ path: f.path, ok: true, size: f.data.length, hash: await blake3Hex(f.data) });
      expect((await readPlaced(user, f.path))?.equals(f.data)).toBe(true);
    }
    expect((await user.files.ok("list", { groupId: 0, path: "/many" })).names.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `d${i}`).sort());
    // The hash is recorded for attributes, as a commit records it.
    expect(await user.files.ok("attributes", { groupId: 0, paths: ["/many/d3/f13.bin"] })).toMatchObject({ hash: await blake3Hex(files[13]!.data), file_size: files[13]!.data.length });
    expect(await stagingLeftovers()).toEqual([]);
    // The transfer log has one upload row per placed file, as for tus uploads.
    await t.engine.services.recorder.flush();
    const rows = await t.engine.services.db.kysely.selectFrom("transfer_log").select(["path", "direction", "files", "bytes"]).where("path", "like", "/many/%").execute();
    expect(rows).toHaveLength(200);
    expect(rows.find((r) => r.path === "/many/d3/f13.bin")).toMatchObject({ direction: "upload", files: 1, bytes: files[13]!.data.length });
  });

  it("logs a desktop client's batch as the client's (via client), a browser's as the web's", async () => {
    const user = await users.userWith("ub_desktop");
    expect((await sendBatch(user, [{ path: "/from-web.txt", data: Buffer.from("web") }])).body.data.files[0]).toMatchObject({ ok: true });
    const desktop = users.keep(await connectFiles(t.fileUrl, null));
    expect((await desktop.cmd("login", { token: user.socketToken, client: { version: "3.2.1" } })).code).toBe(200);
    expect((await sendBatch(user, [{ path: "/from-client.txt", data: Buffer.from("client") }])).body.data.files[0]).toMatchObject({ ok: true });
    await t.engine.services.recorder.flush();
    const rows = await t.engine.services.db.kysely.selectFrom("transfer_log").select(["path", "via"]).where("account", "=", "ub_desktop").execute();
    expect(Object.fromEntries(rows.map((r) => [r.path, r.via]))).toEqual({ "/from-web.txt": "web", "/from-client.txt": "client" });
  });

  it("counts as one file of parallel uploads: a second batch of the same sign-in waits (4210) while one runs", async () => {
    const user = await users.userWith("ub_parallel");
    expect((await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { parallelUploads: 1 } })).body.code).toBe(200);
    try {
      // The first batch holds its place once the engine has admitted it (after reading the settings,
      // asynchronously); a second one sent before that can take the place first, and then the first
      // is the one refused: that round is dropped and tried again with new names.
      let first: ReturnType<typeof openBatch> | null = null;
      let body: Awaited<ReturnType<typeof batchBody>> | null = null;
      let second: Reply | null = null;
      for (let round = 0; round < 5 && second?.status !== 429; round++) {
        body = await batchBody([{ path: `/p1-${round}.bin`, data: randomBytes(10_000) }]);
        const opened = openBatch(user.socketToken, body.length);
        first = opened;
        opened.req.write(body.subarray(0, 100));
        let firstRefused = false;
        void opened.reply.then(() => (firstRefused = true)).catch(() => undefined);
        for (let i = 0; i < 100 && !firstRefused; i++) {
          second = await sendBatch(user, [{ path: `/p2-${round}-${i}.bin`, data: Buffer.from("p2") }]);
          if (second.status === 429) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (firstRefused) opened.req.destroy();
      }
      expect(second?.status).toBe(429);
      expect(second?.body).toMatchObject({ code: ErrorCode.UploadsBusy, data: { max: 1 } });
      first!.req.end(body!.subarray(100));
      const done = await first!.reply;
      expect(done.body.data.files[0]).toMatchObject({ ok: true });
      expect((await sendBatch(user, [{ path: "/p3.bin", data: Buffer.from("p3") }])).body.data.files[0]).toMatchObject({ ok: true });
    } finally {
      await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { parallelUploads: PROTOCOL_DEFAULTS.parallelUploads } });
    }
  });

  it("refuses each bad file on its own (permission, format, quota, hash, exists) with its code and message, and places the rest", async () => {
    const user = await users.userWith("ub_mixed", { permission: PERMISSION_FULL & ~Permission.Mkdir, quota: 100_000, fileFormatMode: 2, fileFormats: "exe" });
    const existing = Buffer.from("first version");
    expect((await sendBatch(user, [{ path: "/exists.txt", data: existing }])).body.data.files[0]).toMatchObject({ ok: true });

    const ok1 = randomBytes(3000);
    const ok2 = randomBytes(5000);
    const reply = await sendBatch(user, [
      { path: "/ok1.txt", data: ok1 },
      { path: "/sub/x.txt", data: randomBytes(100) },
      { path: "/bad.exe", data: randomBytes(100) },
      { path: "/big.bin", data: randomBytes(200_000) },
      { path: "/wrong.txt", data: randomBytes(100), hash: "0".repeat(64) },
      { path: "/exists.txt", data: Buffer.from("second version") },
      { path: "/ok2.txt", data: ok2 },
    ]);
    expect(reply.status).toBe(200);
    const [r1, sub, exe, big, wrong, exists, r2] = reply.body.data.files;
    expect(r1).toMatchObject({ path: "/ok1.txt", ok: true, size: 3000 });
    expect(sub).toMatchObject({ path: "/sub/x.txt", ok: false, code: ErrorCode.PermissionDenied });
    expect(exe).toMatchObject({ path: "/bad.exe", ok: false, code: ErrorCode.FileFormatRefused, message: "bad.exe cannot be uploaded: files of this type are not allowed for your account", data: { name: "bad.exe" } });
    expect(big).toMatchObject({ path: "/big.bin", ok: false, code: ErrorCode.QuotaExceeded, data: { quota: 100_000, needed: 200_000 } });
    expect(wrong).toMatchObject({ path: "/wrong.txt", ok: false, code: ErrorCode.HashCheckError });
    expect(exists).toMatchObject({ path: "/exists.txt", ok: false, code: ErrorCode.PathExists, message: "The path already exists" });
    expect(r2).toMatchObject({ path: "/ok2.txt", ok: true, size: 5000 });

    expect((await readPlaced(user, "/ok1.txt"))?.equals(ok1)).toBe(true);
    expect((await readPlaced(user, "/ok2.txt"))?.equals(ok2)).toBe(true);
    expect((await readPlaced(user, "/exists.txt"))?.equals(existing)).toBe(true);
    expect((await user.files.ok("list", { groupId: 0, path: "/" })).names.sort()).toEqual(["exists.txt", "ok1.txt", "ok2.txt"]);
    // Every reservation ended: what counts is what is stored.
    expect((await user.files.ok("uploadRules", { groupId: 0 })).used).toBe(existing.length + 3000 + 5000);

    const zh = await sendBatch(user, [{ path: "/exists.txt", data: Buffer.from("x") }, { path: "/tool.EXE", data: Buffer.from("MZ") }], "zh-CN");
    expect(zh.body.data.files[0]).toMatchObject({ ok: false, code: ErrorCode.PathExists, message: "路径已存在" });
    expect(zh.body.data.files[1]).toMatchObject({ ok: false, code: ErrorCode.FileFormatRefused, message: "无法上传 tool.EXE：您的账号不允许此类型的文件" });
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("needs a hash per file while the hash check is on, and overwrites only with overwrite", async () => {
    const user = await users.userWith("ub_hash");
    const reply = await sendBatch(user, [{ path: "/nohash.txt", data: Buffer.from("a"), hash: null }, { path: "/h.txt", data: Buffer.from("v1") }]);
    expect(reply.body.data.files[0]).toMatchObject({ ok: false, code: ErrorCode.BadRequired });
    expect(reply.body.data.files[1]).toMatchObject({ ok: true });
    const again = await sendBatch(user, [{ path: "/h.txt", data: Buffer.from("v2"), overwrite: true }]);
    expect(again.body.data.files[0]).toMatchObject({ ok: true, size: 2 });
    expect((await readPlaced(user, "/h.txt"))?.toString()).toBe("v2");
  });

  it("refuses an oversize body, too many files, a large header or file and a body without length before reading the files", async () => {
    const user = await users.userWith("ub_caps");
    const tooBig = await refusedUpFront(user, UPLOAD_BATCH.maxBytes + 1);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: ErrorCode.UploadPartTooLarge, data: { limit: UPLOAD_BATCH.maxBytes } });

    const chunked = await refusedUpFront(user, null);
    expect(chunked.status).toBe(411);
    expect(chunked.body.code).toBe(ErrorCode.InvalidData);

    const hugeHeader = Buffer.alloc(4);
    hugeHeader.writeUInt32BE(UPLOAD_BATCH.maxHeaderBytes + 1, 0);
    const header = await refusedUpFront(user, 10 * MIB, hugeHeader);
    expect(header.status).toBe(413);
    expect(header.body).toMatchObject({ code: ErrorCode.InvalidData, data: { maxHeaderBytes: UPLOAD_BATCH.maxHeaderBytes } });

    const headerOnly = async (files: { groupId: number; path: string; size: number }[]) => {
      const json = Buffer.from(JSON.stringify({ files }));
      const prefix = Buffer.concat([Buffer.alloc(4), json]);
      prefix.writeUInt32BE(json.length, 0);
      return refusedUpFront(user, prefix.length + files.reduce((n, f) => n + f.size, 0), prefix);
    };
    const many = await headerOnly(Array.from({ length: UPLOAD_BATCH.maxFiles + 1 }, (_, i) => ({ groupId: 0, path: `/${i}`, size: 0 })));
    expect(many.status).toBe(413);
    expect(many.body).toMatchObject({ code: ErrorCode.InvalidData, data: { maxFiles: UPLOAD_BATCH.maxFiles } });
    const large = await headerOnly([{ groupId: 0, path: "/large.bin", size: UPLOAD_BATCH.maxFileBytes + 1 }]);
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({ code: ErrorCode.InvalidData, data: { maxFileBytes: UPLOAD_BATCH.maxFileBytes } });

    // The part size, when set, is the batch's limit too.
    expect((await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 1 } })).body.code).toBe(200);
    try {
      const part = await refusedUpFront(user, 2 * MIB);
      expect(part.status).toBe(413);
      expect(part.body).toMatchObject({ code: ErrorCode.UploadPartTooLarge, data: { limit: MIB } });
    } finally {
      await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 0 } });
    }
    expect((await user.files.ok("list", { groupId: 0, path: "/" })).names).toEqual([]);
  });

  it("a connection dropped mid-batch leaves the fully received files placed and nothing of the file in flight", async () => {
    const user = await users.userWith("ub_drop");
    const a = randomBytes(1000);
    const b = randomBytes(2000);
    const c = randomBytes(300_000);
    const body = await batchBody([
      { path: "/drop/a.bin", data: a },
      { path: "/drop/b.bin", data: b },
      { path: "/drop/c.bin", data: c },
    ]);
    const { req, reply } = openBatch(user.socketToken, body.length);
    reply.catch(() => undefined);
    req.write(body.subarray(0, body.length - 150_000));
    // Wait until the engine has placed a and b (it places each file when its last byte is in).
    for (let i = 0; i < 600 && !(await readPlaced(user, "/drop/b.bin")); i++) await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    // Then until c's reservation is gone: the engine has seen the drop.
    for (let i = 0; i < 600 && (await user.files.ok("uploadRules", { groupId: 0 })).used !== 3000; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await user.files.ok("uploadRules", { groupId: 0 })).used).toBe(3000);
    expect((await readPlaced(user, "/drop/a.bin"))?.equals(a)).toBe(true);
    expect((await readPlaced(user, "/drop/b.bin"))?.equals(b)).toBe(true);
    expect(await readPlaced(user, "/drop/c.bin")).toBeNull();
    expect((await user.files.ok("list", { groupId: 0, path: "/drop" })).names.sort()).toEqual(["a.bin", "b.bin"]);
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("places files across groups durable and accounted: files refused mid-batch leave the others placed, hash-recorded and counted once, and no reservation behind", async () => {
    const user = await users.userWith("ub_groups", { quota: 2_000_000 });
    // 150 files: more than two groups of the engine's (GROUP), so refusals fall in different groups.
    const files: BatchFile[] = Array.from({ length: 150 }, (_, i) => ({ path: `/g/d${i % 3}/f${i}.bin`, data: randomBytes(1000 + i) }));
    files[70] = { ...files[70]!, hash: "0".repeat(64) }; // refused after its bytes (and its reservation)
    files[100] = { path: "/g/d0", data: randomBytes(10) }; // a folder placed by the first group
    files[130] = { path: "/g/big.bin", data: randomBytes(2_100_000) }; // past the quota
    const reply = await sendBatch(user, files);
    expect(reply.status).toBe(200);
    const results = reply.body.data.files;
    expect(results).toHaveLength(150);
    expect(results[70]).toMatchObject({ ok: false, code: ErrorCode.HashCheckError });
    expect(results[100]).toMatchObject({ ok: false, code: ErrorCode.PathIsNotFile });
    expect(results[130]).toMatchObject({ ok: false, code: ErrorCode.QuotaExceeded, data: { quota: 2_000_000, needed: 2_100_000 } });
    const placed = files.filter((_, i) => i !== 70 && i !== 100 && i !== 130);
    for (const [i, f] of files.entries()) {
      if (i === 70 || i === 100 || i === 130) {
        if (i !== 100) expect(await readPlaced(user, f.path)).toBeNull();
        continue;
      }
      expect(results[i]).toEqual({ path: f.path, ok: true, size: f.data.length, hash: await blake3Hex(f.data) });
      expect((await readPlaced(user, f.path))?.equals(f.data)).toBe(true);
    }
    // Counted once (stored, no reservation left behind), every placed file's hash recorded.
    const stored = placed.reduce((n, f) => n + f.data.length, 0);
    expect((await user.files.ok("uploadRules", { groupId: 0 })).used).toBe(stored);
    const space = await t.engine.services.spaces.open(user.id, 0);
    const k = t.engine.services.db.kysely;
    expect(await k.selectFrom("upload_reservations").select("upload_id").where("space_key", "=", space.key).execute()).toEqual([]);
    const hashes = await k.selectFrom("file_hashes").select(["path", "hash"]).where("space_key", "=", space.key).execute();
    expect(hashes).toHaveLength(placed.length);
    for (const i of [0, 69, 71, 129, 149]) {
      expect(await user.files.ok("attributes", { groupId: 0, paths: [files[i]!.path] })).toMatchObject({ hash: await blake3Hex(files[i]!.data) });
    }
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("a folder swapped for a symbolic link mid-batch refuses its next files (a link out of the home, or to another folder of it) and writes nothing through it", async () => {
    const user = await users.userWith("ub_swap");
    const space = await t.engine.services.spaces.open(user.id, 0);
    const home = path.join(t.engine.services.spaces.root, space.home);
    const outside = await mkdtemp(path.join(tmpdir(), "ferry-batch-outside-"));
    await mkdir(path.join(home, "elsewhere"), { recursive: true });
    try {
      for (const [dir, target] of [["out", outside], ["in", path.join(home, "elsewhere")]] as const) {
        // The folder exists before the batch: its checks take it for plain (a folder the batch creates is walked when it places).
        await mkdir(path.join(home, dir));
        const a = randomBytes(1000);
        const b = randomBytes(1000);
        const c = randomBytes(1000);
        const body = await batchBody([
          { path: `/${dir}/a.bin`, data: a },
          { path: `/${dir}/b.bin`, data: b },
          { path: `/after-${dir}.bin`, data: c },
        ]);
        const { req, reply } = openBatch(user.socketToken, body.length);
        reply.catch(() => undefined);
        // All of a, nothing of b: the batch has checked b (and taken its folder for plain) when a is placed.
        req.write(body.subarray(0, body.length - 2000));
        for (let i = 0; i < 600 && !(await readPlaced(user, `/${dir}/a.bin`)); i++) await new Promise((r) => setTimeout(r, 20));
        await rename(path.join(home, dir), path.join(home, `${dir}-moved`));
        await symlink(target, path.join(home, dir));
        req.end(body.subarray(body.length - 2000));
        const done = await reply;
        expect(done.status).toBe(200);
        expect(done.body.data.files[0]).toMatchObject({ ok: true });
        expect(done.body.data.files[1]).toMatchObject({ ok: false, code: ErrorCode.InvalidPath });
        expect(done.body.data.files[2]).toMatchObject({ ok: true });
        expect(await readdir(target)).toEqual([]);
        expect((await readPlaced(user, `/${dir}-moved/a.bin`))?.equals(a)).toBe(true);
      }
      expect(await stagingLeftovers()).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("a folder removed mid-batch comes back for its next file, as at a commit", async () => {
    const user = await users.userWith("ub_gone");
    const space = await t.engine.services.spaces.open(user.id, 0);
    const home = path.join(t.engine.services.spaces.root, space.home);
    const a = randomBytes(1000);
    const b = randomBytes(1000);
    const body = await batchBody([
      { path: "/gone/a.bin", data: a },
      { path: "/gone/b.bin", data: b },
    ]);
    const { req, reply } = openBatch(user.socketToken, body.length);
    reply.catch(() => undefined);
    req.write(body.subarray(0, body.length - 1000));
    for (let i = 0; i < 600 && !(await readPlaced(user, "/gone/a.bin")); i++) await new Promise((r) => setTimeout(r, 20));
    await rm(path.join(home, "gone"), { recursive: true });
    req.end(body.subarray(body.length - 1000));
    const done = await reply;
    expect(done.body.data.files.map((f) => f.ok)).toEqual([true, true]);
    expect(await readPlaced(user, "/gone/a.bin")).toBeNull();
    expect((await readPlaced(user, "/gone/b.bin"))?.equals(b)).toBe(true);
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("a permission revoked mid-batch refuses the files placed after it (within a second), keeps those placed before and leaves no reservation", async () => {
    const user = await users.userWith("ub_revoke");
    const a = randomBytes(1000);
    const body = await batchBody([
      { path: "/perm/a.bin", data: a },
      { path: "/perm/b.bin", data: randomBytes(1000) },
    ]);
    const { req, reply } = openBatch(user.socketToken, body.length);
    reply.catch(() => undefined);
    req.write(body.subarray(0, body.length - 500));
    for (let i = 0; i < 600 && !(await readPlaced(user, "/perm/a.bin")); i++) await new Promise((r) => setTimeout(r, 20));
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { permission: PERMISSION_FULL & ~Permission.Upload } });
    // The batch reads the permission again at most a second (FRESH_MS, the engine clock) after it last did.
    t.clock.advance(1000);
    req.end(body.subarray(body.length - 500));
    const done = await reply;
    expect(done.status).toBe(200);
    expect(done.body.data.files.map((f) => (f.ok ? true : f.code))).toEqual([true, ErrorCode.PermissionDenied]);
    expect((await readPlaced(user, "/perm/a.bin"))?.equals(a)).toBe(true);
    expect(await readPlaced(user, "/perm/b.bin")).toBeNull();
    const space = await t.engine.services.spaces.open(user.id, 0);
    expect(await t.engine.services.db.kysely.selectFrom("upload_reservations").select("upload_id").where("space_key", "=", space.key).execute()).toEqual([]);
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("a full disk while a file is staged refuses that file (DiskFull), leaves nothing of it and places the others", async () => {
    const user = await users.userWith("ub_full");
    const a = randomBytes(1000);
    const c = randomBytes(3000);
    // The staging write of b.bin fails as on a full disk, after part of it is written.
    const probe = await open(path.join(tmpdir(), `ferry-probe-${process.pid}`), "w");
    const proto = Object.getPrototypeOf(probe) as { writeFile: (this: FileHandle, data: Buffer) => Promise<void> };
    await probe.close();
    await rm(path.join(tmpdir(), `ferry-probe-${process.pid}`), { force: true });
    const original = proto.writeFile;
    const spy = vi.spyOn(proto, "writeFile").mockImplementation(async function (this: FileHandle, data: Buffer) {
      if (data.length === 2000 && readlinkSync(`/proc/self/fd/${this.fd}`).includes("batch-")) {
        await this.write(data.subarray(0, 500));
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
      }
      return original.call(this, data);
    });
    try {
      const reply = await sendBatch(user, [
        { path: "/full/a.bin", data: a },
        { path: "/full/b.bin", data: randomBytes(2000) },
        { path: "/full/c.bin", data: c },
      ]);
      expect(reply.status).toBe(200);
      expect(reply.body.data.files.map((f) => (f.ok ? true : f.code))).toEqual([true, ErrorCode.DiskFull, true]);
    } finally {
      spy.mockRestore();
    }
    expect((await readPlaced(user, "/full/a.bin"))?.equals(a)).toBe(true);
    expect(await readPlaced(user, "/full/b.bin")).toBeNull();
    expect((await readPlaced(user, "/full/c.bin"))?.equals(c)).toBe(true);
    expect((await user.files.ok("uploadRules", { groupId: 0 })).used).toBe(4000);
    expect(await stagingLeftovers()).toEqual([]);
  });

  it("answers a browser's preflight and its batch with CORS for an allowed origin only", async () => {
    const user = await users.userWith("ub_cors");
    const origin = `http://${new URL(t.fileUrl).hostname}:3000`;
    const url = `${t.fileUrl}${UPLOAD_BATCH.path}`;
    const preflight = await fetch(url, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, accept-language" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    const allowed = preflight.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    for (const h of ["authorization", "content-type"]) expect(allowed).toContain(h);
    expect((await fetch(url, { method: "OPTIONS", headers: { origin: "https://evil.example" } })).status).toBe(403);
    const data = Buffer.from("from a page");
    const reply = await fetch(url, { method: "POST", headers: { origin, authorization: `Bearer ${user.socketToken}`, "content-type": "application/octet-stream" }, body: new Uint8Array(await batchBody([{ path: "/page.txt", data }])) });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe(origin);
    expect(((await reply.json()) as Reply["body"]).data.files[0]).toMatchObject({ path: "/page.txt", ok: true, size: data.length });
  });

  it("refuses a request without a valid token (401, 1009)", async () => {
    const { reply, req } = openBatch("x".repeat(128), 10);
    const answer = await reply;
    req.destroy();
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe(ErrorCode.InvalidToken);
  });
});
