import type { Download, Page } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ShareCreateBody } from "../../contract/share";
import { E2E_FILE_PORT, WEB_EN_URL } from "../support/e2e-env";
import { createUser, login, ok, setSite, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect, hydrated, openTransfers, screenshot, test } from "./fixtures";
import { withContext } from "./share-scene";

/**
 * The public share page /share/{shareId} (docs/web.md, "Share page"): links are made through the
 * engine's REST API by a real user with real files; visitors are fresh browser contexts, with and
 * without JavaScript.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Share#Page2026";

interface Owner {
  account: string;
  token: string;
  files: FileClient;
  socketToken: string;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function owner(): Promise<Owner> {
  const account = uniqueAccount("sharer");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = await login(account, PASSWORD);
  const socketToken = signedIn.data!.websocket_token;
  return { account, token: signedIn.data!.token, socketToken, files: await connectFiles(FILE_URL, socketToken) };
}

/** Puts a file into the owner's personal space as a browser does: tus upload, then commit with its hash. */
async function seedFile(o: Owner, filePath: string, bytes: Uint8Array) {
  const created = await tusClient(FILE_URL, o.socketToken).create({ groupId: "0", path: filePath }, bytes.length, bytes);
  expect(created.id, created.text).toBeTruthy();
  await o.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
}

async function createLink(o: Owner, body: ShareCreateBody): Promise<{ shareUrl: string; shareId: string }> {
  const created = await ok<{ shareUrl: string; shareId: string }>("POST", "/api/share/link/create", { token: o.token, body: { shareBaseUrl: WEB_URL, ...body } });
  expect(created.shareUrl).toBe(`${WEB_URL}/share/${created.shareId}`);
  return created;
}

/** An owner with /docs/report.bin (random bytes) and /docs/notes/<a name with entities>.txt, and a password link sharing /docs. */
async function downloadLink(password: string, extra: Partial<ShareCreateBody> = {}) {
  const o = await owner();
  const bytes = new Uint8Array(randomBytes(300_000));
  await o.files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
  await o.files.ok("mkdir", { groupId: 0, path: "/docs", name: "notes" });
  await seedFile(o, "/docs/report.bin", bytes);
  await seedFile(o, "/docs/notes/R&D 'plans' &amp;.txt", new TextEncoder().encode("markup stays text"));
  const link = await createLink(o, { shareUrlType: 1, shareFiles: ["/docs"], needPassword: true, shareUrlPasswd: password, ...extra });
  return { o, bytes, ...link };
}

async function downloadedBytes(download: Download): Promise<Uint8Array> {
  const file = await download.path();
  return new Uint8Array(readFileSync(file));
}

async function downloadCount(o: Owner, shareId: string): Promise<number> {
  return (await ok<{ count: number }>("GET", `/api/share/link/download/count?sid=${shareId}`, { token: o.token })).count;
}

/** Switches the page to Chinese with the top bar's language switch, as a visitor does. */
async function toChinese(page: Page) {
  await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh");
}

