import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { ADMIN_PASSWORD } from "../support/e2e-helpers";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, seedFile, test } from "./fixtures";

/**
 * The console's Logs screen (admin spec section 2 "Logs"): a new user's real sign-ins, folder and
 * preview make the entries; the page filters them (a plain GET form), pages, exports CSV, and
 * stops the user's preview from the preview log after a confirmation, in English and Chinese.
 */
const PASSWORD = "Logs#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/logs";

let account: string;
let socketToken: string;
let files: FileClient;

test.beforeAll(async () => {
  account = uniqueAccount("logs");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  expect((await login(account, "Wrong#Pass-99")).code).toBe(1005);
  socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  files = await connectFiles(FILE_URL, socketToken);
  for (let i = 1; i <= 11; i++) await files.ok("mkdir", { groupId: 0, path: "/", name: `folder-${String(i).padStart(2, "0")}` });
  await seedFile(files, socketToken, "/guide.pdf", "%PDF-1.4 a tiny pdf");
});
test.afterAll(async () => {
  await files?.close();
});

const LOCALES = [
  { locale: "en-US", lang: "en", title: "Logs", user: "User", kind: "Operation", failed: "Sign-in failed", mkdir: "New folder", search: "Search", reset: "Reset", exportCsv: "Export CSV", previews: "Preview log", stop: "Stop", stopped: "Preview stopped", table: "Operation log", previewTable: "Preview log" },
  { locale: "zh-CN", lang: "zh", title: "日志", user: "用户", kind: "操作", failed: "登录失败", mkdir: "新建文件夹", search: "搜索", reset: "重置", exportCsv: "导出 CSV", previews: "预览日志", stop: "停止", stopped: "预览已停止", table: "操作日志", previewTable: "预览日志" },
] as const;

for (const l of LOCALES) {
  test(`logs: filter, page, export, stop a preview (${l.lang})`, async ({ browser }) => {
    const { context, page } = await adminConsolePage(browser, l.locale);
    await page.goto("/admin/logs");
    await expect(page.getByRole("heading", { name: l.title, level: 1 })).toBeVisible();

    // Filter: this user's failed sign-ins.
    const search = page.getByRole("search");
    await search.getByLabel(l.user, { exact: true }).fill(account);
    await search.getByLabel(l.kind, { exact: true }).selectOption({ label: l.failed });
    await search.getByRole("button", { name: l.search }).click();
    await expect(page).toHaveURL(new RegExp(`user=${account}.*kind=signin_failed`));
    const table = page.getByRole("table", { name: l.table });
    await expect(table.getByRole("row")).toHaveCount(2);
    await expect(table.getByRole("row").nth(1)).toContainText(account);
    await expect(table.getByRole("row").nth(1)).toContainText("1005");

    // Export: the same filter as CSV.
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: l.exportCsv }).click();
    const csv = await readFile((await (await download).path())!, "utf8");
    const lines = csv.replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,${account},`);
    expect(lines[1]).toContain(",signin_failed,");

    // Paging: this user's 11 folders, 10 a page, newest first.
    await page.goto(`/admin/logs?user=${account}&kind=mkdir&size=10`);
    await expect(table.getByRole("row")).toHaveCount(11);
    await expect(table.getByRole("row").nth(1)).toContainText("/folder-11");
    await page.getByRole("link", { name: /^(Next page|下一页)$/ }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(table.getByRole("row")).toHaveCount(2);
    await expect(table.getByRole("row").nth(1)).toContainText("/folder-01");
    await page.getByRole("link", { name: l.reset }).click();
    await expect(page).not.toHaveURL(/user=/);
    await auditPage(page, `logs ${l.lang}`);
    await consoleScreens(page, `admin-logs-${l.lang}`);

    // The preview log: the user opens a preview; the administrator stops it after confirming.
    const { url } = await files.ok("preview", { groupId: 0, path: "/guide.pdf" });
    expect((await fetch(FILE_URL + url)).status).toBe(200);
    await page.getByRole("tab", { name: l.previews }).click();
    const previews = page.getByRole("table", { name: l.previewTable });
    const row = previews.getByRole("row").filter({ hasText: account });
    await expect(row).toHaveCount(1);
    await auditPage(page, `preview log ${l.lang}`);
    await consoleScreens(page, `admin-logs-previews-${l.lang}`);
    await row.getByRole("button", { name: new RegExp(l.stop) }).click();
    await page.getByRole("dialog").getByRole("button", { name: l.stop, exact: true }).click();
    await expect(page.getByText(l.stopped)).toBeVisible();
    await expect(previews.getByRole("row").filter({ hasText: account })).toHaveCount(0);
    expect((await fetch(FILE_URL + url)).status).toBe(403);

    await mkdir(SCREENS, { recursive: true });
    for (const name of [`admin-logs-${l.lang}`, `admin-logs-${l.lang}-1280`, `admin-logs-previews-${l.lang}`, `admin-logs-previews-${l.lang}-1280`]) {
      await copyFile(path.join("test-results", "screens", `${name}.png`), path.join(SCREENS, `${name}.png`));
    }
    await context.close();
  });
}

test("logs: without JavaScript, Stop asks on the page first, then stops the preview", async ({ browser }) => {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1440, height: 900 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  const { url } = await files.ok("preview", { groupId: 0, path: "/guide.pdf" });
  expect((await fetch(FILE_URL + url)).status).toBe(200);
  await page.goto("/admin/logs?tab=previews");
  const row = page.getByRole("table", { name: "Preview log" }).getByRole("row").filter({ hasText: account });
  await row.getByRole("button", { name: /^Stop the preview/ }).click();
  await expect(page).toHaveURL(/confirm=/);
  await expect(page.getByText(`Stop ${account}'s preview of /guide.pdf? It ends at once.`)).toBeVisible();
  expect((await fetch(FILE_URL + url)).status).toBe(200);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect(page.getByText("Preview stopped")).toBeVisible();
  expect((await fetch(FILE_URL + url)).status).toBe(403);
  await context.close();
});
