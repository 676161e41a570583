import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import type { AdminStorage } from "../../contract/storage";
import { adminToken, ok, uniqueAccount } from "../support/e2e-helpers";
import { S3RVER_KEYS, type S3Server, startS3rver } from "../support/s3";
import { auditPage, openConsoleScreen } from "./admin-console";
import { expect, screenshot, test } from "./fixtures";

/**
 * The admin console's Storage screen (admin document, section 2 "Resource: Storage", section 3
 * "Storage"): an S3 storage on a real S3-compatible server (s3rver) is added after a passing
 * connection test, edited with its stored secrets kept, made the default, and deleted after a
 * confirmation naming it — in English and Chinese, with axe on each state.
 */

const SCREENS = "/tmp/ferry/screens/storage";
let s3: S3Server;

test.beforeAll(async () => {
  s3 = await startS3rver("e2e-bucket");
  await mkdir(SCREENS, { recursive: true });
});
test.afterAll(async () => {
  await s3?.stop();
});

async function shot(page: Page, name: string) {
  await screenshot(page, name);
  await page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
}

async function storageNamed(name: string): Promise<AdminStorage | undefined> {
  const page = await ok<{ list: AdminStorage[] }>("GET", `/api/admin/storages?pageNum=1&pageSize=100&search=${encodeURIComponent(name)}`, { token: await adminToken() });
  return page.list.find((s) => s.name === name);
}

