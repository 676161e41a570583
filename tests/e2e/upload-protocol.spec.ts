import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { parseRanges } from "../../contract/upload-chunks";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { auditPage } from "./admin-console";
import { expect, hydrated, openTransfers, signIn, test } from "./fixtures";

/**
 * The administrator's Transfer protocol and transfer settings in a real browser upload
 * (docs/file-server.md, "Part size and parallel uploads"): the part size decides how many PATCH
 * requests a file takes, parallel uploads how many run at once, the hash check whether the page
 * starts its BLAKE3 worker, and the client prompt whether a large batch first suggests the desktop
 * client (the user may continue in the browser, or leave the batch).
 */

const PASSWORD = "Pr0tocol#Ferry";
const MIB = 1024 * 1024;
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/upload-protocol";
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-protocol-"));

function makeFile(relative: string, size: number): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, randomBytes(size));
  return full;
}

const panel = (page: Page) => page.getByRole("region", { name: /^(Transfers|传输列表)$/ });
const row = (page: Page, name: string) => panel(page).getByRole("listitem", { name });

async function signedInUser(page: Page) {
  const account = uniqueAccount("proto");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);
  return (await login(account, PASSWORD)).data!.websocket_token;
}

/** Names in the personal space's root, asked over the socket as any client would. */
async function storedNames(socketToken: string): Promise<string[]> {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    return (await files.ok("list", { groupId: 0, path: "/" })).names;
  } finally {
    await files.close();
  }
}

/** The page's tus PATCH requests: each one's Upload-Offset per upload URL, and the most uploads (URLs) with a PATCH in flight at once. */
function watchPatches(page: Page) {
  const offsets = new Map<string, number[]>();
  const open = new Map<Request, string>();
  const seen = { max: 0, count: 0, offsets };
  page.on("request", (request) => {
    if (request.method() !== "PATCH" || !request.url().includes("/uploads/")) return;
    seen.count += 1;
    const list = offsets.get(request.url()) ?? [];
    list.push(Number(request.headers()["upload-offset"]));
    offsets.set(request.url(), list);
    open.set(request, request.url());
    seen.max = Math.max(seen.max, new Set(open.values()).size);
  });
  page.on("response", (response) => open.delete(response.request()));
  page.on("requestfailed", (request) => open.delete(request));
  return seen;
}

/** The page's hash workers started so far (app/transfers/hasher.client.ts). */
function watchHashWorkers(page: Page) {
  const workers: string[] = [];
  page.on("worker", (worker) => {
    if (worker.url().includes("hash-worker")) workers.push(worker.url());
  });
  return workers;
}

let admin: string;
test.beforeAll(async () => {
  admin = await adminToken();
});
const setSettings = (group: "protocol" | "transfer" | "speed", body: Record<string, unknown>) => ok("PATCH", `/api/admin/settings/${group}`, { token: admin, body });

