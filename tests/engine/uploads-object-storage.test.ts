import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { UPLOAD_BATCH } from "../../contract/files";
import { PERMISSION_FULL } from "../../contract/permissions";
import { createS3Storage } from "../../server/storage/s3";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { S3RVER_KEYS, type S3Server, startS3rver } from "../support/s3";
import { readAll } from "../support/storage-conformance";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Uploads into a group space whose home is on an S3 storage (docs/file-server.md, "Uploads into
 * object storage"), through the real engine against s3rver: tus streams and parallel chunks go
 * straight into the bucket as multipart parts (the local staging area keeps only the records), the
 * hash is checked at commit, DELETE drops the upload, batches write each file from memory. The kill
 * -9 resume is tested on the upload store itself (tests/storage/uploads-object-store.test.ts).
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const MIB = 1024 * 1024;
/** The engine's memory for parts being filled (FERRY_UPLOAD_BUFFER_BYTES), small enough for a test to fill. */
const BUFFER_BYTES = 16 * MIB;
let t: TestEngine;
let s3: S3Server;
let files: FileClient;
let socketToken: string;
let groupId: number;
let adminToken: string;
let proxy: Server;
/** While true the proxy in front of s3rver passes a CompleteMultipartUpload on but loses the store's answer. */
let loseCompletions = false;
/** While true the proxy drops a CompleteMultipartUpload before it reaches s3rver (the connection reset): the store never completes. */
let dropCompletions = false;

/**
 * An HTTP proxy to s3rver that can lose the answer to CompleteMultipartUpload (POST ?uploadId=…)
 * after s3rver has completed the upload, as a dropped connection or an engine stopped right after
 * the request would: the object is there, the engine never heard so. It can also drop the request
 * itself before s3rver sees it: the engine has marked the upload completing, the store never did.
 */
async function startProxy(target: string): Promise<{ server: Server; endpoint: string }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const completion = req.method === "POST" && /[?&]uploadId=/.test(req.url ?? "");
    if (completion && dropCompletions) {
      req.socket.destroy();
      return;
    }
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (completion && loseCompletions) {
        answer.resume();
        answer.once("end", () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { server, endpoint: `http://127.0.0.1:${address.port}` };
}

const home = () => createS3Storage({ endpoint: s3.endpoint, bucket: s3.bucket, ...S3RVER_KEYS, path: "objects/groups/Cloud" });
const staging = () => path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus");
const read = async (p: string) => readAll(await home().createReadStream(p));

/** A group whose home is on an S3 storage reached through the proxy (started once), with a member and their socket. */
let flaky: { group: { body: { data: { id: number } } }; user: { socketToken: string }; client: FileClient } | null = null;
async function flakyGroup() {
  if (flaky) return flaky;
  const started = await startProxy(s3.endpoint);
  proxy = started.server;
  const added = await t.call("POST", "/api/admin/storages", { token: adminToken, body: { name: "Flaky", provider: "s3compatible", endpoint: started.endpoint, bucket: s3.bucket, region: "us-east-1", path: "flaky", sliceSize: 5 * MIB, ...S3RVER_KEYS } });
  expect(added.body.code).toBe(200);
  const group = await t.call("POST", "/api/admin/groups", { token: adminToken, body: { name: "Flaky", storageId: added.body.data.id } });
  expect(group.body.code).toBe(200);
  const user = await t.createUser("flaky_uploader", { permission: PERMISSION_FULL });
  expect((await t.call("PUT", `/api/admin/groups/${group.body.data.id}/members/${user.id}`, { token: adminToken, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);
  flaky = { group, user, client: await connectFiles(t.fileUrl, user.socketToken) };
  return flaky;
}
const flakyHome = () => createS3Storage({ endpoint: s3.endpoint, bucket: s3.bucket, ...S3RVER_KEYS, path: "flaky/groups/Flaky" });

beforeAll(async () => {
  s3 = await startS3rver("ferry");
  t = await startTestEngine({ FERRY_UPLOAD_BUFFER_BYTES: String(BUFFER_BYTES) });
  const token = await t.adminToken();
  adminToken = token;
  const added = await t.call("POST", "/api/admin/storages", { token, body: { name: "Objects", provider: "s3compatible", endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", path: "objects", sliceSize: 5 * MIB, ...S3RVER_KEYS } });
  expect(added.body.code).toBe(200);
  const group = await t.call("POST", "/api/admin/groups", { token, body: { name: "Cloud", storageId: added.body.data.id } });
  expect(group.body.code).toBe(200);
  groupId = group.body.data.id;
  const user = await t.createUser("cloud_uploader", { permission: PERMISSION_FULL });
  expect((await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);
  socketToken = user.socketToken;
  files = await connectFiles(t.fileUrl, user.socketToken);
});
afterAll(async () => {
  await files?.close();
  await flaky?.client.close();
  await t?.stop();
  await s3?.stop();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
});

describe("uploads into an S3 storage", () => {
  it("a tus stream goes into the bucket in parts while it arrives; no data file on the local disk; commit places it", async () => {
    const data = randomBytes(3 * 5 * MIB + 777);
    const tus = tusClient(t.fileUrl, socketToken);
    const { id, status } = await tus.create({ groupId: String(groupId), path: "/stream.bin" }, data.length);
    expect(status).toBe(201);
    let offset = 0;
    for (const end of [2 * MIB, 11 * MIB, data.length]) {
      const r = await tus.patch(id!, offset, data.subarray(offset, end));
      expect(r.status).toBe(204);
      offset = end;
      expect((await tus.head(id!)).headers.get("upload-offset")).toBe(String(end));
      // Only records (metadata) in the staging area: the bytes are in the store or in memory.
      expect((await readdir(staging())).filter((n) => !n.endsWith(".json"))).toEqual([]);
    }
    expect((await home().list("/")).map((e) => e.name)).toEqual([]);
    const hash = await blake3Hex(data);
    expect(await files.ok("commit", { uploadId: id!, hash })).toEqual({ path: "/stream.bin", size: data.length, hash });
    expect((await read("/stream.bin")).equals(data)).toBe(true);
    expect((await files.ok("list", { groupId, path: "/" })).names).toContain("stream.bin");
  });

  it("parallel chunks sent at once, out of order, are taken in byte order and committed", async () => {
    const data = randomBytes(12 * MIB + 5);
    const tus = tusClient(t.fileUrl, socketToken);
    const { id } = await tus.create({ groupId: String(groupId), path: "/chunks.bin" }, data.length);
    const pieces: [number, number][] = [];
    for (let s = 0; s < data.length; s += 3 * MIB) pieces.push([s, Math.min(data.length, s + 3 * MIB)]);
    const replies = await Promise.all(
      pieces.reverse().map(([s, e]) =>
        fetch(tus.urlOf(id!), {
          method: "PATCH",
          headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${socketToken}`, "ferry-chunk": "1", "upload-offset": String(s), "content-type": "application/offset+octet-stream" },
          body: data.subarray(s, e),
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(pieces.map(() => 204));
    const head = await tus.head(id!);
    expect(head.headers.get("ferry-ranges")).toBe(`0-${data.length - 1}`);
    expect((await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).size).toBe(data.length);
    expect((await read("/chunks.bin")).equals(data)).toBe(true);
  });

  it("a hash mismatch is refused (4178), the upload dropped and nothing placed", async () => {
    const data = randomBytes(6 * MIB);
    const tus = tusClient(t.fileUrl, socketToken);
    const { id } = await tus.create({ groupId: String(groupId), path: "/bad.bin" }, data.length);
    expect((await tus.patch(id!, 0, data)).status).toBe(204);
    expect(await files.cmd("commit", { uploadId: id!, hash: await blake3Hex(randomBytes(10)) })).toMatchObject({ code: ErrorCode.HashCheckError });
    expect((await tus.head(id!)).status).toBe(404);
    expect((await home().list("/")).map((e) => e.name)).not.toContain("bad.bin");
  });

  it("a commit before the last byte answers 4207 with the offset; DELETE drops the upload", async () => {
    const data = randomBytes(6 * MIB);
    const tus = tusClient(t.fileUrl, socketToken);
    const { id } = await tus.create({ groupId: String(groupId), path: "/half.bin" }, data.length);
    expect((await tus.patch(id!, 0, data.subarray(0, 5 * MIB + 1))).status).toBe(204);
    expect(await files.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ code: ErrorCode.UploadIncomplete, data: { offset: 5 * MIB, size: data.length } });
    expect((await tus.remove(id!)).status).toBe(204);
    expect((await tus.head(id!)).status).toBe(404);
    expect(await readdir(staging())).not.toContain(`${id}.json`);
  });

  it("a batch writes each small file into the bucket from memory", async () => {
    const list = [
      { path: "/b/one.txt", data: Buffer.from("one") },
      { path: "/b/two.bin", data: randomBytes(300_000) },
    ];
    const header = Buffer.from(JSON.stringify({ files: await Promise.all(list.map(async (f) => ({ groupId, path: f.path, size: f.data.length, overwrite: false, hash: await blake3Hex(f.data) }))) }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(header.length, 0);
    const body = Buffer.concat([length, header, ...list.map((f) => f.data)]);
    const reply = await new Promise<{ status: number; body: { code: number; data: { files: { ok: boolean }[] } } }>((resolve, reject) => {
      const req = request(`${t.fileUrl}${UPLOAD_BATCH.path}`, { method: "POST", headers: { authorization: `Bearer ${socketToken}`, "content-type": "application/octet-stream", "content-length": String(body.length) } });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.files.map((f) => f.ok)).toEqual([true, true]);
    for (const f of list) expect((await read(f.path)).equals(f.data)).toBe(true);
    expect((await readdir(staging())).filter((n) => n.startsWith("batch-"))).toEqual([]);
  });

  it("past the engine's memory for parts a new upload's PATCH is refused with 503, Retry-After and the busy code, losing nothing; uploads filling a part go on; it goes through once room is freed", async () => {
    const tus = tusClient(t.fileUrl, socketToken);
    const size = 10 * MIB;
    const data = randomBytes(size);
    // Three uploads of three users fill a part each (5 MiB claimed of 16; one user may claim a part, at most 4 MiB more): no room for a fourth part.
    const holders: string[] = [];
    const holding: ReturnType<typeof tusClient>[] = [];
    for (let i = 0; i < 3; i++) {
      const user = await t.createUser(`cloud_holder_${i}`, { permission: PERMISSION_FULL });
      expect((await t.call("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { token: adminToken, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);
      const client = tusClient(t.fileUrl, user.socketToken);
      const { id } = await client.create({ groupId: String(groupId), path: `/hold-${i}.bin` }, size);
      expect((await client.patch(id!, 0, data.subarray(0, 3 * MIB))).status).toBe(204);
      holders.push(id!);
      holding.push(client);
    }
    const { id } = await tus.create({ groupId: String(groupId), path: "/waits.bin" }, size);
    const refused = await tus.patch(id!, 0, data.subarray(0, MIB));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({ code: ErrorCode.UploadMemoryFull });
    expect((await tus.head(id!)).headers.get("upload-offset")).toBe("0");
    // A Ferry chunk is refused the same way.
    const chunk = await fetch(tus.urlOf(id!), {
      method: "PATCH",
      headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${socketToken}`, "ferry-chunk": "1", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: data.subarray(0, MIB),
    });
    expect(chunk.status).toBe(503);
    expect(chunk.headers.get("retry-after")).toBe("1");
    // The holders kept their bytes and go on filling their parts.
    expect((await holding[0]!.head(holders[0]!)).headers.get("upload-offset")).toBe(String(3 * MIB));
    expect((await holding[0]!.patch(holders[0]!, 3 * MIB, data.subarray(3 * MIB, 6 * MIB))).status).toBe(204);
    // One holder ends: the retried PATCH goes through, and the upload completes.
    expect((await holding.shift()!.remove(holders.shift()!)).status).toBe(204);
    expect((await tus.patch(id!, 0, data)).status).toBe(204);
    expect((await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).size).toBe(size);
    expect((await read("/waits.bin")).equals(data)).toBe(true);
    for (const [i, holder] of holders.entries()) expect((await holding[i]!.remove(holder)).status).toBe(204);
  });

  it("a commit asked again after the store completed the upload but its answer was lost counts as committed, not as a taken path", async () => {
    const { group, user, client } = await flakyGroup();
    try {
      const data = randomBytes(6 * MIB + 3);
      const tus = tusClient(t.fileUrl, user.socketToken);
      const { id } = await tus.create({ groupId: String(group.body.data.id), path: "/lost.bin" }, data.length);
      expect((await tus.patch(id!, 0, data)).status).toBe(204);
      const hash = await blake3Hex(data);
      loseCompletions = true;
      const first = await client.cmd("commit", { uploadId: id!, hash });
      loseCompletions = false;
      expect(first.code).not.toBe(200);
      // The store did complete it: the file is there.
      expect((await readAll(await flakyHome().createReadStream("/lost.bin"))).equals(data)).toBe(true);
      expect(await client.ok("commit", { uploadId: id!, hash })).toEqual({ path: "/lost.bin", size: data.length, hash });
      expect((await client.ok("list", { groupId: group.body.data.id, path: "/" })).names).toContain("lost.bin");
    } finally {
      loseCompletions = false;
    }
  });

  it("a commit asked again after its completion never reached the store refuses another file at the path (the parts kept) instead of counting it; the upload commits once the path is free", async () => {
    const { group, user, client } = await flakyGroup();
    const tus = tusClient(t.fileUrl, user.socketToken);
    const data = randomBytes(6 * MIB + 9);
    const hash = await blake3Hex(data);
    const { id } = await tus.create({ groupId: String(group.body.data.id), path: "/dropped.bin" }, data.length);
    expect((await tus.patch(id!, 0, data)).status).toBe(204);
    dropCompletions = true;
    try {
      expect((await client.cmd("commit", { uploadId: id!, hash })).code).not.toBe(200);
    } finally {
      dropCompletions = false;
    }
    expect((await flakyHome().list("/")).map((e) => e.name)).not.toContain("dropped.bin");
    // Another upload of the same size takes the path meanwhile.
    const other = randomBytes(data.length);
    const second = await tus.create({ groupId: String(group.body.data.id), path: "/dropped.bin" }, other.length);
    expect((await tus.patch(second.id!, 0, other)).status).toBe(204);
    expect((await client.ok("commit", { uploadId: second.id!, hash: await blake3Hex(other) })).size).toBe(other.length);
    // The retry is no success for the other file, and leaves it alone.
    expect(await client.cmd("commit", { uploadId: id!, hash })).toMatchObject({ code: ErrorCode.PathExists });
    expect((await readAll(await flakyHome().createReadStream("/dropped.bin"))).equals(other)).toBe(true);
    // The parts were kept: with the path free again the upload commits with its own bytes.
    await flakyHome().remove("/dropped.bin");
    expect(await client.ok("commit", { uploadId: id!, hash })).toEqual({ path: "/dropped.bin", size: data.length, hash });
    expect((await readAll(await flakyHome().createReadStream("/dropped.bin"))).equals(data)).toBe(true);
  });

  it("an upload into a storage whose slice size is larger than the engine's memory for parts is refused at creation (413, 4212) instead of waiting with 503 for good", async () => {
    const added = await t.call("POST", "/api/admin/storages", { token: adminToken, body: { name: "Wide", provider: "s3compatible", endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", path: "wide", sliceSize: 2 * BUFFER_BYTES, ...S3RVER_KEYS } });
    expect(added.body.code).toBe(200);
    const group = await t.call("POST", "/api/admin/groups", { token: adminToken, body: { name: "Wide", storageId: added.body.data.id } });
    expect(group.body.code).toBe(200);
    const user = await t.createUser("wide_uploader", { permission: PERMISSION_FULL });
    expect((await t.call("PUT", `/api/admin/groups/${group.body.data.id}/members/${user.id}`, { token: adminToken, body: { groupPermission: PERMISSION_FULL } })).body.code).toBe(200);
    const tus = tusClient(t.fileUrl, user.socketToken);
    const created = await tus.create({ groupId: String(group.body.data.id), path: "/wide.bin" }, 3 * BUFFER_BYTES);
    expect(created.status).toBe(413);
    expect(created.body).toMatchObject({ code: ErrorCode.UploadPartOverMemory });
    // A file smaller than the budget needs no more than itself: it goes.
    const small = randomBytes(MIB);
    const { id } = await tus.create({ groupId: String(group.body.data.id), path: "/small.bin" }, small.length);
    expect((await tus.patch(id!, 0, small)).status).toBe(204);
  });

  it("a PATCH body without Content-Length longer than Upload-Length is refused with 413 (not 409, which tus clients resend on)", async () => {
    const tus = tusClient(t.fileUrl, socketToken);
    const { id } = await tus.create({ groupId: String(groupId), path: "/over.bin" }, MIB);
    const bytes = randomBytes(MIB + 10);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const reply = await fetch(tus.urlOf(id!), {
      method: "PATCH",
      headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${socketToken}`, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(reply.status).toBe(413);
    expect((await tus.remove(id!)).status).toBe(204);
  });

  it("an upload the store refuses at creation (larger than its 10,000 parts) answers 413 FileTooLarge and keeps no quota reservation", async () => {
    const reservations = () => t.engine.services.quota.reservationsBefore(Number.MAX_SAFE_INTEGER);
    const before = (await reservations()).sort();
    const tus = tusClient(t.fileUrl, socketToken);
    // 10,000 parts of 5 MiB: about 48.8 GiB; the server's own limit (100 GiB) lets 60 GiB through to the store.
    const created = await tus.create({ groupId: String(groupId), path: "/huge.bin" }, 60 * 1024 * MIB);
    expect(created.status).toBe(413);
    expect(created.body).toMatchObject({ code: ErrorCode.FileTooLarge });
    expect((await reservations()).sort()).toEqual(before);
  });
});
