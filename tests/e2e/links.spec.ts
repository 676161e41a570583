import type { BrowserContext, Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ShareListItem } from "../../contract/share";
import { formatUnixTime } from "../../app/utils/format";
import { E2E_FILE_PORT, WEB_URL } from "../support/e2e-env";
import { createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, screenshot, signIn, test, seedFile } from "./fixtures";

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Links#Test2026";
const SHARE_URL = new RegExp(`^${WEB_URL.replace(/[.]/g, "\\.")}/share/[0-9a-f-]{36}$`);

/** A new user with every permission, signed in through the page; `token` and `files` set the scene through the engine. */
async function newUser(page: Page, options: { emailSenderType?: number } = {}) {
  const account = uniqueAccount("links");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL, ...options });
  const signedIn = (await login(account, PASSWORD)).data!;
  const files = await connectFiles(FILE_URL, signedIn.websocket_token);
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
  return { account, token: signedIn.token, files, socketToken: signedIn.websocket_token };
}

const createLink = (token: string, body: Record<string, unknown>) =>
  ok<{ shareUrl: string; shareId: string; sharePassword: string }>("POST", "/api/share/link/create", { token, body: { shareUrlType: 1, shareBaseUrl: WEB_URL, ...body } });
const listLinks = (token: string, query = "shareUrlType=1&pageSize=100") =>
  ok<{ sharelinkinfo: ShareListItem[]; total: number }>("GET", `/api/share/link/list?${query}`, { token });

const toast = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });
const alertToast = (page: Page, text: string | RegExp) => page.getByRole("alert").filter({ hasText: text });
const fileRow = (page: Page, name: string) =>
  // A folder's name is a link, a file's a button.
  page.getByRole("region", { name: /^Files in/ }).getByRole("row").filter({ has: page.getByRole("button", { name, exact: true }).or(page.getByRole("link", { name, exact: true })) });

async function clipboard(page: Page) {
  return page.evaluate(() => navigator.clipboard.readText());
}
async function allowClipboard(context: BrowserContext) {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: WEB_URL });
}

