import type { Browser, Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { AdminUser } from "../../contract/admin";
import { signClientAddress } from "../../contract/forwarding";
import { E2E_FILE_PORT, FORWARD_SECRET } from "../support/e2e-env";
import {
  ADMIN_PASSWORD,
  adminToken,
  createUser,
  login,
  ok,
  uniqueAccount,
} from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, screenshot, seedFile, signIn, test } from "./fixtures";

/**
 * The console's Users screen (admin spec section 2): the list (search, paging, lock / unlock with
 * toasts, delete with a confirmation naming the user, the account count) and the 4-step add form,
 * whose user then signs in and finds exactly what the form said.
 */
const PASSWORD = "Steps#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;

async function consoleAs(browser: Browser, locale: "en-US" | "zh-CN") {
  const context = await browser.newContext({
    locale,
    viewport: { width: 1440, height: 900 },
  });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  return { context, page };
}

/** Required fields' labels start with a star the accessible name leaves out. */
const accountField = (page: Page) =>
  page.getByRole("textbox", { name: "Account", exact: true });
const usersTable = (page: Page) =>
  page.getByRole("table", { name: /^(Users|用户)$/ });
/** The personal page's file table, and its rows that name an entry (virtual-dirs.spec.ts's). */
const filesTable = (page: Page) =>
  page.getByRole("region", { name: /^(Files in|.*中的文件$)/ });
const entryRows = (page: Page) =>
  filesTable(page)
    .getByRole("row")
    .filter({
      has: page.getByRole("checkbox", { name: /^(Select row|选择此行)/ }),
    });
const toast = (page: Page, text: string | RegExp) =>
  page.getByRole("region", { name: /^(Notifications|通知)$/ }).getByText(text);

async function seeded(account: string, files: Record<string, string>) {
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const client = await connectFiles(FILE_URL, socketToken);
  for (const [p, content] of Object.entries(files))
    await seedFile(client, socketToken, p, content);
  await client.close();
}

