import type { Browser } from "@playwright/test";
import { ADMIN_PASSWORD, createUser, uniqueAccount } from "../support/e2e-helpers";
import { adminSignIn, auditPage } from "./admin-console";
import { expect, hydrated, screenshot, sessionTimersRunning, signIn, test } from "./fixtures";

/**
 * The admin console's frame (docs/web.md, "Admin console"): its own sign-in, the header, the
 * sidebar exactly as the spec lists it with a page behind every entry, the footer, keyboard use,
 * log out; only the administrator gets in. The first sign-in's forced reset is first-admin.spec.ts.
 */

/** The spec's sidebar (admin document, section 2), in its order, in both languages. */
const SIDEBAR = {
  en: ["Server", "App nodes", "Storage", "General tasks", "Point to point", "Sync tasks", "Request files", "Share files", "Email setting", "Users", "Logs", "Group spaces", "Authentication", "Statistics", "Notifications", "TLS certificate", "Client TLS", "MySQL", "Transfer protocol", "Events", "General", "Site Design"],
  zh: ["服务器", "应用节点", "存储", "普通任务", "点对点", "同步任务", "文件收集", "文件分享", "邮箱设置", "用户", "日志", "群组空间", "认证", "统计", "通知", "TLS 证书", "客户端 TLS", "MySQL", "传输协议", "事件", "通用", "站点设计"],
};
const GROUPS = { en: ["Resource", "Transfer", "Shares", "Users", "Settings"], zh: ["资源", "传输", "分享", "用户", "设置"] };
const TEXT = {
  en: { title: "Admin Console", account: "Account settings", logout: "Log out", menu: "Console menu", version: /Version \d+\.\d+/, copyright: /Copyright ©/ },
  zh: { title: "管理控制台", account: "账号设置", logout: "退出登录", menu: "控制台菜单", version: /版本 \d+\.\d+/, copyright: /版权所有 ©/ },
};

async function consolePage(browser: Browser, locale: string) {
  const context = await browser.newContext({ locale, viewport: { width: 1440, height: 900 } });
  return { context, page: await context.newPage() };
}

test("/admin without the admin session goes to /admin/signin, and back after signing in", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/signin$/);
  await page.goto("/admin/settings/mysql");
  await expect(page).toHaveURL(/\/admin\/signin\?redirectTo=%2Fadmin%2Fsettings%2Fmysql$/);
  await page.getByLabel("Account").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/settings\/mysql$/);
  await expect(page.getByRole("heading", { level: 1, name: "MySQL" })).toBeVisible();
});

for (const lang of ["en", "zh"] as const) {
  test(`the administrator finds header, sidebar, footer and a page behind every entry (${lang})`, async ({ browser }) => {
    // Two dozen pages, each audited: more than the default 30 s on a busy 2-core machine.
    test.setTimeout(120_000);
    const { context, page } = await consolePage(browser, lang === "en" ? "en-US" : "zh-CN");
    const text = TEXT[lang];
    await page.goto("/admin/signin");
    await hydrated(page);
    await auditPage(page, `admin sign-in (${lang})`);
    await screenshot(page, `admin-signin-${lang}`);
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);

    const header = page.getByRole("banner");
    await expect(header.getByText(text.title)).toBeVisible();
    await expect(header.getByRole("link", { name: text.account })).toBeVisible();
    await expect(header.getByRole("button", { name: text.logout })).toBeVisible();
    const footer = page.getByRole("contentinfo");
    await expect(footer).toContainText(text.copyright);
    await expect(footer).toContainText(text.version);

    // Every entry of the spec, in its order, and its groups' names.
    const menu = page.getByRole("navigation", { name: text.menu });
    await expect(menu.getByRole("link")).toHaveText(SIDEBAR[lang]);
    for (const group of GROUPS[lang]) await expect(menu.getByRole("list", { name: group })).toBeVisible();
    // The console keeps its minimum width of 1400 px.
    expect(await page.evaluate(() => document.body.firstElementChild?.getBoundingClientRect().width ?? 0)).toBeGreaterThanOrEqual(1400);
    await hydrated(page);
    await auditPage(page, `admin start page (${lang})`);
    await screenshot(page, `admin-console-${lang}`);

    // Each entry leads to a page with the entry's name as its heading, none a dead link.
    for (const [index, name] of SIDEBAR[lang].entries()) {
      await menu.getByRole("link").nth(index).click();
      await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
      await expect(menu.getByRole("link").nth(index)).toHaveAttribute("aria-current", "page");
      await auditPage(page, `${name} (${lang})`);
    }
    await screenshot(page, `admin-coming-${lang}`);
    // Below the minimum width the console keeps 1400 px and the window scrolls sideways.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeGreaterThanOrEqual(1400);
    await screenshot(page, `admin-coming-${lang}-1280`);
    await page.setViewportSize({ width: 1440, height: 900 });

    await header.getByRole("link", { name: text.account }).click();
    await expect(page).toHaveURL(/\/admin\/update-info$/);
    await expect(page.getByLabel(lang === "en" ? "Old password" : "旧密码")).toBeVisible();
    await hydrated(page);
    await auditPage(page, `account settings (${lang})`);
    await screenshot(page, `admin-account-${lang}`);
    await context.close();
  });
}