test.describe("share and invite dialogs", () => {
  test("a password download link from the toolbar: alias rules, link + password, copy; a visitor without JavaScript gets the file", async ({ page, context, browser }) => {
    await allowClipboard(context);
    const { token, files, socketToken } = await newUser(page);
    await seedFile(files, socketToken, "/report.txt", "quarterly numbers");
    await seedFile(files, socketToken, "/notes.txt", "notes");
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(fileRow(page, "report.txt")).toBeVisible();

    const toolbar = page.getByRole("toolbar", { name: "File actions" });
    await expect(toolbar.getByRole("button", { name: "Share" })).toBeDisabled();
    await fileRow(page, "report.txt").getByRole("checkbox").check();
    await fileRow(page, "notes.txt").getByRole("checkbox").check();
    await toolbar.getByRole("button", { name: "Share" }).click();

    const dialog = page.getByRole("dialog", { name: "Share" });
    await expect(dialog.getByRole("switch", { name: "Password protection" })).toBeChecked();
    const password = dialog.getByRole("textbox", { name: "Password", exact: true });
    await expect(password).toHaveValue(/^[A-Za-z]{4}$/);
    await expect(dialog.getByRole("combobox", { name: "Valid for" })).toHaveValue("1");
    await expect(dialog.getByRole("switch", { name: "Allow download" })).toBeChecked();

    // Password: at most 6 once spaces are gone.
    await password.fill("abc defg");
    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "at most 6 characters" })).toBeVisible();
    await password.fill(" ab c ");

    // Aliases: the forbidden characters (error3), another selected file's name (error4).
    await dialog.getByLabel("Alias for report.txt").fill("q:4");
    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "must not contain" })).toBeVisible();
    await dialog.getByLabel("Alias for report.txt").fill("notes.txt");
    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "name of another selected file" })).toBeVisible();
    await dialog.getByLabel("Alias for report.txt").fill("Q4 report.txt");
    await screenshot(page, "links-share-dialog-en");
    await dialog.getByRole("button", { name: "Create link" }).click();

    await expect(dialog.getByText("Link created")).toBeVisible();
    const link = await dialog.getByRole("textbox", { name: "Link", exact: true }).inputValue();
    expect(link).toMatch(SHARE_URL);
    await expect(dialog.getByRole("textbox", { name: "Password", exact: true })).toHaveValue("abc");
    await screenshot(page, "links-share-created-en");
    await dialog.getByRole("button", { name: "Copy link" }).click();
    await expect(toast(page, "Copy succeeded")).toBeVisible();
    expect(await clipboard(page)).toBe(`Link: ${link}\nPassword: abc`);

    // The engine holds exactly that: two files, the alias, the password, one day.
    const [stored] = (await listLinks(token)).sharelinkinfo;
    expect(stored).toMatchObject({ shareLink: link, sharePassword: "abc", needPassword: true, type: 2, shareAllowDownload: 1 });
    expect(stored!.filename.sort()).toEqual(["Q4 report.txt", "notes.txt"]);
    expect(stored!.shareExpireTime - stored!.shareCreateTime).toBeGreaterThan(86_000);
    expect(stored!.shareExpireTime - stored!.shareCreateTime).toBeLessThanOrEqual(86_400);
    await dialog.getByRole("button", { name: "Close" }).first().click();
    await expect(dialog).toBeHidden();
    await files.close();

    // The link as the recipient gets it: a fresh browser without JavaScript, a wrong then the right
    // password, then the aliased file, byte for byte.
    const visitor = await browser.newContext({ javaScriptEnabled: false, acceptDownloads: true });
    try {
      const v = await visitor.newPage();
      await v.goto(link);
      await v.getByLabel("Password", { exact: true }).fill("zzzz");
      await v.getByRole("button", { name: "Open" }).click();
      await expect(v.getByRole("alert").filter({ hasText: "Wrong password" })).toBeVisible();
      await v.getByLabel("Password", { exact: true }).fill("abc");
      await v.getByRole("button", { name: "Open" }).click();
      const shared = v.getByRole("region", { name: "Shared files in /" });
      await expect(shared.getByText("notes.txt", { exact: true })).toBeVisible();
      const [download] = await Promise.all([v.waitForEvent("download"), shared.getByRole("button", { name: "Download Q4 report.txt" }).click()]);
      expect(download.suggestedFilename()).toBe("Q4 report.txt");
      expect(readFileSync(await download.path(), "utf8")).toBe("quarterly numbers");
    } finally {
      await visitor.close();
    }
  });

  test("row menu share without password copies only the link; e-mail switches need a mail sender; invitation", async ({ page, context }) => {
    await allowClipboard(context);
    const { token, files } = await newUser(page, { emailSenderType: 0 });
    await files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(fileRow(page, "inbox")).toBeVisible();

    await page.getByRole("button", { name: "More actions for inbox" }).click();
    await page.getByRole("menuitem", { name: "Share" }).click();
    const dialog = page.getByRole("dialog", { name: "Share" });
    // Folders: no aliases, with the hint why.
    await expect(dialog.getByText("Aliases are not available when a folder is selected")).toBeVisible();
    await dialog.getByRole("switch", { name: "Password protection" }).uncheck();
    await expect(dialog.getByRole("textbox", { name: "Password", exact: true })).toHaveCount(0);

    // This user's e-mail sender type is 0 (none): the switch turns itself off again, saying why.
    const mailSwitch = dialog.getByRole("switch", { name: "Send the link by e-mail" });
    await mailSwitch.click();
    await expect(alertToast(page, "Your account may not send e-mail; ask the administrator")).toBeVisible();
    await expect(mailSwitch).not.toBeChecked();
    const notify = dialog.getByRole("switch", { name: "Notify me by e-mail when someone downloads" });
    await notify.click();
    await expect(notify).not.toBeChecked();

    await dialog.getByRole("combobox", { name: "Valid for" }).selectOption("never");
    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog.getByText("Link created")).toBeVisible();
    const link = await dialog.getByRole("textbox", { name: "Link", exact: true }).inputValue();
    expect(link).toMatch(SHARE_URL);
    await expect(dialog.getByRole("textbox", { name: "Password", exact: true })).toHaveCount(0);
    await dialog.getByRole("button", { name: "Copy link" }).click();
    await expect(toast(page, "Copy succeeded")).toBeVisible();
    expect(await clipboard(page)).toBe(link);
    expect((await listLinks(token)).sharelinkinfo[0]).toMatchObject({ shareLink: link, needPassword: false, shareExpireTime: 0, type: 1 });
    await dialog.getByRole("button", { name: "Close" }).first().click();
    await expect(dialog).toBeHidden();

    // Invitation from the toolbar with the folder selected: always a password.
    await fileRow(page, "inbox").getByRole("checkbox").check();
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Invite" }).click();
    const invite = page.getByRole("dialog", { name: "Invite upload" });
    await expect(invite.getByText("Visitors upload into: /inbox")).toBeVisible();
    await expect(invite.getByRole("switch", { name: "Password protection" })).toHaveCount(0);
    const password = invite.getByRole("textbox", { name: "Password", exact: true });
    await expect(password).toHaveValue(/^[A-Za-z]{4}$/);
    await password.fill("");
    await invite.getByRole("button", { name: "Create invitation" }).click();
    await expect(invite.getByRole("alert").filter({ hasText: /required|enter a password/ })).toBeVisible();
    await password.fill("up12");
    await invite.getByRole("combobox", { name: "Valid for" }).selectOption("7");
    await screenshot(page, "links-invite-dialog-en");
    await invite.getByRole("button", { name: "Create invitation" }).click();
    await expect(invite.getByText("Link created")).toBeVisible();
    await expect(invite.getByRole("textbox", { name: "Password", exact: true })).toHaveValue("up12");
    const invitation = (await listLinks(token, "shareUrlType=0")).sharelinkinfo;
    expect(invitation).toHaveLength(1);
    expect(invitation[0]).toMatchObject({ shareUrlType: 0, sharePassword: "up12", shareServerPath: "/inbox" });
    await files.close();
  });

  test("the dialogs in Chinese", async ({ browser }) => {
    // A Chinese browser without a stored choice gets Chinese.
    const context = await browser.newContext({ locale: "zh-CN" });
    const page = await context.newPage();
    const { files } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "资料" });
    await page.getByRole("button", { name: "刷新" }).click();
    await page.getByRole("button", { name: "资料 的更多操作" }).click();
    await page.getByRole("menuitem", { name: "分享" }).click();
    const dialog = page.getByRole("dialog", { name: "分享" });
    await expect(dialog.getByRole("switch", { name: "密码保护" })).toBeChecked();
    await screenshot(page, "links-share-dialog-zh");
    await dialog.getByRole("button", { name: "创建链接" }).click();
    await expect(dialog.getByText("链接已创建")).toBeVisible();
    await screenshot(page, "links-share-created-zh");
    await files.close();
    await context.close();
  });
});

