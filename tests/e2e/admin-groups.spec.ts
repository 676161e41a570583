import type { AdminGroup } from "../../contract/admin";
import { adminToken, createUser, ok, uniqueAccount } from "../support/e2e-helpers";
import type { Browser, Page } from "@playwright/test";
import { ADMIN_PASSWORD } from "../support/e2e-helpers";
import { adminSignIn, auditPage, auditWithoutScript, consoleScreens, openConsoleScreen } from "./admin-console";
import { expect, screenshot, test } from "./fixtures";

/**
 * The admin console's Group spaces screen (admin document, section 2 "Groups"; section 3 "Group
 * space"): a group with associated users is created and edited in the dialog, deleting it is refused
 * while it has members (1059, translated) and allowed once they are removed — all against the engine.
 * Without JavaScript the same add / edit / delete work as plain HTML: the dialogs become a form and a
 * confirmation on the page (`?edit=`, `?remove=`), Find users a GET that keeps what was typed.
 */

const PASSWORD = "Gr0up!Pass";

async function groupNamed(name: string): Promise<AdminGroup | undefined> {
  const page = await ok<{ list: AdminGroup[] }>("GET", `/api/admin/groups?pageNum=1&pageSize=10&search=${encodeURIComponent(name)}`, { token: await adminToken() });
  return page.list.find((g) => g.name === name);
}

