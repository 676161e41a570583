import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectFiles } from "../support/file-client";
import { freePort } from "../support/ports";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, codec, SALT } from "../support/engine";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * kill -9 of the engine process during an upload and during commit (SECURITY.md, "Uploads and
 * faults"): no partial file ever appears at the final path, and after a restart on the same data
 * the upload resumes from the offset really stored and commits.
 */

const root = path.resolve(import.meta.dirname, "../..");

let dataDir: string;
let database: TestDatabase;
let env: Record<string, string>;
let apiUrl: string;
let fileUrl: string;
let child: ChildProcess | null = null;

async function startEngine(): Promise<void> {
  child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { cwd: root, env: { ...process.env, ...env }, stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child!.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    const up = await fetch(`${fileUrl}/health`).then((r) => r.ok, () => false);
    if (up) return;
    if (child.exitCode !== null || i > 600) throw new Error("the engine did not start");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
  }
}

async function killEngine(): Promise<void> {
  const proc = child!;
  child = null;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

async function call(method: string, p: string, body?: unknown, token?: string) {
  const res = await fetch(apiUrl + p, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: any };
}

/** The administrator's token, then a user with every permission: its websocket token and home. */
async function signUp(): Promise<{ socketToken: string; home: string }> {
  const first = await call("POST", "/api/user/login", { UK: codec.encodeUK("admin", ADMIN_INITIAL_PASSWORD) });
  expect(first.code).toBe(1074);
  await call("PUT", "/api/user/password/update", { account: "admin", oldPassword: codec.encode(ADMIN_INITIAL_PASSWORD), newPassword: codec.encode(ADMIN_PASSWORD), needUpdatePwd: false });
  const admin = await call("POST", "/api/user/login", { UK: codec.encodeUK("admin", ADMIN_PASSWORD) });
  const created = await call("POST", "/api/admin/users", { account: "carol", password: "Str0ng#Pass", needUpdatePwd: false, permission: 8191 }, admin.data.token);
  expect(created.code).toBe(200);
  const login = await call("POST", "/api/user/login", { UK: codec.encodeUK("carol", "Str0ng#Pass") });
  return { socketToken: login.data.websocket_token as string, home: path.join(dataDir, "storage", created.data.home as string) };
}

const tusDir = () => path.join(dataDir, "storage", ".ferry-tmp", "tus");
const sizeOf = (file: string) => stat(file).then((s) => s.size, () => -1);

/** The final path holds nothing, or exactly the uploaded bytes: never a part of them. */
async function expectNoPartialFile(file: string, data: Buffer) {
  const onDisk = await readFile(file).catch(() => null);
  if (onDisk !== null) expect(Buffer.compare(onDisk, data)).toBe(0);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "ferry-crash-"));
  database = await createTestDatabase(dataDir);
  const [apiPort, filePort] = [await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  fileUrl = `http://127.0.0.1:${filePort}`;
  env = {
    FERRY_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    FERRY_HOST: "127.0.0.1",
    FERRY_API_PORT: String(apiPort),
    FERRY_FILE_PORT: String(filePort),
    FERRY_ADMIN_PASSWORD: ADMIN_INITIAL_PASSWORD,
    FERRY_HASHID_SALT: SALT,
    FERRY_LOG_LEVEL: "silent",
  };
  await startEngine();
}, 120_000);
afterAll(async () => {
  if (child) await killEngine();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("uploads when the engine is killed", () => {
  it("survives kill -9 during a PATCH and during commit, and resumes after restart", async () => {
    const { socketToken, home } = await signUp();
    const tus = tusClient(fileUrl, socketToken);

    // 1. Killed while the bytes stream in.
    const data = randomBytes(8 * 1024 * 1024);
    const { id } = await tus.create({ groupId: "0", path: "/crash/during-patch.bin" }, data.length);
    const staged = path.join(tusDir(), id!);
    const cut = tus.cutPatch(id!, 0, data, data.length / 2, async () => (await sizeOf(staged)) > 0);
    // Kill as soon as bytes are on disk, while the PATCH is still open.
    for (let i = 0; (await sizeOf(staged)) <= 0; i++) {
      if (i > 2000) throw new Error("no bytes arrived");
      await new Promise((r) => setTimeout(r, 5));
    }
    await killEngine();
    await cut;
    await expectNoPartialFile(path.join(home, "crash/during-patch.bin"), data);
    expect(await sizeOf(path.join(home, "crash/during-patch.bin"))).toBe(-1);
    await startEngine();
    const head = await tus.head(id!);
    const offset = Number(head.headers.get("upload-offset"));
    expect(offset).toBe(await sizeOf(staged));
    expect(offset).toBeGreaterThan(0);
    expect((await tus.patch(id!, offset, data.subarray(offset))).headers.get("upload-offset")).toBe(String(data.length));
    let files = await connectFiles(fileUrl, socketToken);
    const hash = await blake3Hex(data);
    expect(await files.ok("commit", { uploadId: id!, hash })).toEqual({ path: "/crash/during-patch.bin", size: data.length, hash });
    await files.close();
    expect(Buffer.compare(await readFile(path.join(home, "crash/during-patch.bin")), data)).toBe(0);

    // 2. Killed at a random point of commit (hashing, placing, recording), a few times.
    for (let round = 0; round < 3; round++) {
      const bytes = randomBytes(16 * 1024 * 1024);
      const target = `/crash/commit-${round}.bin`;
      const up = await tus.create({ groupId: "0", path: target }, bytes.length, bytes);
      expect(up.headers.get("upload-offset")).toBe(String(bytes.length));
      const expected = await blake3Hex(bytes);
      files = await connectFiles(fileUrl, socketToken);
      void files.cmd("commit", { uploadId: up.id!, hash: expected }).catch(() => null);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
      await killEngine();
      await files.close();
      await expectNoPartialFile(path.join(home, target.slice(1)), bytes);
      await startEngine();
      // Whatever the kill interrupted, asking again finishes the commit with the same answer.
      files = await connectFiles(fileUrl, socketToken);
      expect(await files.ok("commit", { uploadId: up.id!, hash: expected })).toEqual({ path: target, size: bytes.length, hash: expected });
      await files.close();
      expect(Buffer.compare(await readFile(path.join(home, target.slice(1))), bytes)).toBe(0);
    }

    // 3. Ferry chunks (docs/file-server.md, "Parallel chunks (Ferry extension)"): the stored ranges
    // outlive a kill, and the hash of the prefix is rebuilt from the file after the restart.
    const MIB = 1024 * 1024;
    const chunked = randomBytes(6 * MIB);
    const c = await tus.create({ groupId: "0", path: "/crash/chunks.bin" }, chunked.length);
    const chunk = (start: number, end: number) =>
      fetch(tus.urlOf(c.id!), {
        method: "PATCH",
        headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${socketToken}`, "ferry-chunk": "1", "upload-offset": String(start), "content-type": "application/offset+octet-stream" },
        body: chunked.subarray(start, end),
      });
    expect((await chunk(4 * MIB, 6 * MIB)).status).toBe(204);
    expect((await chunk(0, 2 * MIB)).status).toBe(204);
    await killEngine();
    await startEngine();
    const after = await tus.head(c.id!);
    expect(after.headers.get("upload-offset")).toBe(String(2 * MIB));
    expect(after.headers.get("ferry-ranges")).toBe(`0-${2 * MIB - 1},${4 * MIB}-${6 * MIB - 1}`);
    const gap = await chunk(2 * MIB, 4 * MIB);
    expect(gap.status).toBe(204);
    expect(gap.headers.get("upload-offset")).toBe(String(chunked.length));
    files = await connectFiles(fileUrl, socketToken);
    expect(await files.ok("commit", { uploadId: c.id!, hash: await blake3Hex(chunked) })).toMatchObject({ path: "/crash/chunks.bin", size: chunked.length });
    await files.close();
    expect(Buffer.compare(await readFile(path.join(home, "crash/chunks.bin")), chunked)).toBe(0);
  }, 240_000);
});