test.describe("share page", () => {
  test.describe.configure({ timeout: 120_000 });

  test("without JavaScript: wrong then right password, listing with folders, download with the same bytes, counted", async ({ browser }) => {
    const { o, bytes, shareUrl, shareId } = await downloadLink("ab12");
    await withContext(browser, { javaScriptEnabled: false }, async (context, page) => {
      await page.goto(shareUrl);
      await expect(page.getByRole("heading", { name: "Enter the link's password" })).toBeVisible();
      await screenshot(page, "share-login-en");
      // "wxyz" passes every HTML check of the field; the engine refuses it.
      await page.getByLabel("Password", { exact: true }).fill("wxyz");
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "Wrong password. Please try again." })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Enter the link's password" })).toBeVisible();
      await screenshot(page, "share-login-wrong-en");

      await page.getByLabel("Password", { exact: true }).fill(" ab 12 ");
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByRole("heading", { name: "Shared files" })).toBeVisible();
      await expect(page.getByText(`${o.account} shared files with you`)).toBeVisible();
      // The share token lives in its own HttpOnly cookie for the share pages, never in the page.
      const cookies = await context.cookies();
      const shareCookie = cookies.find((c) => c.name === "ferry_share");
      expect(shareCookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/share" });
      expect(cookies.find((c) => c.name === "ferry")).toBeUndefined();
      expect(await page.content()).not.toMatch(/"token"/);
      const root = page.getByRole("region", { name: "Shared files in /" });
      await expect(root.getByRole("link", { name: "Open folder docs" })).toBeVisible();
      await root.getByRole("link", { name: "Open folder docs" }).click();
      await expect(page).toHaveURL(/\?path=%2Fdocs$/);
      const docs = page.getByRole("region", { name: "Shared files in /docs" });
      await expect(docs.getByRole("link", { name: "Open folder notes" })).toBeVisible();
      await screenshot(page, "share-disk-nojs-en");

      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), docs.getByRole("button", { name: "Download report.bin" }).click()]);
      expect(download.suggestedFilename()).toBe("report.bin");
      expect(sha256(await downloadedBytes(download))).toBe(sha256(bytes));
      await expect.poll(() => downloadCount(o, shareId)).toBe(1);

      // A name with entity-like text shows as typed (names cannot hold < or >), in a sub-folder left by the breadcrumb.
      await docs.getByRole("link", { name: "Open folder notes" }).click();
      await expect(page.getByRole("region", { name: "Shared files in /docs/notes" }).getByText("R&D 'plans' &amp;.txt", { exact: true })).toBeVisible();
      await page.getByRole("navigation", { name: "Folder path" }).getByRole("link", { name: "All files" }).click();
      await expect(page.getByRole("region", { name: "Shared files in /" })).toBeVisible();

      await toChinese(page);
      await expect(page.getByRole("heading", { name: "分享的文件" })).toBeVisible();
      await screenshot(page, "share-disk-nojs-zh");
    });
    await o.files.close();
  });

  test("with JavaScript: password, the file browser in share mode (download only), download with the same bytes", async ({ browser }) => {
    const { o, bytes, shareUrl, shareId } = await downloadLink("cd34");
    await withContext(browser, {}, async (_context, page) => {
      await page.goto(shareUrl);
      await hydrated(page);
      await page.getByLabel("Password", { exact: true }).fill("nope");
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "Wrong password. Please try again." })).toBeVisible();
      await page.getByLabel("Password", { exact: true }).fill("cd34");
      await page.getByRole("button", { name: "Open" }).click();

      const table = page.getByRole("region", { name: "Files in /" });
      await expect(table.getByRole("link", { name: "docs", exact: true })).toBeVisible();
      const toolbar = page.getByRole("toolbar", { name: "File actions" });
      // A download link: download only (no upload, no new folder, no row menu, no search, no tree).
      await expect(toolbar.getByRole("button")).toHaveText(["Download all", "Download"]);
      await expect(page.getByRole("button", { name: "Refresh" })).toBeVisible();
      // No tree for a visitor: list or grid only.
      await expect(page.getByRole("group", { name: "View" }).getByRole("button")).toHaveText(["List", "Grid"]);
      await expect(page.getByRole("button", { name: /More actions/ })).toHaveCount(0);
      await table.getByRole("link", { name: "docs", exact: true }).click();
      const docs = page.getByRole("region", { name: "Files in /docs" });
      await docs.getByRole("checkbox", { name: "Select row report.bin" }).check();
      await screenshot(page, "share-disk-js-en");
      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), toolbar.getByRole("button", { name: "Download", exact: true }).click()]);
      expect(sha256(await downloadedBytes(download))).toBe(sha256(bytes));
      await expect.poll(() => downloadCount(o, shareId)).toBe(1);
      await expect(page.getByRole("region", { name: "Transfers" })).toBeVisible();

      await toChinese(page);
      // The language switch comes back to the same folder.
      await expect(page.getByRole("region", { name: "/docs 中的文件" })).toBeVisible();
      await screenshot(page, "share-disk-js-zh");
    });
    await o.files.close();
  });

  test("a download link without downloads allowed lists but offers no download", async ({ browser }) => {
    const { o, shareUrl } = await downloadLink("ef56", { shareAllowDownload: 0 });
    await withContext(browser, { javaScriptEnabled: false }, async (_context, page) => {
      await page.goto(shareUrl);
      await page.getByLabel("Password", { exact: true }).fill("ef56");
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByText("The owner has not allowed downloads from this link.")).toBeVisible();
      await page.getByRole("link", { name: "Open folder docs" }).click();
      await expect(page.getByRole("region", { name: "Shared files in /docs" }).getByText("report.bin")).toBeVisible();
      await expect(page.getByRole("button", { name: /^Download/ })).toHaveCount(0);
      // A forged download post gets the engine's refusal on the page, not a file.
      const forged = await page.request.post(page.url(), { form: { intent: "download", path: "/docs/report.bin" }, maxRedirects: 0 });
      expect(forged.status()).toBe(400);
      expect(await forged.text()).toContain("Downloading is restricted");
      // A cross-site post is refused before anything happens.
      const crossSite = await page.request.post(page.url(), { form: { intent: "download", path: "/docs/report.bin" }, headers: { "Sec-Fetch-Site": "cross-site" }, maxRedirects: 0 });
      expect(crossSite.status()).toBe(403);
    });
    await o.files.close();
  });

  test("an invitation: upload a folder through the page; it arrives in the owner's folder", async ({ browser }) => {
    const o = await owner();
    await o.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    const { shareUrl } = await createLink(o, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up12" });
    const dir = mkdtempSync(path.join(tmpdir(), "ferry-share-upload-"));
    const first = randomBytes(50_000);
    const second = randomBytes(20_000);
    mkdirSync(path.join(dir, "album", "sub"), { recursive: true });
    writeFileSync(path.join(dir, "album", "one.bin"), first);
    writeFileSync(path.join(dir, "album", "sub", "two.bin"), second);
    try {
      await withContext(browser, {}, async (_context, page) => {
        await page.goto(shareUrl);
        await hydrated(page);
        await page.getByLabel("Password", { exact: true }).fill("up12");
        await page.getByRole("button", { name: "Open" }).click();
        await expect(page.getByText(`${o.account} invites you to upload files`)).toBeVisible();
        const toolbar = page.getByRole("toolbar", { name: "File actions" });
        await expect(toolbar.getByRole("button", { name: "Upload folder" })).toBeVisible();
        await expect(toolbar.getByRole("button")).toHaveText(["Upload files", "Upload folder"]);
        await expect(page.getByRole("region", { name: "Files in /" })).toBeVisible();
        await screenshot(page, "share-invite-en");
        await page.getByLabel("Upload folder").setInputFiles(path.join(dir, "album"));
        const panel = page.getByRole("region", { name: "Transfers" });
        await openTransfers(page);
        await expect(panel.getByText("Uploaded")).toHaveCount(2, { timeout: 60_000 });
        await expect(page.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "album", exact: true })).toBeVisible();
        await toChinese(page);
        await expect(page.getByRole("region", { name: "/ 中的文件" }).getByRole("link", { name: "album", exact: true })).toBeVisible();
        await screenshot(page, "share-invite-zh");
      });
      const album = await o.files.ok("attributes", { groupId: 0, paths: ["/inbox/album/one.bin"] });
      expect(album.file_size).toBe(first.length);
      const sub = await o.files.ok("attributes", { groupId: 0, paths: ["/inbox/album/sub/two.bin"] });
      expect(sub.file_size).toBe(second.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await o.files.close();
    }
  });

  test("the expired view: an expired, a cancelled and an unknown link, in both languages; the top bar's about-us link; no switch in the English edition", async ({ browser }) => {
    const { o, shareUrl, shareId } = await downloadLink("gh78");
    await ok("PATCH", "/api/share/link/cancel", { token: o.token, body: { shareUrlList: [shareUrl] } });
    // A link that expires two seconds from now (the engine refuses an expiry in the past).
    const expiring = await createLink(o, { shareUrlType: 1, shareFiles: ["/docs/report.bin"], shareExpireTime: Math.floor(Date.now() / 1000) + 2 });
    const before = await setSite({ companyLink: "https://example.com/zh/about", companyLinkEN: "https://example.com/en/about" });
    try {
      await withContext(browser, { javaScriptEnabled: false }, async (_context, page) => {
        await expect
          .poll(async () => (await page.goto(expiring.shareUrl))?.status(), { timeout: 15_000, intervals: [1000] })
          .toBe(404);
        await expect(page.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
        await page.goto(shareUrl);
        await expect(page.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
        await expect(page.getByText("This link has expired or is no longer available.")).toBeVisible();
        await expect(page.getByRole("link", { name: "About us" })).toHaveAttribute("href", "https://example.com/en/about");
        await screenshot(page, "share-expired-en");
        await page.goto(`${WEB_URL}/share/00000000-0000-4000-8000-000000000000`);
        await expect(page.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
        await toChinese(page);
        await expect(page.getByText("链接已过期或已失效。")).toBeVisible();
        await expect(page.getByRole("link", { name: "关于我们" })).toHaveAttribute("href", "https://example.com/zh/about");
        await screenshot(page, "share-expired-zh");
        // The English edition has no language switch.
        await page.goto(`${WEB_EN_URL}/share/${shareId}`);
        await expect(page.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
        await expect(page.getByRole("button", { name: /Switch the language/ })).toHaveCount(0);
      });
    } finally {
      await setSite({ companyLink: before.companyLink, companyLinkEN: before.companyLinkEN, licence: before.licence });
      await o.files.close();
    }
  });

  test("a visitor inside a link that is cancelled meets the expired view, not the sign-in page", async ({ browser }) => {
    const { o, shareUrl } = await downloadLink("ij90");
    await withContext(browser, {}, async (_context, page) => {
      await page.goto(shareUrl);
      await hydrated(page);
      await page.getByLabel("Password", { exact: true }).fill("ij90");
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "docs", exact: true })).toBeVisible();
      await ok("PATCH", "/api/share/link/cancel", { token: o.token, body: { shareUrlList: [shareUrl] } });
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect(page.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
      expect(new URL(page.url()).pathname).toBe(new URL(shareUrl).pathname);
    });
    await o.files.close();
  });

  test("bind-first-device: the first browser binds, a second one is refused until the owner unbinds", async ({ browser }) => {
    const { o, shareUrl } = await downloadLink("kl12", { bindSwitch: 1 });
    const a = await browser.newContext();
    const b = await browser.newContext({ javaScriptEnabled: false });
    try {
      const pageA = await a.newPage();
      await pageA.goto(shareUrl);
      await pageA.getByLabel("Password", { exact: true }).fill("kl12");
      await pageA.getByRole("button", { name: "Open" }).click();
      await expect(pageA.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "docs", exact: true })).toBeVisible();

      const pageB = await b.newPage();
      await pageB.goto(shareUrl);
      await expect(pageB.getByRole("alert").filter({ hasText: "This link is already in use on another device." })).toBeVisible();
      await expect(pageB.getByLabel("Password", { exact: true })).toHaveCount(0);
      await screenshot(pageB, "share-bound-en");
      await toChinese(pageB);
      await expect(pageB.getByRole("alert").filter({ hasText: "该链接已在其他设备上使用" })).toBeVisible();
      await screenshot(pageB, "share-bound-zh");

      // The same browser keeps its id: A reloading stays in.
      await pageA.reload();
      await expect(pageA.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "docs", exact: true })).toBeVisible();

      await ok("POST", "/api/share/link/unbind", { token: o.token, body: { urls: [shareUrl] } });
      await pageB.getByRole("link", { name: "重试" }).click();
      await pageB.getByLabel("访问密码", { exact: true }).fill("kl12");
      await pageB.getByRole("button", { name: "打开" }).click();
      await expect(pageB.getByRole("region", { name: "/ 中的分享文件" })).toBeVisible();

      // B holds the link now: A's token was voided by the unbind, and A is the second device.
      await pageA.reload();
      await expect(pageA.getByRole("alert").filter({ hasText: "This link is already in use on another device." })).toBeVisible();
    } finally {
      await a.close();
      await b.close();
      await o.files.close();
    }
  });

  test("bind-first-device without a password: opening the page binds nothing until the visitor clicks Open (no state change on GET)", async ({ browser, request }) => {
    const { o, shareUrl, shareId } = await downloadLink("", { needPassword: false, shareUrlPasswd: "", bindSwitch: 1 });
    const bound = async () => (await ok<{ sharelinkinfo: { shareId: string; bindDevice: string }[] }>("GET", "/api/share/link/list?shareUrlType=1&pageSize=100", { token: o.token })).sharelinkinfo.find((l) => l.shareId === shareId)!.bindDevice;
    // What a mail scanner does: fetch the link. Nothing is bound.
    expect((await request.get(shareUrl)).status()).toBe(200);
    const a = await browser.newContext({ javaScriptEnabled: false });
    const b = await browser.newContext({ javaScriptEnabled: false });
    try {
      const pageA = await a.newPage();
      await pageA.goto(shareUrl);
      await expect(pageA.getByRole("heading", { name: "Open the shared files" })).toBeVisible();
      expect(await bound()).toBe("");
      await pageA.getByRole("button", { name: "Open" }).click();
      await expect(pageA.getByRole("heading", { name: "Shared files" })).toBeVisible();
      expect(await bound()).not.toBe("");

      const pageB = await b.newPage();
      await pageB.goto(shareUrl);
      await expect(pageB.getByRole("alert").filter({ hasText: "This link is already in use on another device." })).toBeVisible();
    } finally {
      await a.close();
      await b.close();
      await o.files.close();
    }
  });
});