test("the administrator creates a group with users, edits it, and deletes it once it has no members (1059 before)", async ({ browser }) => {
  test.setTimeout(90_000);
  const alice = await createUser(uniqueAccount("gal"), PASSWORD);
  const bob = await createUser(uniqueAccount("gbo"), PASSWORD);
  const name = uniqueAccount("team");
  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/groups", "Group spaces");

  await page.getByRole("link", { name: "Add group" }).click();
  const dialog = page.getByRole("dialog", { name: "Add group" });
  await dialog.getByLabel("Group name").fill(name);
  await dialog.getByLabel("Max upload speed (Mbps)").fill("5");
  await dialog.getByLabel("Max download speed (Mbps)").fill("10");
  await dialog.getByLabel("Quota (GB)").fill("2");
  await dialog.getByLabel("Upload new files only (existing files cannot be overwritten)").check();
  for (const user of [alice, bob]) {
    await dialog.getByLabel("Find users to add").fill(user.account);
    await dialog.getByRole("button", { name: `Add ${user.account}` }).click();
    await expect(dialog.getByRole("button", { name: `Remove ${user.account}` })).toBeVisible();
  }
  await dialog.getByLabel(`Permission of ${bob.account}`).selectOption("full");
  await auditPage(page, "group dialog (en)");
  await screenshot(page, "admin-groups-dialog-en");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Group saved")).toBeVisible();
  await expect(dialog).toBeHidden();

  let group = await groupNamed(name);
  expect(group).toMatchObject({ maxUploadSpeed: 5, maxDownloadSpeed: 10, quota: 2 * 2 ** 30, uploadNewOnly: true, home: `/groups/${name}` });
  expect(group!.members.map((m) => m.account).sort()).toEqual([alice.account, bob.account].sort());
  const bobPermission = group!.members.find((m) => m.userId === bob.id)!.groupPermission;
  expect(bobPermission & 128, "Full access includes Upload").toBe(128);

  await page.getByRole("searchbox", { name: "Search groups" }).fill(name);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(alice.account);
  await expect(row).toContainText("0 B / 2.00 GB");
  await page.mouse.move(0, 0); // the pointer off the Search button (a hovered button is paler)
  await auditPage(page, "group list (en)");
  await consoleScreens(page, "admin-groups-en");

  // Edit: another speed, Bob leaves.
  await row.getByRole("link", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit group" });
  await expect(edit.getByLabel("Group name")).toHaveValue(name);
  await edit.getByLabel("Max download speed (Mbps)").fill("20");
  await edit.getByRole("button", { name: `Remove ${bob.account}` }).click();
  await edit.getByRole("button", { name: "Confirm" }).click();
  await expect(edit).toBeHidden();
  await expect.poll(async () => (await groupNamed(name))?.maxDownloadSpeed).toBe(20);
  group = await groupNamed(name);
  expect(group!.members.map((m) => m.account)).toEqual([alice.account]);
  await expect(row).not.toContainText(bob.account);

  // Delete while Alice is a member: the engine's 1059, translated.
  await row.getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete group" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("The user group is not empty")).toBeVisible();
  expect(await groupNamed(name)).toBeDefined();
  await confirm.getByRole("button", { name: "Cancel" }).click();

  // Without members it goes.
  await row.getByRole("link", { name: "Edit" }).click();
  await edit.getByRole("button", { name: `Remove ${alice.account}` }).click();
  await expect(edit.getByText("No associated users yet.")).toBeVisible();
  await edit.getByRole("button", { name: "Confirm" }).click();
  await expect(edit).toBeHidden();
  await expect.poll(async () => (await groupNamed(name))?.members.length).toBe(0);
  await row.getByRole("button", { name: "Delete" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Group deleted")).toBeVisible();
  await expect(row).toHaveCount(0);
  expect(await groupNamed(name)).toBeUndefined();
  await context.close();
});

test("the Group spaces screen in Chinese: the list, the dialog and the 1059 refusal", async ({ browser }) => {
  test.setTimeout(60_000);
  const carol = await createUser(uniqueAccount("gca"), PASSWORD);
  const name = uniqueAccount("zu");
  const token = await adminToken();
  const created = await ok<AdminGroup>("POST", "/api/admin/groups", { token, body: { name, maxUploadSpeed: 8 } });
  await ok("PUT", `/api/admin/groups/${created.id}/members/${carol.id}`, { token, body: { groupPermission: 6 } });
  const { context, page } = await openConsoleScreen(browser, "zh-CN", `/admin/groups?q=${name}`, "群组空间");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(carol.account);
  await auditPage(page, "group list (zh)");
  await consoleScreens(page, "admin-groups-zh");
  await row.getByRole("link", { name: "编辑" }).click();
  const dialog = page.getByRole("dialog", { name: "编辑群组" });
  await expect(dialog.getByLabel("最大上传速度（Mbps）")).toHaveValue("8");
  await expect(dialog.getByRole("button", { name: `移除 ${carol.account}` })).toBeVisible();
  await auditPage(page, "group dialog (zh)");
  await screenshot(page, "admin-groups-dialog-zh");
  await dialog.getByRole("button", { name: "取消" }).click();
  await row.getByRole("button", { name: "删除" }).click();
  await page.getByRole("dialog", { name: "删除群组" }).getByRole("button", { name: "删除" }).click();
  await expect(page.getByText("用户组不为空")).toBeVisible();
  await context.close();
});

/** The console at 1440 px with scripts off, the administrator signed in through the plain form. */
async function consoleWithoutScript(browser: Browser, locale: string) {
  const context = await browser.newContext({ locale, viewport: { width: 1440, height: 900 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  return { context, page };
}


test("without JavaScript the administrator adds a group with users, edits it and deletes it (1059 first)", async ({ browser }) => {
  test.setTimeout(90_000);
  const alice = await createUser(uniqueAccount("gna"), PASSWORD);
  const bob = await createUser(uniqueAccount("gnb"), PASSWORD);
  const name = uniqueAccount("plain");
  const { context, page } = await consoleWithoutScript(browser, "en-US");
  await page.goto("/admin/groups");

  await page.getByRole("link", { name: "Add group" }).click();
  await expect(page).toHaveURL(/edit=new/);
  const form = page.getByRole("region", { name: "Add group" });
  await form.getByLabel("Group name").fill(name);
  await form.getByLabel("Max upload speed (Mbps)").fill("3");
  await form.getByLabel("Quota (GB)").fill("1");
  await form.getByRole("checkbox", { name: "Upload new files only (existing files cannot be overwritten)" }).check();
  // Find users: a GET of the whole form; what was typed comes back.
  await form.getByLabel("Find users to add").fill(alice.account);
  await form.getByRole("button", { name: "Find" }).click();
  await expect(form.getByLabel("Group name")).toHaveValue(name);
  await expect(form.getByLabel("Max upload speed (Mbps)")).toHaveValue("3");
  await expect(form.getByRole("checkbox", { name: "Upload new files only (existing files cannot be overwritten)" })).toBeChecked();
  await form.getByRole("checkbox", { name: `Add ${alice.account}` }).check();
  await form.getByLabel("Find users to add").fill(bob.account);
  await form.getByRole("button", { name: "Find" }).click();
  await expect(form.getByLabel(`Permission of ${alice.account}`)).toHaveValue(`${alice.id}:read`);
  await form.getByRole("checkbox", { name: `Add ${bob.account}` }).check();
  await page.mouse.move(0, 0);
  await auditWithoutScript(page, "en-US", "group form without JavaScript (en)");
  await consoleScreens(page, "admin-groups-nojs-form-en");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Group saved")).toBeVisible();
  await expect(page.getByRole("region", { name: "Add group" })).toHaveCount(0);
  let group = await groupNamed(name);
  expect(group).toMatchObject({ maxUploadSpeed: 3, quota: 2 ** 30, uploadNewOnly: true });
  expect(group!.members.map((m) => m.account).sort()).toEqual([alice.account, bob.account].sort());

  // Edit: Bob gets full access, Alice leaves, another download speed.
  await page.getByRole("searchbox", { name: "Search groups" }).fill(name);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByRole("row").filter({ hasText: name });
  await row.getByRole("link", { name: "Edit" }).click();
  const edit = page.getByRole("region", { name: "Edit group" });
  await expect(edit.getByLabel("Group name")).toHaveValue(name);
  await edit.getByLabel("Max download speed (Mbps)").fill("7");
  await edit.getByLabel(`Permission of ${bob.account}`).selectOption({ label: "Full access" });
  await edit.getByLabel(`Permission of ${alice.account}`).selectOption({ label: "Remove" });
  await edit.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Group saved")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`q=${name}`));
  group = await groupNamed(name);
  expect(group).toMatchObject({ maxDownloadSpeed: 7, uploadNewOnly: true });
  expect(group!.members.map((m) => [m.account, m.groupPermission & 128])).toEqual([[bob.account, 128]]);

  // A wrong value comes back on the form with its error, nothing saved.
  await row.getByRole("link", { name: "Edit" }).click();
  await page.getByRole("region", { name: "Edit group" }).getByLabel("Group name").fill("");
  await page.getByRole("region", { name: "Edit group" }).getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("region", { name: "Edit group" }).getByLabel("Group name")).toHaveAttribute("aria-invalid", "true");
  expect((await groupNamed(name))?.name).toBe(name);
  await page.getByRole("region", { name: "Edit group" }).getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("region", { name: "Edit group" })).toHaveCount(0);

  // Delete asks on the page; with Bob still a member the engine refuses (1059).
  await row.getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText(name);
  await auditWithoutScript(page, "en-US", "group delete confirmation without JavaScript (en)");
  await screenshot(page, "admin-groups-nojs-delete-en");
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("The user group is not empty")).toBeVisible();
  expect(await groupNamed(name)).toBeDefined();

  await row.getByRole("link", { name: "Edit" }).click();
  await page.getByRole("region", { name: "Edit group" }).getByLabel(`Permission of ${bob.account}`).selectOption({ label: "Remove" });
  await page.getByRole("region", { name: "Edit group" }).getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Group saved")).toBeVisible();
  await row.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Group deleted")).toBeVisible();
  await expect(row).toHaveCount(0);
  expect(await groupNamed(name)).toBeUndefined();
  await context.close();
});

test("without JavaScript, in Chinese: the edit form and the delete confirmation", async ({ browser }) => {
  const dan = await createUser(uniqueAccount("gnd"), PASSWORD);
  const name = uniqueAccount("zp");
  const token = await adminToken();
  const created = await ok<AdminGroup>("POST", "/api/admin/groups", { token, body: { name, maxUploadSpeed: 4 } });
  await ok("PUT", `/api/admin/groups/${created.id}/members/${dan.id}`, { token, body: { groupPermission: 6 } });
  const { context, page } = await consoleWithoutScript(browser, "zh-CN");
  await page.goto(`/admin/groups?q=${name}`);
  const row = page.getByRole("row").filter({ hasText: name });
  await row.getByRole("link", { name: "编辑" }).click();
  const edit = page.getByRole("region", { name: "编辑群组" });
  await expect(edit.getByLabel("最大上传速度（Mbps）")).toHaveValue("4");
  await expect(edit.getByLabel(`${dan.account} 的权限`)).toHaveValue(`${dan.id}:read`);
  await page.mouse.move(0, 0);
  await auditWithoutScript(page, "zh-CN", "group form without JavaScript (zh)");
  await consoleScreens(page, "admin-groups-nojs-form-zh");
  await edit.getByRole("link", { name: "取消" }).click();
  await row.getByRole("button", { name: "删除" }).click();
  await expect(page.getByRole("alertdialog")).toContainText(name);
  await screenshot(page, "admin-groups-nojs-delete-zh");
  await page.getByRole("alertdialog").getByRole("link", { name: "取消" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await ok("DELETE", `/api/admin/groups/${created.id}/members/${dan.id}`, { token });
  await ok("DELETE", `/api/admin/groups/${created.id}`, { token });
  await context.close();
});

const groupsTable = (page: Page) => page.getByRole("table", { name: /^(Group spaces|群组空间)$/ });
/** The names of the groups shown, top to bottom: the cells that read as a name of the test's. */
const shownGroups = async (page: Page, prefix: string) => (await groupsTable(page).getByRole("cell").allTextContents()).filter((text) => text.startsWith(prefix));

/** Groups named `<prefix>_<end>`, made in this order, each with the first `members` of `users`. */
async function makeGroups(prefix: string, made: ReadonlyArray<{ end: string; members: number }>, users: ReadonlyArray<{ id: number }>) {
  const token = await adminToken();
  const names: string[] = [];
  for (const { end, members } of made) {
    const group = await ok<AdminGroup>("POST", "/api/admin/groups", { token, body: { name: `${prefix}_${end}` } });
    for (const user of users.slice(0, members)) await ok("PUT", `/api/admin/groups/${group.id}/members/${user.id}`, { token, body: { groupPermission: 6 } });
    names.push(group.name);
  }
  return names;
}

test("the Group name header sorts: ascending, descending, then the list's own order again; members by their count; in English and Chinese", async ({ browser }) => {
  test.setTimeout(90_000);
  const prefix = uniqueAccount("gs").slice(0, 9); // short enough for the name column to show whole
  const users = [await createUser(uniqueAccount("gsm"), PASSWORD), await createUser(uniqueAccount("gsm"), PASSWORD)];
  // Made out of order, one in capitals: the order is the name's without case. Members 1, 0, 2, 1.
  const made = await makeGroups(prefix, [{ end: "c", members: 1 }, { end: "A", members: 0 }, { end: "d", members: 2 }, { end: "b", members: 1 }], users);
  const ascending = [...made].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  for (const locale of ["en-US", "zh-CN"] as const) {
    const en = locale === "en-US";
    const { context, page } = await openConsoleScreen(browser, locale, `/admin/groups?q=${prefix}&size=20`);
    const header = page.getByRole("columnheader", { name: en ? "Sort by Group name" : "按群组名称排序" });
    const sortLink = header.getByRole("link");
    await expect(header).toHaveAttribute("aria-sort", "none");
    expect(await shownGroups(page, prefix)).toEqual(made);

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "ascending");
    // The search and the page size stay; a new order starts at page 1.
    await expect(page).toHaveURL(new RegExp(`orderBy=name&order=asc&page=1&size=20&q=${prefix}`));
    expect(await shownGroups(page, prefix)).toEqual(ascending);
    await page.mouse.move(0, 0);
    await auditPage(page, `groups sorted by name (${locale})`);
    await consoleScreens(page, `admin-groups-sorted-${en ? "en" : "zh"}`);

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "descending");
    expect(await shownGroups(page, prefix)).toEqual([...ascending].reverse());

    await sortLink.click();
    await expect(header).toHaveAttribute("aria-sort", "none");
    await expect(page).not.toHaveURL(/orderBy/);
    expect(await shownGroups(page, prefix)).toEqual(made);

    // By the count of members; equal counts in the order they were made.
    const members = page.getByRole("columnheader", { name: en ? "Sort by Associated users" : "按关联用户排序" });
    await members.getByRole("link").click();
    await expect(members).toHaveAttribute("aria-sort", "ascending");
    await expect(header).toHaveAttribute("aria-sort", "none");
    expect(await shownGroups(page, prefix)).toEqual([made[1], made[0], made[3], made[2]]);
    await context.close();
  }
});

test("without JavaScript the Group name header is a link through the whole cycle", async ({ browser }) => {
  const prefix = uniqueAccount("gn").slice(0, 9);
  const made = await makeGroups(prefix, [{ end: "b", members: 0 }, { end: "c", members: 0 }, { end: "a", members: 0 }], []);
  const { context, page } = await consoleWithoutScript(browser, "en-US");
  await page.goto(`/admin/groups?q=${prefix}`);
  const header = page.getByRole("columnheader", { name: "Sort by Group name" });
  expect(await shownGroups(page, prefix)).toEqual(made);
  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  expect(await shownGroups(page, prefix)).toEqual([...made].sort());
  // A search keeps the order.
  await page.getByRole("searchbox", { name: "Search groups" }).fill(`${prefix}_`);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(/orderBy=name&order=asc/);
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "descending");
  expect(await shownGroups(page, prefix)).toEqual([...made].sort().reverse());
  await header.getByRole("link").click();
  await expect(header).toHaveAttribute("aria-sort", "none");
  expect(await shownGroups(page, prefix)).toEqual(made);
  await context.close();
});