test("the administrator adds an S3 storage after a passing connection test, edits it, makes it the default and deletes it", async ({ browser }) => {
  test.setTimeout(120_000);
  const name = uniqueAccount("bucket");
  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/storage", "Storage");
  const table = page.getByRole("table", { name: "Storages" });
  const badge = (text: string) => page.getByText(text, { exact: true });
  await expect(table.getByRole("row").filter({ has: badge("Default") })).toHaveCount(1);

  await page.getByRole("button", { name: "Add storage" }).click();
  const dialog = page.getByRole("dialog", { name: "Add storage" });
  await dialog.getByRole("textbox", { name: "Name", exact: true }).fill(name);
  await dialog.getByLabel("Type", { exact: true }).selectOption("s3compatible");
  await dialog.getByLabel("Endpoint", { exact: true }).fill(s3.endpoint);
  await dialog.getByLabel("Bucket name", { exact: true }).fill(s3.bucket);
  await dialog.getByLabel("Region", { exact: true }).fill("us-east-1");
  await dialog.getByLabel("Access key ID", { exact: true }).fill(S3RVER_KEYS.accessKeyId);
  await dialog.getByLabel("Access key secret", { exact: true }).fill(S3RVER_KEYS.secretAccessKey);
  await dialog.getByLabel("Path", { exact: true }).fill(`e2e/${name}`);
  await dialog.getByRole("button", { name: "Test connection" }).click();
  await expect(dialog.getByRole("status")).toContainText("Connection works");
  await auditPage(page, "storage dialog (en)");
  await shot(page, "storage-add-en");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Storage saved")).toBeVisible();
  await expect(dialog).toBeHidden();
  const row = table.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("S3-compatible");
  await expect(row).toContainText(`${s3.bucket}/e2e/${name}`);
  const saved = await storageNamed(name);
  expect(saved).toMatchObject({ provider: "s3compatible", accessKeyIdSet: true, secretAccessKeySet: true, isDefault: false });
  // The page never holds a credential.
  expect(await page.content()).not.toContain(S3RVER_KEYS.secretAccessKey);
  await auditPage(page, "storage list (en)");
  await shot(page, "storage-list-en");

  // Edit: the secrets are stored and left empty; the test uses the stored ones.
  await row.getByRole("button", { name: `Edit ${name}` }).click();
  const edit = page.getByRole("dialog", { name: "Edit storage" });
  await expect(edit.getByLabel("Access key secret", { exact: true })).toHaveValue("");
  await expect(edit.getByText("Stored; leave empty to keep it.").first()).toBeVisible();
  await edit.getByRole("textbox", { name: "Name", exact: true }).fill(`${name}-2`);
  await edit.getByRole("button", { name: "Test connection" }).click();
  await expect(edit.getByRole("status")).toContainText("Connection works");
  await edit.getByRole("button", { name: "Confirm" }).click();
  // The add's "Storage saved" may still be shown: the edit is saved once its dialog closes.
  await expect(edit).toBeHidden();
  await expect(page.getByText("Storage saved")).toBeVisible();
  expect(await storageNamed(`${name}-2`)).toMatchObject({ id: saved!.id, secretAccessKeySet: true });

  // Default: the badge moves; then back to the local storage (other tests create users on the default).
  const renamed = table.getByRole("row").filter({ hasText: `${name}-2` });
  await renamed.getByRole("button", { name: `Set ${name}-2 as default` }).click();
  await expect(page.getByText(`${name}-2 is now the default storage`)).toBeVisible();
  await expect(renamed.filter({ has: badge("Default") })).toHaveCount(1);
  await expect(renamed.getByRole("button", { name: `Delete ${name}-2` })).toHaveCount(0);
  expect(await storageNamed(`${name}-2`)).toMatchObject({ isDefault: true });
  const local = table.getByRole("row").filter({ has: page.getByRole("button", { name: /^Set .* as default$/ }) }).filter({ hasText: "Local" }).first();
  await local.getByRole("button", { name: /^Set .* as default$/ }).click();
  await expect(renamed.getByRole("button", { name: `Set ${name}-2 as default` })).toBeVisible();
  expect(await storageNamed(`${name}-2`)).toMatchObject({ isDefault: false });

  // Delete, after a confirmation that names it.
  await renamed.getByRole("button", { name: `Delete ${name}-2` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete storage" });
  await expect(confirm).toContainText(`“${name}-2”`);
  await auditPage(page, "storage delete confirmation (en)");
  await shot(page, "storage-delete-en");
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Storage deleted")).toBeVisible();
  await expect(table.getByRole("row").filter({ hasText: `${name}-2` })).toHaveCount(0);
  expect(await storageNamed(`${name}-2`)).toBeUndefined();
  await context.close();
});

test("in Chinese: the dialog and a failing connection test (wrong key) are translated", async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await openConsoleScreen(browser, "zh-CN", "/admin/storage", "存储");
  await expect(page.getByRole("table", { name: "存储列表" }).getByText("默认", { exact: true })).toHaveCount(1);
  await auditPage(page, "storage list (zh)");
  await shot(page, "storage-list-zh");
  await page.getByRole("button", { name: "添加存储" }).click();
  const dialog = page.getByRole("dialog", { name: "添加存储" });
  await dialog.getByRole("textbox", { name: "名称", exact: true }).fill(uniqueAccount("zh"));
  await dialog.getByLabel("类型", { exact: true }).selectOption("s3compatible");
  await dialog.getByLabel("Endpoint", { exact: true }).fill(s3.endpoint);
  await dialog.getByLabel("存储桶名称", { exact: true }).fill(s3.bucket);
  await dialog.getByLabel("Access Key ID", { exact: true }).fill("NOT-THE-KEY");
  await dialog.getByLabel("Access Key Secret", { exact: true }).fill("wrong");
  await dialog.getByRole("button", { name: "测试连接" }).click();
  await expect(dialog.getByRole("alert")).toContainText("连接测试失败：存储连接失败");
  await auditPage(page, "storage dialog (zh)");
  await shot(page, "storage-add-zh");
  await dialog.getByRole("button", { name: "取消" }).click();
  await expect(dialog).toBeHidden();
  await context.close();
});

/** A saved local storage (auto-clean by modified time) in a fresh folder outside Ferry's data; removed by the caller. */
async function localCleanStorage(name: string): Promise<{ storage: AdminStorage; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "ferry-e2e-clean-"));
  const storage = await ok<AdminStorage>("POST", "/api/admin/storages", { token: await adminToken(), body: { name, provider: "local", path: dir, cleanBy: "modified", cleanAge: "7d" } });
  return { storage, dir };
}