test("the administrator adds a user in 4 steps with a virtual directory, a forbidden path and a speed limit", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = await createUser(uniqueAccount("uiowner"), PASSWORD, {
    permission: PERMISSION_FULL,
  });
  await seeded(owner.account, { "/plan.txt": "team plan" });
  const account = uniqueAccount("uistep");
  // The new user's home holds a file and the folder the form forbids, put there through the engine
  // by another account of that home (the user itself could not write into a forbidden path).
  const seeder = await createUser(uniqueAccount("uiseed"), PASSWORD, {
    home: `/e2e-ui/${account}`,
    permission: PERMISSION_FULL,
  });
  await seeded(seeder.account, {
    "/mine.txt": "mine",
    "/private/diary.txt": "diary",
  });
  const { context, page } = await consoleAs(browser, "en-US");
  await page.goto("/admin/users");
  await page.getByRole("link", { name: "Add user" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: "Add user" })
  ).toBeVisible();
  await hydrated(page);
  const steps = page.getByRole("list", { name: "Steps" });
  await expect(steps.locator("[aria-current=step]")).toContainText("General");
  await page.mouse.move(0, 0);
  await auditPage(page, "add user, General (en)");
  await consoleScreens(page, "admin-users-step1-en-1440");

  // An account that exists already: the engine's 1004, on the account field, translated.
  await accountField(page).fill(owner.account);
  await page.getByLabel(/^\*?Password$/).fill(PASSWORD);
  await page
    .getByRole("switch", { name: "Force a password change at first sign-in" })
    .uncheck();
  for (let i = 0; i < 3; i++)
    await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Create" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("General");
  await expect(page.getByText("The account already exists")).toBeVisible();
  await expect(accountField(page)).toHaveAttribute("aria-invalid", "true");

  await accountField(page).fill(account);
  await page.getByLabel("Full name").fill("Step Walker");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Storage");
  await page.getByLabel("Home directory").fill(`/e2e-ui/${account}`);
  // A bad alias is refused on its field before anything is sent.
  await page.getByLabel("Alias 1").fill("Te:am");
  await page.getByLabel("Storage path 1").fill(owner.home);
  await page.getByLabel("Forbidden paths").fill("/private");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Storage");
  await expect(page.getByText(/^Alias: one folder name/)).toBeVisible();
  await page.getByLabel("Alias 1").fill("Team");
  // Typed in since the answer: its error goes (the server checks it again at Next).
  await expect(page.getByText(/^Alias: one folder name/)).toHaveCount(0);
  await page.mouse.move(0, 0);
  await auditPage(page, "add user, Storage (en)");
  await consoleScreens(page, "admin-users-step2-en-1440");
  await page.getByRole("button", { name: "Next" }).click();

  await expect(steps.locator("[aria-current=step]")).toContainText("Transfer");
  const permissions = page.getByRole("group", { name: "Permissions" });
  await expect(
    permissions.getByRole("checkbox", { name: "List" })
  ).toBeChecked();
  await permissions.getByRole("checkbox", { name: "Upload" }).check();
  await page.getByLabel("Max download speed (KB/s)").fill("512");
  await page.mouse.move(0, 0);
  await auditPage(page, "add user, Transfer (en)");
  await consoleScreens(page, "admin-users-step3-en-1440");
  await page.getByRole("button", { name: "Next" }).click();

  await expect(steps.locator("[aria-current=step]")).toContainText("Security");
  await page.getByRole("button", { name: "Back" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Transfer");
  await expect(page.getByLabel("Max download speed (KB/s)")).toHaveValue("512");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Security");
  await page.mouse.move(0, 0);
  await auditPage(page, "add user, Security (en)");
  await consoleScreens(page, "admin-users-step4-en-1440");
  await page.getByRole("button", { name: "Create" }).click();

  await expect(page).toHaveURL(/\/admin\/users$/);
  await expect(toast(page, `${account} was created`)).toBeVisible();
  const users = await ok<{ list: AdminUser[] }>(
    "GET",
    `/api/admin/users?search=${account}`,
    { token: await adminToken() }
  );
  const listed = users.list.find((u) => u.account === account)!;
  // The speed limit is nowhere in the user's own pages: the engine's record of the user says it.
  const made = await ok<AdminUser>("GET", `/api/admin/users/${listed.id}`, {
    token: await adminToken(),
  });
  expect(made).toMatchObject({
    fullname: "Step Walker",
    home: `/e2e-ui/${account}`,
    virtualDirectories: [{ alias: "/Team", path: owner.home }],
    forbiddenPaths: ["/private"],
    maxDownloadSpeed: 512,
    maxUploadSpeed: 0,
    needUpdatePwd: false,
  });
  await context.close();

  // The user signs in, in a browser of its own, and sees what the settings say: the alias as a
  // folder holding its target's files, its own file, and nothing of the forbidden /private.
  const mine = await browser.newContext({
    locale: "en-US",
    viewport: { width: 1440, height: 900 },
  });
  const own = await mine.newPage();
  await signIn(own, account, PASSWORD);
  await own.waitForURL(/\/personal/);
  await hydrated(own);
  await expect(
    filesTable(own).getByRole("link", { name: "Team", exact: true })
  ).toBeVisible();
  await expect(
    filesTable(own).getByRole("button", { name: "mine.txt", exact: true })
  ).toBeVisible();
  await expect(entryRows(own)).toHaveCount(2);
  await expect(filesTable(own).getByText("private")).toHaveCount(0);
  await screenshot(own, "admin-users-created-user-personal-en-1440");
  await filesTable(own).getByRole("link", { name: "Team", exact: true }).click();
  await expect(
    filesTable(own).getByRole("button", { name: "plan.txt", exact: true })
  ).toBeVisible();
  await expect(entryRows(own)).toHaveCount(1);
  // Nor can the user open /private by its address: the engine refuses (1008), nothing is listed.
  await own.goto("/personal?path=%2Fprivate");
  await expect(toast(own, "Permission denied")).toBeVisible();
  await screenshot(own, "admin-users-created-user-private-en-1440");
  await expect(entryRows(own)).toHaveCount(0);
  await expect(own.getByText("diary.txt")).toHaveCount(0);
  await mine.close();
});

