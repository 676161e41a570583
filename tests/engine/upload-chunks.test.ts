import { randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { request, type IncomingMessage } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { type ByteRange, missingRanges, parseRanges as parseContractRanges } from "../../contract/upload-chunks";
import { readBack } from "../../server/uploads/progress";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Ferry's parallel chunks (docs/file-server.md, "Parallel chunks (Ferry extension)") over real
 * HTTP into real files: `PATCH` with `Ferry-Chunk: 1` writes its body at its `Upload-Offset`, many
 * at once on one upload, out of order; HEAD answers the contiguous prefix as `Upload-Offset` and
 * every stored range as `Ferry-Ranges`; overlaps and bodies past the declared size are refused
 * before the body is used (4179 with the ranges); a dropped chunk keeps what arrived. The engine
 * hashes while the bytes arrive: `readBack` (bytes it had to read again from a data file to hash
 * them) shows that an upload sent in order is never read back, and one whose prefix jumps reads
 * back only the bytes that became contiguous.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const MIB = 1024 * 1024;
let t: TestEngine;
let admin: string;
let alice: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;

const homeFile = async (userId: number, name: string) => {
  const space = await t.engine.services.spaces.open(userId, 0);
  return readFile(path.join(t.engine.services.spaces.root, space.home, name));
};
const stagedSize = async (id: string) => (await stat(path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus", id)).catch(() => ({ size: 0 }))).size;
const setProtocol = (body: Record<string, unknown>) => t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body });

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  body: { code: number; data: { ranges?: string } } | null;
}

/** A chunk whose body the test writes itself (or cuts). */
function openChunk(url: string, token: string, offset: number, length: number) {
  const req = request(url, {
    method: "PATCH",
    headers: {
      "tus-resumable": "1.0.0",
      authorization: `Bearer ${token}`,
      "ferry-chunk": "1",
      "upload-offset": String(offset),
      "content-type": "application/offset+octet-stream",
      "content-length": String(length),
    },
  });
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Reply["body"]) : null });
      });
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { reply, write: (b: Uint8Array) => req.write(b), end: (b?: Uint8Array) => (b ? req.end(b) : req.end()), destroy: () => req.destroy() };
}

/** One whole chunk: `data[start, end)` at `start`. */
function sendChunk(url: string, token: string, data: Buffer, start: number, end: number) {
  const chunk = openChunk(url, token, start, end - start);
  chunk.end(data.subarray(start, end));
  return chunk.reply;
}

/** `Ferry-Ranges` as [start, end) pairs (the contract's parser, as a client would use it). */
const parseRanges = (header: string | null | undefined): ByteRange[] => parseContractRanges(header) ?? [];

