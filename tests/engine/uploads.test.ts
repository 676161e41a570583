import { randomBytes } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Upload } from "tus-js-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { blake3Hex, encodeMetadata, tusClient } from "../support/tus-client";

const NO_UPLOAD = PERMISSION_FULL & ~Permission.Upload;

let t: TestEngine;
let alice: Awaited<ReturnType<TestEngine["createUser"]>>;
let bob: Awaited<ReturnType<TestEngine["createUser"]>>;
let aliceFiles: FileClient;
let bobFiles: FileClient;
let groupId: number;

const homeOf = async (userId: number, group = 0) => {
  const space = await t.engine.services.spaces.open(userId, group);
  return { abs: path.join(t.engine.services.spaces.root, space.home), space };
};
const tusDir = () => path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus");
const exists = (file: string) => stat(file).then(() => true, () => false);
const meta = (p: string, extra: Record<string, string> = {}) => ({ groupId: "0", path: p, ...extra });

beforeAll(async () => {
  t = await startTestEngine();
  alice = await t.createUser("alice", { permission: PERMISSION_FULL });
  bob = await t.createUser("bob", { permission: NO_UPLOAD });
  aliceFiles = await connectFiles(t.fileUrl, alice.socketToken);
  bobFiles = await connectFiles(t.fileUrl, bob.socketToken);
  const admin = await t.adminToken();
  const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "team" } });
  groupId = group.body.data.id as number;
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${alice.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${bob.id}`, { token: admin, body: { groupPermission: NO_UPLOAD } });
});
afterAll(async () => {
  await aliceFiles?.close();
  await bobFiles?.close();
  await t?.stop();
});

describe("tus uploads", () => {
  it("uploads a file in one request, commits it, and the bytes and BLAKE3 match", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const created = await tus.create(meta("/one.bin"), data.length, data);
    expect(created.status).toBe(201);
    expect(created.headers.get("upload-offset")).toBe(String(data.length));
    const hash = await blake3Hex(data);
    const result = await aliceFiles.ok("commit", { uploadId: created.id!, hash });
    expect(result).toEqual({ path: "/one.bin", size: data.length, hash });
    const { abs, space } = await homeOf(alice.id);
    expect(Buffer.compare(await readFile(path.join(abs, "one.bin")), data)).toBe(0);
    const placed = await space.storage.stat("/one.bin");
    expect(await t.engine.services.hashes.lookup(space.key, "/one.bin", placed.size, placed.mtime)).toBe(hash);
    // Nothing of the upload stays behind, and a repeated commit answers the same.
    expect(await exists(path.join(tusDir(), created.id!))).toBe(false);
    expect(await aliceFiles.ok("commit", { uploadId: created.id!, hash })).toEqual(result);
  });

  it("uploads in several PATCH requests; a commit before the last byte is refused", async () => {
    const data = randomBytes(2 * 1024 * 1024 + 5);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create(meta("/docs/deep/parts.bin"), data.length);
    const cuts = [0, 700_000, 1_500_000, data.length];
    for (let i = 0; i < cuts.length - 1; i++) {
      const r = await tus.patch(id!, cuts[i]!, data.subarray(cuts[i], cuts[i + 1]));
      expect(r.status).toBe(204);
      expect(r.headers.get("upload-offset")).toBe(String(cuts[i + 1]));
      if (i === 0) {
        const early = await aliceFiles.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) });
        expect(early.code).toBe(ErrorCode.UploadIncomplete);
        expect(early.data).toEqual({ offset: 700_000, size: data.length });
      }
    }
    // A PATCH at a stale offset changes nothing.
    const stale = await tus.patch(id!, 0, data.subarray(0, 10));
    expect(stale.status).toBe(409);
    expect(stale.body?.code).toBe(ErrorCode.InvalidData);
    // Missing folders of the path are created at commit (folder uploads keep their tree).
    const result = await aliceFiles.ok("commit", { uploadId: id!, hash: await blake3Hex(data) });
    expect(result.path).toBe("/docs/deep/parts.bin");
    const { abs } = await homeOf(alice.id);
    expect(Buffer.compare(await readFile(path.join(abs, "docs/deep/parts.bin")), data)).toBe(0);
  });

  it("resumes an upload cut at 50% from the offset really stored", async () => {
    const data = randomBytes(4 * 1024 * 1024);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create(meta("/resumed.bin"), data.length);
    const staged = path.join(tusDir(), id!);
    await tus.cutPatch(id!, 0, data, data.length / 2, async () => (await stat(staged)).size > 0);
    const head = await tus.head(id!);
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get("upload-offset"));
    expect(offset).toBe((await stat(staged)).size);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(data.length / 2);
    expect(head.headers.get("upload-length")).toBe(String(data.length));
    const rest = await tus.patch(id!, offset, data.subarray(offset));
    expect(rest.headers.get("upload-offset")).toBe(String(data.length));
    await aliceFiles.ok("commit", { uploadId: id!, hash: await blake3Hex(data) });
    const { abs } = await homeOf(alice.id);
    expect(Buffer.compare(await readFile(path.join(abs, "resumed.bin")), data)).toBe(0);
  });

  it("refuses a hash mismatch: 4178, nothing at the path, the staged bytes gone", async () => {
    const data = randomBytes(100_000);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create(meta("/bad-hash.bin"), data.length, data);
    const wrong = await blake3Hex(Buffer.concat([data, Buffer.from("x")]));
    const reply = await aliceFiles.cmd("commit", { uploadId: id!, hash: wrong });
    expect(reply.code).toBe(ErrorCode.HashCheckError);
    const { abs } = await homeOf(alice.id);
    expect(await exists(path.join(abs, "bad-hash.bin"))).toBe(false);
    expect(await exists(path.join(tusDir(), id!))).toBe(false);
    expect((await tus.head(id!)).status).toBe(404);
    expect((await aliceFiles.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) })).code).toBe(ErrorCode.UploadNotFound);
  });

  it("refuses uploads without the Upload permission, in the personal and in a group space", async () => {
    const bobTus = tusClient(t.fileUrl, bob.socketToken);
    for (const groupIdText of ["0", String(groupId)]) {
      const r = await bobTus.create({ groupId: groupIdText, path: "/x.bin" }, 10, Buffer.alloc(10));
      expect(r.status).toBe(403);
      expect(r.body?.code).toBe(ErrorCode.PermissionDenied);
    }
    // A group the user is not in looks the same as no permission.
    const aliceTus = tusClient(t.fileUrl, alice.socketToken);
    expect((await aliceTus.create({ groupId: "999", path: "/x.bin" }, 10)).body?.code).toBe(ErrorCode.PermissionDenied);
    // With the group's Upload bit it works, and the file lands in the group's home.
    const data = randomBytes(1000);
    const ok = await aliceTus.create({ groupId: String(groupId), path: "/shared.bin" }, data.length, data);
    expect(ok.status).toBe(201);
    await aliceFiles.ok("commit", { uploadId: ok.id!, hash: await blake3Hex(data) });
    const { abs } = await homeOf(alice.id, groupId);
    expect(Buffer.compare(await readFile(path.join(abs, "shared.bin")), data)).toBe(0);
  });

  it("refuses a forbidden path of the user, and below it, but not its sibling prefix", async () => {
    const admin = await t.adminToken();
    const carol = await t.createUser("carol", { permission: PERMISSION_FULL, forbiddenPaths: ["/secret"] });
    const tus = tusClient(t.fileUrl, carol.socketToken);
    for (const p of ["/secret", "/secret/in.bin", "/secret/deep/er.bin"]) {
      const r = await tus.create(meta(p), 10, Buffer.alloc(10));
      expect(r.status, p).toBe(403);
      expect(r.body?.code, p).toBe(ErrorCode.PermissionDenied);
    }
    const data = randomBytes(100);
    const sibling = await tus.create(meta("/secretive.bin"), data.length, data);
    expect(sibling.status).toBe(201);
    // Forbidding the path after creation stops the commit too.
    const pending = await tus.create(meta("/later/x.bin"), data.length, data);
    expect(pending.status).toBe(201);
    await t.call("PATCH", `/api/admin/users/${carol.id}`, { token: admin, body: { forbiddenPaths: ["/secret", "/later"] } });
    const carolFiles = await connectFiles(t.fileUrl, carol.socketToken);
    expect((await carolFiles.cmd("commit", { uploadId: pending.id!, hash: await blake3Hex(data) })).code).toBe(ErrorCode.PermissionDenied);
    expect((await carolFiles.cmd("commit", { uploadId: sibling.id!, hash: await blake3Hex(data) })).code).toBe(200);
    await carolFiles.close();
  });

  it("keeps an upload to its owner: other users, wrong and absent tokens are refused", async () => {
    const data = randomBytes(5000);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create(meta("/mine.bin"), data.length, data.subarray(0, 1000));
    const other = tusClient(t.fileUrl, bob.socketToken);
    expect((await other.patch(id!, 1000, data.subarray(1000))).status).toBe(403);
    expect((await other.head(id!)).status).toBe(403);
    expect((await other.remove(id!)).status).toBe(403);
    const forged = await bobFiles.cmd("commit", { uploadId: id!, hash: await blake3Hex(data) });
    expect(forged.code).toBe(ErrorCode.PermissionDenied);
    for (const token of [null, "x".repeat(128), alice.token]) {
      const anon = tusClient(t.fileUrl, token);
      const r = await anon.patch(id!, 1000, data.subarray(1000));
      expect(r.status).toBe(401);
      expect(r.body?.code).toBe(ErrorCode.InvalidToken);
      expect((await anon.create(meta("/anon.bin"), 10)).status).toBe(401);
    }
    // None of it moved the upload.
    expect((await tus.head(id!)).headers.get("upload-offset")).toBe("1000");
    expect((await tus.remove(id!)).status).toBe(204);
    expect((await tus.head(id!)).status).toBe(404);
  });

  it("refuses a declared size over TCPFileSizeLimit with a translated FileTooLarge", async () => {
    const admin = await t.adminToken();
    await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 1 } });
    try {
      const tus = tusClient(t.fileUrl, alice.socketToken, { "accept-language": "zh-CN" });
      const big = await tus.create(meta("/big.bin"), 1025);
      expect(big.status).toBe(413);
      expect(big.body?.code).toBe(ErrorCode.FileTooLarge);
      expect(big.body?.message).toContain("1.00 KB");
      expect(big.body?.message).toMatch(/文件/);
      expect((await tus.create(meta("/fits.bin"), 1024)).status).toBe(201);
    } finally {
      await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 100 * 1024 * 1024 } });
    }
  });

  it("refuses path attacks in the metadata and confines absolute paths to the space", async () => {
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const attacks = ["../escape.bin", "/docs/../../escape.bin", "a\u0000b.bin", "/a:b.bin", "/x/y?.bin", "/", "/.ferry-tmp/x.bin", "C:/x.bin", "a\\b.bin", "/．．/x.bin"];
    for (const p of attacks) {
      const r = await tus.create(meta(p), 10, Buffer.alloc(10));
      expect(r.status, p).toBe(400);
      expect([ErrorCode.InvalidPath, ErrorCode.NameFormat], p).toContain(r.body?.code);
    }
    const malformed: Record<string, string>[] = [{ path: "/x.bin" }, { groupId: "-1", path: "/x.bin" }, { groupId: "0", path: "/x.bin", overwrite: "yes" }];
    for (const bad of malformed) {
      const r = await tus.create(bad, 10);
      expect(r.status).toBe(400);
      expect([ErrorCode.BadRequired, ErrorCode.ParameterError]).toContain(r.body?.code);
    }
    expect(await exists(path.join(t.engine.services.spaces.root, "escape.bin"))).toBe(false);
    const data = randomBytes(64);
    const abs = await tus.create(meta("/etc/passwd"), data.length, data);
    await aliceFiles.ok("commit", { uploadId: abs.id!, hash: await blake3Hex(data) });
    const home = await homeOf(alice.id);
    expect(Buffer.compare(await readFile(path.join(home.abs, "etc/passwd")), data)).toBe(0);
  });

  it("never overwrites unless asked, at creation and at commit; two uploads to one path: the first commit wins", async () => {
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const first = randomBytes(3000);
    const a = await tus.create(meta("/same.bin"), first.length, first);
    const second = randomBytes(2000);
    const b = await tus.create(meta("/same.bin"), second.length, second);
    await aliceFiles.ok("commit", { uploadId: a.id!, hash: await blake3Hex(first) });
    expect((await aliceFiles.cmd("commit", { uploadId: b.id!, hash: await blake3Hex(second) })).code).toBe(ErrorCode.PathExists);
    const { abs } = await homeOf(alice.id);
    expect(Buffer.compare(await readFile(path.join(abs, "same.bin")), first)).toBe(0);
    // Now the path exists: a new upload without overwrite is refused at once.
    const refused = await tus.create(meta("/same.bin"), 10);
    expect(refused.body?.code).toBe(ErrorCode.PathExists);
    // With overwrite it replaces the file; a folder is never replaced by a file.
    const third = randomBytes(1234);
    const c = await tus.create(meta("/same.bin", { overwrite: "1" }), third.length, third);
    await aliceFiles.ok("commit", { uploadId: c.id!, hash: await blake3Hex(third) });
    expect(Buffer.compare(await readFile(path.join(abs, "same.bin")), third)).toBe(0);
    await (await homeOf(alice.id)).space.storage.mkdir("/a-folder");
    expect((await tus.create(meta("/a-folder", { overwrite: "1" }), 10)).body?.code).toBe(ErrorCode.PathIsNotFile);
  });

  it("replacing a file takes the Delete bit as well: without it overwrite is refused at creation and at commit", async () => {
    const carol = await t.createUser("nodelete", { permission: PERMISSION_FULL & ~Permission.Delete });
    const carolFiles = await connectFiles(t.fileUrl, carol.socketToken);
    const tus = tusClient(t.fileUrl, carol.socketToken);
    const kept = randomBytes(1000);
    const first = await tus.create(meta("/kept.bin"), kept.length, kept);
    await carolFiles.ok("commit", { uploadId: first.id!, hash: await blake3Hex(kept) });
    const { abs } = await homeOf(carol.id);

    const refused = await tus.create(meta("/kept.bin", { overwrite: "1" }), 10);
    expect(refused.status).toBe(403);
    expect(refused.body?.code).toBe(ErrorCode.PermissionDenied);
    // Overwrite asked while nothing is there yet, then the name appears before the commit.
    const late = randomBytes(500);
    const pending = await tus.create(meta("/late.bin", { overwrite: "1" }), late.length, late);
    expect(pending.status).toBe(201);
    const other = randomBytes(700);
    const meanwhile = await tus.create(meta("/late.bin"), other.length, other);
    await carolFiles.ok("commit", { uploadId: meanwhile.id!, hash: await blake3Hex(other) });
    expect((await carolFiles.cmd("commit", { uploadId: pending.id!, hash: await blake3Hex(late) })).code).toBe(ErrorCode.PermissionDenied);
    expect(Buffer.compare(await readFile(path.join(abs, "kept.bin")), kept)).toBe(0);
    expect(Buffer.compare(await readFile(path.join(abs, "late.bin")), other)).toBe(0);
    await carolFiles.close();
  });

  it("recreates the target folder when it was removed during the upload", async () => {
    const { space, abs } = await homeOf(alice.id);
    await space.storage.mkdir("/album", { recursive: true });
    const data = randomBytes(10_000);
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create(meta("/album/photo.jpg"), data.length, data.subarray(0, 5000));
    await space.storage.remove("/album");
    await tus.patch(id!, 5000, data.subarray(5000));
    await aliceFiles.ok("commit", { uploadId: id!, hash: await blake3Hex(data) });
    expect(Buffer.compare(await readFile(path.join(abs, "album/photo.jpg")), data)).toBe(0);
  });

  it("offers exactly its extensions, and refuses tus concatenation (Upload-Concat) with 501, nothing stored", async () => {
    const options = await fetch(`${t.fileUrl}/uploads/`, { method: "OPTIONS" });
    expect(options.headers.get("tus-extension")?.split(",")).toEqual(["creation", "creation-with-upload", "termination", "expiration", "ferry-chunks"]);
    expect(options.headers.get("tus-version")).toBe("1.0.0");

    const before = (await readdir(tusDir())).sort();
    const reservations = () => t.engine.services.quota.reservationsBefore(Number.MAX_SAFE_INTEGER);
    const reserved = (await reservations()).sort();
    const refusedWith = async (concat: string, token: string | null = alice.socketToken) => {
      const res = await fetch(`${t.fileUrl}/uploads/`, {
        method: "POST",
        headers: { "tus-resumable": "1.0.0", ...(token ? { authorization: `Bearer ${token}` } : {}), "upload-length": "4000", "upload-concat": concat, "upload-metadata": encodeMetadata(meta("/p.bin")) },
      });
      return { status: res.status, location: res.headers.get("location"), body: (await res.json()) as { code: number; data: { reason: string } } };
    };
    for (const concat of ["partial", "final;/uploads/0123456789abcdef0123456789abcdef /uploads/fedcba9876543210fedcba9876543210"]) {
      const refused = await refusedWith(concat);
      expect(refused).toMatchObject({ status: 501, location: null, body: { code: ErrorCode.UnsupportedOperation } });
      expect(refused.body.data.reason).toContain("Ferry-Chunk");
    }
    // Without a token too: the header alone decides.
    expect((await refusedWith("partial", null)).status).toBe(501);

    // A tus client asked for parallel uploads fails at once with that answer (and is not left retrying).
    const failure = await new Promise<Error>((resolve, reject) => {
      const upload = new Upload(randomBytes(4000), {
        endpoint: `${t.fileUrl}/uploads/`,
        parallelUploads: 2,
        metadata: meta("/p.bin"),
        metadataForPartialUploads: meta("/p.bin"),
        headers: { authorization: `Bearer ${alice.socketToken}` },
        retryDelays: [],
        onError: resolve,
        onSuccess: () => reject(new Error("a concatenated upload was accepted")),
      });
      upload.start();
    });
    expect(failure.message).toContain("501");
    // No upload was created, and the quota holds no reservation for one.
    expect((await readdir(tusDir())).sort()).toEqual(before);
    expect((await reservations()).sort()).toEqual(reserved);
  });

  it("answers CORS for allowed origins only, and refusals stay readable by the page", async () => {
    const url = `${t.fileUrl}/uploads/`;
    const host = new URL(t.fileUrl).hostname;
    const preflight = await fetch(url, { method: "OPTIONS", headers: { origin: `http://${host}:3000`, "access-control-request-method": "POST", "access-control-request-headers": "authorization" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(`http://${host}:3000`);
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    const foreign = await fetch(url, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    const tus = tusClient(t.fileUrl, null, { origin: `http://${host}:3000` });
    const refused = await tus.create(meta("/x.bin"), 10);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(`http://${host}:3000`);
  });
});
