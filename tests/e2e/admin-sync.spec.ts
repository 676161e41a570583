import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { SyncTask } from "../../contract/sync";
import { e2eRunDir } from "../support/e2e-env";
import { adminToken, ok, uniqueAccount } from "../support/e2e-helpers";
import { auditPage, auditWithoutScript, noScriptConsole, noScriptShot, openConsoleScreen } from "./admin-console";
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




async function taskNamed(name: string): Promise<SyncTask | undefined> {
  const page = await ok<{ list: SyncTask[] }>("GET", `/api/admin/sync-tasks?pageNum=1&pageSize=10&search=${encodeURIComponent(name)}`, { token: await adminToken() });
  return page.list.find((x) => x.name === name);
}

test("without JavaScript: add a sync task in the page's form, edit it to daily, run it now, and delete it after the page's confirmation (en, zh)", async ({ browser }) => {
  test.setTimeout(120_000);
  const name = uniqueAccount("nojs-sync");
  const src = `/sync-e2e/${name}/src`;
  const dst = `/sync-e2e/${name}/dst`;
  await mkdir(path.join(storageRoot(), src), { recursive: true });
  await writeFile(path.join(storageRoot(), src, "report.txt"), "plain forms");
  await writeFile(path.join(storageRoot(), src, "scratch.tmp"), "skip me");
  const { context, page } = await noScriptConsole(browser, "en-US");
  await page.goto("/admin/transfer/sync");
  await expect(page.getByRole("heading", { level: 1, name: "Sync tasks" })).toBeVisible();

  // Add: every frequency's fields are on the page; a refusal comes back to the form with what was typed.
  await page.getByRole("link", { name: "Add sync task" }).click();
  let form = page.getByRole("region", { name: "Add sync task" });
  await form.getByLabel("Task name").fill(name);
  await form.getByLabel("Source path").fill(src);
  await form.getByLabel("Target path").fill("relative/dst");
  await form.getByRole("button", { name: "Confirm" }).click();
  form = page.getByRole("region", { name: "Add sync task" });
  await expect(form.getByLabel("Task name")).toHaveValue(name);
  await expect(form.getByLabel("Target path")).toHaveAttribute("aria-invalid", "true");
  expect(await taskNamed(name)).toBeUndefined();
  await form.getByLabel("Target path").fill(dst);
  await expect(form.getByLabel("Frequency")).toHaveValue("manual");
  await form.getByLabel("Keep modified time").check();
  await form.getByLabel("Filters").fill("*.tmp");
  await auditWithoutScript(page, "en-US", "sync task form without JavaScript (en)");
  await noScriptShot(page, "sync-form-en");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Sync task saved")).toBeVisible();
  await expect(page.getByRole("region", { name: "Add sync task" })).toHaveCount(0);
  const added = await taskNamed(name);
  expect(added).toMatchObject({ status: "not_set", nextRunAt: null, frequency: { kind: "manual" }, source: { storageId: 1, path: src }, target: { storageId: 1, path: dst }, filters: "*.tmp" });
  expect(added!.options.keepMtime).toBe(true);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("Manual (run now only)");

  // Edit: daily at a time of day.
  await row.getByRole("link", { name: "Edit" }).click();
  form = page.getByRole("region", { name: "Edit sync task" });
  await expect(form.getByLabel("Task name")).toHaveValue(name);
  await expect(form.getByLabel("Filters")).toHaveValue("*.tmp");
  await form.getByLabel("Frequency").selectOption("daily");
  await form.getByLabel("Time of day (HH:MM)").fill("03:30");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Sync task saved")).toBeVisible();
  const edited = await taskNamed(name);
  expect(edited).toMatchObject({ id: added!.id, status: "idle", frequency: { kind: "daily", at: "03:30" }, filters: "*.tmp" });
  expect(edited!.nextRunAt).not.toBeNull();
  await expect(row).toContainText("03:30");

  // Run now: a plain form; the page shows the outcome when it is loaded again.
  await row.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByText("Sync task started")).toBeVisible();
  await expect
    .poll(async () => (await taskNamed(name))?.lastRun, { timeout: 15_000 })
    .toMatchObject({ trigger: "manual", status: "succeed", filesCopied: 1, filesSkipped: 1 });
  expect(await readFile(path.join(storageRoot(), dst, "report.txt"), "utf8")).toBe("plain forms");
  await page.reload();
  await expect(row).toContainText("Succeeded");
  await expect(row).toContainText("1 copied, 0 deleted, 1 skipped");

  // Delete: the page asks first (Cancel keeps the task), then the task is gone.
  await row.getByRole("button", { name: "Delete" }).click();
  let confirm = page.getByRole("alertdialog", { name: `Delete the sync task ${name} and its history? Files are left as they are.` });
  await expect(confirm).toBeVisible();
  await auditWithoutScript(page, "en-US", "sync delete confirmation without JavaScript (en)");
  await noScriptShot(page, "sync-delete-en");
  await confirm.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  expect(await taskNamed(name)).toBeDefined();
  await row.getByRole("button", { name: "Delete" }).click();
  confirm = page.getByRole("alertdialog", { name: `Delete the sync task ${name} and its history? Files are left as they are.` });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Sync task deleted")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0);
  expect(await taskNamed(name)).toBeUndefined();
  await context.close();

  // Chinese: add, run now, delete after the confirmation.
  const zhName = uniqueAccount("nojs-sync-zh");
  const zh = await noScriptConsole(browser, "zh-CN");
  await zh.page.goto("/admin/transfer/sync");
  await zh.page.getByRole("link", { name: "添加同步任务" }).click();
  const zhForm = zh.page.getByRole("region", { name: "添加同步任务" });
  await zhForm.getByLabel("任务名称").fill(zhName);
  await zhForm.getByLabel("源路径").fill(src);
  await zhForm.getByLabel("目标路径").fill(`/sync-e2e/${name}/dst-zh`);
  await auditWithoutScript(zh.page, "zh-CN", "sync task form without JavaScript (zh)");
  await noScriptShot(zh.page, "sync-form-zh");
  await zhForm.getByRole("button", { name: "确定" }).click();
  await expect(zh.page.getByText("同步任务已保存")).toBeVisible();
  expect(await taskNamed(zhName)).toMatchObject({ status: "not_set", frequency: { kind: "manual" } });
  const zhRow = zh.page.getByRole("row").filter({ hasText: zhName });
  await zhRow.getByRole("button", { name: "立即运行" }).click();
  await expect(zh.page.getByText("同步任务已开始")).toBeVisible();
  await expect.poll(async () => (await taskNamed(zhName))?.lastRun?.status, { timeout: 15_000 }).toBe("succeed");
  await zhRow.getByRole("button", { name: "删除" }).click();
  const zhConfirm = zh.page.getByRole("alertdialog", { name: `删除同步任务 ${zhName} 及其历史？文件保持不变。` });
  await auditWithoutScript(zh.page, "zh-CN", "sync delete confirmation without JavaScript (zh)");
  await noScriptShot(zh.page, "sync-delete-zh");
  await zhConfirm.getByRole("button", { name: "删除" }).click();
  await expect(zh.page.getByText("同步任务已删除")).toBeVisible();
  expect(await taskNamed(zhName)).toBeUndefined();
  await zh.context.close();
});
