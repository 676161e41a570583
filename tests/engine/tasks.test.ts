import { randomBytes } from "node:crypto";
import { access, mkdir, readdir } from "node:fs/promises";
import { request, type IncomingMessage } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { LiveTask, TaskPage, TransferLogDetail, TransferLogPage } from "../../contract/tasks";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { encodeMetadata, tusClient } from "../support/tus-client";

/**
 * The General tasks screen's engine side (docs/admin-api.md, "Transfer tasks"): transfers in
 * progress are listed while their bytes move — a slow upload (this test sends slowly), a slow
 * download (this test reads slowly), a share visitor's download — with growing bytes, the user,
 * the direction and the address; the administrator stops them (4187 from then on, an upload's
 * staging dropped and no file placed); the transfer log lists and details them; users are refused.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
let u: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;
let home: string;
const BIG = 48 * 1024 * 1024;
const wait = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 100 });

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV });
  admin = await t.adminToken();
  u = await t.createUser("task_user", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, u.socketToken);
  home = path.join(t.dataDir, "storage", "users", "task_user");
  await writeTree(home, { "big.bin": randomBytes(BIG), "shared/movie.bin": randomBytes(BIG) });
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

async function tasks(query: Record<string, string> = {}): Promise<TaskPage> {
  const reply = await t.call<TaskPage>("GET", `/api/admin/tasks?${new URLSearchParams(query)}`, { token: admin });
  expect(reply.body.code).toBe(200);
  return reply.body.data!;
}
const find = async (pred: (task: LiveTask) => boolean) => (await tasks()).list.find(pred);

/** A GET read slowly: `readBytes` tells how much arrived; `stop()` ends it; `ended` says whether the body was complete. */
function slowDownload(url: string, headers: Record<string, string> = {}) {
  let received = 0;
  let timer: NodeJS.Timeout | null = null;
  const ended = new Promise<{ complete: boolean; status: number }>((resolve) => {
    const req = request(url, { headers }, (res: IncomingMessage) => {
      res.pause();
      // About 2.5 MiB/s: 128 KiB every 50 ms.
      timer = setInterval(() => {
        let got = 0;
        let chunk: Buffer | null;
        while (got < 128 * 1024 && (chunk = res.read() as Buffer | null) !== null) got += chunk.length;
        received += got;
      }, 50);
      res.on("end", () => resolve({ complete: true, status: res.statusCode ?? 0 }));
      res.on("aborted", () => resolve({ complete: false, status: res.statusCode ?? 0 }));
      res.on("error", () => resolve({ complete: false, status: res.statusCode ?? 0 }));
      res.on("close", () => resolve({ complete: res.complete, status: res.statusCode ?? 0 }));
    });
    req.on("error", () => resolve({ complete: false, status: 0 }));
    req.end();
  });
  void ended.finally(() => timer && clearInterval(timer));
  return { ended, readBytes: () => received };
}

