import { createServer, type Server } from "node:http";
import type { AdminUser } from "../../contract/admin";
import type { AuthenticationInfo } from "../../contract/authentication";
import { Permission } from "../../contract/permissions";
import { ACCOUNT_TYPES } from "../../contract/users";
import { startTestSlapd, type TestSlapd } from "../support/slapd";
import { adminToken, ok, tokenFor, uniqueAccount } from "../support/e2e-helpers";
import { auditPage, consoleScreens, openConsoleScreen } from "./admin-console";
import { expect, screenshot, signIn, test } from "./fixtures";

/**
 * The admin console's Authentication screen (admin document, section 2; section 3 "Authentication
 * settings"): against a real OpenLDAP (tests/support/slapd.ts) the administrator configures LDAP/AD,
 * Test reports 1057 for a wrong password and success for the right one, an account is imported from
 * the directory, and that account signs in at /signin with its directory password. The default
 * permissions tab stores the security settings' defaultPermission. The external HTTP way, against a
 * real node http server on 127.0.0.1 (the e2e engine allows private addresses for it): a new account
 * signs in through it with the default permissions, and the way goes back to local only.
 */

const SETTINGS = "/api/admin/settings/authentication";
const person = { uid: uniqueAccount("ldp"), cn: "Lena Directory", mail: "lena@ferry.test", password: "Dir#Secret-91" };
let slapd: TestSlapd;
let before: AuthenticationInfo;

test.beforeAll(async () => {
  slapd = await startTestSlapd([person]);
  before = await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() });
});
test.afterAll(async () => {
  // Back to how the run's engine was: the other specs sign in with local passwords only.
  await ok("PATCH", SETTINGS, { token: await adminToken(), body: { way: 0, ldapServer: "", ldapBase: "", defaultPermission: before.defaultPermission } });
  await slapd?.stop();
});

test("the administrator configures LDAP/AD, tests it (1057, then success), imports an account that then signs in", async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/authentication", "Authentication");
  await expect(page.getByRole("tab", { name: "Authentication way" })).toHaveAttribute("aria-selected", "true");

  await page.getByRole("radio", { name: "LDAP/AD" }).check();
  await page.getByLabel("Server address").fill(slapd.url);
  await page.getByLabel("Domain name").fill("ferry.test");
  await page.getByLabel("Base DN").fill(slapd.base);
  await page.getByLabel("Test account").fill(slapd.readerDn);
  await page.getByLabel("Test password").fill("not-the-password");
  await page.getByRole("button", { name: "Test" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong LDAP account or password" })).toBeVisible();

  await page.getByLabel("Test password").fill(slapd.readerPassword);
  await page.getByRole("button", { name: "Test" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Connected: the test account signed in to the directory." })).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong LDAP account" })).toHaveCount(0);

  await page.getByLabel("Test password").fill(slapd.readerPassword);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved" })).toBeVisible();
  const stored = await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() });
  expect(stored).toMatchObject({ way: 1, ldapServer: slapd.url, ldapBase: slapd.base, ldapTestAccount: slapd.readerDn, hasLdapTestPassword: true });

  // The import: search the directory, tick the account, import it.
  await page.getByRole("searchbox", { name: "Search the directory" }).fill(person.uid);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const table = page.getByRole("table", { name: "Directory accounts" });
  const row = table.getByRole("row").filter({ hasText: person.uid });
  await expect(row).toContainText("Can be imported");
  await expect(row).toContainText(person.cn);
  await row.getByRole("checkbox").check();
  await auditPage(page, "authentication way with the import (en)");
  await consoleScreens(page, "admin-authentication-en");
  await page.getByRole("button", { name: "Import selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Imported 1 account as a Domain account" })).toBeVisible();
  const users = await ok<{ list: AdminUser[] }>("GET", `/api/admin/users?pageNum=1&pageSize=10&search=${person.uid}`, { token: await adminToken() });
  expect(users.list.map((u) => [u.account, u.accountType])).toEqual([[person.uid, ACCOUNT_TYPES.Domain]]);

  // Default permissions: tick Upload and save.
  await page.getByRole("tab", { name: "Default permissions" }).click();
  await expect(page).toHaveURL(/tab=permissions/);
  const upload = page.getByRole("checkbox", { name: "Upload" });
  await expect(upload).not.toBeChecked();
  await upload.check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved" })).toBeVisible();
  expect((await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() })).defaultPermission & 128).toBe(128);
  await auditPage(page, "default permissions (en)");
  await screenshot(page, "admin-authentication-permissions-en");
  await context.close();

  // The imported account signs in with its directory password.
  const user = await browser.newContext({ locale: "en-US" });
  const userPage = await user.newPage();
  await signIn(userPage, person.uid, person.password);
  await expect(userPage).toHaveURL(/\/personal$/);
  await user.close();
});