test.describe("/link", () => {
  test("tabs, paging, sort, search, bulk cancel with confirmation, delete, unbind", async ({ page }) => {
    const { token, files } = await newUser(page);
    const names = Array.from({ length: 12 }, (_, i) => `f${String(i + 1).padStart(2, "0")}`);
    for (const name of [...names, "bound", "drop"]) await files.ok("mkdir", { groupId: 0, path: "/", name });
    for (const name of names) await createLink(token, { shareFiles: [`/${name}`] });
    const bound = await createLink(token, { shareFiles: ["/bound"], bindSwitch: 1, needPassword: true, shareUrlPasswd: "bd12" });
    await ok("POST", "/api/share/link/verify/url", { body: { url: bound.shareUrl, fingerprint: "e2e-device-1", passwd: "bd12" } });
    expect((await listLinks(token)).sharelinkinfo.find((l) => l.shareId === bound.shareId)?.bindDevice).toBe("e2e-device-1");
    await createLink(token, { shareUrlType: 0, shareServerPath: "/drop", needPassword: true, shareUrlPasswd: "drop", notifyEmail: false });

    await page.goto("/link");
    await hydrated(page);
    await expect(page.getByRole("tab", { name: "Share files" })).toHaveAttribute("aria-selected", "true");
    const table = page.getByRole("region", { name: "Share links" });
    const rows = table.getByRole("row").filter({ has: page.getByRole("checkbox") }).filter({ hasNot: page.getByRole("checkbox", { name: "Select all rows" }) });
    await expect(rows).toHaveCount(10);
    await expect(page.getByText("Total 13 items")).toBeVisible();
    await screenshot(page, "links-page-en");

    // Paging: 13 links, 10 a page.
    await page.getByRole("link", { name: "Page 2" }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(rows).toHaveCount(3);
    await hydrated(page);
    await page.getByRole("link", { name: "Page 1" }).click();
    // The kit's page links load the page anew.
    await expect(rows).toHaveCount(10);
    await hydrated(page);

    // Sort by name, ascending then descending.
    await table.getByRole("link", { name: "Sort by Name" }).click();
    await expect(page).toHaveURL(/orderBy=1&order=asc/);
    await expect(rows.first()).toContainText("bound");
    await table.getByRole("link", { name: "Sort by Name" }).click();
    await expect(page).toHaveURL(/orderBy=1&order=desc/);
    await expect(rows.first()).toContainText("f12");

    // Search by name (a GET form).
    const search = page.getByRole("search", { name: "Search links" });
    await search.getByLabel("Name").fill("f0");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/name=f0/);
    await expect(rows).toHaveCount(9);

    // Bulk cancel: enabled only with a selection, confirmed in a dialog.
    const bulk = page.getByRole("group", { name: "Selected links" });
    await expect(bulk.getByRole("button", { name: "Cancel" })).toBeDisabled();
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeDisabled();
    await table.getByRole("checkbox", { name: "Select row f01" }).check();
    await table.getByRole("checkbox", { name: "Select row f02" }).check();
    await bulk.getByRole("button", { name: "Cancel" }).click();
    const confirmCancel = page.getByRole("dialog", { name: "Cancel links" });
    await expect(confirmCancel).toContainText("Cancel 2 links?");
    await confirmCancel.getByRole("button", { name: "Cancel" }).click();
    await expect(confirmCancel).toBeHidden();
    await expect(rows.filter({ hasText: "Canceled" })).toHaveCount(0);
    await bulk.getByRole("button", { name: "Cancel" }).click();
    await confirmCancel.getByRole("button", { name: "Confirm" }).click();
    await expect(toast(page, "Canceled")).toBeVisible();
    await expect(rows.filter({ hasText: "f01" })).toContainText("Canceled");
    await expect(rows.filter({ hasText: "f02" })).toContainText("Canceled");
    await expect(rows.filter({ hasText: "f03" })).toContainText("Normal");
    expect((await listLinks(token, "shareUrlType=1&shareStatus=3")).total).toBe(2);

    // Delete one row.
    await table.getByRole("button", { name: "Delete link f03" }).click();
    const confirmDelete = page.getByRole("dialog", { name: "Delete links" });
    await confirmDelete.getByRole("button", { name: "Confirm" }).click();
    await expect(toast(page, "Deleted")).toBeVisible();
    await expect(rows.filter({ hasText: "f03" })).toHaveCount(0);
    expect((await listLinks(token)).total).toBe(12);

    // Reset the search; expand a row: link, password, copy; unbind the bound link.
    await search.getByRole("button", { name: "Reset" }).click();
    await expect(page).not.toHaveURL(/name=/);
    // The third click on a header returns to the engine's order: newest first.
    await table.getByRole("link", { name: "Sort by Name" }).click();
    await expect(page).not.toHaveURL(/orderBy=/);
    await expect(rows.first()).toContainText("bound");
    await table.getByRole("button", { name: "Expand row bound" }).click();
    await expect(table.getByText(bound.shareUrl)).toBeVisible();
    await expect(table.getByText("e2e-device-1")).toBeVisible();
    await table.getByRole("button", { name: "Unbind link bound" }).click();
    await expect(toast(page, "Unbind succeeded")).toBeVisible();
    await expect(table.getByRole("button", { name: "Unbind link bound" })).toHaveCount(0);
    expect((await listLinks(token)).sharelinkinfo.find((l) => l.shareId === bound.shareId)?.bindDevice).toBe("");

    // The other tab: invitations.
    await page.getByRole("tab", { name: "Request files" }).click();
    await expect(page).toHaveURL(/tab=request/);
    const invitations = page.getByRole("region", { name: "Upload invitations" });
    await expect(invitations.getByRole("columnheader", { name: "Upload notice" })).toBeVisible();
    await expect(invitations.getByRole("row").filter({ hasText: "drop" })).toBeVisible();
    await expect(invitations.getByRole("button", { name: "Cancel link drop" })).toHaveText("Cancel invite");
    await files.close();
  });

  test("in Chinese, and without JavaScript a delete is confirmed on the page", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: "zh-CN" });
    const page = await context.newPage();
    const account = uniqueAccount("linknojs");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = (await login(account, PASSWORD)).data!;
    const files = await connectFiles(FILE_URL, signedIn.websocket_token);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "gone" });
    await files.ok("mkdir", { groupId: 0, path: "/", name: "kept" });
    await createLink(signedIn.token, { shareFiles: ["/gone"] });
    await createLink(signedIn.token, { shareFiles: ["/kept"], needPassword: true, shareUrlPasswd: "kp" });
    await signIn(page, account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await page.goto("/link");
    await expect(page.getByRole("tab", { name: "分享文件" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("columnheader", { name: "下载通知" })).toBeVisible();
    await expect(page.getByRole("region", { name: "分享链接" }).getByText("正常").first()).toBeVisible();
    await screenshot(page, "links-page-zh");

    // Sorting by a column header is a plain link: name ascending, then descending.
    const table = page.getByRole("region", { name: "分享链接" });
    // Without JavaScript the URL changes before the new page has loaded, so the rows are awaited
    // with a retrying assertion rather than read once.
    const linkRows = table.getByRole("row").filter({ hasText: /gone|kept/ });
    await table.getByRole("link", { name: "按名称排序" }).click();
    await expect(page).toHaveURL(/orderBy=1&order=asc/);
    await expect(linkRows).toHaveText([/gone/, /kept/]);
    await table.getByRole("link", { name: "按名称排序" }).click();
    await expect(page).toHaveURL(/orderBy=1&order=desc/);
    await expect(linkRows).toHaveText([/kept/, /gone/]);

    await page.getByRole("button", { name: "删除链接 gone" }).click();
    const ask = page.getByRole("alertdialog", { name: "删除链接" });
    await expect(ask).toContainText("确定删除这 1 个链接吗");
    await ask.getByRole("button", { name: "确定" }).click();
    await expect(page.getByRole("button", { name: "删除链接 gone" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "删除链接 kept" })).toBeVisible();
    expect((await listLinks(signedIn.token)).sharelinkinfo.map((l) => l.filename[0])).toEqual(["kept"]);
    await files.close();
    await context.close();
  });
  test("without JavaScript, rows ticked in the table are cancelled and deleted in bulk, with the answer shown", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const account = uniqueAccount("linkbulk");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = (await login(account, PASSWORD)).data!;
    const files = await connectFiles(FILE_URL, signedIn.websocket_token);
    for (const name of ["one", "two", "three"]) {
      await files.ok("mkdir", { groupId: 0, path: "/", name });
      await createLink(signedIn.token, { shareFiles: [`/${name}`] });
    }
    await signIn(page, account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await page.goto("/link");
    const bulk = page.getByRole("group", { name: "Selected links" });
    const table = page.getByRole("region", { name: "Share links" });

    // Nothing ticked: the buttons still answer, with what to do.
    await bulk.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Select the links first." })).toBeVisible();

    await table.getByRole("checkbox", { name: "Select row one" }).check();
    await table.getByRole("checkbox", { name: "Select row two" }).check();
    await bulk.getByRole("button", { name: "Cancel" }).click();
    const ask = page.getByRole("alertdialog", { name: "Cancel links" });
    await expect(ask).toContainText("Cancel 2 links?");
    await ask.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Canceled" })).toBeVisible();
    const statusOf = async () => Object.fromEntries((await listLinks(signedIn.token)).sharelinkinfo.map((l) => [l.filename[0], l.shareStatus]));
    expect(await statusOf()).toEqual({ one: 3, two: 3, three: 1 });

    await table.getByRole("checkbox", { name: "Select row one" }).check();
    await table.getByRole("checkbox", { name: "Select row three" }).check();
    await bulk.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("alertdialog", { name: "Delete links" })).toContainText("Delete 2 links?");
    await page.getByRole("alertdialog", { name: "Delete links" }).getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Deleted" })).toBeVisible();
    await screenshot(page, "links-bulk-nojs-en");
    expect(await statusOf()).toEqual({ two: 3 });
    await expect(table.getByRole("row").filter({ hasText: /one|two|three/ })).toHaveText([/two/]);
    await files.close();
    await context.close();
  });

  test("times and the date search follow the reader's time zone, and the server renders them so", async ({ browser }) => {
    const account = uniqueAccount("linktz");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = (await login(account, PASSWORD)).data!;
    const files = await connectFiles(FILE_URL, signedIn.websocket_token);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "zoned" });
    await createLink(signedIn.token, { shareFiles: ["/zoned"] });
    const created = (await listLinks(signedIn.token)).sharelinkinfo[0]!.shareCreateTime;
    // A reader whose calendar day at that moment is not the web server's (the test runs beside it).
    const serverDay = formatUnixTime(created).slice(0, 10);
    const zone = ["Pacific/Kiritimati", "Pacific/Pago_Pago"].find((z) => formatUnixTime(created, z).slice(0, 10) !== serverDay)!;
    const readerTime = formatUnixTime(created, zone);
    const readerDay = readerTime.slice(0, 10);

    const context = await browser.newContext({ timezoneId: zone });
    const page = await context.newPage();
    const hydrationErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /hydrat|did not match|#418|#423|#425/i.test(message.text())) hydrationErrors.push(message.text());
    });
    await signIn(page, account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await hydrated(page);
    // From the second page on the server knows the zone: its own HTML shows the reader's time.
    const response = await page.goto("/link");
    expect(await response!.text()).toContain(readerTime);
    await hydrated(page);
    const links = page.getByRole("region", { name: "Share links" });
    await expect(links.getByRole("row").filter({ hasText: "zoned" })).toContainText(readerTime);

    // A day typed into the search is the reader's day.
    await page.goto(`/link?created.start=${readerDay}&created.end=${readerDay}`);
    await expect(links.getByRole("row").filter({ hasText: "zoned" })).toBeVisible();
    await page.goto(`/link?created.start=${serverDay}&created.end=${serverDay}`);
    await expect(links.getByText("No data")).toBeVisible();
    await expect(links.getByRole("row").filter({ hasText: "zoned" })).toHaveCount(0);
    expect(hydrationErrors).toEqual([]);
    await files.close();
    await context.close();
  });
});
