import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ok } from "../support/e2e-helpers";
import { expect, hydrated, screenshotsAt, signIn, test } from "./fixtures";
import { createLink, downloadCount, downloadedBytes, OWNER_PASSWORD, owner, seedFile, sha256, toChinese, withContext } from "./share-scene";

/**
 * What a share-link visitor meets beyond the password (issue 13): downloads with JavaScript as easy
 * as without (per row, and everything at once), an upload invitation that is a file drop unless its
 * owner shows the folder, and a device-bound link that never asks for a password it does not have.
 */

test.describe("share visitor", () => {
  test.describe.configure({ timeout: 120_000 });

  test("with JavaScript: every row has its Download, and Download all needs no ticked box (both languages)", async ({ browser }) => {
    const o = await owner();
    const bytes = new Uint8Array(randomBytes(120_000));
    await o.files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
    await o.files.ok("mkdir", { groupId: 0, path: "/docs", name: "notes" });
    await seedFile(o, "/docs/report.bin", bytes);
    await seedFile(o, "/docs/notes/plan.txt", new TextEncoder().encode("the plan"));
    const { shareUrl, shareId } = await createLink(o, { shareUrlType: 1, shareFiles: ["/docs"], needPassword: false, shareUrlPasswd: "" });
    await withContext(browser, {}, async (_context, page) => {
      await page.goto(shareUrl);
      await hydrated(page);
      const toolbar = page.getByRole("toolbar", { name: "File actions" });
      const root = page.getByRole("region", { name: "Files in /" });
      await expect(root.getByRole("link", { name: "docs", exact: true })).toBeVisible();
      // Nothing ticked, yet everything can be downloaded at once.
      await expect(toolbar.getByRole("button", { name: "Download all" })).toBeEnabled();
      await root.getByRole("link", { name: "docs", exact: true }).click();
      const docs = page.getByRole("region", { name: "Files in /docs" });
      await expect(docs.getByRole("button", { name: "Download report.bin" })).toBeVisible();
      await expect(docs.getByRole("button", { name: "Download notes" })).toBeVisible();
      await screenshotsAt(page, "share-downloads-js-en", [1440, 1280, 390]);

      const [single] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), docs.getByRole("button", { name: "Download report.bin" }).click()]);
      expect(single.suggestedFilename()).toBe("report.bin");
      expect(sha256(await downloadedBytes(single))).toBe(sha256(bytes));
      await expect.poll(() => downloadCount(o, shareId)).toBe(1);

      const [all] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), toolbar.getByRole("button", { name: "Download all" }).click()]);
      expect(all.suggestedFilename()).toMatch(/\.zip$/);
      // A ZIP names its entries in plain text: both rows of the folder are in it.
      const zip = Buffer.from(await downloadedBytes(all)).toString("latin1");
      expect(zip).toContain("report.bin");
      expect(zip).toContain("notes/plan.txt");
      await expect.poll(() => downloadCount(o, shareId)).toBe(2);

      await toChinese(page);
      const docsZh = page.getByRole("region", { name: "/docs 中的文件" });
      await expect(docsZh.getByRole("button", { name: "下载 report.bin" })).toBeVisible();
      await expect(page.getByRole("toolbar", { name: "文件操作" }).getByRole("button", { name: "全部下载" })).toBeEnabled();
      await screenshotsAt(page, "share-downloads-js-zh", [1440, 1280, 390]);
    });
    await o.files.close();
  });

  test("an upload invitation is a file drop: the visitor sees only what they uploaded, unless the owner shows the folder", async ({ browser }) => {
    const o = await owner();
    await o.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    await o.files.ok("mkdir", { groupId: 0, path: "/inbox", name: "private" });
    await seedFile(o, "/inbox/salaries.xlsx", new TextEncoder().encode("nobody else's business"));
    const drop = await createLink(o, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "dr0p" });
    const shown = await createLink(o, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "sh0w", shareShowContents: 1 });
    const dir = mkdtempSync(path.join(tmpdir(), "ferry-drop-"));
    const mine = path.join(dir, "mine.txt");
    writeFileSync(mine, "my own file");
    try {
      await withContext(browser, {}, async (_context, page) => {
        await page.goto(drop.shareUrl);
        await hydrated(page);
        await page.getByLabel("Password", { exact: true }).fill("dr0p");
        await page.getByRole("button", { name: "Open" }).click();
        const table = page.getByRole("region", { name: "Files in /" });
        await expect(table).toBeVisible();
        await expect(page.getByText("Files you upload go to the owner's folder.", { exact: false })).toBeVisible();
        await expect(page.getByText("You see only the files you upload in this visit", { exact: false })).toBeVisible();
        await expect(table.getByText("No data")).toBeVisible();
        await expect(table.getByText("salaries.xlsx")).toHaveCount(0);
        await expect(table.getByText("private")).toHaveCount(0);
        await page.locator(`input[type="file"][aria-label="Upload files"]`).setInputFiles(mine);
        // The upload shows up in the listing once committed.
        await expect(table.getByText("mine.txt", { exact: true })).toBeVisible({ timeout: 60_000 });
        await expect(table.getByText("salaries.xlsx")).toHaveCount(0);
        await screenshotsAt(page, "share-drop-en", [1440, 1280, 390]);
        await toChinese(page);
        await expect(page.getByRole("region", { name: "/ 中的文件" }).getByText("mine.txt", { exact: true })).toBeVisible();
        await screenshotsAt(page, "share-drop-zh", [1440, 1280, 390]);
      });
      // Another visit of the same drop (a new browser) sees nothing again: not even the first visitor's file.
      await withContext(browser, {}, async (_context, page) => {
        await page.goto(drop.shareUrl);
        await hydrated(page);
        await page.getByLabel("Password", { exact: true }).fill("dr0p");
        await page.getByRole("button", { name: "Open" }).click();
        const table = page.getByRole("region", { name: "Files in /" });
        await expect(table.getByText("No data")).toBeVisible();
        await expect(table.getByText("mine.txt")).toHaveCount(0);
      });
      await withContext(browser, {}, async (_context, page) => {
        await page.goto(shown.shareUrl);
        await hydrated(page);
        await page.getByLabel("Password", { exact: true }).fill("sh0w");
        await page.getByRole("button", { name: "Open" }).click();
        const table = page.getByRole("region", { name: "Files in /" });
        await expect(table.getByText("salaries.xlsx", { exact: true })).toBeVisible();
        await expect(page.getByText("You see only the files you upload in this visit", { exact: false })).toHaveCount(0);
        await expect(table.getByRole("link", { name: "private", exact: true })).toBeVisible();
        await expect(table.getByText("mine.txt", { exact: true })).toBeVisible();
        await screenshotsAt(page, "share-invite-shown-en", [1440, 1280, 390]);
        await toChinese(page);
        await expect(page.getByRole("region", { name: "/ 中的文件" }).getByText("salaries.xlsx", { exact: true })).toBeVisible();
        await screenshotsAt(page, "share-invite-shown-zh", [1440, 1280, 390]);
      });
      // The owner still has every file.
      expect((await o.files.ok("list", { groupId: 0, path: "/inbox" })).names.sort()).toEqual(["mine.txt", "private", "salaries.xlsx"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await o.files.close();
    }
  });

  test("the invite dialog makes a file drop unless the owner ticks the box to show the folder (both languages)", async ({ browser }) => {
    const o = await owner("inviter");
    await o.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    const invitations = async () => (await ok<{ sharelinkinfo: { shareCreateTime: number; shareShowContents: number }[] }>("GET", "/api/share/link/list?shareUrlType=0&pageSize=100", { token: o.token })).sharelinkinfo;
    await withContext(browser, {}, async (_context, page) => {
      await signIn(page, o.account, OWNER_PASSWORD);
      await hydrated(page);
      const toolbar = page.getByRole("toolbar", { name: "File actions" });
      await toolbar.getByRole("button", { name: "Invite" }).click();
      const invite = page.getByRole("dialog", { name: "Invite upload" });
      const box = invite.getByRole("checkbox", { name: /Visitors see the files already in the folder/ });
      await expect(box).not.toBeChecked();
      await screenshotsAt(page, "invite-dialog-drop-en");
      await invite.getByRole("button", { name: "Create invitation" }).click();
      await expect(invite.getByText("Link created")).toBeVisible();
      expect((await invitations()).map((i) => i.shareShowContents)).toEqual([0]);
      await invite.getByRole("button", { name: "Close" }).first().click();
      await expect(invite).toBeHidden();

      await toChinese(page);
      // The switch loads the page again: a click before it hydrates opens nothing.
      await hydrated(page);
      await page.getByRole("toolbar", { name: "文件操作" }).getByRole("button", { name: "邀请上传" }).click();
      const inviteZh = page.getByRole("dialog", { name: "邀请上传" });
      await inviteZh.getByRole("checkbox", { name: /访客可以看到文件夹中已有的文件/ }).check();
      await screenshotsAt(page, "invite-dialog-drop-zh");
      await inviteZh.getByRole("button", { name: "创建邀请" }).click();
      await expect.poll(async () => (await invitations()).map((i) => i.shareShowContents).sort()).toEqual([0, 1]);
    });
    await o.files.close();
  });

  test("a device-bound link without password, refused on a second device, is not headed as a password prompt (both languages, no JavaScript)", async ({ browser }) => {
    const o = await owner();
    await seedFile(o, "/one.txt", new TextEncoder().encode("one"));
    const { shareUrl } = await createLink(o, { shareUrlType: 1, shareFiles: ["/one.txt"], needPassword: false, shareUrlPasswd: "", bindSwitch: 1 });
    await withContext(browser, { javaScriptEnabled: false }, async (_context, page) => {
      await page.goto(shareUrl);
      await expect(page.getByRole("heading", { name: "Open the shared files" })).toBeVisible();
      await page.getByRole("button", { name: "Open" }).click();
      await expect(page.getByRole("heading", { name: "Shared files" })).toBeVisible();
    });
    await withContext(browser, { javaScriptEnabled: false }, async (_context, page) => {
      await page.goto(shareUrl);
      await expect(page.getByRole("alert").filter({ hasText: "This link is already in use on another device." })).toBeVisible();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("This link cannot be opened here");
      await expect(page.getByText("Enter the link's password")).toHaveCount(0);
      await expect(page.getByLabel("Password", { exact: true })).toHaveCount(0);
      await screenshotsAt(page, "share-bound-nopassword-en", [1440, 1280, 390]);
      await toChinese(page);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("无法在此打开该链接");
      await expect(page.getByText("请输入访问密码")).toHaveCount(0);
      await screenshotsAt(page, "share-bound-nopassword-zh", [1440, 1280, 390]);
    });
    await o.files.close();
  });
});