test("the Authentication screen in Chinese: the LDAP test's 1057 translated, both tabs", async ({ browser }) => {
  test.setTimeout(60_000);
  await ok("PATCH", SETTINGS, {
    token: await adminToken(),
    body: { way: 1, ldapServer: slapd.url, ldapDomain: "ferry.test", ldapBase: slapd.base, ldapTestAccount: slapd.readerDn },
  });
  const { context, page } = await openConsoleScreen(browser, "zh-CN", "/admin/authentication", "认证");
  await expect(page.getByRole("radio", { name: "LDAP/AD" })).toBeChecked();
  await page.getByLabel("测试密码").fill("not-the-password");
  await page.getByRole("button", { name: "测试" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "LDAP 账号或密码错误" })).toBeVisible();
  await auditPage(page, "authentication way (zh)");
  await consoleScreens(page, "admin-authentication-zh");
  await page.getByRole("tab", { name: "默认权限" }).click();
  await expect(page.getByRole("checkbox", { name: "下载" })).toBeVisible();
  await auditPage(page, "default permissions (zh)");
  await screenshot(page, "admin-authentication-permissions-zh");
  await context.close();
});

/** The HTTP way's service: POST {account, password} → {"result": true|false}. */
function startAuthService(accounts: Record<string, string>): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(text || "{}") as { account?: string; password?: string };
      asked.push(body.account ?? "");
      const yes = body.account !== undefined && accounts[body.account] === body.password;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: yes }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/check`,
        asked,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      }),
    ),
  );
}

test("the administrator chooses external HTTP; a new account signs in through it with the default permissions; back to local only", async ({ browser }) => {
  test.setTimeout(90_000);
  const account = uniqueAccount("http");
  const password = "Web#Service-73";
  const service = await startAuthService({ [account]: password });
  try {
    const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/authentication");
    await page.getByRole("radio", { name: "External HTTP" }).check();
    await expect(page.getByLabel("Server address")).toHaveCount(0);
    await page.getByLabel("Authentication URL").fill(service.url);
    await page.getByLabel("Timeout (seconds)").fill("5");
    await auditPage(page, "authentication way: external HTTP (en)");
    await consoleScreens(page, "admin-authentication-http-en");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved" })).toBeVisible();
    expect(await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() })).toMatchObject({ way: 4, httpAuthUrl: service.url, httpTimeout: 5 });

    // The default permissions: Download and Upload on, Delete off.
    await page.getByRole("tab", { name: "Default permissions" }).click();
    await page.getByRole("checkbox", { name: "Download" }).check();
    await page.getByRole("checkbox", { name: "Upload" }).check();
    await page.getByRole("checkbox", { name: "Delete" }).uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved" })).toBeVisible();
    const { defaultPermission } = await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() });

    // A name Ferry has never seen signs in at /signin: the service says yes.
    const user = await browser.newContext({ locale: "en-US" });
    const userPage = await user.newPage();
    await signIn(userPage, account, "Web#Service-74");
    await expect(userPage.getByRole("alert")).toBeVisible();
    await signIn(userPage, account, password);
    await expect(userPage).toHaveURL(/\/personal$/);
    expect(service.asked.filter((a) => a === account)).toHaveLength(2);
    await user.close();
    const info = await ok<{ user: { permission: number } }>("GET", "/api/user/info", { token: await tokenFor(account, password) });
    const bits = Permission.List | Permission.Download | Permission.Upload | Permission.Delete;
    expect(info.user.permission & bits).toBe(defaultPermission & bits);
    expect(defaultPermission & (Permission.Upload | Permission.Delete)).toBe(Permission.Upload);
    // No entry in the users list.
    expect((await ok<{ total: number }>("GET", `/api/admin/users?pageNum=1&pageSize=10&search=${account}`, { token: await adminToken() })).total).toBe(0);

    // Back to local only, in the console: the HTTP account is refused again, local ones sign in.
    await page.getByRole("tab", { name: "Authentication way" }).click();
    await page.getByRole("radio", { name: "Local accounts only" }).check();
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Settings saved" })).toBeVisible();
    expect((await ok<AuthenticationInfo>("GET", SETTINGS, { token: await adminToken() })).way).toBe(0);
    await context.close();
    const again = await browser.newContext({ locale: "en-US" });
    const againPage = await again.newPage();
    await signIn(againPage, account, password);
    await expect(againPage.getByRole("alert")).toBeVisible();
    await expect(againPage).toHaveURL(/\/signin/);
    await again.close();
  } finally {
    await ok("PATCH", SETTINGS, { token: await adminToken(), body: { way: 0 } });
    await service.close();
  }
});

test("the external HTTP way's form in Chinese", async ({ browser }) => {
  await ok("PATCH", SETTINGS, { token: await adminToken(), body: { way: 4, httpAuthUrl: "https://auth.example.com/check", httpTimeout: 10 } });
  try {
    const { context, page } = await openConsoleScreen(browser, "zh-CN", "/admin/authentication");
    await expect(page.getByRole("radio", { name: "外部 HTTP" })).toBeChecked();
    await expect(page.getByLabel("认证地址")).toHaveValue("https://auth.example.com/check");
    await expect(page.getByLabel("超时（秒）")).toHaveValue("10");
    await auditPage(page, "authentication way: external HTTP (zh)");
    await consoleScreens(page, "admin-authentication-http-zh");
    await context.close();
  } finally {
    await ok("PATCH", SETTINGS, { token: await adminToken(), body: { way: 0 } });
  }
});