test("the sidebar is used by keyboard: Tab walks the entries in order, Enter opens one", async ({ page }) => {
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await hydrated(page);
  const menu = page.getByRole("navigation", { name: "Console menu" });
  await menu.getByRole("link", { name: "Server" }).focus();
  for (const name of SIDEBAR.en.slice(1)) {
    await page.keyboard.press("Tab");
    await expect(menu.getByRole("link", { name, exact: true })).toBeFocused();
  }
  await page.keyboard.press("Shift+Tab");
  await expect(menu.getByRole("link", { name: "General", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/admin\/settings\/general$/);
  await expect(page.getByRole("heading", { level: 1, name: "General" })).toBeVisible();
});

test("log out ends the console's session only, and /admin asks to sign in again", async ({ page }) => {
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await page.goto("/admin/users");
  await page.getByRole("banner").getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/admin\/signin$/);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/signin$/);
  // The user app's sign-in is its own: still signed in there.
  await page.goto("/personal");
  await expect(page).toHaveURL(/\/personal$/);
});

test("a user who signs in at /admin/signin gets Site Access Denied, and a user session does not open /admin", async ({ page }) => {
  const account = uniqueAccount("notadmin");
  const password = "Plain#User2026";
  await createUser(account, password);
  await adminSignIn(page, account, password);
  await expect(page.getByText("Access to this site is denied")).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/signin$/);
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain("ferry-admin");
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/signin$/);
  // A user who must still change the password is refused too, not sent to the administrator's reset.
  const fresh = uniqueAccount("newuser");
  await createUser(fresh, password, { needUpdatePwd: true });
  await adminSignIn(page, fresh, password);
  await expect(page.getByText("Access to this site is denied")).toBeVisible();
  await page.goto("/admin/update-info");
  await expect(page).toHaveURL(/\/admin\/signin/);

  // Signed in to the user app, the console still asks for the administrator.
  await signIn(page, account, password);
  await expect(page).toHaveURL(/\/personal$/);
  await page.goto("/admin/users");
  await expect(page).toHaveURL(/\/admin\/signin\?redirectTo=%2Fadmin%2Fusers$/);
});

test("the console's session follows the user app's rules: refreshed every 20 minutes, ended after 30 idle", async ({ page }) => {
  await page.clock.install();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await sessionTimersRunning(page);

  // Activity keeps it alive; at 20 minutes the timer refreshes the token through /admin/session.
  await page.clock.fastForward("15:00");
  await page.getByRole("navigation", { name: "Console menu" }).getByRole("link", { name: "Storage" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Storage" })).toBeVisible();
  const refreshed = page.waitForResponse((r) => /^\/admin\/session(\.data)?$/.test(new URL(r.url()).pathname) && r.request().method() === "POST");
  await page.clock.runFor("06:00");
  expect((await refreshed).ok()).toBe(true);

  // 30 minutes without activity end it, with the logout notice at the console's sign-in.
  await page.clock.fastForward("31:00");
  await expect(page).toHaveURL(/\/admin\/signin\?reason=expired$/);
  await expect(page.getByRole("dialog", { name: "Signed out" })).toBeVisible();
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/signin$/);
});

test("account settings refuse a wrong old password with the catalogue's message, and change nothing", async ({ page }) => {
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await page.getByRole("banner").getByRole("link", { name: "Account settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Account settings" })).toBeVisible();
  await page.getByLabel("Old password").fill("Not#The0ldOne");
  await page.getByLabel("New password", { exact: true }).fill("Another#Chief26");
  await page.getByLabel("Confirm password").fill("Another#Chief26");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText(/^Wrong password/)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/update-info$/);
  // Still signed in with the same password: the console opens.
  await page.getByRole("link", { name: "Back to the console" }).click();
  await expect(page).toHaveURL(/\/admin$/);
});
