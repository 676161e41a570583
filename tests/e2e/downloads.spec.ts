import type { Dialog, Download, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import type { ShareCreateBody } from "../../contract/share";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect, hydrated, openTransfers, screenshotsAt, signIn, test } from "./fixtures";

/**
 * Issue 13, items 1 and 13 (zip name): a download never asks "Leave site?" (the page is not
 * navigated: the leave warning is for uploads in progress only) and arrives, on the personal, group
 * and share pages; the panel names a zip as the browser saves it.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Down#Load2026";
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-downloads-"));

interface User {
  id: number;
  token: string;
  files: FileClient;
  socketToken: string;
  account: string;
}

async function newUser(permission = PERMISSION_FULL): Promise<User> {
  const account = uniqueAccount("getter");
  const user = await createUser(account, PASSWORD, { permission });
  const signedIn = await login(account, PASSWORD);
  const socketToken = signedIn.data!.websocket_token;
  return { id: user.id, account, token: signedIn.data!.token, socketToken, files: await connectFiles(FILE_URL, socketToken) };
}

/** Puts a file into a space as a browser does: tus upload, then commit with its hash. */
async function seedFile(user: User, groupId: number, filePath: string, bytes: Uint8Array) {
  const created = await tusClient(FILE_URL, user.socketToken).create({ groupId: String(groupId), path: filePath }, bytes.length, bytes);
  expect(created.id, created.text).toBeTruthy();
  await user.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
}

/** Every dialog the page opens, answered as the user of the issue did: "Stay" (dismiss). */
function watchDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on("dialog", (dialog: Dialog) => {
    seen.push(dialog.type());
    void dialog.dismiss();
  });
  return seen;
}

const toolbar = (page: Page) => page.getByRole("toolbar", { name: "File actions" });
const table = (page: Page) => page.getByRole("region", { name: /^Files in|中的(分享)?文件$/ });
const panel = (page: Page) => page.getByRole("region", { name: "Transfers" });

/** Clicks the toolbar's Download and waits for the browser's download (null when none came). */
async function downloadFromToolbar(page: Page): Promise<Download | null> {
  const arrived = page.waitForEvent("download", { timeout: 20_000 }).catch(() => null);
  await toolbar(page).getByRole("button", { name: "Download", exact: true }).click();
  return arrived;
}

async function savedBytes(download: Download): Promise<Buffer> {
  return readFileSync((await download.path())!);
}

