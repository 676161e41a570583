import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { request, type IncomingMessage } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * The Transfer protocol settings on the engine's upload path (docs/file-server.md, "Part size and
 * parallel uploads"), over real HTTP: the part size refuses a larger PATCH body from its
 * Content-Length before reading it (4209), parallel uploads caps the uploads of one sign-in that
 * receive bytes at once (4210, 429) without losing a byte, and the hash check decides whether a
 * commit must carry the client's hash.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const MIB = 1024 * 1024;
let t: TestEngine;
let admin: string;
let alice: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;

/** Bytes the store holds of an upload, read from its file: a HEAD would ask for the upload's lock and cut a PATCH in flight. */
const stored = async (id: string) => (await stat(path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus", id)).catch(() => ({ size: 0 }))).size;
const setProtocol = (body: Record<string, unknown>) => t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body });

interface OpenPatch {
  /** The reply: status, headers and body text. */
  reply: Promise<{ status: number; headers: IncomingMessage["headers"]; text: string }>;
  write(bytes: Uint8Array): void;
  end(bytes?: Uint8Array): void;
  destroy(): void;
}

/** A PATCH announcing `length` bytes whose body the test writes itself (or never). */
function openPatch(url: string, token: string, offset: number, length: number, lang = "en"): OpenPatch {
  const req = request(url, {
    method: "PATCH",
    headers: {
      "tus-resumable": "1.0.0",
      authorization: `Bearer ${token}`,
      "accept-language": lang,
      "upload-offset": String(offset),
      "content-type": "application/offset+octet-stream",
      "content-length": String(length),
    },
  });
  const reply = new Promise<{ status: number; headers: IncomingMessage["headers"]; text: string }>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { reply, write: (b) => req.write(b), end: (b) => (b ? req.end(b) : req.end()), destroy: () => req.destroy() };
}

beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
  alice = await t.createUser("proto_alice", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, alice.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("upload part size", () => {
  it("a PATCH body over the part size is refused from its Content-Length before a byte is read (4209, 413, en and zh); parts of the size go through", async () => {
    const data = randomBytes(2 * MIB + 1000);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/parts.bin" }, data.length);
    expect((await setProtocol({ uploadPartMB: 1 })).body.code).toBe(200);
    try {
      // Only the headers go out: the refusal comes without the body ever being sent.
      for (const [lang, text] of [["en", "at most 1.00 MB"], ["zh", "最多 1.00 MB"]] as const) {
        const open = openPatch(tus.urlOf(id!), alice.socketToken, 0, data.length, lang);
        const refused = await open.reply;
        open.destroy();
        expect(refused.status).toBe(413);
        const body = JSON.parse(refused.text) as { code: number; message: string; data: { limit: number } };
        expect(body).toMatchObject({ code: ErrorCode.UploadPartTooLarge, data: { limit: MIB } });
        expect(body.message).toContain(text);
      }
      expect((await tus.head(id!)).headers.get("upload-offset")).toBe("0");

      // A chunked body has no length to check: refused the same way.
      const chunked = await fetch(tus.urlOf(id!), {
        method: "PATCH",
        headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${alice.socketToken}`, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
        body: new Blob([data.subarray(0, 10)]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as { code: number }).code).toBe(ErrorCode.UploadPartTooLarge);

      // So is a creation carrying more than a part.
      const withBody = await tus.create({ groupId: "0", path: "/first-bytes.bin" }, data.length, data);
      expect(withBody.status).toBe(413);
      expect(withBody.body?.code).toBe(ErrorCode.UploadPartTooLarge);

      // Parts of exactly the part size, then the rest.
      let offset = 0;
      for (const end of [MIB, 2 * MIB, data.length]) {
        const sent = await tus.patch(id!, offset, data.subarray(offset, end));
        expect(sent.status).toBe(204);
        offset = end;
      }
      expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/parts.bin", size: data.length });
    } finally {
      await setProtocol({ uploadPartMB: 0 });
    }
    // 0: the whole file in one request again.
    const whole = randomBytes(2 * MIB);
    const again = await tus.create({ groupId: "0", path: "/whole.bin" }, whole.length);
    expect((await tus.patch(again.id!, 0, whole)).status).toBe(204);
  });
});

describe("parallel uploads", () => {
  it("one sign-in's uploads receiving bytes at once are capped (4210, 429, Retry-After); the refused one keeps its offset and goes on once a place is free", async () => {
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const a = randomBytes(MIB);
    const b = randomBytes(MIB);
    const first = await tus.create({ groupId: "0", path: "/a.bin" }, a.length);
    const second = await tus.create({ groupId: "0", path: "/b.bin" }, b.length);
    expect((await setProtocol({ parallelUploads: 1 })).body.code).toBe(200);
    try {
      // Upload a receives bytes and holds its place: half sent, the connection open.
      const holding = openPatch(tus.urlOf(first.id!), alice.socketToken, 0, a.length);
      holding.write(a.subarray(0, a.length / 2));
      await vi.waitFor(async () => expect(await stored(first.id!)).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });

      for (const lang of ["en", "zh"]) {
        const open = openPatch(tus.urlOf(second.id!), alice.socketToken, 0, b.length, lang);
        const busy = await open.reply;
        open.destroy();
        expect(busy.status).toBe(429);
        expect(busy.headers["retry-after"]).toBe("1");
        const body = JSON.parse(busy.text) as { code: number; message: string };
        expect(body.code).toBe(ErrorCode.UploadsBusy);
        expect(body.message).toContain(lang === "en" ? "At most 1 uploads" : "最多同时发送 1 个上传");
      }
      expect(await stored(second.id!)).toBe(0);

      // Another sign-in of the same user is another caller with its own places.
      const other = (await t.login(alice.account, alice.password)).body.data.websocket_token as string;
      const elsewhere = tusClient(t.fileUrl, other);
      const third = await elsewhere.create({ groupId: "0", path: "/c.bin" }, 100);
      expect((await elsewhere.patch(third.id!, 0, randomBytes(100))).status).toBe(204);

      // The holder finishes; its place is free again, and b goes through whole.
      holding.end(a.subarray(a.length / 2));
      expect((await holding.reply).status).toBe(204);
      await vi.waitFor(async () => expect((await tus.patch(second.id!, 0, b)).status).toBe(204), { timeout: 10_000, interval: 50 });
      expect(await files.ok("commit", { uploadId: first.id!, hash: await blake3Hex(a) })).toMatchObject({ size: a.length });
      expect(await files.ok("commit", { uploadId: second.id!, hash: await blake3Hex(b) })).toMatchObject({ size: b.length });

      // A client dropped mid-PATCH frees its place too.
      const d = randomBytes(MIB);
      const fourth = await tus.create({ groupId: "0", path: "/d.bin" }, d.length);
      const dropped = openPatch(tus.urlOf(fourth.id!), alice.socketToken, 0, d.length);
      dropped.reply.catch(() => undefined);
      dropped.write(d.subarray(0, 1000));
      await vi.waitFor(async () => expect(await stored(fourth.id!)).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
      dropped.destroy();
      const e = await tus.create({ groupId: "0", path: "/e.bin" }, 10);
      await vi.waitFor(async () => expect((await tus.patch(e.id!, 0, randomBytes(10))).status).toBe(204), { timeout: 10_000, interval: 50 });
    } finally {
      await setProtocol({ parallelUploads: 3 });
    }
  });
});

describe("hash check", () => {
  it("on: a commit without the client's hash is refused (401); off: it commits with no comparison", async () => {
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const data = randomBytes(5000);
    const { id } = await tus.create({ groupId: "0", path: "/hashless.bin" }, data.length, data);
    expect(await files.cmd("commit", { uploadId: id! })).toMatchObject({ code: ErrorCode.BadRequired });
    expect((await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { cHashVerifySwitch: false } })).body.code).toBe(200);
    try {
      const placed = await files.ok("commit", { uploadId: id! });
      // The engine still knows the stored bytes' hash (for attributes), it only compared nothing.
      expect(placed).toEqual({ path: "/hashless.bin", size: data.length, hash: await blake3Hex(data) });
    } finally {
      await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { cHashVerifySwitch: true } });
    }
  });
});
