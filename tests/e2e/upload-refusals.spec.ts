import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, openTransfers, screenshot, signIn, test } from "./fixtures";

/**
 * Issue 13, item 4: what cannot be uploaded (here: over the size limit) is refused before the page
 * asks anything, and sizes read as sizes ("100.00 KB"), never as a raw byte count.
 */

const PASSWORD = "Refuse#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const LIMIT_KB = 100;
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-refusals-"));

function makeFile(relative: string, bytes: Buffer): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, bytes);
  return full;
}

const panel = (page: Page) => page.getByRole("region", { name: /^(Transfers|传输列表)$/ });
const row = (page: Page, name: string) => panel(page).getByRole("listitem", { name });

async function listing(socketToken: string, folder: string): Promise<string[]> {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    return (await files.ok("list", { groupId: 0, path: folder })).names.sort();
  } finally {
    await files.close();
  }
}

/** Runs `body` with the server's browser size limit at LIMIT_KB, then puts the old one back. */
async function withSizeLimit(body: () => Promise<void>) {
  const admin = await adminToken();
  const before = await ok<{ tcpFileSizeLimitKB: number }>("GET", "/api/admin/settings/transfer", { token: admin });
  await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: LIMIT_KB } });
  try {
    await body();
  } finally {
    await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: before.tcpFileSizeLimitKB } });
  }
}

const big = () => Buffer.alloc(LIMIT_KB * 1024 + 1, 7);
/** An upload ends with the engine's hash check, slower on a busy machine than the default wait. */
const UPLOADED_WAIT = { timeout: 30_000 };

test.describe("uploads that cannot go up are refused first", () => {
  test("a too-large file whose name exists is refused with a readable size and no name question; a mixed batch uploads the rest", async ({ page }) => {
    await withSizeLimit(async () => {
      const account = uniqueAccount("refused");
      await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
      await signIn(page, account, PASSWORD);
      await expect(page).toHaveURL(/\/personal$/);
      await hydrated(page);
      const socketToken = (await login(account, PASSWORD)).data!.websocket_token;

      await page.getByLabel("Upload files").setInputFiles(makeFile("v1/same.bin", Buffer.from("small")));
      await openTransfers(page);
      await expect(row(page, "same.bin")).toContainText("Uploaded", UPLOADED_WAIT);

      // The same name, now over the limit: only the refusal, no "Files already exist".
      await page.getByLabel("Upload files").setInputFiles(makeFile("v2/same.bin", big()));
      const refusal = page.getByRole("dialog", { name: "File too large for the browser" });
      await expect(refusal).toBeVisible();
      await expect(refusal).toContainText("100.00 KB");
      await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
      await screenshot(page, "upload-refused-en-1440");
      await refusal.getByRole("button", { name: "Close" }).last().click();
      await expect(refusal).toHaveCount(0);
      await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
      // The transfer list (behind the dialog until it closed) says why, with the same readable size.
      await openTransfers(page);
      const failed = row(page, "same.bin").last();
      await expect(failed).toContainText("The file is larger than the server allows (100.00 KB)");
      await expect(failed).not.toContainText(String(LIMIT_KB * 1024));
      await screenshot(page, "upload-refused-panel-en-1440");

      // A mixed batch: the allowed file goes up after the other is refused.
      await page.getByLabel("Upload files").setInputFiles([makeFile("v3/huge.bin", big()), makeFile("v3/fine.txt", Buffer.from("fine"))]);
      await expect(refusal).toBeVisible();
      await refusal.getByRole("button", { name: "Close" }).last().click();
      await openTransfers(page);
      await expect(row(page, "fine.txt")).toContainText("Uploaded", UPLOADED_WAIT);
      await expect(row(page, "huge.bin")).toContainText("(100.00 KB)");
      expect(await listing(socketToken, "/")).toEqual(["fine.txt", "same.bin"]);

      // A batch with a refused file and a clash among the others: one question, about the clash only, saying what was refused.
      await page.getByLabel("Upload files").setInputFiles([makeFile("v4/giant.bin", big()), makeFile("v4/fine.txt", Buffer.from("fine again"))]);
      const conflict = page.getByRole("dialog", { name: "Files already exist" });
      await expect(conflict).toBeVisible();
      await expect(conflict).toContainText("fine.txt");
      await expect(conflict).toContainText("giant.bin");
      await expect(conflict).toContainText("100.00 KB");
      await expect(refusal).toHaveCount(0);
      await screenshot(page, "upload-refused-and-clash-en-1440");
      await conflict.getByRole("button", { name: "Keep both" }).click();
      await openTransfers(page);
      await expect(row(page, "fine (1).txt")).toContainText("Uploaded", UPLOADED_WAIT);
      await expect(row(page, "giant.bin")).toContainText("(100.00 KB)");
      expect(await listing(socketToken, "/")).toEqual(["fine (1).txt", "fine.txt", "same.bin"]);

      // Chinese: the same readable size, no byte count.
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
      await hydrated(page);
      await page.getByLabel("上传文件", { exact: true }).setInputFiles(makeFile("v5/same.bin", big()));
      const refusalZh = page.getByRole("dialog", { name: "文件超出浏览器传输上限" });
      await expect(refusalZh).toContainText("100.00 KB");
      await expect(page.getByRole("dialog", { name: "文件已存在" })).toHaveCount(0);
      await screenshot(page, "upload-refused-zh-1440");
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(page, "upload-refused-zh-1280");
      await refusalZh.getByRole("button", { name: "关闭" }).last().click();
      await openTransfers(page);
      await expect(row(page, "same.bin").last()).toContainText("文件超过服务器允许的大小（100.00 KB）");
      await expect(panel(page)).not.toContainText("字节");
      await screenshot(page, "upload-refused-panel-zh-1280");
      await page.getByLabel("上传文件", { exact: true }).setInputFiles([makeFile("v6/giant.bin", big()), makeFile("v6/fine.txt", Buffer.from("fine 3"))]);
      await expect(page.getByRole("dialog", { name: "文件已存在" })).toContainText("giant.bin");
      await screenshot(page, "upload-refused-and-clash-zh-1280");
      await page.getByRole("dialog", { name: "文件已存在" }).getByRole("button", { name: "取消" }).click();
    });
  });

  test("a share visitor's too-large file is refused before the name question", async ({ browser }) => {
    await withSizeLimit(async () => {
      const account = uniqueAccount("inviter");
      await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
      const signedIn = await login(account, PASSWORD);
      const owner = await connectFiles(FILE_URL, signedIn.data!.websocket_token);
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
          const pick = page.getByRole("toolbar", { name: "File actions" }).getByLabel("Upload files", { exact: true });
          await pick.setInputFiles(makeFile("visitor/v1/note.txt", Buffer.from("first visit")));
          await openTransfers(page);
          await expect(row(page, "note.txt")).toContainText("Uploaded", UPLOADED_WAIT);

          await pick.setInputFiles([makeFile("visitor/v2/note.txt", big()), makeFile("visitor/v2/other.txt", Buffer.from("other"))]);
          await openTransfers(page);
          await expect(row(page, "other.txt")).toContainText("Uploaded", UPLOADED_WAIT);
          await expect(row(page, "note.txt").last()).toContainText("The file is larger than the server allows (100.00 KB)");
          await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
          await screenshot(page, "upload-refused-visitor-en-1440");
        } finally {
          await context.close();
        }
        expect((await owner.ok("list", { groupId: 0, path: "/inbox" })).names.sort()).toEqual(["note.txt", "other.txt"]);
      } finally {
        await owner.close();
      }
    });
  });
});