/** A tus PATCH whose body this test sends slowly (64 KiB every 40 ms); resolves with the response or the break. */
function slowPatch(id: string, token: string, size: number) {
  let sent = 0;
  let timer: NodeJS.Timeout | null = null;
  const done = new Promise<{ status: number; broken: boolean }>((resolve) => {
    const req = request(tusClient(t.fileUrl, token).urlOf(id), {
      method: "PATCH",
      headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${token}`, "upload-offset": "0", "content-type": "application/offset+octet-stream", "content-length": String(size) },
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, broken: false });
    });
    req.on("error", () => resolve({ status: 0, broken: true }));
    req.on("close", () => resolve({ status: 0, broken: true }));
    timer = setInterval(() => {
      if (sent >= size || req.destroyed) return;
      const piece = randomBytes(Math.min(64 * 1024, size - sent));
      sent += piece.length;
      req.write(piece);
      if (sent >= size) req.end();
    }, 40);
  });
  void done.finally(() => timer && clearInterval(timer));
  return done;
}

describe("transfers in progress", () => {
  it("lists a slow upload with growing bytes, its user, direction and address; stop cuts it, refuses it with 4187 and places nothing", async () => {
    const size = 16 * 1024 * 1024;
    const tus = tusClient(t.fileUrl, u.socketToken);
    const created = await tus.create({ groupId: "0", path: "/incoming/slow.bin" }, size);
    expect(created.status).toBe(201);
    const id = created.id!;
    const patch = slowPatch(id, u.socketToken, size);

    const first = await wait(async () => {
      const task = await find((x) => x.direction === "upload" && x.path === "/incoming/slow.bin");
      expect(task?.bytes).toBeGreaterThan(0);
      return task!;
    });
    expect(first).toMatchObject({ direction: "upload", userId: u.id, account: "task_user", address: "127.0.0.1", via: "web", total: size, groupId: 0, status: "transferring", connections: 1, shareId: null });
    await wait(async () => {
      const later = await find((x) => x.id === first.id);
      expect(later!.bytes).toBeGreaterThan(first.bytes);
      expect(later!.speed).toBeGreaterThan(0);
    });
    // Found by the search, by account or by file.
    expect((await tasks({ search: "TASK_US" })).list.map((x) => x.id)).toContain(first.id);
    expect((await tasks({ search: "slow.bin", direction: "upload" })).list.map((x) => x.id)).toEqual([first.id]);
    expect((await tasks({ search: "slow.bin", direction: "download" })).list).toEqual([]);

    const stopped = await t.call("POST", `/api/admin/tasks/${first.id}/stop`, { token: admin });
    expect(stopped.body.code).toBe(200);
    expect(await patch).toMatchObject({ broken: true });
    // Gone from the list; a second stop says it is not live.
    await wait(async () => expect(await find((x) => x.id === first.id)).toBeUndefined());
    expect((await t.call("POST", `/api/admin/tasks/${first.id}/stop`, { token: admin })).body.code).toBe(4481);

    // The client's resume learns why: every request to the upload answers 4187, and nothing is stored.
    expect((await tus.head(id)).status).toBe(410);
    const again = await tus.patch(id, 0, randomBytes(10));
    expect(again.status).toBe(410);
    expect(again.body?.code).toBe(4187);
    expect(again.body?.message).toMatch(/stopped by the server/i);
    // tus-js-client answers a refused resume by creating the upload again: that is refused too, for a while.
    const recreated = await tus.create({ groupId: "0", path: "/incoming/slow.bin" }, size);
    expect(recreated.status).toBe(410);
    expect(recreated.body?.code).toBe(4187);
    expect((await files.cmd("commit", { uploadId: id })).code).not.toBe(200);
    await expect(access(path.join(home, "incoming", "slow.bin"))).rejects.toThrow();
    // Its staging is dropped (docs/file-server.md, "Transfers in progress").
    await wait(async () => expect((await readdir(path.join(t.dataDir, "storage", ".ferry-staging", "tus")).catch(() => [] as string[])).filter((n) => n.startsWith(id))).toEqual([]));
  });

  it("lists a slow download with growing bytes; stop breaks it, its URL answers 4187, and the logs say stopped by server", async () => {
    const { url } = await files.ok("download", { groupId: 0, paths: ["/big.bin"] });
    const reader = slowDownload(t.fileUrl + url);
    const first = await wait(async () => {
      const task = await find((x) => x.direction === "download" && x.path === "/big.bin");
      expect(task?.bytes).toBeGreaterThan(0);
      return task!;
    });
    expect(first).toMatchObject({ direction: "download", userId: u.id, account: "task_user", address: "127.0.0.1", total: BIG, zip: false, via: "web", status: "transferring" });
    await wait(async () => expect((await find((x) => x.id === first.id))!.bytes).toBeGreaterThan(first.bytes + 512 * 1024));
    expect((await tasks()).totals.downloads).toBeGreaterThanOrEqual(1);

    expect((await t.call("POST", `/api/admin/tasks/${first.id}/stop`, { token: admin })).body.code).toBe(200);
    const end = await reader.ended;
    expect(end.complete).toBe(false);
    expect(reader.readBytes()).toBeLessThan(BIG);
    await wait(async () => expect(await find((x) => x.id === first.id)).toBeUndefined());

    const retry = await fetch(t.fileUrl + url);
    expect(retry.status).toBe(410);
    expect(await retry.text()).toMatch(/stopped by the server/i);

    // The transfer log: stopped, with its detail naming the operation's 4187.
    const page = await wait(async () => {
      const reply = await t.call<TransferLogPage>("GET", "/api/admin/logs/transfers?user=task_user&direction=download&result=stopped", { token: admin });
      expect(reply.body.data!.list.length).toBeGreaterThan(0);
      return reply.body.data!;
    });
    const row = page.list[0]!;
    expect(row).toMatchObject({ path: "/big.bin", account: "task_user", direction: "download", result: "stopped", address: "127.0.0.1" });
    expect(row.bytes).toBeGreaterThan(0);
    const detail = await t.call<TransferLogDetail>("GET", `/api/admin/logs/transfers/${row.id}`, { token: admin });
    expect(detail.body.code).toBe(200);
    expect(detail.body.data!.startedAt).toBe(row.at - row.durationMs);
    expect(detail.body.data!.operations).toContainEqual(expect.objectContaining({ kind: "download", target: "/big.bin", result: "failed", code: 4187 }));
    expect((await t.call("GET", "/api/admin/logs/transfers/999999", { token: admin })).body.code).toBe(4482);
  });

  it("lists a share-link visitor's download with the link and its owner", async () => {
    const link = await makeLink(t, u.token, { shareFiles: ["/shared/movie.bin"] });
    const visitorToken = await shareTokenOf(t, link);
    const ticket = await t.call("POST", "/api/share/files/download", { token: visitorToken, body: { paths: ["/movie.bin"] } });
    expect(ticket.body.code).toBe(200);
    const reader = slowDownload(t.fileUrl + (ticket.body.data as { url: string }).url);
    const task = await wait(async () => {
      const found = await find((x) => x.shareId === link.shareId);
      expect(found?.bytes).toBeGreaterThan(0);
      return found!;
    });
    expect(task).toMatchObject({ direction: "download", userId: null, account: "", shareOwner: "task_user", via: "share", address: "127.0.0.1", total: BIG, path: "/movie.bin" });
    expect((await tasks({ search: link.shareId })).list.map((x) => x.id)).toEqual([task.id]);
    expect((await t.call("POST", `/api/admin/tasks/${task.id}/stop`, { token: admin })).body.code).toBe(200);
    expect((await reader.ended).complete).toBe(false);
  });

  it("counts a finished upload's PATCH and leaves the list when it is complete; the throughput has points", async () => {
    const data = randomBytes(300_000);
    const tus = tusClient(t.fileUrl, u.socketToken);
    const created = await tus.create({ groupId: "0", path: "/quick.bin" }, data.length);
    expect((await tus.patch(created.id!, 0, data)).status).toBe(204);
    // Complete: not left idle in the list.
    expect(await find((x) => x.path === "/quick.bin")).toBeUndefined();
    await wait(async () => {
      const reply = await t.call("GET", "/api/admin/tasks/throughput", { token: admin });
      expect(reply.body.data.intervalMs).toBe(1000);
      expect(reply.body.data.points.length).toBeGreaterThan(1);
    });
  });

  it("lists an upload sent with its creation (creation-with-upload) under the sent path", async () => {
    const size = 8 * 1024 * 1024;
    let sent = 0;
    const req = request(`${t.fileUrl}/uploads/`, {
      method: "POST",
      headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${u.socketToken}`, "upload-length": String(size), "upload-metadata": encodeMetadata({ groupId: "0", path: "/made-with-body.bin" }), "content-type": "application/offset+octet-stream", "content-length": String(size) },
    });
    const broken = new Promise<void>((resolve) => {
      req.on("error", () => resolve());
      req.on("close", () => resolve());
    });
    const timer = setInterval(() => {
      if (req.destroyed) return;
      sent += 64 * 1024;
      req.write(randomBytes(64 * 1024));
    }, 40);
    try {
      const task = await wait(async () => {
        const found = await find((x) => x.path === "/made-with-body.bin");
        expect(found?.bytes).toBeGreaterThan(0);
        return found!;
      });
      expect(task).toMatchObject({ direction: "upload", total: size, account: "task_user" });
      expect((await t.call("POST", `/api/admin/tasks/${task.id}/stop`, { token: admin })).body.code).toBe(200);
      await broken;
    } finally {
      clearInterval(timer);
    }
    expect(sent).toBeLessThan(size);
    await expect(access(path.join(home, "made-with-body.bin"))).rejects.toThrow();
  });

  it("stops a share visitor's upload for good: its resume and a new upload to the same file are refused with 4187", async () => {
    await mkdir(path.join(home, "inbox"), { recursive: true });
    const link = await makeLink(t, u.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in", shareShowContents: 1 });
    const visitorToken = await shareTokenOf(t, link);
    const size = 16 * 1024 * 1024;
    const tus = tusClient(t.fileUrl, visitorToken);
    const created = await tus.create({ groupId: "0", path: "/drop.bin" }, size);
    expect(created.status).toBe(201);
    const patch = slowPatch(created.id!, visitorToken, size);
    const task = await wait(async () => {
      const found = await find((x) => x.direction === "upload" && x.shareId === link.shareId);
      expect(found?.bytes).toBeGreaterThan(0);
      return found!;
    });
    expect(task).toMatchObject({ userId: null, via: "share", shareOwner: "task_user" });
    expect((await t.call("POST", `/api/admin/tasks/${task.id}/stop`, { token: admin })).body.code).toBe(200);
    expect(await patch).toMatchObject({ broken: true });
    // tus-js-client: the resume's HEAD answers 410, so it creates the upload again — refused too, in any spelling of the path.
    expect((await tus.head(created.id!)).status).toBe(410);
    for (const again of ["/drop.bin", "//drop.bin"]) {
      const recreated = await tus.create({ groupId: "0", path: again }, size);
      expect(recreated.status).toBe(410);
      expect(recreated.body?.code).toBe(4187);
    }
    await expect(access(path.join(home, "inbox", "drop.bin"))).rejects.toThrow();
    // Another file of the invitation is not concerned.
    const other = await tus.create({ groupId: "0", path: "/other.bin" }, 10);
    expect(other.status).toBe(201);
  });

  it("refuses a new upload to a stopped file under another spelling of its path (NFD, doubled slashes)", async () => {
    const size = 16 * 1024 * 1024;
    const tus = tusClient(t.fileUrl, u.socketToken);
    const nfc = "/incoming/caf\u00e9.bin";
    const created = await tus.create({ groupId: "0", path: nfc }, size);
    expect(created.status).toBe(201);
    const patch = slowPatch(created.id!, u.socketToken, size);
    const task = await wait(async () => {
      const found = await find((x) => x.direction === "upload" && x.path === nfc);
      expect(found?.bytes).toBeGreaterThan(0);
      return found!;
    });
    expect((await t.call("POST", `/api/admin/tasks/${task.id}/stop`, { token: admin })).body.code).toBe(200);
    expect(await patch).toMatchObject({ broken: true });
    for (const again of [nfc.normalize("NFD"), "//incoming//caf\u00e9.bin", "/incoming/cafe\u0301.bin/"]) {
      const recreated = await tus.create({ groupId: "0", path: again }, size);
      expect(recreated.status, again).toBe(410);
      expect(recreated.body?.code).toBe(4187);
    }
  });

  it("logs every range of a stopped parallel download as stopped by the server (4187)", async () => {
    await writeTree(home, { "ranges.bin": randomBytes(BIG) });
    const { url } = await files.ok("download", { groupId: 0, paths: ["/ranges.bin"] });
    const half = BIG / 2;
    const readers = [slowDownload(t.fileUrl + url, { range: `bytes=0-${half - 1}` }), slowDownload(t.fileUrl + url, { range: `bytes=${half}-${BIG - 1}` })];
    const task = await wait(async () => {
      const found = await find((x) => x.direction === "download" && x.path === "/ranges.bin");
      expect(found?.connections).toBe(2);
      expect(found?.bytes).toBeGreaterThan(0);
      return found!;
    });
    expect((await t.call("POST", `/api/admin/tasks/${task.id}/stop`, { token: admin })).body.code).toBe(200);
    for (const reader of readers) expect((await reader.ended).complete).toBe(false);
    const entries = await wait(async () => {
      const reply = await t.call<{ list: { kind: string; target: string; result: string; code: number }[] }>("GET", "/api/admin/logs?user=task_user&kind=download&text=ranges.bin", { token: admin });
      expect(reply.body.data!.list).toHaveLength(2);
      return reply.body.data!.list;
    });
    expect(entries.map((e) => ({ target: e.target, result: e.result, code: e.code }))).toEqual([
      { target: "/ranges.bin", result: "failed", code: 4187 },
      { target: "/ranges.bin", result: "failed", code: 4187 },
    ]);
  });

  it("refuses users: the list, the stop and the transfer log need the administrator", async () => {
    expect((await t.call("GET", "/api/admin/tasks", { token: u.token })).body.code).toBe(1008);
    expect((await t.call("POST", "/api/admin/tasks/6f1c7a53-5d0e-4a43-9d1b-0c9f0c3a1b2c/stop", { token: u.token })).body.code).toBe(1008);
    expect((await t.call("GET", "/api/admin/logs/transfers", { token: u.token })).body.code).toBe(1008);
    expect((await t.call("GET", "/api/admin/tasks")).body.code).toBe(1009);
  });
});