test.describe("downloads", () => {
  test.describe.configure({ timeout: 120_000 });

  test("personal space: a file and a folder download without a leave warning; the zip has the panel's name", async ({ page }) => {
    const user = await newUser();
    const bytes = randomBytes(200_000);
    await user.files.ok("mkdir", { groupId: 0, path: "/", name: "photos" });
    await seedFile(user, 0, "/photos/beach.bin", bytes);
    await seedFile(user, 0, "/notes.txt", new TextEncoder().encode("notes"));
    const dialogs = watchDialogs(page);
    await signIn(page, user.account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await hydrated(page);

    await table(page).getByRole("checkbox", { name: "Select row notes.txt" }).check();
    const file = await downloadFromToolbar(page);
    expect(dialogs, "no leave warning for a download").toEqual([]);
    expect(file?.suggestedFilename()).toBe("notes.txt");
    expect((await savedBytes(file!)).toString()).toBe("notes");
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "notes.txt" })).toContainText("Saved by your browser");
    // The page was not navigated: still the file browser, still hydrated.
    await expect(page).toHaveURL(/\/personal/);

    // One folder: the panel and the saved file both say photos.zip.
    await table(page).getByRole("checkbox", { name: "Select row notes.txt" }).uncheck();
    await table(page).getByRole("checkbox", { name: "Select row photos" }).check();
    const folder = await downloadFromToolbar(page);
    expect(dialogs).toEqual([]);
    expect(folder?.suggestedFilename()).toBe("photos.zip");
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "photos.zip" })).toContainText("Saved by your browser");

    // Several items: one name again, in the panel and on disk.
    await table(page).getByRole("checkbox", { name: "Select row photos" }).check();
    await table(page).getByRole("checkbox", { name: "Select row notes.txt" }).check();
    const several = await downloadFromToolbar(page);
    expect(dialogs).toEqual([]);
    const zipName = several!.suggestedFilename();
    expect(zipName).toMatch(/\.zip$/);
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: zipName })).toContainText("Saved by your browser");
    await expect(panel(page).getByRole("listitem")).toHaveCount(3);
    await screenshotsAt(page, "downloads-personal-saved-en");

    // A refusal at the file server (here: the link expired on the way) shows in the panel; the page stays.
    await page.route(`${FILE_URL}/download/**`, (route) => route.fulfill({ status: 410, contentType: "text/plain; charset=utf-8", body: "The link has expired.\n" }));
    await table(page).getByRole("checkbox", { name: "Select row notes.txt" }).check();
    const saved: string[] = [];
    page.on("download", (download) => saved.push(download.suggestedFilename()));
    await toolbar(page).getByRole("button", { name: "Download", exact: true }).click();
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "notes.txt" }).last()).toContainText("Download failed");
    await expect(panel(page).getByRole("listitem", { name: "notes.txt" }).last()).toContainText("The file server refused the download. Try again.");
    await expect(page).toHaveURL(/\/personal/);
    expect(dialogs).toEqual([]);
    expect(saved).toEqual([]);
    // The downloads that arrived are still shown as such: their frames never reported a page.
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "photos.zip" })).toContainText("Saved by your browser");
    await expect(panel(page).getByRole("listitem", { name: zipName })).toContainText("Saved by your browser");
    await user.files.close();
  });

  test("group space: a download without a leave warning, also while an upload runs; the upload alone still warns", async ({ page }) => {
    const admin = await adminToken();
    const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: admin, body: { name: uniqueAccount("crew") } });
    const user = await newUser(Permission.List);
    await ok("PUT", `/api/admin/groups/${group.id}/members/${user.id}`, { token: admin, body: { groupPermission: Permission.List | Permission.Download | Permission.Upload } });
    const bytes = randomBytes(150_000);
    await seedFile(user, group.id, "/plan.bin", bytes);
    const dialogs = watchDialogs(page);
    await signIn(page, user.account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await page.goto(`/group/detail/${group.id}`);
    await hydrated(page);

    await table(page).getByRole("checkbox", { name: "Select row plan.bin" }).check();
    const first = await downloadFromToolbar(page);
    expect(dialogs, "no leave warning for a download").toEqual([]);
    expect((await savedBytes(first!)).equals(bytes)).toBe(true);

    // A slow upload keeps running (the link is throttled) while another download starts.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    const big = path.join(workDir, "slow.bin");
    writeFileSync(big, randomBytes(8 * 1024 * 1024));
    await page.getByLabel("Upload files").setInputFiles(big);
    await expect(panel(page).getByRole("listitem", { name: "slow.bin" })).toContainText("Uploading");
    await table(page).getByRole("checkbox", { name: "Select row plan.bin" }).check();
    const during = await downloadFromToolbar(page);
    expect(dialogs, "no leave warning for a download while an upload runs").toEqual([]);
    expect((await savedBytes(during!)).equals(bytes)).toBe(true);
    await expect(panel(page).getByRole("listitem", { name: "slow.bin" })).toContainText("Uploading");

    // Leaving while the upload runs still asks; "Stay" keeps the page and the upload.
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => dialogs).toEqual(["beforeunload"]);
    expect(page.isClosed()).toBe(false);
    await expect(panel(page).getByRole("listitem", { name: "slow.bin" })).toContainText("Uploading");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await openTransfers(page);
    await expect(panel(page).getByRole("listitem", { name: "slow.bin" })).toContainText("Uploaded", { timeout: 60_000 });
    await user.files.close();
  });

  test("share page: a file and a folder download without a leave warning, in English and Chinese; the zip has the panel's name", async ({ browser }) => {
    const owner = await newUser();
    const bytes = randomBytes(120_000);
    await owner.files.ok("mkdir", { groupId: 0, path: "/", name: "handout" });
    await owner.files.ok("mkdir", { groupId: 0, path: "/handout", name: "slides" });
    await seedFile(owner, 0, "/handout/paper.bin", bytes);
    await seedFile(owner, 0, "/handout/slides/one.txt", new TextEncoder().encode("one"));
    const body: ShareCreateBody = { shareBaseUrl: WEB_URL, shareUrlType: 1, shareFiles: ["/handout"], needPassword: false, shareUrlPasswd: "", shareAllowDownload: 1 };
    const link = await ok<{ shareUrl: string }>("POST", "/api/share/link/create", { token: owner.token, body });

    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const page = await context.newPage();
      const dialogs = watchDialogs(page);
      await page.goto(`${link.shareUrl}?path=${encodeURIComponent("/handout")}`);
      await hydrated(page);
      await table(page).getByRole("checkbox", { name: "Select row paper.bin" }).check();
      const file = await downloadFromToolbar(page);
      expect(dialogs, "no leave warning for a download").toEqual([]);
      expect((await savedBytes(file!)).equals(bytes)).toBe(true);

      await table(page).getByRole("checkbox", { name: "Select row paper.bin" }).uncheck();
      await table(page).getByRole("checkbox", { name: "Select row slides" }).check();
      const folder = await downloadFromToolbar(page);
      expect(dialogs).toEqual([]);
      expect(folder?.suggestedFilename()).toBe("slides.zip");
      await expect(panel(page).getByRole("listitem", { name: "slides.zip" })).toBeVisible();
      await screenshotsAt(page, "downloads-share-saved-en", [1440, 1280, 390]);

      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await hydrated(page);
      await table(page).getByRole("checkbox", { name: /paper\.bin/ }).check();
      const arrived = page.waitForEvent("download", { timeout: 20_000 }).catch(() => null);
      await page.getByRole("toolbar").getByRole("button", { name: "下载", exact: true }).click();
      const zh = await arrived;
      expect(dialogs, "no leave warning for a download (Chinese)").toEqual([]);
      expect((await savedBytes(zh!)).equals(bytes)).toBe(true);
      await screenshotsAt(page, "downloads-share-saved-zh", [1440, 1280, 390]);
    } finally {
      await context.close();
      await owner.files.close();
    }
  });
});