/** The gaps between stored ranges, in pieces of at most `piece` bytes. */
function missing(ranges: ByteRange[], size: number, piece: number): ByteRange[] {
  const pieces: ByteRange[] = [];
  for (const [s, e] of missingRanges(ranges, size)) for (let p = s; p < e; p += piece) pieces.push([p, Math.min(e, p + piece)]);
  return pieces;
}

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  admin = await t.adminToken();
  alice = await t.createUser("chunk_alice", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, alice.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("parallel chunks", () => {
  it("are advertised, written concurrently out of order, committed with the right hash, byte for byte", async () => {
    const options = await fetch(`${t.fileUrl}/uploads/`, { method: "OPTIONS", headers: { origin: t.fileUrl, "access-control-request-method": "PATCH", "access-control-request-headers": "ferry-chunk" } });
    expect(options.headers.get("tus-extension")).toContain("ferry-chunks");
    expect(options.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("ferry-chunk");

    const data = randomBytes(6 * MIB + 12_345);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/parallel.bin" }, data.length);
    const pieces = missing([], data.length, MIB).reverse();
    const replies = await Promise.all(pieces.map(([s, e]) => sendChunk(tus.urlOf(id!), alice.socketToken, data, s, e)));
    for (const r of replies) expect(r.status).toBe(204);
    const head = await tus.head(id!);
    expect(head.headers.get("upload-offset")).toBe(String(data.length));
    expect(head.headers.get("ferry-ranges")).toBe(`0-${data.length - 1}`);
    expect(head.headers.get("access-control-expose-headers") ?? "").toContain("Ferry-Ranges");
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toEqual({ path: "/parallel.bin", size: data.length, hash: await blake3Hex(data) });
    expect(Buffer.compare(await homeFile(alice.id, "parallel.bin"), data)).toBe(0);
  });

  it("hash as they land: the second half first, then the first: only the second half is read back", async () => {
    const data = randomBytes(4 * MIB + 7);
    const half = 2 * MIB;
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/jump.bin" }, data.length);
    const before = readBack.bytes;
    const late = await sendChunk(tus.urlOf(id!), alice.socketToken, data, half, data.length);
    expect(late.status).toBe(204);
    expect(late.headers["upload-offset"]).toBe("0");
    expect(late.headers["ferry-ranges"]).toBe(`${half}-${data.length - 1}`);
    // A plain tus PATCH would write over the stored chunk: refused, the ranges named.
    const plain = await tus.patch(id!, 0, data.subarray(0, 10));
    expect(plain.status).toBe(409);
    expect(plain.body).toMatchObject({ code: ErrorCode.InvalidData, data: { ranges: `${half}-${data.length - 1}` } });
    const first = await sendChunk(tus.urlOf(id!), alice.socketToken, data, 0, half);
    expect(first.status).toBe(204);
    expect(first.headers["upload-offset"]).toBe(String(data.length));
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ size: data.length });
    // The first half was hashed from memory as it was written; the jump read back the second half once.
    expect(readBack.bytes - before).toBe(data.length - half);
    expect(Buffer.compare(await homeFile(alice.id, "jump.bin"), data)).toBe(0);
  });

  it("a chunk whose connection drops keeps what arrived; a reloaded client sends only the missing bytes", async () => {
    const data = randomBytes(5 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/dropped.bin" }, data.length);
    expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, 0, MIB)).status).toBe(204);
    expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, 3 * MIB, 4 * MIB)).status).toBe(204);

    // [MIB, 3 MIB): half a MiB goes out, then the connection is destroyed.
    const cut = openChunk(tus.urlOf(id!), alice.socketToken, MIB, 2 * MIB);
    cut.reply.catch(() => undefined);
    cut.write(data.subarray(MIB, MIB + MIB / 2));
    await vi.waitFor(
      async () => {
        const ranges = parseRanges((await tus.head(id!)).headers.get("ferry-ranges"));
        expect(ranges[0]![1]).toBeGreaterThan(MIB);
      },
      { timeout: 10_000, interval: 20 },
    );
    cut.destroy();

    // The reload: a new client knows only what HEAD says.
    const ranges = await vi.waitFor(
      async () => {
        const head = await tus.head(id!);
        const got = parseRanges(head.headers.get("ferry-ranges"));
        // The cut chunk's bytes are a stored range that starts at its offset and stops short of its end.
        expect(got).toHaveLength(2);
        expect(got[0]![0]).toBe(0);
        expect(got[0]![1]).toBeGreaterThan(MIB);
        expect(got[0]![1]).toBeLessThanOrEqual(MIB + MIB / 2);
        expect(got[1]).toEqual([3 * MIB, 4 * MIB]);
        expect(head.headers.get("upload-offset")).toBe(String(got[0]![1]));
        return got;
      },
      { timeout: 10_000, interval: 20 },
    );
    const gaps = missing(ranges, data.length, 512 * 1024);
    const sent = gaps.reduce((n, [s, e]) => n + e - s, 0);
    expect(sent).toBe(data.length - ranges.reduce((n, [s, e]) => n + e - s, 0));
    // The dropped connection may still hold its place for a moment: a 409 names the ranges, the client asks again.
    await vi.waitFor(
      async () => {
        const replies = await Promise.all(gaps.map(([s, e]) => sendChunk(tus.urlOf(id!), alice.socketToken, data, s, e)));
        for (const r of replies) expect(r.status).toBe(204);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect((await tus.head(id!)).headers.get("ferry-ranges")).toBe(`0-${data.length - 1}`);
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ size: data.length });
    expect(Buffer.compare(await homeFile(alice.id, "dropped.bin"), data)).toBe(0);
  });

  it("a chunk overlapping stored bytes or a chunk in flight, or past the declared size, is refused before its body is used", async () => {
    const data = randomBytes(3 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/overlap.bin" }, data.length);
    expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, MIB, 2 * MIB)).status).toBe(204);

    const stored = openChunk(tus.urlOf(id!), alice.socketToken, MIB / 2, MIB);
    const refusedStored = await stored.reply;
    stored.destroy();
    expect(refusedStored.status).toBe(409);
    expect(refusedStored.body).toMatchObject({ code: ErrorCode.InvalidData, data: { ranges: `${MIB}-${2 * MIB - 1}` } });

    // A chunk in flight holds its whole announced range.
    const holding = openChunk(tus.urlOf(id!), alice.socketToken, 2 * MIB, MIB);
    holding.write(data.subarray(2 * MIB, 2 * MIB + 1000));
    await vi.waitFor(async () => expect(parseRanges((await tus.head(id!)).headers.get("ferry-ranges"))[0]![1]).toBeGreaterThan(2 * MIB), { timeout: 10_000, interval: 20 });
    const inFlight = openChunk(tus.urlOf(id!), alice.socketToken, 3 * MIB - 10, 10);
    const refusedFlight = await inFlight.reply;
    inFlight.destroy();
    expect(refusedFlight.status).toBe(409);
    expect(refusedFlight.body?.code).toBe(ErrorCode.InvalidData);

    for (const [offset, length] of [
      [3 * MIB - 10, 11],
      [3 * MIB, 1],
      [0, 3 * MIB + 1],
    ]) {
      const past = openChunk(tus.urlOf(id!), alice.socketToken, offset!, length!);
      const refused = await past.reply;
      past.destroy();
      expect(refused.status).toBe(413);
      expect(refused.body).toMatchObject({ code: ErrorCode.InvalidData, data: { ranges: expect.any(String) as string } });
    }
    holding.end(data.subarray(2 * MIB + 1000, 3 * MIB));
    expect((await holding.reply).status).toBe(204);
    expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, 0, MIB)).status).toBe(204);
    // Nothing of the refused chunks reached the file.
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ size: data.length });
    expect(Buffer.compare(await homeFile(alice.id, "overlap.bin"), data)).toBe(0);
  });

  it("a termination while a chunk arrives ends the upload: the chunk answers 404 and leaves no record behind", async () => {
    const data = randomBytes(2 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/terminated.bin" }, data.length);
    const open = openChunk(tus.urlOf(id!), alice.socketToken, MIB, MIB);
    open.write(data.subarray(MIB, MIB + 1000));
    await vi.waitFor(async () => expect(parseRanges((await tus.head(id!)).headers.get("ferry-ranges"))).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect((await tus.remove(id!)).status).toBe(204);
    open.end(data.subarray(MIB + 1000));
    const reply = await open.reply;
    expect(reply.status).toBe(404);
    expect(reply.body?.code).toBe(ErrorCode.UploadNotFound);
    expect((await tus.head(id!)).status).toBe(404);
    const tusDir = path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus");
    expect(await stat(path.join(tusDir, `${id!}.json`)).then(() => true, () => false)).toBe(false);
    expect(await stat(path.join(tusDir, id!)).then(() => true, () => false)).toBe(false);
  });

  it("a hash mismatch is refused at commit (4178) and the bytes are dropped", async () => {
    const data = randomBytes(2 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/mismatch.bin" }, data.length);
    const other = Buffer.from(data);
    other[MIB + 5] = other[MIB + 5]! ^ 0xff;
    await Promise.all([sendChunk(tus.urlOf(id!), alice.socketToken, other, MIB, 2 * MIB), sendChunk(tus.urlOf(id!), alice.socketToken, other, 0, MIB)]);
    expect(await files.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ code: ErrorCode.HashCheckError });
    expect((await tus.head(id!)).status).toBe(404);
  });

  it("a commit before every range is stored answers 4207 with the contiguous offset", async () => {
    const data = randomBytes(2 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/gap.bin" }, data.length);
    // The last chunk first: the data file has its full size, with a hole.
    expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, MIB, 2 * MIB)).status).toBe(204);
    expect(await stagedSize(id!)).toBe(data.length);
    expect(await files.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ code: ErrorCode.UploadIncomplete, data: { offset: 0, size: data.length } });
  });

  it("keep the part size per chunk (4209) and count as one file for parallel uploads (4210 for another file)", async () => {
    const data = randomBytes(3 * MIB);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/limits.bin" }, data.length);
    const other = await tus.create({ groupId: "0", path: "/limits-other.bin" }, 100);
    expect((await setProtocol({ uploadPartMB: 1, parallelUploads: 1 })).body.code).toBe(200);
    try {
      const big = openChunk(tus.urlOf(id!), alice.socketToken, 0, MIB + 1);
      const tooBig = await big.reply;
      big.destroy();
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toMatchObject({ code: ErrorCode.UploadPartTooLarge, data: { limit: MIB } });
      expect(await stagedSize(id!)).toBe(0);

      // Two chunks of this file at once hold one place; a chunk of another file is busy.
      const a = openChunk(tus.urlOf(id!), alice.socketToken, 0, MIB);
      const b = openChunk(tus.urlOf(id!), alice.socketToken, 2 * MIB, MIB);
      a.write(data.subarray(0, 1000));
      b.write(data.subarray(2 * MIB, 2 * MIB + 1000));
      await vi.waitFor(async () => expect(parseRanges((await tus.head(id!)).headers.get("ferry-ranges"))).toHaveLength(2), { timeout: 10_000, interval: 20 });
      const busy = openChunk(tus.urlOf(other.id!), alice.socketToken, 0, 100);
      const refused = await busy.reply;
      busy.destroy();
      expect(refused.status).toBe(429);
      expect(refused.body?.code).toBe(ErrorCode.UploadsBusy);
      a.end(data.subarray(1000, MIB));
      b.end(data.subarray(2 * MIB + 1000, 3 * MIB));
      expect((await a.reply).status).toBe(204);
      expect((await b.reply).status).toBe(204);
      expect((await sendChunk(tus.urlOf(id!), alice.socketToken, data, MIB, 2 * MIB)).status).toBe(204);
    } finally {
      await setProtocol({ uploadPartMB: 0, parallelUploads: 3 });
    }
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ size: data.length });
  });
});