test("after a refused Create or Save the form posts again: the corrected user is saved", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = uniqueAccount("uiretry");
  const { context, page } = await consoleAs(browser, "en-US");
  const steps = page.getByRole("list", { name: "Steps" });
  const whitelist = page.getByLabel("IP login whitelist");
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });

  await page.goto("/admin/users/new");
  await hydrated(page);
  await accountField(page).fill(account);
  await page.getByLabel(/^\*?Password$/).fill(PASSWORD);
  for (let i = 0; i < 3; i++)
    await page.getByRole("button", { name: "Next" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Security");
  await whitelist.fill("10.0.0.999");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(whitelist).toHaveAttribute("aria-invalid", "true");
  await expect(steps.locator("[aria-current=step]")).toContainText("Security");
  const refused = posts.length;
  // An error stays until its own field is changed, then goes before anything is pressed.
  await page.getByRole("radio", { name: "The user's own mail account" }).check();
  await expect(whitelist).toHaveAttribute("aria-invalid", "true");
  await whitelist.fill("10.0.0.0/8");
  await expect(whitelist).not.toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  expect(posts.length).toBeGreaterThan(refused);
  await expect(toast(page, `${account} was created`)).toBeVisible();
  const token = await adminToken();
  const made = (
    await ok<{ list: AdminUser[] }>("GET", `/api/admin/users?search=${account}`, { token })
  ).list.find((u) => u.account === account)!;
  expect(made.ipWhitelist).toBe("10.0.0.0/8");
  expect(made.emailSenderType).toBe(2);

  // The same on Edit: a refused Save, then the corrected one.
  await page.goto(`/admin/users/${made.id}`);
  await hydrated(page);
  for (let i = 0; i < 3; i++)
    await page.getByRole("button", { name: "Next" }).click();
  await expect(steps.locator("[aria-current=step]")).toContainText("Security");
  await whitelist.fill("300.1.1.1");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(whitelist).toHaveAttribute("aria-invalid", "true");
  await whitelist.fill("192.168.1.[1-20]");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  await expect(toast(page, `${account} was saved`)).toBeVisible();
  const saved = await ok<AdminUser>("GET", `/api/admin/users/${made.id}`, { token });
  expect(saved.ipWhitelist).toBe("192.168.1.[1-20]");
  await context.close();
});

test("the list shows each user's connections, and the expanded row where they come from", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const user = await createUser(uniqueAccount("uiconn"), PASSWORD);
  // The user in a browser (the web vouches for its address, 127.0.0.1) and in a desktop client whose
  // socket comes from 203.0.113.7 (an address vouched for as a trusted proxy would), so the client's
  // own sign-in counts once, as its socket.
  const own = await browser.newContext({ locale: "en-US" });
  const ownPage = await own.newPage();
  await signIn(ownPage, user.account, PASSWORD);
  await ownPage.waitForURL(/\/personal/);
  const desktop = await connectFiles(FILE_URL, null, {
    "x-ferry-client-address": "203.0.113.7",
    "x-ferry-client-signature": signClientAddress(FORWARD_SECRET, "203.0.113.7"),
  });
  const socketToken = (await login(user.account, PASSWORD)).data!.websocket_token;
  expect(
    (await desktop.cmd("login", { token: socketToken, client: { version: "3.2.1" } })).code
  ).toBe(200);

  for (const locale of ["en-US", "zh-CN"] as const) {
    const en = locale === "en-US";
    const { context, page } = await consoleAs(browser, locale);
    await page.goto(`/admin/users?search=${user.account}`);
    await hydrated(page);
    const row = usersTable(page).getByRole("row").filter({ hasText: user.account });
    await expect(row).toContainText(en ? "Online · 2 connections" : "在线 · 2 个连接");
    await row
      .getByRole("button", { name: `${en ? "Expand row" : "展开此行"} ${user.account}` })
      .click();
    const detail = usersTable(page).getByRole("definition");
    await expect(detail.getByRole("listitem")).toHaveText(["127.0.0.1", "203.0.113.7"]);
    await expect(usersTable(page).getByRole("term")).toHaveText(
      en ? ["Connections", "Connected from"] : ["连接数", "连接地址"]
    );
    await page.mouse.move(0, 0);
    await auditPage(page, `users list, expanded row (${locale})`);
    await consoleScreens(page, `admin-users-list-expanded-${en ? "en" : "zh"}-1440`);
    await context.close();
  }
  await desktop.close();
  await own.close();
});

