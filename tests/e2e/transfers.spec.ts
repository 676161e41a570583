import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import { blake3 } from "hash-wasm";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

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

const panel = (page: Page) => page.getByRole("region", { name: "Transfers" });
const row = (page: Page, name: string) => panel(page).getByRole("listitem", { name });

test.describe("transfers", () => {
  test("upload by button and by drop: the panel shows progress to Uploaded, the listing and the stored hash follow", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const file = makeFile("button/report.bin", bytes);

    await page.getByLabel("Upload files").setInputFiles(file);
    await expect(panel(page)).toBeVisible();
    await expect(row(page, "report.bin")).toContainText("Uploaded", { timeout: 30_000 });
    await expect(row(page, "report.bin")).toContainText("3.00 MB");
    await expect(panel(page).getByText("0 active")).toBeVisible();
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
    await expect(row(page, "dropped.txt")).toContainText("Uploaded");
    expect((await storedAttributes(socketToken, "/dropped.txt")).hash).toBe(await blake3("dropped by hand\n"));

    await panel(page).getByRole("button", { name: "Remove dropped.txt from the list" }).click();
    await expect(row(page, "dropped.txt")).toHaveCount(0);
    await panel(page).getByRole("button", { name: "Collapse the transfer list" }).click();
    await expect(panel(page).getByRole("list")).toHaveCount(0);
    await panel(page).getByRole("button", { name: "Close the transfer list" }).click();
    await expect(panel(page)).toHaveCount(0);
  });

  test("a file goes up in one PATCH from the first byte, however large", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    // Larger than the 64 MiB chunks the panel once used, so a return to chunks shows here.
    const bytes = randomBytes(80 * 1024 * 1024);
    const file = makeFile("whole/large.bin", bytes);
    const offsets: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && request.url().includes("/uploads/")) offsets.push(request.headers()["upload-offset"] ?? "");
    });

    await page.getByLabel("Upload files").setInputFiles(file);
    await expect(row(page, "large.bin")).toContainText("Uploaded", { timeout: 60_000 });
    expect(offsets).toEqual(["0"]);
    expect((await storedAttributes(socketToken, "/large.bin")).hash).toBe(await blake3(bytes));
  });

  test("a folder upload keeps its tree", async ({ page }) => {
    const { socketToken } = await signedInUser(page);
    makeFile("album/cover.txt", Buffer.from("cover"));
    makeFile("album/disc1/track1.txt", Buffer.from("one"));
    makeFile("album/disc1/track2.txt", Buffer.from("two"));

    await page.getByLabel("Upload folder").setInputFiles(path.join(workDir, "album"));
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
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const open = indexedDB.open("ferry-transfers");
              open.onsuccess = () => {
                const count = open.result.transaction("files").objectStore("files").count();
                count.onsuccess = () => resolve(count.result);
              };
              open.onerror = () => resolve(0);
            }),
        ),
      )
      .toBe(1);
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
    await expect(row(page, "archive.bin")).toContainText("Uploaded", { timeout: 60_000 });
    expect((await storedAttributes(socketToken, "/archive.bin")).hash).toBe(await blake3(bytes));
  });

  test("a download hands the browser the same bytes", async ({ page }) => {
    await signedInUser(page);
    const bytes = randomBytes(1024 * 1024 + 5);
    await page.getByLabel("Upload files").setInputFiles(makeFile("down/data.bin", bytes));
    await expect(row(page, "data.bin")).toContainText("Uploaded");

    await page.getByRole("table").getByRole("row", { name: /data\.bin/ }).getByRole("checkbox").check();
    const download = page.waitForEvent("download");
    await page.getByRole("toolbar").getByRole("button", { name: "Download", exact: true }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe("data.bin");
    expect(readFileSync((await saved.path())!).equals(bytes)).toBe(true);
    await expect(panel(page).getByRole("listitem", { name: "data.bin" }).last()).toContainText("Saved by your browser");
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
