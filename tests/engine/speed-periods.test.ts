import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { tusClient } from "../support/tus-client";

/**
 * Server-wide speeds and speed periods (docs/file-server.md, "Speed periods"): the transfer
 * settings' max speeds hold over every transfer, and when a speed period begins — the engine's
 * clock passing its start on the server's time zone (FERRY_TIME_ZONE) — a transfer ALREADY RUNNING
 * moves at the period's speed, within ±10 %, and back when it ends. Rates are bytes counted over a
 * window of a running transfer, after a settling second. Runs in the engine-timing project, alone.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const KB = 1024;
/** Server-wide max download speed, KB/s. */
const MAX_KB = 1024;
/** The period's download speed, KB/s. */
const PERIOD_KB = 256;
const DAY = 86_400_000;
/** The first `weekday` (0 Sunday) after the clock's now, at hh:mm UTC. */
function next(weekday: number, hh: number, mm: number): number {
  const now = new Date(t.clock.now());
  let at = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hh, mm);
  while (new Date(at).getUTCDay() !== weekday || at <= t.clock.now()) at += DAY;
  return at;
}

let t: TestEngine;
let user: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;

// The administrator signs in again after the clock moved past its token's life.
const patchSpeed = async (body: unknown) => expect((await t.call("PATCH", "/api/admin/settings/speed", { token: await t.adminToken(), body })).body.code).toBe(200);
/** A download URL of the big file, from a sign-in made at the clock's now. */
async function downloadUrl(): Promise<string> {
  await files?.close();
  files = await connectFiles(t.fileUrl, (await t.login(user.account, user.password)).body.data.websocket_token as string);
  return ((await files.ok("download", { groupId: 0, paths: ["/big.bin"] })) as { url: string }).url;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads a streamed body; `window(ms)` answers the bytes per second that arrive over the next `ms`. */
function meter(body: ReadableStream<Uint8Array>) {
  let received = 0;
  let done = false;
  const reader = body.getReader();
  const pump = (async () => {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      received += value.byteLength;
    }
    done = true;
  })();
  return {
    async window(ms: number): Promise<number> {
      const before = received;
      const started = performance.now();
      await sleep(ms);
      expect(done, "the transfer ended inside the window: it is too small for the rate").toBe(false);
      return ((received - before) * 1000) / (performance.now() - started);
    },
    async cancel() {
      await reader.cancel();
      await pump.catch(() => undefined);
    },
  };
}

const within10 = (measured: number, limit: number) => {
  expect(measured / limit).toBeGreaterThan(0.9);
  expect(measured / limit).toBeLessThan(1.1);
};

beforeAll(async () => {
  t = await startTestEngine({ FERRY_TIME_ZONE: "UTC" });
  user = await t.createUser("period_user", { permission: PERMISSION_FULL });
  const space = await t.engine.services.spaces.open(user.id, 0);
  const file = path.join(t.engine.services.spaces.root, space.home, "big.bin");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, randomBytes(24 * MAX_KB * KB));
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("a speed period", () => {
  it("slows a download already running when it begins, and lets it go back to the server-wide max when it ends", async () => {
    // A Monday, 07:59 UTC: the period starts a minute later.
    t.clock.advance(next(1, 7, 59) - t.clock.now());
    await patchSpeed({ maxDownloadSpeed: MAX_KB, periods: [{ start: "08:00", end: "08:30", repeat: "weekdays", uploadSpeed: 0, downloadSpeed: PERIOD_KB }] });
    const url = await downloadUrl();
    const res = await fetch(t.fileUrl + url);
    expect(res.status).toBe(200);
    const m = meter(res.body!);
    try {
      await sleep(1000);
      within10(await m.window(3000), MAX_KB * KB);

      // 08:00 on a Monday: the period begins for the transfer already running.
      t.clock.advance(60_000);
      await sleep(1500);
      within10(await m.window(3000), PERIOD_KB * KB);

      // 08:30: it ends, the server-wide max holds again.
      t.clock.advance(30 * 60_000);
      await sleep(1500);
      within10(await m.window(3000), MAX_KB * KB);
    } finally {
      await m.cancel();
      await patchSpeed({ maxDownloadSpeed: 0, periods: [] });
    }
  });

  it("on a Saturday a weekdays period does not apply; a weekend one does", async () => {
    // Saturday 08:10 UTC.
    t.clock.advance(next(6, 8, 10) - t.clock.now());
    await patchSpeed({ maxDownloadSpeed: MAX_KB, periods: [{ start: "08:00", end: "09:00", repeat: "weekdays", uploadSpeed: 0, downloadSpeed: PERIOD_KB }] });
    const url = await downloadUrl();
    const res = await fetch(t.fileUrl + url);
    const m = meter(res.body!);
    try {
      await sleep(1000);
      within10(await m.window(2000), MAX_KB * KB);
      // A change of the settings reaches the running transfer at once, without waiting for a minute.
      await patchSpeed({ periods: [{ start: "08:00", end: "09:00", repeat: "weekend", uploadSpeed: 0, downloadSpeed: PERIOD_KB }] });
      await sleep(1500);
      within10(await m.window(3000), PERIOD_KB * KB);
    } finally {
      await m.cancel();
      await patchSpeed({ maxDownloadSpeed: 0, periods: [] });
    }
  });
});

describe("the server-wide max upload speed", () => {
  it("holds for a tus upload of an unlimited user", async () => {
    const limitKB = 512;
    await patchSpeed({ maxUploadSpeed: limitKB });
    try {
      const data = randomBytes(3 * limitKB * KB);
      const tus = tusClient(t.fileUrl, (await t.login(user.account, user.password)).body.data.websocket_token as string);
      const created = await tus.create({ groupId: "0", path: "/up.bin" }, data.length);
      expect(created.status, created.text).toBe(201);
      const started = performance.now();
      const patched = await tus.patch(created.id!, 0, data);
      expect(patched.status, patched.text).toBe(204);
      within10(data.length / ((performance.now() - started) / 1000), limitKB * KB);
    } finally {
      await patchSpeed({ maxUploadSpeed: 0 });
    }
  });
});