test.describe("upload protocol settings", () => {
  test.afterEach(async () => {
    await setSettings("protocol", { parallelUploads: 3, uploadPartMB: 0 });
    await setSettings("transfer", { cHashVerifySwitch: true });
    await setSettings("speed", { clientPromptMB: 0 });
  });

  test("part size 1 MB and one upload at a time: three 2.5 MB files go up in 1 MB PATCHes, one file after the other, hashed in the worker", async ({ page }) => {
    await setSettings("protocol", { parallelUploads: 1, uploadPartMB: 1 });
    const patches = watchPatches(page);
    const workers = watchHashWorkers(page);
    const socketToken = await signedInUser(page);
    const names = ["one.bin", "two.bin", "three.bin"];
    await page.getByLabel("Upload files").setInputFiles(names.map((name) => makeFile(`parts/${name}`, 2.5 * MIB)));
    await openTransfers(page);
    for (const name of names) await expect(row(page, name)).toContainText("Uploaded", { timeout: 60_000 });

    // Every file: PATCHes at 0, 1 MiB and 2 MiB; never two files at once.
    expect([...patches.offsets.values()]).toEqual(names.map(() => [0, MIB, 2 * MIB]));
    expect(patches.count).toBe(9);
    expect(patches.max).toBe(1);
    expect(workers.length).toBeGreaterThan(0);
    expect((await storedNames(socketToken)).sort()).toEqual([...names].sort());
  });

  test("part size 4 MB: a 20 MB file goes as parallel chunks of at most 4 MiB, none refused, and arrives whole", async ({ page }) => {
    await setSettings("protocol", { uploadPartMB: 4 });
    const bodies: Promise<number>[] = [];
    const statuses: number[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && request.url().includes("/uploads/") && request.headers()["ferry-chunk"] === "1") bodies.push(request.allHeaders().then((headers) => Number(headers["content-length"])));
    });
    page.on("response", (response) => {
      if (response.request().method() === "PATCH" && response.url().includes("/uploads/")) statuses.push(response.status());
    });
    const socketToken = await signedInUser(page);
    await page.getByLabel("Upload files").setInputFiles(makeFile("parts/chunked.bin", 20 * MIB));
    await openTransfers(page);
    await expect(row(page, "chunked.bin")).toContainText("Uploaded", { timeout: 60_000 });
    const sizes = await Promise.all(bodies);
    // Five parts at least (the tail may be shared out in smaller ones), every byte sent once.
    expect(sizes.length).toBeGreaterThanOrEqual(5);
    expect(sizes.every((size) => size > 0 && size <= 4 * MIB)).toBe(true);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(20 * MIB);
    expect(statuses.every((status) => status === 204)).toBe(true);
    expect(await storedNames(socketToken)).toEqual(["chunked.bin"]);
  });

  test("part size 0: each file in one PATCH; the hash check off: no hash worker starts and the commit without a hash places the file", async ({ page }) => {
    await setSettings("transfer", { cHashVerifySwitch: false });
    const patches = watchPatches(page);
    const workers = watchHashWorkers(page);
    const socketToken = await signedInUser(page);
    const names = ["whole-a.bin", "whole-b.bin"];
    // Over 4 MiB each, so neither goes in a small-file batch (POST /uploads/batch).
    await page.getByLabel("Upload files").setInputFiles(names.map((name) => makeFile(`whole/${name}`, 4.5 * MIB)));
    await openTransfers(page);
    for (const name of names) await expect(row(page, name)).toContainText("Uploaded", { timeout: 60_000 });
    expect([...patches.offsets.values()]).toEqual([[0], [0]]);
    expect(workers).toEqual([]);
    expect((await storedNames(socketToken)).sort()).toEqual([...names].sort());
  });

  test("parallel uploads 1, two pages of one sign-in: the engine refuses the second page's upload while the first sends (429, 4210), and the second goes up whole once the first is done", async ({ page }) => {
    // The first upload takes 16 s: time for the second page's upload on a busy machine.
    test.setTimeout(90_000);
    await setSettings("protocol", { parallelUploads: 1 });
    // Slow enough that the first page is still sending when the second asks.
    await setSettings("speed", { maxUploadSpeed: 256 });
    try {
      const socketToken = await signedInUser(page);
      const second = await page.context().newPage();
      await second.goto("/personal");
      await hydrated(second);
      const sending = page.waitForRequest((request) => request.method() === "PATCH" && request.url().includes("/uploads/"));
      await page.getByLabel("Upload files").setInputFiles(makeFile("pages/first.bin", 4 * MIB));
      await sending;
      const busy = second.waitForResponse((response) => response.request().method() === "PATCH" && response.status() === 429);
      await second.getByLabel("Upload files").setInputFiles(makeFile("pages/second.bin", 300 * 1024));
      // 429 on a PATCH is the engine's busy refusal (4210), to be tried again after Retry-After.
      expect(await (await busy).headerValue("retry-after")).toBe("1");
      await openTransfers(page);
      await expect(row(page, "first.bin")).toContainText("Uploaded", { timeout: 60_000 });
      await openTransfers(second);
      await expect(row(second, "second.bin")).toContainText("Uploaded", { timeout: 60_000 });
      expect((await storedNames(socketToken)).sort()).toEqual(["first.bin", "second.bin"]);
    } finally {
      await setSettings("speed", { maxUploadSpeed: 0 });
    }
  });

  test("a chunked upload resumed after a reload, the part size raised meanwhile so the file would make one chunk: it goes on in chunks, only the missing ranges, and arrives whole", async ({ page }) => {
    await setSettings("protocol", { uploadPartMB: 4 });
    // Slow enough to reload while chunks are on their way.
    await setSettings("speed", { maxUploadSpeed: 2048 });
    try {
      const socketToken = await signedInUser(page);
      const bytes = randomBytes(20 * MIB);
      const file = path.join(workDir, "resume-part/grown.bin");
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, bytes);
      await page.getByLabel("Upload files").setInputFiles(file);
      await openTransfers(page);
      const progress = row(page, "grown.bin").getByRole("progressbar");
      await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(20);
      await expect.poll(() => page.evaluate(() => Object.values(localStorage).some((value) => value.includes('"chunked":true')))).toBe(true);

      // The administrator raises the part size: 20 MiB no longer makes two chunks of it.
      await setSettings("protocol", { uploadPartMB: 0 });
      const stored = page.waitForResponse((response) => response.request().method() === "HEAD" && response.url().includes("/uploads/"));
      const patches: { chunk: boolean; start: number; status: Promise<number> }[] = [];
      // Only the reloaded page's PATCHes: one the old page starts just before the reload is aborted by it (no status).
      let reloaded = false;
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) reloaded = true;
      });
      page.on("request", (request) => {
        if (!reloaded || request.method() !== "PATCH" || !request.url().includes("/uploads/")) return;
        patches.push({ chunk: request.headers()["ferry-chunk"] === "1", start: Number(request.headers()["upload-offset"]), status: request.response().then((response) => response?.status() ?? 0) });
      });
      page.on("dialog", (dialog) => void dialog.accept());
      await page.reload();
      await hydrated(page);
      const ranges = parseRanges((await stored).headers()["ferry-ranges"]);
      // What the engine holds has a gap: a single PATCH from its offset would be refused (409).
      expect(ranges!.length).toBeGreaterThan(1);
      await openTransfers(page);
      await expect(row(page, "grown.bin")).toContainText("Uploaded", { timeout: 60_000 });
      expect(patches.length).toBeGreaterThan(0);
      expect(patches.every((patch) => patch.chunk), "every PATCH after the reload is a chunk").toBe(true);
      // A chunk that meets a range the dropped requests still hold is answered 409 and sent again after a HEAD; nothing else is refused.
      expect((await Promise.all(patches.map((patch) => patch.status))).filter((status) => status !== 204 && status !== 409)).toEqual([]);
      for (const { start } of patches) expect(ranges!.some(([s, e]) => start >= s && start < e), `a chunk at ${start} inside a stored range`).toBe(false);
      const files = await connectFiles(FILE_URL, socketToken);
      try {
        const ticket = await files.ok("download", { groupId: 0, paths: ["/grown.bin"] });
        expect(Buffer.from(await (await fetch(new URL(ticket.url, FILE_URL))).arrayBuffer()).equals(bytes)).toBe(true);
      } finally {
        await files.close();
      }
    } finally {
      await setSettings("speed", { maxUploadSpeed: 0 });
    }
  });

  test("client prompt 1 MB: a larger batch first suggests the desktop client; Cancel uploads nothing, Continue in the browser uploads it (en, zh)", async ({ page }) => {
    await setSettings("speed", { clientPromptMB: 1 });
    const patches = watchPatches(page);
    const socketToken = await signedInUser(page);
    mkdirSync(SCREENS, { recursive: true });
    const files = [makeFile("prompt/big-a.bin", 700 * 1024), makeFile("prompt/big-b.bin", 700 * 1024)];

    await page.getByLabel("Upload files").setInputFiles(files);
    const dialog = page.getByRole("dialog", { name: "Large upload" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("1.37 MB");
    await page.mouse.move(0, 0);
    await auditPage(page, "large-upload dialog");
    await page.screenshot({ path: path.join(SCREENS, "large-upload-en-1440.png") });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: path.join(SCREENS, "large-upload-en-1280.png") });
    await page.setViewportSize({ width: 1440, height: 900 });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    expect(patches.count).toBe(0);
    expect(await storedNames(socketToken)).toEqual([]);

    // A batch under the prompt goes up without a question.
    await page.getByLabel("Upload files").setInputFiles(makeFile("prompt/small.bin", 100 * 1024));
    await openTransfers(page);
    await expect(row(page, "small.bin")).toContainText("Uploaded", { timeout: 30_000 });
    await expect(page.getByRole("dialog")).toHaveCount(0);

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await page.getByLabel("上传文件", { exact: true }).setInputFiles(files);
    const zhDialog = page.getByRole("dialog", { name: "大批量上传" });
    await expect(zhDialog).toBeVisible();
    await page.mouse.move(0, 0);
    await auditPage(page, "large-upload dialog, zh");
    await page.screenshot({ path: path.join(SCREENS, "large-upload-zh-1440.png") });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: path.join(SCREENS, "large-upload-zh-1280.png") });
    await page.setViewportSize({ width: 1440, height: 900 });
    await zhDialog.getByRole("button", { name: "继续在浏览器中上传" }).click();
    await expect(zhDialog).toBeHidden();
    await openTransfers(page);
    for (const name of ["big-a.bin", "big-b.bin"]) await expect(row(page, name)).toContainText("已上传", { timeout: 30_000 });
    expect((await storedNames(socketToken)).sort()).toEqual(["big-a.bin", "big-b.bin", "small.bin"]);
  });
});
