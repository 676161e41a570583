import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { CurrentDatabase } from "../../contract/database";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { ADMIN_PASSWORD, adminToken, call, ok } from "../support/e2e-helpers";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, screenshot, test } from "./fixtures";

/**
 * The console's database page (issue 15; admin document sections 3 "MySQL settings", 4 and 8): the
 * run's engine shown on SQLite, a connection test to the real MariaDB, a wrong password refused with
 * its translated message, and (en) a copy into a throwaway MariaDB database up to the "restart to
 * switch" state, whose switch is then cancelled, so the shared engine never changes database. The
 * switch itself at a restart is tested in tests/engine/database-copy.test.ts.
 */

const dataDir = mkdtempSync(path.join(tmpdir(), "ferry-e2e-db-"));
const throwaway: TestDatabase[] = [];

async function freshDatabase(): Promise<string> {
  const db = await createTestDatabase(dataDir, "mysql");
  throwaway.push(db);
  return new URL(db.url).pathname.slice(1);
}

/** The run's engine never keeps a switch: whatever a test left waiting is forgotten. */
test.afterEach(async () => {
  const token = await adminToken();
  const now = await ok<CurrentDatabase>("GET", "/api/admin/database", { token });
  if (now.pending) await ok("DELETE", "/api/admin/database/pending", { token });
});
test.afterAll(async () => {
  for (const db of throwaway) await db.drop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

const LABELS = {
  en: { server: "Database server", address: "Address", port: "Port", database: "Database name", account: "Account", password: "Password", test: "Test connection", mariadb: "MariaDB / MySQL" },
  zh: { server: "数据库服务器", address: "地址", port: "端口", database: "数据库名", account: "账号", password: "密码", test: "测试连接", mariadb: "MariaDB / MySQL" },
} as const;

async function fillTarget(page: Page, lang: "en" | "zh", database: string, password = "") {
  const l = LABELS[lang];
  await page.getByRole("combobox", { name: l.server }).selectOption({ label: l.mariadb });
  await page.getByRole("textbox", { name: l.address, exact: true }).fill("127.0.0.1");
  await page.getByRole("spinbutton", { name: l.port, exact: true }).fill("3306");
  await page.getByRole("textbox", { name: l.database, exact: true }).fill(database);
  await page.getByRole("textbox", { name: l.account, exact: true }).fill("root");
  await page.getByRole("textbox", { name: l.password, exact: true }).fill(password);
}

test("en: the page shows SQLite; a test connection to MariaDB succeeds, a wrong password is refused; a copy into a throwaway database ends verified, waiting for the restart, and is cancelled", async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await adminConsolePage(browser, "en-US");
  try {
    await page.goto("/admin/settings/mysql");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "MySQL" })).toBeVisible();
    const facts = page.getByRole("definition");
    await expect(facts.filter({ hasText: /^SQLite \(built-in file\)$/ })).toBeVisible();
    await expect(facts.filter({ hasText: /ferry\.db$/ })).toBeVisible();
    await auditPage(page, "database page");
    await consoleScreens(page, "admin-database-en");

    const name = await freshDatabase();
    await fillTarget(page, "en", name);
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Connected to mysql://root@127.0.0.1:3306/${name}` })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "The database holds none of Ferry's tables: ready to copy." })).toBeVisible();
    await consoleScreens(page, "admin-database-tested-en");

    await page.getByRole("textbox", { name: "Password", exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The database server refused the account or password" })).toBeVisible();
    await page.mouse.move(0, 0); // the button just clicked is not hovered while axe reads its colours
    await auditPage(page, "database page, refused");

    await page.getByRole("textbox", { name: "Password", exact: true }).fill("");
    await page.getByRole("button", { name: "Copy and switch" }).click();
    const dialog = page.getByRole("dialog", { name: `Copy into mysql://127.0.0.1:3306/${name}?` });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Start the copy" }).click();
    await expect(page.getByRole("status").filter({ hasText: /^Copied and verified: \d+ rows in \d+ tables\. Restart the server to switch to mysql:\/\/root@127\.0\.0\.1:3306\// })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("status").filter({ hasText: "Waiting for a restart" })).toBeVisible();
    const result = page.getByRole("table", { name: "Rows copied per table" });
    await expect(result.getByRole("row").filter({ hasText: "sessions" }).getByText("Same rows")).toBeVisible();
    await expect(page.getByRole("button", { name: "Restart now" })).toBeVisible();
    await consoleScreens(page, "admin-database-copied-en");
    await page.mouse.move(0, 0);
    await auditPage(page, "database page, copied");

    // Restart now asks in the kit's dialog first; Cancel keeps the switch waiting and gives the focus back.
    await page.getByRole("button", { name: "Restart now" }).click();
    const restart = page.getByRole("dialog", { name: "Restart the Ferry server now?" });
    await expect(restart).toContainText("copies the database once more");
    await screenshot(page, "admin-database-restart-dialog-en");
    await restart.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(restart).toBeHidden();
    await expect(page.getByRole("button", { name: "Restart now" })).toBeFocused();
    await expect(page.getByRole("status").filter({ hasText: "Waiting for a restart" })).toBeVisible();

    await page.getByRole("button", { name: "Cancel the switch" }).click();
    await expect(page.getByText("Waiting for a restart")).toHaveCount(0);
    expect((await ok<CurrentDatabase>("GET", "/api/admin/database", { token: await adminToken() })).pending).toBeNull();
  } finally {
    await context.close();
  }
});

test("zh: 页面显示 SQLite；测试连接 MariaDB 成功，错误的密码显示中文提示", async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await adminConsolePage(browser, "zh-CN");
  try {
    await page.goto("/admin/settings/mysql");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "MySQL" })).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: /^SQLite（内置文件）$/ })).toBeVisible();
    const name = await freshDatabase();
    await fillTarget(page, "zh", name);
    await page.getByRole("button", { name: "测试连接" }).click();
    await expect(page.getByRole("status").filter({ hasText: "该数据库中没有 Ferry 的数据表，可以复制。" })).toBeVisible();
    await page.getByRole("textbox", { name: "密码", exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "测试连接" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "数据库服务器拒绝了该账号或密码" })).toBeVisible();
    await page.getByRole("textbox", { name: "数据库名", exact: true }).fill("bad name");
    await page.getByRole("button", { name: "测试连接" }).click();
    await expect(page.getByText("只能包含字母、数字、_、$ 和 -")).toBeVisible();
    await page.mouse.move(0, 0);
    await auditPage(page, "数据库页面");
    await consoleScreens(page, "admin-database-zh");

    // 复制完成后“立即重启”先在组件库的对话框中确认；取消后焦点回到按钮。
    await fillTarget(page, "zh", name);
    await page.getByRole("button", { name: "复制并切换" }).click();
    await page.getByRole("dialog", { name: `复制到 mysql://127.0.0.1:3306/${name}？` }).getByRole("button", { name: "开始复制" }).click();
    await expect(page.getByRole("status").filter({ hasText: "等待重启" })).toBeVisible({ timeout: 30_000 });
    await page.getByRole("button", { name: "立即重启" }).click();
    const restart = page.getByRole("dialog", { name: "立即重启 Ferry 服务器？" });
    await expect(restart).toBeVisible();
    await screenshot(page, "admin-database-restart-dialog-zh");
    await page.keyboard.press("Escape");
    await expect(restart).toBeHidden();
    await expect(page.getByRole("button", { name: "立即重启" })).toBeFocused();
  } finally {
    await context.close();
  }
});

