import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { zipNames } from "../support/zip-listing";
import { expect, hydrated, openTransfers, screenshot, seedFile, seriousViolations, signIn, test } from "./fixtures";

/**
 * The file filter (docs/file-server.md, "File filter"): an administrator sets skip patterns on a
 * user; a folder the user uploads goes up without the files they name — the transfer list says
 * those were skipped, not failed — and a zip of the folder leaves such files out.
 */

const PASSWORD = "Filter#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/filter";
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-filter-"));
const UPLOADED_WAIT = { timeout: 30_000 };

function makeFile(relative: string, text: string): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const panel = (page: Page) => page.getByRole("region", { name: /^(Transfers|传输列表)$/ });
const row = (page: Page, name: string) => panel(page).getByRole("listitem", { name });
const table = (page: Page) => page.getByRole("region", { name: /^Files in|中的(分享)?文件$/ });

/** The screenshot beside the run's own, copied to the shared screens folder. */
async function shot(page: Page, name: string) {
  await screenshot(page, name);
  mkdirSync(SCREENS, { recursive: true });
  copyFileSync(path.join("test-results", "screens", `${name}.png`), path.join(SCREENS, `${name}.png`));
}

async function names(files: FileClient, folder: string): Promise<string[]> {
  return (await files.ok("list", { groupId: 0, path: folder })).names.sort();
}

test.describe("file filter", () => {
  test.describe.configure({ timeout: 120_000 });

  test("a folder upload skips the files the user's filter names and says so; the folder's zip leaves them out", async ({ page }) => {
    const account = uniqueAccount("filtered");
    const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
    const files = await connectFiles(FILE_URL, socketToken);
    try {
      // A file the filter will name, there before the filter was set.
      await seedFile(files, socketToken, "/project/old.tmp", "stale");
      await ok("PATCH", `/api/admin/users/${user.id}`, { token: await adminToken(), body: { transIgnoreRegSwitch: true, transIgnoreReg: "*.tmp;~*" } });

      await signIn(page, account, PASSWORD);
      await expect(page).toHaveURL(/\/personal$/);
      await hydrated(page);

      makeFile("project/readme.txt", "read me");
      makeFile("project/draft.tmp", "draft");
      makeFile("project/src/main.txt", "main");
      makeFile("project/src/~lock.txt", "lock");
      await page.getByLabel("Upload folder").setInputFiles(path.join(workDir, "project"));
      await openTransfers(page);
      for (const name of ["readme.txt", "main.txt"]) await expect(row(page, name)).toContainText("Uploaded", UPLOADED_WAIT);
      await expect(row(page, "draft.tmp")).toContainText("Skipped: the file filter of this space leaves out files of this name or size");
      await expect(row(page, "~lock.txt")).toContainText("Skipped");
      await expect(row(page, "draft.tmp")).not.toContainText("Upload failed");
      await expect(row(page, "draft.tmp").getByRole("button", { name: /Retry/ })).toHaveCount(0);
      await expect(panel(page).getByRole("heading")).toContainText("2 done");
      await expect(panel(page).getByRole("heading")).toContainText("2 skipped");
      await expect(panel(page).getByRole("heading")).not.toContainText("failed");
      expect(await seriousViolations(page), "the transfer list with skipped files: serious or critical accessibility violations").toEqual([]);
      await shot(page, "filter-skipped-panel-en-1440");

      expect(await names(files, "/project")).toEqual(["old.tmp", "readme.txt", "src"]);
      expect(await names(files, "/project/src")).toEqual(["main.txt"]);

      // The folder's zip, as the toolbar downloads it: the filtered file stays out, the rest is there.
      await page.getByRole("banner").click();
      await table(page).getByRole("checkbox", { name: "Select row project" }).check();
      const arrived = page.waitForEvent("download");
      await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Download", exact: true }).click();
      const download = await arrived;
      expect(download.suggestedFilename()).toBe("project.zip");
      const zip = readFileSync((await download.path())!);
      expect(await zipNames(zip)).toEqual(["project/", "project/readme.txt", "project/src/", "project/src/main.txt"]);

      // Chinese: the same skip, in Chinese.
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.getByRole("button", { name: "上传文件", exact: true })).toBeVisible();
      await hydrated(page);
      makeFile("notes/today.txt", "today");
      makeFile("notes/scratch.tmp", "scratch");
      await page.getByLabel("上传文件夹", { exact: true }).setInputFiles(path.join(workDir, "notes"));
      await openTransfers(page);
      await expect(row(page, "today.txt")).toContainText("已上传", UPLOADED_WAIT);
      await expect(row(page, "scratch.tmp")).toContainText("已跳过：此空间的文件过滤规则不传输此名称或大小的文件");
      await expect(panel(page).getByRole("heading")).toContainText("个已跳过");
      expect(await seriousViolations(page), "the transfer list in Chinese: serious or critical accessibility violations").toEqual([]);
      await shot(page, "filter-skipped-panel-zh-1440");
      await page.setViewportSize({ width: 1280, height: 900 });
      await shot(page, "filter-skipped-panel-zh-1280");
      expect(await names(files, "/notes")).toEqual(["today.txt"]);
    } finally {
      await files.close();
    }
  });
});