describe("single-stream tus uploads", () => {
  it("are hashed as they arrive: the last PATCH's bytes complete the hash, nothing is read back", async () => {
    const data = randomBytes(5 * MIB + 3);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const before = readBack.bytes;
    const { id } = await tus.create({ groupId: "0", path: "/stream.bin" }, data.length, data.subarray(0, MIB));
    for (const [s, e] of [
      [MIB, 3 * MIB],
      [3 * MIB, data.length],
    ]) {
      const reply = await tus.patch(id!, s!, data.subarray(s, e));
      expect(reply.status).toBe(204);
      expect(reply.headers.get("upload-offset")).toBe(String(e));
    }
    expect(await files.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ size: data.length });
    expect(readBack.bytes - before).toBe(0);
    expect(Buffer.compare(await homeFile(alice.id, "stream.bin"), data)).toBe(0);
  });
});

describe("a share visitor", () => {
  it("sends chunks to its own upload in the invitation folder; the owner's sign-in cannot send to it", async () => {
    const space = await t.engine.services.spaces.open(alice.id, 0);
    await writeTree(path.join(t.engine.services.spaces.root, space.home), { "inbox/existing.txt": "here" });
    const token = await shareTokenOf(t, await makeLink(t, alice.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in", shareShowContents: 1 }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      const data = randomBytes(3 * MIB + 1);
      const tus = tusClient(t.fileUrl, token);
      const { id, status } = await tus.create({ groupId: "0", path: "/from-visitor.bin" }, data.length);
      expect(status).toBe(201);
      const owners = openChunk(tus.urlOf(id!), alice.socketToken, 0, 10);
      const refused = await owners.reply;
      owners.destroy();
      expect(refused.status).toBe(403);
      expect(refused.body?.code).toBe(ErrorCode.PermissionDenied);
      const replies = await Promise.all([
        sendChunk(tus.urlOf(id!), token, data, 2 * MIB, data.length),
        sendChunk(tus.urlOf(id!), token, data, MIB, 2 * MIB),
        sendChunk(tus.urlOf(id!), token, data, 0, MIB),
      ]);
      for (const r of replies) expect(r.status).toBe(204);
      expect(await visitor.ok("commit", { uploadId: id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/from-visitor.bin", size: data.length });
      expect(Buffer.compare(await homeFile(alice.id, "inbox/from-visitor.bin"), data)).toBe(0);
    } finally {
      await visitor.close();
    }
  });
});