const REFRESH = "Refresh";

test("without JavaScript: Copy and switch asks on the page first with the target kept, nothing copied until confirmed; the confirmed copy ends waiting for the restart", async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext({ locale: "en-US", javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);
    await page.goto("/admin/settings/mysql");
    await expect(page.getByRole("heading", { level: 1, name: "MySQL" })).toBeVisible();
    const name = await freshDatabase();
    await fillTarget(page, "en", name);
    await page.getByRole("button", { name: "Copy and switch" }).click();

    // The question, in the page; the target is still filled in and nothing has started.
    const ask = page.getByRole("group", { name: `Copy into mysql://127.0.0.1:3306/${name}?` });
    await expect(ask).toBeVisible();
    await expect(ask).toContainText("Confirm to start the copy.");
    await expect(page.getByRole("textbox", { name: "Database name", exact: true })).toHaveValue(name);
    await expect(page.getByRole("textbox", { name: "Address", exact: true })).toHaveValue("127.0.0.1");
    expect((await ok<CurrentDatabase>("GET", "/api/admin/database", { token: await adminToken() })).pending).toBeNull();
    // (axe needs scripts in the page: these states are audited by the tests with JavaScript.)
    await ask.scrollIntoViewIfNeeded();
    await consoleScreens(page, "admin-database-nojs-ask-en");

    await ask.getByRole("button", { name: "Start the copy" }).click();
    // Without JavaScript nothing polls: the running copy offers a link that looks again, followed until the copy has ended.
    const waiting = page.getByRole("status").filter({ hasText: "Waiting for a restart" });
    await expect
      .poll(
        async () => {
          const refresh = page.getByRole("link", { name: REFRESH });
          if (await refresh.isVisible()) await refresh.click();
          return waiting.count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await expect(page.getByRole("status").filter({ hasText: /^Copied and verified: \d+ rows in \d+ tables\./ })).toBeVisible();
    // Restart now without JavaScript: the kit's question in the page, which names what happens; Cancel comes back.
    await page.getByRole("button", { name: "Restart now" }).click();
    await expect(page).toHaveURL(/\/admin\/settings\/mysql\?confirm=restart$/);
    const restartAsk = page.getByRole("alertdialog", { name: /Transfers in progress stop and resume after the restart/ });
    await expect(restartAsk.getByRole("button", { name: "Restart now" })).toHaveAttribute("type", "submit");
    await screenshot(page, "admin-database-nojs-restart-en");
    await restartAsk.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(/\/admin\/settings\/mysql$/);
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await page.getByRole("button", { name: "Cancel the switch" }).click();
    await expect(page.getByText("Waiting for a restart")).toHaveCount(0);
    expect((await ok<CurrentDatabase>("GET", "/api/admin/database", { token: await adminToken() })).pending).toBeNull();
  } finally {
    await context.close();
  }
});

test("without an administrator the database routes say nothing", async () => {
  expect((await call("GET", "/api/admin/database")).code).not.toBe(200);
  expect((await call("POST", "/api/admin/database/test", { body: { dialect: "mysql", host: "127.0.0.1", port: 3306, database: "test", user: "root", password: "" } })).code).not.toBe(200);
});