for (const { locale, title, table, edit, dryRun, summary, list, dialogName, nameLabel, cancel, note, runNow, confirmTitle, confirmText, ran } of [
  {
    locale: "en-US", title: "Storage", table: "Storages", edit: "Edit", dryRun: "Dry run", summary: "A run would move 0 and delete 0 files", list: "Files a run would clean", dialogName: "Edit storage", nameLabel: "Name", cancel: "Cancel",
    note: "Dry run and Run now use the saved settings: files not modified for 7 days are deleted.", runNow: "Run now", confirmTitle: "Run auto-clean now?", confirmText: "with the saved settings: files not modified for 7 days are deleted", ran: "Moved 0 and deleted 0 files",
  },
  {
    locale: "zh-CN", title: "存储", table: "存储列表", edit: "编辑", dryRun: "试运行", summary: "运行将移动 0 个、删除 0 个文件", list: "运行将清理的文件", dialogName: "编辑存储", nameLabel: "名称", cancel: "取消",
    note: "试运行和立即运行使用已保存的设置：超过7天未修改的文件将被删除。", runNow: "立即运行", confirmTitle: "立即运行自动清理？", confirmText: "超过7天未修改的文件将被删除", ran: "已移动 0 个、删除 0 个文件",
  },
]) {
  test(`a saved local storage's dialog shows its auto-clean dry run, and runs it after a confirmation naming the saved settings (${locale})`, async ({ browser }) => {
    test.setTimeout(90_000);
    const name = uniqueAccount("clean");
    const { storage, dir } = await localCleanStorage(name);
    try {
      const { context, page } = await openConsoleScreen(browser, locale, `/admin/storage?q=${encodeURIComponent(name)}`, title);
      const row = page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: name });
      await row.getByRole("button", { name: new RegExp(`^${edit}`) }).click();
      const dialog = page.getByRole("dialog", { name: dialogName });
      await expect(dialog.getByRole("textbox", { name: nameLabel, exact: true })).toHaveValue(name);
      await dialog.getByRole("button", { name: dryRun }).click();
      await expect(dialog.getByRole("status")).toContainText(summary);
      await expect(dialog.getByRole("table", { name: list })).toBeVisible();
      await auditPage(page, `storage auto-clean dry run (${locale})`);
      await shot(page, `storage-autoclean-${locale.slice(0, 2)}`);

      // The dialog's form may hold unsaved changes: the panel says which settings a run uses.
      await expect(dialog.getByText(note)).toBeVisible();
      // Run now asks first; Cancel runs nothing.
      await dialog.getByRole("button", { name: runNow }).click();
      const confirm = page.getByRole("dialog", { name: confirmTitle });
      await expect(confirm).toContainText(name);
      await expect(confirm).toContainText(confirmText);
      await auditPage(page, `storage auto-clean run confirmation (${locale})`);
      await shot(page, `storage-autoclean-confirm-${locale.slice(0, 2)}`);
      await confirm.getByRole("button", { name: cancel, exact: true }).click();
      await expect(confirm).toBeHidden();
      await expect(dialog.getByRole("status")).toContainText(summary);
      // Confirmed, it runs and says what it did.
      await dialog.getByRole("button", { name: runNow }).click();
      await confirm.getByRole("button", { name: runNow }).click();
      await expect(confirm).toBeHidden();
      await expect(dialog.getByRole("status")).toContainText(ran);
      await dialog.getByRole("button", { name: cancel, exact: true }).click();
      await expect(dialog).toBeHidden();
      await context.close();
    } finally {
      await ok("DELETE", `/api/admin/storages/${storage.id}`, { token: await adminToken() });
      await rm(dir, { recursive: true, force: true });
    }
  });
}
