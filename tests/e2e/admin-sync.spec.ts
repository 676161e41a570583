import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { e2eRunDir } from "../support/e2e-env";
import { uniqueAccount } from "../support/e2e-helpers";
import { auditPage, openConsoleScreen } from "./admin-console";
import { expect, test } from "./fixtures";

/**
 * The admin console's Sync tasks screen (admin document, section 2 "Transfer: Sync tasks"; issue
 * 17): a task is added in the form, run now, and its run shows as succeeded in the list and in the
 * history, in English and in Chinese — against the engine, with the files on its built-in storage.
 */

const SCREENS = "/tmp/ferry/screens/sync";
const storageRoot = () => path.join(e2eRunDir(), "data", "storage");
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });

test("the administrator adds a sync task, runs it now and sees it succeed, with its history (en, zh)", async ({ browser }) => {
  test.setTimeout(90_000);
  const name = uniqueAccount("sync");
  const src = `/sync-e2e/${name}/src`;
  const dst = `/sync-e2e/${name}/dst`;
  await mkdir(path.join(storageRoot(), src, "docs"), { recursive: true });
  await writeFile(path.join(storageRoot(), src, "report.txt"), "quarterly numbers");
  await writeFile(path.join(storageRoot(), src, "docs", "notes.txt"), "notes");
  await writeFile(path.join(storageRoot(), src, "scratch.tmp"), "skip me");

  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/transfer/sync", "Sync tasks");
  await page.getByRole("link", { name: "Add sync task" }).click();
  const form = page.getByRole("region", { name: "Add sync task" });
  await form.getByLabel("Task name").fill(name);
  await form.getByLabel("Source path").fill(src);
  await form.getByLabel("Target path").fill(dst);
  await expect(form.getByLabel("Frequency")).toHaveValue("manual");
  await form.getByLabel("Keep modified time").check();
  await form.getByLabel("Filters").fill("*.tmp");
  // A refusal of the form itself: an interval under 10 seconds.
  await form.getByLabel("Frequency").selectOption("interval");
  await form.getByLabel("Interval").fill("5");
  await form.getByLabel("Unit").selectOption("seconds");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(form.getByText("At least 10 seconds")).toBeVisible();
  await form.getByLabel("Frequency").selectOption("manual");
  await auditPage(page, "sync task form (en)");
  await shot(page, "sync-form-en");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Sync task saved")).toBeVisible();
  await expect(form).toBeHidden();

  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Not set");
  await expect(row).toContainText("Manual (run now only)");
  await row.getByRole("button", { name: "Run now" }).click();
  // The page follows the run by itself until it has ended.
  await expect(row).toContainText("Succeeded", { timeout: 15_000 });
  await expect(row).toContainText("2 copied, 0 deleted, 1 skipped");
  expect(await readFile(path.join(storageRoot(), dst, "report.txt"), "utf8")).toBe("quarterly numbers");
  expect(await readFile(path.join(storageRoot(), dst, "docs", "notes.txt"), "utf8")).toBe("notes");
  await auditPage(page, "sync tasks list (en)");
  await shot(page, "sync-list-en");

  await row.getByRole("link", { name: "History" }).click();
  const history = page.getByRole("table", { name: `Runs of ${name}` });
  await expect(history.getByRole("row")).toHaveCount(2);
  await expect(history).toContainText("Succeeded");
  await expect(history).toContainText("Run now");
  await auditPage(page, "sync history (en)");
  await shot(page, "sync-history-en");
  await context.close();

  const zh = await openConsoleScreen(browser, "zh-CN", "/admin/transfer/sync", "同步任务");
  const zhRow = zh.page.getByRole("row").filter({ hasText: name });
  await expect(zhRow).toContainText("成功");
  await expect(zhRow).toContainText("复制 2，删除 0，跳过 1");
  await zhRow.getByRole("button", { name: "立即运行" }).click();
  await expect(zh.page.getByText("同步任务已开始")).toBeVisible();
  await expect(zhRow).toContainText("成功", { timeout: 15_000 });
  await zhRow.getByRole("link", { name: "历史" }).click();
  const zhHistory = zh.page.getByRole("table", { name: `${name} 的运行记录` });
  await expect(zhHistory.getByRole("row")).toHaveCount(3);
  await auditPage(zh.page, "sync history (zh)");
  await shot(zh.page, "sync-history-zh");
  await zh.page.getByRole("link", { name: "添加同步任务" }).click();
  await expect(zh.page.getByRole("region", { name: "添加同步任务" })).toBeVisible();
  await auditPage(zh.page, "sync task form (zh)");
  await shot(zh.page, "sync-form-zh");
  await zh.context.close();
});