test("search, paging, lock and unlock with toasts, delete after a confirmation naming the user", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const prefix = uniqueAccount("pg").slice(0, 14);
  const made: AdminUser[] = [];
  for (let i = 0; i < 12; i++)
    made.push(
      await createUser(`${prefix}_${String(i).padStart(2, "0")}`, PASSWORD, {
        email: `${prefix}${i}@example.com`,
      })
    );
  const { context, page } = await consoleAs(browser, "en-US");
  await page.goto("/admin/users");
  await hydrated(page);
  await expect(
    page.getByRole("status").filter({ hasText: /^Accounts: \d+/ })
  ).toBeVisible();

  await page
    .getByRole("searchbox", { name: "Search account or e-mail" })
    .fill(prefix);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(new RegExp(`search=${prefix}`));
  await expect(page.getByText("Total 12 items")).toBeVisible();
  await expect(
    usersTable(page).getByRole("link", { name: /^Edit / })
  ).toHaveCount(20);
  await page.getByRole("link", { name: "Page 2" }).click();
  await expect(page).toHaveURL(/page=2/);
  await expect(
    usersTable(page).getByRole("link", { name: /^Edit / })
  ).toHaveCount(4);
  await page.getByRole("link", { name: "Page 1" }).click();
  await expect(page).not.toHaveURL(/page=2/);
  await hydrated(page);
  await page.getByLabel("Items per page").selectOption("20");
  await expect(page).toHaveURL(/size=20/);
  await expect(
    usersTable(page).getByRole("link", { name: /^Edit / })
  ).toHaveCount(24);
  await auditPage(page, "users list (en)");
  await consoleScreens(page, "admin-users-list-en-1440");

  const target = made[0]!;
  await usersTable(page)
    .getByRole("button", { name: `Lock ${target.account}` })
    .click();
  await expect(toast(page, `${target.account} is locked`)).toBeVisible();
  expect((await login(target.account, PASSWORD)).code).toBe(1050);
  await usersTable(page)
    .getByRole("button", { name: `Unlock ${target.account}` })
    .click();
  await expect(toast(page, `${target.account} is unlocked`)).toBeVisible();
  expect((await login(target.account, PASSWORD)).code).toBe(200);

  await usersTable(page)
    .getByRole("button", { name: `Delete ${target.account}` })
    .click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Delete the user ${target.account}?`);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(
    usersTable(page).getByRole("button", { name: `Delete ${target.account}` })
  ).toBeVisible();
  await usersTable(page)
    .getByRole("button", { name: `Delete ${target.account}` })
    .click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: "Delete" })
    .click();
  await expect(toast(page, `${target.account} was deleted`)).toBeVisible();
  await expect(page.getByText("Total 11 items")).toBeVisible();
  await expect(
    usersTable(page).getByRole("button", { name: `Delete ${target.account}` })
  ).toHaveCount(0);
  await context.close();
});

test("the Users screen and every step in Chinese, audited", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const { context, page } = await consoleAs(browser, "zh-CN");
  await page.goto("/admin/users");
  await hydrated(page);
  await expect(
    page.getByRole("heading", { level: 1, name: "用户" })
  ).toBeVisible();
  await auditPage(page, "users list (zh)");
  await consoleScreens(page, "admin-users-list-zh-1440");
  await page.getByRole("link", { name: "添加用户" }).click();
  await hydrated(page);
  await page
    .getByRole("textbox", { name: "账号", exact: true })
    .fill(uniqueAccount("zhstep"));
  await page.getByLabel(/^\*?密码$/).fill(PASSWORD);
  const steps = page.getByRole("list", { name: "步骤" });
  for (const [index, name] of ["常规", "存储", "传输", "安全"].entries()) {
    await expect(steps.locator("[aria-current=step]")).toContainText(name);
    await expect(
      page.getByRole("button", { name: index < 3 ? "下一步" : "创建" })
    ).toBeEnabled();
    // The pointer still rests on the button just pressed; its hover shade is not what the audit is about.
    await page.mouse.move(0, 0);
    await auditPage(page, `add user step ${index + 1} (zh)`);
    await consoleScreens(page, `admin-users-step${index + 1}-zh-1440`);
    if (index < 3) await page.getByRole("button", { name: "下一步" }).click();
  }
  await context.close();
});

test("without JavaScript, Delete asks on the page first; Cancel keeps the user, Delete removes it", async ({
  browser,
}) => {
  const target = await createUser(uniqueAccount("nojsdel"), PASSWORD, {
    permission: PERMISSION_FULL,
  });
  const context = await browser.newContext({
    locale: "en-US",
    viewport: { width: 1440, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await page.goto(`/admin/users?search=${target.account}`);
  const deleteRow = () =>
    usersTable(page)
      .getByRole("button", { name: `Delete ${target.account}` })
      .click();
  const question = page.getByRole("alertdialog", {
    name: `Delete the user ${target.account}?`,
  });
  await deleteRow();
  await expect(question).toBeVisible();
  await question.getByRole("link", { name: "Cancel" }).click();
  await expect(question).toHaveCount(0);
  await expect(usersTable(page).getByText(target.account)).toBeVisible();
  await deleteRow();
  await question.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText(`${target.account} was deleted`)).toBeVisible();
  await expect(
    usersTable(page).getByRole("button", { name: `Delete ${target.account}` })
  ).toHaveCount(0);
  const token = await adminToken();
  const left = await ok<{ list: AdminUser[] }>(
    "GET",
    `/api/admin/users?search=${target.account}`,
    { token }
  );
  expect(left.list).toHaveLength(0);
  await context.close();
});

/** The accounts of the rows shown, top to bottom: the links that read as an account of the test's (the Edit links read "Edit"). */
const shownAccounts = async (page: Page, prefix: string) =>
  (await usersTable(page).getByRole("link").allTextContents()).filter(
    (text) => text.startsWith(prefix)
  );

test("the Account header sorts: ascending, descending, then the list's own order again; in English and Chinese", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const prefix = uniqueAccount("srt").slice(0, 14);
  // Made out of order, one in capitals: the order is the account's without case.
  const made: string[] = [];
  for (const end of ["c", "A", "d", "b", "e"]) {
    made.push((await createUser(`${prefix}_${end}`, PASSWORD)).account);
  }
  const ascending = [...made].sort((a, b) =>
    a.toLowerCase().localeCompare(b.toLowerCase())
  );
  for (const locale of ["en-US", "zh-CN"] as const) {
    const en = locale === "en-US";
    const { context, page } = await consoleAs(browser, locale);
    await page.goto(`/admin/users?search=${prefix}&size=20`);
    await hydrated(page);
    const header = page.getByRole("columnheader", {
      name: en ? "Sort by Account" : "按账号排序",
    });
    const sortLink = header.getByRole("link");
    await expect(header).toHaveAttribute("aria-sort", "none");
    expect(await shownAccounts(page, prefix)).toEqual(made);

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "ascending");
    await expect(page).toHaveURL(/orderBy=account&order=asc/);
    // The search and the page size stay; a new order starts at page 1.
    await expect(page).toHaveURL(new RegExp(`size=20.*search=${prefix}`));
    await expect(page).not.toHaveURL(/page=/);
    expect(await shownAccounts(page, prefix)).toEqual(ascending);
    await page.mouse.move(0, 0);
    await auditPage(page, `users sorted by account (${locale})`);
    await consoleScreens(page, `admin-users-sorted-${en ? "en" : "zh"}-1440`);

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "descending");
    expect(await shownAccounts(page, prefix)).toEqual([...ascending].reverse());
    // Another column's header starts its own order.
    await expect(
      page.getByRole("columnheader", { name: en ? "Sort by Full name" : "按姓名排序" })
    ).toHaveAttribute("aria-sort", "none");

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "none");
    await expect(page).not.toHaveURL(/orderBy/);
    await expect(page).toHaveURL(new RegExp(`search=${prefix}`));
    expect(await shownAccounts(page, prefix)).toEqual(made);
    await context.close();
  }
});

test("without JavaScript the sort headers are links: the cycle, and page 2 goes on in the same order", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const prefix = uniqueAccount("nsrt").slice(0, 14);
  const made: string[] = [];
  // 12 users: two pages of 10. Made in an order that is neither way sorted.
  for (const end of ["f", "k", "b", "h", "a", "l", "d", "j", "c", "g", "e", "i"]) {
    made.push((await createUser(`${prefix}_${end}`, PASSWORD)).account);
  }
  const ascending = [...made].sort();
  const context = await browser.newContext({
    locale: "en-US",
    viewport: { width: 1440, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await page.goto(`/admin/users?search=${prefix}&page=2`);
  expect(await shownAccounts(page, prefix)).toEqual(made.slice(10));
  const header = page.getByRole("columnheader", { name: "Sort by Account" });

  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  await expect(page).not.toHaveURL(/page=2/);
  expect(await shownAccounts(page, prefix)).toEqual(ascending.slice(0, 10));
  await page.getByRole("link", { name: "Page 2" }).click();
  await expect(page).toHaveURL(/orderBy=account&order=asc.*page=2/);
  expect(await shownAccounts(page, prefix)).toEqual(ascending.slice(10));

  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "descending");
  expect(await shownAccounts(page, prefix)).toEqual(
    [...ascending].reverse().slice(0, 10)
  );
  await page.getByRole("link", { name: "Page 2" }).click();
  await expect(page).toHaveURL(/orderBy=account&order=desc.*page=2/);
  expect(await shownAccounts(page, prefix)).toEqual(
    [...ascending].reverse().slice(10)
  );

  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "none");
  await expect(page).not.toHaveURL(/orderBy/);
  expect(await shownAccounts(page, prefix)).toEqual(made.slice(0, 10));
  await context.close();
});
