import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import { blake3 } from "hash-wasm";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { parseRanges } from "../../contract/upload-chunks";
import { adminToken, createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, openTransfers, screenshot, signIn, test } from "./fixtures";

const PASSWORD = "Tr4nsfer#Ferry";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-transfers-"));

function makeFile(relative: string, bytes: Buffer): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, bytes);
  return full;
}

async function signedInUser(page: Page, permission = PERMISSION_FULL) {
  const account = uniqueAccount("mover");
  await createUser(account, PASSWORD, { permission });
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  return { account, socketToken };
}

/** The engine's attributes of a file in the personal space, asked over the socket as any client would. */
async function storedAttributes(socketToken: string, filePath: string) {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    return await files.ok("attributes", { groupId: 0, paths: [filePath] });
  } finally {
    await files.close();
  }
}

/** The bytes the engine holds at a path of the personal space, fetched through a download URL as any client would. */
async function storedBytes(socketToken: string, filePath: string): Promise<Buffer> {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    const ticket = await files.ok("download", { groupId: 0, paths: [filePath] });
    const response = await fetch(new URL(ticket.url, FILE_URL));
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  } finally {
    await files.close();
  }
}

/** A folder's listing in the personal space (names and types: 0 file, 1 folder), null when it does not exist. */
async function storedListing(socketToken: string, folder: string): Promise<Record<string, number> | null> {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    const reply = await files.cmd("list", { groupId: 0, path: folder });
    if (reply.code !== 200) return null;
    const listing = reply.data!;
    return Object.fromEntries(listing.names.map((name, i) => [name, listing.types[i]!]));
  } finally {
    await files.close();
  }
}

/** Drags a folder or files from the desktop onto the file table: Chromium's own drag (CDP), so the drop carries real folder entries. */
async function dragFromDesktop(page: Page, paths: string[]) {
  const box = (await page.getByRole("table").boundingBox())!;
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  const cdp = await page.context().newCDPSession(page);
  for (const type of ["dragEnter", "dragOver", "drop"] as const) await cdp.send("Input.dispatchDragEvent", { type, ...at, data });
}

/** Upload-Offset of the next tus PATCH the page sends. */
function resumeOffset(page: Page): Promise<number> {
  return new Promise((resolve) => {
    const seen = (request: Request) => {
      if (request.method() !== "PATCH" || !request.url().includes("/uploads/")) return;
      page.off("request", seen);
      resolve(Number(request.headers()["upload-offset"]));
    };
    page.on("request", seen);
  });
}

/** Files the browser keeps for resuming (IndexedDB), counted in the page. */
function keptFiles(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open("ferry-transfers");
        open.onsuccess = () => {
          const count = open.result.transaction("files").objectStore("files").count();
          count.onsuccess = () => resolve(count.result);
        };
        open.onerror = () => resolve(0);
      }),
  );
}

/** The page's Ferry chunk PATCHes: the byte range of each (from its Upload-Offset and Content-Length) and the most in flight at once. */
function watchChunks(page: Page) {
  const open = new Set<Request>();
  const seen = { mostAtOnce: 0, sent: [] as Promise<[number, number]>[] };
  page.on("request", (request) => {
    if (request.method() !== "PATCH" || !request.url().includes("/uploads/") || request.headers()["ferry-chunk"] !== "1") return;
    open.add(request);
    seen.mostAtOnce = Math.max(seen.mostAtOnce, open.size);
    const start = Number(request.headers()["upload-offset"]);
    seen.sent.push(request.allHeaders().then((headers) => [start, start + Number(headers["content-length"])]));
  });
  const close = (request: Request) => open.delete(request);
  page.on("requestfinished", close);
  page.on("requestfailed", close);
  return seen;
}

/** The server-wide upload speed limit (KB/s, 0 none), as the administrator sets it in the transfer settings. */
async function setUploadSpeed(kbPerSecond: number) {
  await ok("PATCH", "/api/admin/settings/speed", { token: await adminToken(), body: { maxUploadSpeed: kbPerSecond } });
}

const panel = (page: Page) => page.getByRole("region", { name: "Transfers" });
const row = (page: Page, name: string) => panel(page).getByRole("listitem", { name });