/** Changes a user as the administrator would, while the user's page stays open (the page's own copy goes stale). */
async function adminPatch(userId: number, body: Record<string, unknown>) {
  await ok("PATCH", `/api/admin/users/${userId}`, { token: await adminToken(), body });
}

/** Signs a fresh user in on `page` and uploads `name` (its first version) through the page. */
async function userWithFile(page: Page, prefix: string, name: string, options: Record<string, unknown> = {}) {
  const account = uniqueAccount(prefix);
  const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL, ...options });
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);
  await page.getByLabel("Upload files").setInputFiles(makeFile(`${account}/v1/${name}`, Buffer.from("first version, 32 bytes long....")));
  await openTransfers(page);
  await expect(row(page, name)).toContainText("Uploaded", UPLOADED_WAIT);
  await expect(page.getByRole("table").getByText(name, { exact: true })).toBeVisible();
  return { ...user, account, socketToken: (await login(account, PASSWORD)).data!.websocket_token };
}

test.describe("the space's quota, permission and format rules are refused before the name question", () => {
  test("a file that does not fit in the quota, whose name exists, is refused with the room left and no question (en, zh)", async ({ page }) => {
    const user = await userWithFile(page, "roomless", "same.bin", { quota: 1000 });
    // 32 bytes used: the new same.bin would replace them and still need 1,968 more than the 968 left.
    await page.getByLabel("Upload files").setInputFiles(makeFile(`${user.account}/v2/same.bin`, Buffer.alloc(2000, 1)));
    await openTransfers(page);
    const failed = row(page, "same.bin").last();
    await expect(failed).toContainText("Not enough room: the file needs 1.92 KB, the space has 968 B left of 1000 B");
    await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
    await screenshot(page, "upload-refused-room-en-1440");
    // A file that fits still asks about its name; the refused one is named in the question.
    await page.getByLabel("Upload files").setInputFiles([makeFile(`${user.account}/v3/huge.bin`, Buffer.alloc(5000, 2)), makeFile(`${user.account}/v3/same.bin`, Buffer.from("fits"))]);
    const conflict = page.getByRole("dialog", { name: "Files already exist" });
    await expect(conflict).toContainText("Not enough room left in this space, so not uploaded (1): huge.bin");
    await screenshot(page, "upload-refused-room-question-en-1440");
    await conflict.getByRole("button", { name: "Cancel" }).click();

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
    await hydrated(page);
    await page.getByLabel("上传文件", { exact: true }).setInputFiles(makeFile(`${user.account}/v4/same.bin`, Buffer.alloc(2000, 3)));
    await openTransfers(page);
    await expect(row(page, "same.bin").last()).toContainText("空间不足：该文件需要 1.92 KB，此空间剩余 968 B（共 1000 B）");
    await expect(page.getByRole("dialog", { name: "文件已存在" })).toHaveCount(0);
    await screenshot(page, "upload-refused-room-zh-1440");
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, "upload-refused-room-zh-1280");
    expect(await listing(user.socketToken, "/")).toEqual(["same.bin"]);
  });

  test("a blacklisted type is refused before the name question, also when its name exists (en, zh)", async ({ page }) => {
    const user = await userWithFile(page, "blacklisted", "tool.exe");
    await adminPatch(user.id, { fileFormatMode: 2, fileFormats: "exe;bat" });
    await page.getByLabel("Upload files").setInputFiles(makeFile(`${user.account}/v2/tool.exe`, Buffer.from("MZ again")));
    await openTransfers(page);
    await expect(row(page, "tool.exe").last()).toContainText("tool.exe cannot be uploaded: files of this type are not allowed for your account");
    await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
    await screenshot(page, "upload-refused-format-en-1440");

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
    await hydrated(page);
    await page.getByLabel("上传文件", { exact: true }).setInputFiles([makeFile(`${user.account}/v3/run.BAT`, Buffer.from("@echo")), makeFile(`${user.account}/v3/tool.exe`, Buffer.from("MZ"))]);
    await openTransfers(page);
    await expect(row(page, "run.BAT")).toContainText("无法上传 run.BAT：您的账号不允许此类型的文件");
    await expect(page.getByRole("dialog", { name: "文件已存在" })).toHaveCount(0);
    await screenshot(page, "upload-refused-format-zh-1440");
    expect(await listing(user.socketToken, "/")).toEqual(["tool.exe"]);
  });

  test("where only new files may be uploaded, the name question offers no Overwrite and says why (en, zh)", async ({ page }) => {
    const user = await userWithFile(page, "newonly", "report.txt");
    await adminPatch(user.id, { uploadNewOnly: true });
    await page.getByLabel("Upload files").setInputFiles(makeFile(`${user.account}/v2/report.txt`, Buffer.from("second version")));
    const conflict = page.getByRole("dialog", { name: "Files already exist" });
    await expect(conflict).toContainText("Only new files may be uploaded here: existing files cannot be replaced.");
    await expect(conflict.getByRole("button", { name: "Overwrite" })).toHaveCount(0);
    await screenshot(page, "upload-new-only-question-en-1440");
    await conflict.getByRole("button", { name: "Keep both" }).click();
    await openTransfers(page);
    await expect(row(page, "report (1).txt")).toContainText("Uploaded", UPLOADED_WAIT);

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
    await hydrated(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel("上传文件", { exact: true }).setInputFiles(makeFile(`${user.account}/v3/report.txt`, Buffer.from("third version")));
    const conflictZh = page.getByRole("dialog", { name: "文件已存在" });
    await expect(conflictZh).toContainText("此处只能上传新文件，不能替换已有文件。");
    await expect(conflictZh.getByRole("button", { name: "覆盖" })).toHaveCount(0);
    await screenshot(page, "upload-new-only-question-zh-1280");
    await conflictZh.getByRole("button", { name: "取消" }).click();
    expect(await listing(user.socketToken, "/")).toEqual(["report (1).txt", "report.txt"]);
  });

  test("a user whose upload permission was taken away meanwhile is refused before the name question", async ({ page }) => {
    const user = await userWithFile(page, "noupload", "a.txt");
    await adminPatch(user.id, { permission: PERMISSION_FULL & ~Permission.Upload });
    // The page still offers Upload (it loaded with the permission); the pick is refused at once.
    await page.getByLabel("Upload files").setInputFiles([makeFile(`${user.account}/v2/a.txt`, Buffer.from("second")), makeFile(`${user.account}/v2/b.txt`, Buffer.from("new"))]);
    await openTransfers(page);
    await expect(row(page, "b.txt")).toContainText("You may not upload here: your account has no upload permission in this space");
    await expect(row(page, "a.txt").last()).toContainText("You may not upload here");
    await expect(page.getByRole("dialog", { name: "Files already exist" })).toHaveCount(0);
    await screenshot(page, "upload-refused-permission-en-1440");
    expect(await listing(user.socketToken, "/")).toEqual(["a.txt"]);
  });
});