test.describe("transfers", () => {
  test("upload by button and by drop: the panel shows progress to Uploaded, the listing and the stored hash follow", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const file = makeFile("button/report.bin", bytes);

    await page.getByLabel("Upload files").setInputFiles(file);
    await expect(panel(page)).toBeVisible();
    await openTransfers(page);
    await expect(row(page, "report.bin")).toContainText("Uploaded", { timeout: 30_000 });
    await expect(row(page, "report.bin")).toContainText("3.00 MB");
    await expect(panel(page).getByText("1 done")).toBeVisible();
    await expect(page.getByRole("table").getByText("report.bin")).toBeVisible();
    const attributes = await storedAttributes(socketToken, "/report.bin");
    expect(attributes.file_size).toBe(bytes.length);
    expect(attributes.hash).toBe(await blake3(bytes));
    await screenshot(page, "transfers-uploaded");

    // A drop built in the page (a person dragging a file from the desktop).
    const dropped = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(["dropped by hand\n"], "dropped.txt", { type: "text/plain" }));
      return dt;
    });
    await page.getByRole("table").dispatchEvent("drop", { dataTransfer: dropped });
    await openTransfers(page);
    await expect(row(page, "dropped.txt")).toContainText("Uploaded");
    expect((await storedAttributes(socketToken, "/dropped.txt")).hash).toBe(await blake3("dropped by hand\n"));

    await panel(page).getByRole("button", { name: "Remove dropped.txt from the list" }).click();
    await expect(row(page, "dropped.txt")).toHaveCount(0);
    await panel(page).getByRole("button", { name: "Collapse the transfer list" }).click();
    await expect(panel(page).getByRole("list")).toHaveCount(0);
    await panel(page).getByRole("button", { name: "Close the transfer list" }).click();
    await expect(panel(page)).toHaveCount(0);
  });

  test("the socket dropping while the listing reloads after an upload: the listing is asked again once it is back", async ({ page }) => {
    // The page's file-server socket, passed through; the first listing after the upload loses it.
    let dropNextList = false;
    await page.routeWebSocket(
      (url) => url.port === String(E2E_FILE_PORT),
      (ws) => {
        const server = ws.connectToServer();
        ws.onMessage((message) => {
          if (dropNextList && typeof message === "string" && (JSON.parse(message) as { cmd?: string }).cmd === "list") {
            dropNextList = false;
            void ws.close();
            void server.close();
            return;
          }
          server.send(message);
        });
      },
    );
    await signedInUser(page);
    const files = page.getByRole("region", { name: /^Files in/ });
    await expect(files.getByText("No data")).toBeVisible();
    dropNextList = true;
    await page.getByLabel("Upload files").setInputFiles(makeFile("dropped-socket/late.txt", Buffer.from("listed after all")));
    // The page reconnects after a few seconds (connection.client.ts) and lists the folder then, no Refresh.
    await expect(files.getByText("late.txt")).toBeVisible({ timeout: 20_000 });
    expect(dropNextList).toBe(false);
  });

  test("a file under two chunks goes up in one PATCH from the first byte; a large one as parallel chunks, byte-identical once committed", async ({ page }) => {
    test.setTimeout(90_000);
    const { socketToken } = await signedInUser(page);
    const small = makeFile("whole/small.bin", randomBytes(3 * 1024 * 1024));
    const smallPatches: { offset: string; chunk: boolean }[] = [];
    const watchSmall = (request: Request) => {
      if (request.method() === "PATCH" && request.url().includes("/uploads/")) smallPatches.push({ offset: request.headers()["upload-offset"] ?? "", chunk: "ferry-chunk" in request.headers() });
    };
    page.on("request", watchSmall);
    await page.getByLabel("Upload files").setInputFiles(small);
    await openTransfers(page);
    await expect(row(page, "small.bin")).toContainText("Uploaded", { timeout: 60_000 });
    page.off("request", watchSmall);
    expect(smallPatches).toEqual([{ offset: "0", chunk: false }]);

    const bytes = randomBytes(48 * 1024 * 1024);
    const file = makeFile("chunks/large.bin", bytes);
    const chunks = watchChunks(page);
    // Slow enough (server-wide upload limit) that the chunks are seen in flight together.
    await setUploadSpeed(4096);
    try {
      await page.getByLabel("Upload files").setInputFiles(file);
      await expect(row(page, "large.bin")).toContainText("Uploaded", { timeout: 90_000 });
    } finally {
      await setUploadSpeed(0);
    }
    expect(chunks.mostAtOnce).toBeGreaterThanOrEqual(2);
    expect(chunks.sent.length).toBeGreaterThanOrEqual(3);
    expect((await storedBytes(socketToken, "/large.bin")).equals(bytes)).toBe(true);
    expect((await storedAttributes(socketToken, "/large.bin")).hash).toBe(await blake3(bytes));
  });

  test("a chunk whose connection drops is sent again on its own after a HEAD; the others go on and the file is byte-identical", async ({ page }) => {
    test.setTimeout(90_000);
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(48 * 1024 * 1024);
    const file = makeFile("chunks/dropped.bin", bytes);
    const chunks = watchChunks(page);
    let dropped: number | null = null;
    const heads: number[] = [];
    page.on("request", (request) => {
      if (request.method() === "HEAD" && request.url().includes("/uploads/")) heads.push(chunks.sent.length);
    });
    // The second chunk's connection breaks before a byte arrives.
    await page.route("**/uploads/*", async (route) => {
      const request = route.request();
      if (dropped === null && request.method() === "PATCH" && Number(request.headers()["upload-offset"]) > 0) {
        dropped = Number(request.headers()["upload-offset"]);
        await route.abort("connectionreset");
        await page.unroute("**/uploads/*");
        return;
      }
      await route.continue();
    });
    await page.getByLabel("Upload files").setInputFiles(file);
    await openTransfers(page);
    await expect(row(page, "dropped.bin")).toContainText("Uploaded", { timeout: 90_000 });
    expect(dropped).not.toBeNull();
    const sent = await Promise.all(chunks.sent);
    // Its bytes went again (one PATCH from the same offset after the drop), after a HEAD.
    expect(sent.filter(([start]) => start === dropped).length).toBe(2);
    expect(heads.length).toBeGreaterThan(0);
    expect((await storedBytes(socketToken, "/dropped.bin")).equals(bytes)).toBe(true);
  });

  test("a chunked upload paused mid-way sends, once resumed, only what is missing, and arrives byte-identical", async ({ page }) => {
    test.setTimeout(90_000);
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(48 * 1024 * 1024);
    const file = makeFile("chunks/paused.bin", bytes);
    const chunks = watchChunks(page);
    await setUploadSpeed(4096);
    try {
      await page.getByLabel("Upload files").setInputFiles(file);
      await openTransfers(page);
      const progress = row(page, "paused.bin").getByRole("progressbar");
      await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(10);
      await row(page, "paused.bin").getByRole("button", { name: "Pause paused.bin" }).click();
      await expect(row(page, "paused.bin")).toContainText("Paused");
      const sentBefore = chunks.sent.length;
      const heads: (string | undefined)[] = [];
      page.on("response", (response) => {
        if (response.request().method() === "HEAD" && response.url().includes("/uploads/")) heads.push(response.headers()["ferry-ranges"]);
      });
      await row(page, "paused.bin").getByRole("button", { name: "Resume paused.bin" }).click();
      await expect(row(page, "paused.bin")).toContainText("Uploaded", { timeout: 60_000 });
      // What the HEAD after Resume said was stored; no chunk sent after it covers any of it.
      const ranges = parseRanges(heads[0]);
      expect(ranges!.length).toBeGreaterThan(0);
      const after = (await Promise.all(chunks.sent)).slice(sentBefore);
      expect(after.length).toBeGreaterThan(0);
      for (const [start, end] of after) for (const [s, e] of ranges!) expect(end <= s || start >= e, `chunk ${start}-${end} overlaps stored ${s}-${e}`).toBe(true);
    } finally {
      await setUploadSpeed(0);
    }
    expect((await storedBytes(socketToken, "/paused.bin")).equals(bytes)).toBe(true);
  });

  test("a chunked upload resumes after a reload and sends only the ranges the engine lacks", async ({ page }) => {
    test.setTimeout(90_000);
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(64 * 1024 * 1024);
    const file = makeFile("chunks/resume.bin", bytes);
    await setUploadSpeed(4096);
    try {
      await page.getByLabel("Upload files").setInputFiles(file);
      await openTransfers(page);
      await expect(row(page, "resume.bin")).toContainText(/\/s/, { timeout: 30_000 });
      await expect.poll(() => keptFiles(page)).toBe(1);
      const progress = row(page, "resume.bin").getByRole("progressbar");
      await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(10);
      expect(Number(await progress.getAttribute("aria-valuenow"))).toBeLessThan(100);

      // After the reload: what HEAD reports stored, and every chunk sent.
      const stored = page.waitForResponse((response) => response.request().method() === "HEAD" && response.url().includes("/uploads/"));
      const chunks = watchChunks(page);
      page.on("dialog", (dialog) => void dialog.accept());
      await page.reload();
      await hydrated(page);
      const ranges = parseRanges((await stored).headers()["ferry-ranges"]);
      expect(ranges).not.toBeNull();
      expect(ranges!.length).toBeGreaterThan(0);
      await openTransfers(page);
      await expect(row(page, "resume.bin")).toContainText("Uploaded", { timeout: 120_000 });
      const sent = await Promise.all(chunks.sent);
      expect(sent.length).toBeGreaterThan(0);
      for (const [start, end] of sent) {
        expect(end).toBeGreaterThan(start);
        for (const [s, e] of ranges!) expect(end <= s || start >= e, `chunk ${start}-${end} overlaps stored ${s}-${e}`).toBe(true);
      }
      // Together with what was stored, the chunks cover the whole file.
      expect(ranges!.reduce((sum, [s, e]) => sum + e - s, 0) + sent.reduce((sum, [s, e]) => sum + e - s, 0)).toBeGreaterThanOrEqual(bytes.length);
    } finally {
      await setUploadSpeed(0);
    }
    expect((await storedBytes(socketToken, "/resume.bin")).equals(bytes)).toBe(true);
  });

  test("a folder upload keeps its tree", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    makeFile("album/cover.txt", Buffer.from("cover"));
    makeFile("album/disc1/track1.txt", Buffer.from("one"));
    makeFile("album/disc1/track2.txt", Buffer.from("two"));

    await page.getByLabel("Upload folder").setInputFiles(path.join(workDir, "album"));
    await openTransfers(page);
    for (const name of ["cover.txt", "track1.txt", "track2.txt"]) await expect(row(page, name)).toContainText("Uploaded");
    expect((await storedAttributes(socketToken, "/album/disc1/track2.txt")).hash).toBe(await blake3("two"));
    await expect(page.getByRole("table").getByText("album")).toBeVisible();

    // A folder dragged from the desktop: Chromium's own drag (CDP), so the drop carries real folder entries.
    makeFile("drop-me/inner/deep.txt", Buffer.from("deep"));
    makeFile("drop-me/top.txt", Buffer.from("top"));
    const box = (await page.getByRole("table").boundingBox())!;
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const data = { items: [], files: [path.join(workDir, "drop-me")], dragOperationsMask: 1 };
    const cdp = await page.context().newCDPSession(page);
    for (const type of ["dragEnter", "dragOver", "drop"] as const) await cdp.send("Input.dispatchDragEvent", { type, ...at, data });
    await openTransfers(page);
    for (const name of ["deep.txt", "top.txt"]) await expect(row(page, name)).toContainText("Uploaded");
    expect((await storedAttributes(socketToken, "/drop-me/inner/deep.txt")).hash).toBe(await blake3("deep"));
  });

  test("an upload resumes by itself after a reload and finishes with the right hash", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(200 * 1024 * 1024);
    const file = makeFile("big/movie.bin", bytes);
    const expected = await blake3(bytes);
    // Slow the link so the reload lands mid-upload (about 20 MiB/s).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 20 * 1024 * 1024 });

    await page.getByLabel("Upload files").setInputFiles(file);
    await expect(row(page, "movie.bin")).toContainText(/\/s/, { timeout: 30_000 });
    await expect(panel(page).getByText("1 active")).toBeVisible();
    // The browser keeps the file for the resume (IndexedDB) before the page goes.
    await expect.poll(() => keptFiles(page)).toBe(1);
    const progress = row(page, "movie.bin").getByRole("progressbar");
    await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow"))).toBeGreaterThan(5);
    const before = Number(await progress.getAttribute("aria-valuenow"));
    expect(before).toBeLessThan(100);

    page.on("dialog", (dialog) => void dialog.accept());
    const resumedAt = resumeOffset(page);
    await page.reload();
    await hydrated(page);
    await expect(row(page, "movie.bin")).toBeVisible();
    // It goes on from what the server holds, not from the first byte.
    expect(await resumedAt).toBeGreaterThan(0);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await openTransfers(page);
    await expect(row(page, "movie.bin")).toContainText("Uploaded", { timeout: 120_000 });
    const attributes = await storedAttributes(socketToken, "/movie.bin");
    expect(attributes.file_size).toBe(bytes.length);
    expect(attributes.hash).toBe(expected);
  });

  test("after a reload without the kept file, the upload waits for the same file and then resumes", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(40 * 1024 * 1024);
    const file = makeFile("again/archive.bin", bytes);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 4 * 1024 * 1024 });
    await page.getByLabel("Upload files").setInputFiles(file);
    const progress = row(page, "archive.bin").getByRole("progressbar");
    await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(10);

    // As with a file too large to keep: the browser has no copy after the reload.
    page.on("dialog", (dialog) => void dialog.accept());
    await page.evaluate(() => new Promise((resolve) => (indexedDB.deleteDatabase("ferry-transfers").onsuccess = resolve)));
    await page.reload();
    await hydrated(page);
    await expect(row(page, "archive.bin")).toContainText("Paused: choose or drop the same file again to continue");
    await expect(panel(page).getByText("1 active")).toBeVisible();

    // Another file is refused; the same one resumes from the server's offset.
    await row(page, "archive.bin").locator('input[type="file"]').setInputFiles(makeFile("again/other/archive.bin", randomBytes(10)));
    await expect(row(page, "archive.bin")).toContainText("That is not the same file");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const resumedAt = resumeOffset(page);
    await row(page, "archive.bin").locator('input[type="file"]').setInputFiles(file);
    expect(await resumedAt).toBeGreaterThan(0);
    await openTransfers(page);
    await expect(row(page, "archive.bin")).toContainText("Uploaded", { timeout: 60_000 });
    expect((await storedAttributes(socketToken, "/archive.bin")).hash).toBe(await blake3(bytes));
  });

  test("a dropped folder arrives with its empty sub-folders", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    makeFile("with-empty/keep.txt", Buffer.from("kept"));
    mkdirSync(path.join(workDir, "with-empty/hollow"), { recursive: true });
    mkdirSync(path.join(workDir, "with-empty/deeper/empty-too"), { recursive: true });
    mkdirSync(path.join(workDir, "all-empty"), { recursive: true });

    await dragFromDesktop(page, [path.join(workDir, "with-empty"), path.join(workDir, "all-empty")]);
    await openTransfers(page);
    await expect(row(page, "keep.txt")).toContainText("Uploaded");
    await expect.poll(() => storedListing(socketToken, "/with-empty")).toEqual({ deeper: 1, hollow: 1, "keep.txt": 0 });
    await expect.poll(() => storedListing(socketToken, "/with-empty/deeper")).toEqual({ "empty-too": 1 });
    expect(await storedListing(socketToken, "/with-empty/hollow")).toEqual({});
    // A folder with nothing in it at all is created too, and the listing shows the new folders.
    expect(await storedListing(socketToken, "/all-empty")).toEqual({});
    await expect(page.getByRole("table").getByText("all-empty")).toBeVisible();
    await expect(page.getByRole("table").getByText("with-empty")).toBeVisible();
  });

  test("uploading a name that exists asks once per batch; overwrite, skip and keep both do what they say", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const conflict = page.getByRole("dialog", { name: "Files already exist" });
    await page.getByLabel("Upload files").setInputFiles([makeFile("clash/v1/same.txt", Buffer.from("version one")), makeFile("clash/v1/other.txt", Buffer.from("other one"))]);
    await openTransfers(page);
    await expect(row(page, "same.txt")).toContainText("Uploaded");
    await expect(row(page, "other.txt")).toContainText("Uploaded");
    await expect(conflict).toHaveCount(0);

    // Overwrite: both names exist, one question for the batch.
    await page.getByLabel("Upload files").setInputFiles([makeFile("clash/v2/same.txt", Buffer.from("version two")), makeFile("clash/v2/other.txt", Buffer.from("other two"))]);
    await expect(conflict).toBeVisible();
    await expect(conflict).toContainText("Some files you are uploading already exist here (2):");
    await expect(conflict).toContainText("same.txt");
    await expect(conflict).toContainText("other.txt");
    await screenshot(page, "transfers-conflict-en");
    await conflict.getByRole("button", { name: "Overwrite" }).click();
    await expect(conflict).toHaveCount(0);
    await openTransfers(page);
    await expect(row(page, "same.txt").last()).toContainText("Uploaded");
    await expect.poll(async () => (await storedBytes(socketToken, "/same.txt")).toString()).toBe("version two");
    await expect.poll(async () => (await storedBytes(socketToken, "/other.txt")).toString()).toBe("other two");

    // Skip: the clashing file stays as it was, the new one goes up.
    await page.getByLabel("Upload files").setInputFiles([makeFile("clash/v3/same.txt", Buffer.from("version three")), makeFile("clash/v3/fresh.txt", Buffer.from("fresh"))]);
    await expect(conflict).toContainText("(1):");
    await conflict.getByRole("button", { name: "Skip" }).click();
    await openTransfers(page);
    await expect(row(page, "fresh.txt")).toContainText("Uploaded");
    expect((await storedBytes(socketToken, "/fresh.txt")).toString()).toBe("fresh");
    expect((await storedBytes(socketToken, "/same.txt")).toString()).toBe("version two");
    expect(Object.keys((await storedListing(socketToken, "/"))!).sort()).toEqual(["fresh.txt", "other.txt", "same.txt"]);

    // Keep both: the new file gets the first free "name (n).ext".
    await page.getByLabel("Upload files").setInputFiles(makeFile("clash/v4/same.txt", Buffer.from("version four")));
    await conflict.getByRole("button", { name: "Keep both" }).click();
    await openTransfers(page);
    await expect(row(page, "same (1).txt")).toContainText("Uploaded");
    expect((await storedBytes(socketToken, "/same (1).txt")).toString()).toBe("version four");
    expect((await storedBytes(socketToken, "/same.txt")).toString()).toBe("version two");
    await page.getByLabel("Upload files").setInputFiles(makeFile("clash/v5/same.txt", Buffer.from("version five")));
    await conflict.getByRole("button", { name: "Keep both" }).click();
    await openTransfers(page);
    await expect(row(page, "same (2).txt")).toContainText("Uploaded");
    expect((await storedBytes(socketToken, "/same (2).txt")).toString()).toBe("version five");

    // Cancel uploads nothing; the question in Chinese.
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
    await hydrated(page);
    await page.getByLabel("上传文件", { exact: true }).setInputFiles(makeFile("clash/v6/same.txt", Buffer.from("version six")));
    const conflictZh = page.getByRole("dialog", { name: "文件已存在" });
    await expect(conflictZh).toContainText("要上传的部分文件在此处已存在（1 个）：");
    await expect(conflictZh.getByRole("button", { name: "保留两者" })).toBeVisible();
    await screenshot(page, "transfers-conflict-zh");
    await conflictZh.getByRole("button", { name: "取消" }).click();
    await expect(conflictZh).toHaveCount(0);
    expect((await storedBytes(socketToken, "/same.txt")).toString()).toBe("version two");
    expect(Object.keys((await storedListing(socketToken, "/"))!).sort()).toEqual(["fresh.txt", "other.txt", "same (1).txt", "same (2).txt", "same.txt"]);
  });

  test("a share visitor uploading a name that exists may skip or keep both, never overwrite", async ({ browser }) => {
    const account = uniqueAccount("inviter");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = await login(account, PASSWORD);
    const ownerToken = signedIn.data!.websocket_token;
    const owner = await connectFiles(FILE_URL, ownerToken);
    try {
      await owner.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
      const { shareUrl } = await ok<{ shareUrl: string }>("POST", "/api/share/link/create", {
        token: signedIn.data!.token,
        body: { shareBaseUrl: WEB_URL, shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "in42" },
      });
      const context = await browser.newContext();
      const page = await context.newPage();
      try {
        await page.goto(shareUrl);
        await hydrated(page);
        await page.getByLabel("Password", { exact: true }).fill("in42");
        await page.getByRole("button", { name: "Open" }).click();
        // The page's heading is "Upload files" too: the file input is the toolbar's.
        const pick = page.getByRole("toolbar", { name: "File actions" }).getByLabel("Upload files", { exact: true });
        await pick.setInputFiles(makeFile("visitor/v1/note.txt", Buffer.from("first visit")));
        await openTransfers(page);
        await expect(row(page, "note.txt")).toContainText("Uploaded");

        await pick.setInputFiles(makeFile("visitor/v2/note.txt", Buffer.from("second visit")));
        const conflict = page.getByRole("dialog", { name: "Files already exist" });
        await expect(conflict).toContainText("You cannot replace files here.");
        await expect(conflict.getByRole("button", { name: "Skip" })).toBeVisible();
        await expect(conflict.getByRole("button", { name: "Overwrite" })).toHaveCount(0);
        await conflict.getByRole("button", { name: "Keep both" }).click();
        await openTransfers(page);
        await expect(row(page, "note (1).txt")).toContainText("Uploaded");
      } finally {
        await context.close();
      }
      expect((await storedBytes(ownerToken, "/inbox/note.txt")).toString()).toBe("first visit");
      expect((await storedBytes(ownerToken, "/inbox/note (1).txt")).toString()).toBe("second visit");
    } finally {
      await owner.close();
    }
  });

  test("two pages of one browser: only one resumes a saved upload, the other shows it running there and takes over when it closes", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(40 * 1024 * 1024);
    const file = makeFile("tabs/shared.bin", bytes);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 4 * 1024 * 1024 });
    await page.getByLabel("Upload files").setInputFiles(file);
    const progress = row(page, "shared.bin").getByRole("progressbar");
    await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(5);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("ferry.transfers.")).length)).toBe(1);

    // A second tab of the same sign-in reads the same saved list, but the upload is this tab's.
    const second = await page.context().newPage();
    const secondUploads: string[] = [];
    second.on("request", (request) => {
      if (request.url().includes("/uploads/")) secondUploads.push(`${request.method()} ${request.url()}`);
    });
    await second.goto("/personal");
    await hydrated(second);
    await expect(second.getByRole("table")).toBeVisible();
    const atOpen = Number(await progress.getAttribute("aria-valuenow"));
    // The first tab keeps going meanwhile…
    await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 30_000 }).toBeGreaterThan(atOpen + 5);
    // …and the second shows it as running in the first, without any action, and touches nothing.
    await openTransfers(second);
    await expect(row(second, "shared.bin")).toContainText("Running in another tab of this browser");
    await expect(row(second, "shared.bin").getByRole("button")).toHaveCount(0);
    expect(secondUploads).toEqual([]);

    // The first tab goes: the second takes the upload over from what the server holds.
    const resumedAt = resumeOffset(second);
    await page.close();
    await expect(row(second, "shared.bin")).not.toContainText("Running in another tab of this browser");
    expect(await resumedAt).toBeGreaterThan(0);
    await openTransfers(second);
    await expect(row(second, "shared.bin")).toContainText("Uploaded", { timeout: 60_000 });
    const attributes = await storedAttributes(socketToken, "/shared.bin");
    expect(attributes.file_size).toBe(bytes.length);
    expect(attributes.hash).toBe(await blake3(bytes));
    expect((await storedBytes(socketToken, "/shared.bin")).equals(bytes)).toBe(true);
  });

  test("a download hands the browser the same bytes", async ({ page }) => {
    await signedInUser(page);
    const bytes = randomBytes(1024 * 1024 + 5);
    await page.getByLabel("Upload files").setInputFiles(makeFile("down/data.bin", bytes));
    await openTransfers(page);
    await expect(row(page, "data.bin")).toContainText("Uploaded");

    await page.getByRole("table").getByRole("row", { name: /data\.bin/ }).getByRole("checkbox").check();
    const download = page.waitForEvent("download");
    await page.getByRole("toolbar").getByRole("button", { name: "Download", exact: true }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe("data.bin");
    expect(readFileSync((await saved.path())!).equals(bytes)).toBe(true);
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "data.bin" }).last()).toContainText("Saved by your browser");
  });

  test("without Delete permission nothing is replaced: no Overwrite for an upload, a copy onto a name says so, a forged overwrite is refused", async ({ page }) => {
    const { socketToken } = await signedInUser(page, PERMISSION_FULL & ~Permission.Delete);
    const files = await connectFiles(FILE_URL, socketToken);
    await page.getByLabel("Upload files").setInputFiles(makeFile("nodelete/v1/mine.txt", Buffer.from("first")));
    await openTransfers(page);
    await expect(row(page, "mine.txt")).toContainText("Uploaded");

    const conflict = page.getByRole("dialog", { name: "Files already exist" });
    await page.getByLabel("Upload files").setInputFiles(makeFile("nodelete/v2/mine.txt", Buffer.from("second")));
    await expect(conflict).toContainText("You cannot replace files here.");
    await expect(conflict.getByRole("button", { name: "Overwrite" })).toHaveCount(0);
    await conflict.getByRole("button", { name: "Skip" }).click();
    await expect(conflict).toHaveCount(0);

    // A copy onto an existing name: the page says why nothing happens instead of asking.
    await files.ok("mkdir", { groupId: 0, path: "/", name: "dest" });
    await files.ok("copy", { groupId: 0, paths: ["/mine.txt"], target: "/dest" });
    await page.reload();
    await hydrated(page);
    await page.getByRole("checkbox", { name: "Select row mine.txt" }).check();
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Copy" }).click();
    const target = page.getByRole("dialog", { name: "Copy to" });
    await target.getByRole("button", { name: "dest", exact: true }).click();
    await target.getByRole("button", { name: "Confirm" }).click();
    const refused = page.getByRole("dialog", { name: "Already exists" });
    await expect(refused).toContainText("mine.txt");
    await expect(refused).toContainText("Replacing them needs the Delete permission");
    await screenshot(page, "files-overwrite-refused-en");
    await expect(refused.getByRole("button", { name: "Overwrite" })).toHaveCount(0);
    await refused.getByRole("button", { name: "OK" }).click();
    await expect(refused).toHaveCount(0);

    expect((await files.cmd("copy", { groupId: 0, paths: ["/mine.txt"], target: "/dest", overwrite: true })).code).toBe(1008);
    expect((await storedBytes(socketToken, "/mine.txt")).toString()).toBe("first");
    expect((await storedBytes(socketToken, "/dest/mine.txt")).toString()).toBe("first");
    await files.close();
  });

  test("without Upload permission there is no upload control, and a forged tus creation is refused", async ({ page }) => {
    const { socketToken } = await signedInUser(page, Permission.List | Permission.Download);
    await expect(page.getByRole("toolbar")).toBeVisible();
    await expect(page.getByRole("button", { name: "Upload files" })).toHaveCount(0);
    await expect(page.getByLabel("Upload files")).toHaveCount(0);

    const metadata = [`groupId ${btoa("0")}`, `path ${btoa("/forged.txt")}`, `overwrite ${btoa("0")}`].join(",");
    const response = await fetch(`${FILE_URL}/uploads/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${socketToken}`, "Tus-Resumable": "1.0.0", "Upload-Length": "5", "Upload-Metadata": metadata },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: number }).code).toBe(1008);
  });
});
