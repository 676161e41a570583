// Issue 13, items 3 and 8 and part of 13: a bulk action acts on exactly the rows shown ticked;
// a name opens its folder (a real link) or its preview; counts read "1 item"; moving a folder
// into itself says so; expired links offer no Cancel.
import type { Browser, Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ShareListItem } from "../../contract/share";
import { E2E_FILE_PORT, WEB_URL } from "../support/e2e-env";
import { createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { solidPng } from "../support/sample-files";
import { expect, hydrated, screenshot, signIn, test, seedFile } from "./fixtures";

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Select#Test2026";

/** A new user with every permission, signed in on `page`; `files` and `token` set the scene through the engine. */
async function newUser(page: Page) {
  const account = uniqueAccount("sel");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = (await login(account, PASSWORD)).data!;
  const files = await connectFiles(FILE_URL, signedIn.websocket_token);
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
  return { account, token: signedIn.token, files, socketToken: signedIn.websocket_token };
}

async function zhPage(browser: Browser) {
  const context = await browser.newContext({ locale: "zh-CN" });
  return { context, page: await context.newPage() };
}

const createLink = (token: string, body: Record<string, unknown>) =>
  ok<{ shareUrl: string; shareId: string }>("POST", "/api/share/link/create", { token, body: { shareUrlType: 1, shareBaseUrl: WEB_URL, ...body } });
const listLinks = (token: string) => ok<{ sharelinkinfo: ShareListItem[]; total: number }>("GET", "/api/share/link/list?shareUrlType=1&pageSize=100", { token });
const statuses = async (token: string) => Object.fromEntries((await listLinks(token)).sharelinkinfo.map((l) => [l.filename[0], l.shareStatus]));

const fileTable = (page: Page) => page.getByRole("region", { name: /^Files in |中的文件$/ });
const fileRow = (page: Page, name: string) => fileTable(page).getByRole("row").filter({ has: page.getByText(name, { exact: true }) });
const linkRows = (page: Page) => page.getByRole("region", { name: /^(Share links|分享链接)$/ }).getByRole("row");

test.describe("bulk actions act on exactly the rows shown ticked", () => {
  for (const lang of ["en", "zh"] as const) {
    test(`/link: after a bulk Cancel nothing stays ticked, and a bulk Delete names and deletes exactly the two ticked rows (${lang})`, async ({ page }) => {
      const w = {
        en: { table: "Share links", bulk: "Selected links", select: "Select row", cancel: "Cancel", del: "Delete", cancelTitle: "Cancel links", deleteTitle: "Delete links", confirm: "Confirm", canceled: "Canceled", deleted: "Deleted", ask: "Delete 2 links?" },
        zh: { table: "分享链接", bulk: "所选链接", select: "选择此行", cancel: "取消分享", del: "删除", cancelTitle: "取消链接", deleteTitle: "删除链接", confirm: "确定", canceled: "已取消", deleted: "已删除", ask: "确定删除这 2 个链接吗？" },
      }[lang];
      const { token, files } = await newUser(page);
      for (const name of ["alpha", "bravo", "charlie", "delta"]) {
        await files.ok("mkdir", { groupId: 0, path: "/", name });
        await createLink(token, { shareFiles: [`/${name}`] });
      }
      await page.goto("/link");
      await hydrated(page);
      if (lang === "zh") {
        await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
        await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      }
      const table = page.getByRole("region", { name: w.table });
      const bulk = page.getByRole("group", { name: w.bulk });
      await table.getByRole("checkbox", { name: `${w.select} alpha` }).check();
      await table.getByRole("checkbox", { name: `${w.select} bravo` }).check();
      await bulk.getByRole("button", { name: w.cancel, exact: true }).click();
      await page.getByRole("dialog", { name: w.cancelTitle }).getByRole("button", { name: w.confirm }).click();
      await expect(page.getByRole("status").filter({ hasText: w.canceled })).toBeVisible();
      await expect(linkRows(page).filter({ hasText: "alpha" })).toContainText(w.canceled);

      // The action is over: nothing is ticked any more, so the bulk buttons wait for a new selection.
      await expect(table.getByRole("checkbox", { name: `${w.select} alpha` })).not.toBeChecked();
      await expect(table.getByRole("checkbox", { name: `${w.select} bravo` })).not.toBeChecked();
      await expect(bulk.getByRole("button", { name: w.del, exact: true })).toBeDisabled();

      await table.getByRole("checkbox", { name: `${w.select} charlie` }).check();
      await table.getByRole("checkbox", { name: `${w.select} delta` }).check();
      await bulk.getByRole("button", { name: w.del, exact: true }).click();
      const remove = page.getByRole("dialog", { name: w.deleteTitle });
      await expect(remove).toContainText(w.ask);
      // In the order shown: newest first.
      await expect(remove.getByRole("listitem")).toHaveText(["delta", "charlie"]);
      for (const width of [1440, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `select-link-delete-confirm-${lang}-${width}`);
      }
      await remove.getByRole("button", { name: w.confirm }).click();
      await expect(page.getByRole("status").filter({ hasText: w.deleted })).toBeVisible();
      expect(await statuses(token)).toEqual({ alpha: 3, bravo: 3 });
      await expect(bulk.getByRole("button", { name: w.del, exact: true })).toBeDisabled();
      await files.close();
    });
  }

  test("/link: a selection does not survive a search, another page or another tab", async ({ page }) => {
    const { token, files } = await newUser(page);
    const names = Array.from({ length: 11 }, (_, i) => `item${String(i + 1).padStart(2, "0")}`);
    for (const name of names) {
      await files.ok("mkdir", { groupId: 0, path: "/", name });
      await createLink(token, { shareFiles: [`/${name}`] });
    }
    await page.goto("/link");
    await hydrated(page);
    const table = page.getByRole("region", { name: "Share links" });
    const bulk = page.getByRole("group", { name: "Selected links" });
    // Newest first: item11 … item02 on page 1, item01 on page 2.
    await table.getByRole("checkbox", { name: "Select row item11" }).check();
    await page.getByRole("link", { name: "Page 2" }).click();
    await expect(table.getByRole("checkbox", { name: "Select row item01" })).toBeVisible();
    await hydrated(page);
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeDisabled();
    await table.getByRole("checkbox", { name: "Select row item01" }).check();
    await bulk.getByRole("button", { name: "Delete" }).click();
    const remove = page.getByRole("dialog", { name: "Delete links" });
    await expect(remove).toContainText("Delete 1 link?");
    await expect(remove.getByRole("listitem")).toHaveText(["item01"]);
    await remove.getByRole("button", { name: "Cancel" }).click();

    // A search: the ticked row is not among the results, and nothing is ticked there.
    const search = page.getByRole("search", { name: "Search links" });
    await search.getByLabel("Name").fill("item0");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/name=item0/);
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeDisabled();
    await table.getByRole("checkbox", { name: "Select row item05" }).check();
    await bulk.getByRole("button", { name: "Delete" }).click();
    await expect(remove.getByRole("listitem")).toHaveText(["item05"]);
    await remove.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Deleted" })).toBeVisible();
    expect(Object.keys(await statuses(token)).sort()).toEqual(names.filter((n) => n !== "item05").sort());

    // Another tab and back: the row ticked before is not ticked any more, and nothing can be acted on.
    await table.getByRole("checkbox", { name: "Select row item04" }).check();
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeEnabled();
    await page.getByRole("tab", { name: "Request files" }).click();
    await expect(page.getByRole("tab", { name: "Request files" })).toHaveAttribute("aria-selected", "true");
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeDisabled();
    await page.getByRole("tab", { name: "Share files" }).click();
    await expect(table.getByRole("checkbox", { name: "Select row item04" })).not.toBeChecked();
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeDisabled();
    await files.close();
  });

  test("file table: a bulk delete names and removes only the rows ticked in the folder shown; the selection goes with the action", async ({ page }) => {
    const { files, socketToken } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
    for (const name of ["keep-1.txt", "keep-2.txt"]) await seedFile(files, socketToken, `/${name}`, name);
    for (const name of ["old-1.txt", "old-2.txt", "new.txt"]) await seedFile(files, socketToken, `/docs/${name}`, name);
    await page.getByRole("button", { name: "Refresh" }).click();
    const toolbar = page.getByRole("toolbar", { name: "File actions" });

    // Ticked at the root, then another folder: nothing ticked there.
    await fileRow(page, "keep-1.txt").getByRole("checkbox").check();
    await fileRow(page, "docs").getByRole("link", { name: "docs" }).click();
    await expect(page).toHaveURL(/path=%2Fdocs$/);
    await expect(fileRow(page, "old-1.txt")).toBeVisible();
    await expect(toolbar.getByRole("button", { name: "Delete" })).toBeDisabled();

    await fileRow(page, "old-1.txt").getByRole("checkbox").check();
    await fileRow(page, "old-2.txt").getByRole("checkbox").check();
    await toolbar.getByRole("button", { name: "Delete" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete" });
    await expect(confirm).toContainText("Are you sure you want to delete these 2 items?");
    await expect(confirm.getByRole("listitem")).toHaveText(["old-1.txt", "old-2.txt"]);
    await screenshot(page, "select-files-delete-confirm-en-1440");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Deleted" })).toBeVisible();
    await expect(fileRow(page, "old-1.txt")).toHaveCount(0);
    expect((await files.ok("list", { groupId: 0, path: "/docs" })).names).toEqual(["new.txt"]);
    expect((await files.ok("list", { groupId: 0, path: "/" })).names.sort()).toEqual(["docs", "keep-1.txt", "keep-2.txt"]);
    await expect(toolbar.getByRole("button", { name: "Delete" })).toBeDisabled();

    // The same after a search opened the folder.
    await page.getByRole("button", { name: "All files" }).click();
    await fileRow(page, "keep-2.txt").getByRole("checkbox").check();
    await page.getByRole("button", { name: "Search" }).click();
    const search = page.getByRole("dialog", { name: "Search" });
    await search.getByLabel("Keyword").fill("new");
    await search.getByRole("button", { name: "Search" }).click();
    await search.getByRole("button", { name: /new\.txt/ }).click();
    await expect(page).toHaveURL(/path=%2Fdocs$/);
    await expect(toolbar.getByRole("button", { name: "Delete" })).toBeDisabled();
    await files.close();
  });
});

test.describe("a name opens what it names", () => {
  test("a folder's name is a link (click, keyboard); a file's name and the row menu open its preview; double-click still opens; a click on the row ticks nothing", async ({ page }) => {
    const { files, socketToken } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "photos" });
    await files.ok("mkdir", { groupId: 0, path: "/photos", name: "2026" });
    await seedFile(files, socketToken, "/photos/sky.png", solidPng(40, 30));
    await page.getByRole("button", { name: "Refresh" }).click();

    const folder = fileRow(page, "photos").getByRole("link", { name: "photos" });
    await expect(folder).toHaveAttribute("href", /\/personal\?path=%2Fphotos$/);
    await screenshot(page, "select-files-names-en-1440");
    // A click on the row (not on its box) ticks nothing.
    await fileRow(page, "photos").getByRole("cell").nth(2).click();
    await expect(fileRow(page, "photos").getByRole("checkbox")).not.toBeChecked();
    await folder.click();
    await expect(page).toHaveURL(/path=%2Fphotos$/);

    // The keyboard: Tab to the link, Enter.
    await fileRow(page, "2026").getByRole("link", { name: "2026" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/path=%2Fphotos%2F2026$/);
    await page.goBack();

    // A file's name opens its preview.
    await fileRow(page, "sky.png").getByRole("button", { name: "sky.png", exact: true }).click();
    const preview = page.getByRole("dialog", { name: "sky.png" });
    await expect(preview.getByRole("img", { name: "sky.png" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(preview).toBeHidden();
    await expect(fileRow(page, "sky.png").getByRole("checkbox")).not.toBeChecked();

    // The row menu offers Preview too.
    await page.getByRole("button", { name: "More actions for sky.png" }).click();
    await page.getByRole("menuitem", { name: "Preview" }).click();
    await expect(preview.getByRole("img", { name: "sky.png" })).toBeVisible();
    await page.keyboard.press("Escape");

    // A double click on the row still opens it.
    await fileRow(page, "2026").getByRole("cell").nth(2).dblclick();
    await expect(page).toHaveURL(/path=%2Fphotos%2F2026$/);
    await files.close();
  });

  test("in Chinese: the folder link and the preview name", async ({ browser }) => {
    const { context, page } = await zhPage(browser);
    const { files, socketToken } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "资料" });
    await seedFile(files, socketToken, "/图.png", solidPng(20, 20));
    await page.getByRole("button", { name: "刷新" }).click();
    await expect(fileRow(page, "资料").getByRole("link", { name: "资料" })).toBeVisible();
    await expect(fileRow(page, "图.png").getByRole("button", { name: "图.png", exact: true })).toBeVisible();
    await screenshot(page, "select-files-names-zh-1440");
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "select-files-names-zh-1280");
    await fileRow(page, "资料").getByRole("link", { name: "资料" }).click();
    await expect(page).toHaveURL(/path=%2F%E8%B5%84%E6%96%99$/);
    await files.close();
    await context.close();
  });
});

test.describe("words", () => {
  test("moving a folder into itself says so, in both languages", async ({ page, browser }) => {
    const { files } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "box" });
    await files.ok("mkdir", { groupId: 0, path: "/box", name: "inner" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.getByRole("button", { name: "More actions for box" }).click();
    await page.getByRole("menuitem", { name: "Move" }).click();
    const move = page.getByRole("dialog", { name: "Move to" });
    await move.getByRole("button", { name: "box", exact: true }).click();
    await move.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "A folder cannot be moved or copied into itself or into one of its own folders" })).toBeVisible();
    await screenshot(page, "select-move-into-itself-en-1440");
    expect((await files.ok("list", { groupId: 0, path: "/box" })).names).toEqual(["inner"]);
    await files.close();

    const zh = await zhPage(browser);
    const other = await newUser(zh.page);
    await other.files.ok("mkdir", { groupId: 0, path: "/", name: "box" });
    await zh.page.getByRole("button", { name: "刷新" }).click();
    await zh.page.getByRole("button", { name: "box 的更多操作" }).click();
    await zh.page.getByRole("menuitem", { name: "移动" }).click();
    const zhMove = zh.page.getByRole("dialog", { name: "移动到" });
    await zhMove.getByRole("button", { name: "box", exact: true }).click();
    await zhMove.getByRole("button", { name: "确定" }).click();
    await expect(zh.page.getByRole("alert").filter({ hasText: "不能将文件夹移动或复制到其自身或其子文件夹中" })).toBeVisible();
    await screenshot(zh.page, "select-move-into-itself-zh-1440");
    await other.files.close();
    await zh.context.close();
  });

  test("counts are pluralised: '1 item', '1 link', and Chinese has one form", async ({ page, browser }) => {
    const { token, files } = await newUser(page);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "only" });
    await createLink(token, { shareFiles: ["/only"] });
    await page.goto("/link");
    await hydrated(page);
    await expect(page.getByText("Total 1 item", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Delete link only" }).click();
    await expect(page.getByRole("dialog", { name: "Delete links" })).toContainText("Delete 1 link?");
    await screenshot(page, "select-link-one-en-1440");
    await page.getByRole("dialog", { name: "Delete links" }).getByRole("button", { name: "Cancel" }).click();
    await files.close();

    const zh = await zhPage(browser);
    const other = await newUser(zh.page);
    await other.files.ok("mkdir", { groupId: 0, path: "/", name: "only" });
    await createLink(other.token, { shareFiles: ["/only"] });
    await zh.page.goto("/link");
    await hydrated(zh.page);
    await expect(zh.page.getByText("共 1 条", { exact: true })).toBeVisible();
    await zh.page.getByRole("button", { name: "删除链接 only" }).click();
    await expect(zh.page.getByRole("dialog", { name: "删除链接" })).toContainText("确定删除这 1 个链接吗");
    await screenshot(zh.page, "select-link-one-zh-1440");
    await zh.page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(zh.page, "select-link-one-zh-1280");
    await other.files.close();
    await zh.context.close();
  });

  test("expired links offer no Cancel, in the row or in bulk", async ({ page }) => {
    const { token, files } = await newUser(page);
    for (const name of ["fresh", "stale"]) await files.ok("mkdir", { groupId: 0, path: "/", name });
    await createLink(token, { shareFiles: ["/fresh"] });
    await createLink(token, { shareFiles: ["/stale"], shareExpireTime: Math.floor(Date.now() / 1000) + 2 });
    await expect.poll(async () => (await statuses(token)).stale).toBe(2);
    await page.goto("/link");
    await hydrated(page);
    const table = page.getByRole("region", { name: "Share links" });
    const bulk = page.getByRole("group", { name: "Selected links" });
    await expect(linkRows(page).filter({ hasText: "stale" })).toContainText("Expired");
    await expect(table.getByRole("button", { name: "Cancel link stale" })).toHaveCount(0);
    await expect(table.getByRole("button", { name: "Delete link stale" })).toBeVisible();
    await expect(table.getByRole("button", { name: "Cancel link fresh" })).toBeVisible();

    await table.getByRole("checkbox", { name: "Select row stale" }).check();
    await expect(bulk.getByRole("button", { name: "Cancel" })).toBeDisabled();
    await expect(bulk.getByRole("button", { name: "Delete" })).toBeEnabled();
    await screenshot(page, "select-link-expired-en-1440");
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "select-link-expired-en-1280");

    // With a live link ticked as well, Cancel names (and cancels) the live one only.
    await table.getByRole("checkbox", { name: "Select row fresh" }).check();
    await bulk.getByRole("button", { name: "Cancel" }).click();
    const cancel = page.getByRole("dialog", { name: "Cancel links" });
    await expect(cancel.getByRole("listitem")).toHaveText(["fresh"]);
    await cancel.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Canceled" })).toBeVisible();
    expect(await statuses(token)).toEqual({ fresh: 3, stale: 2 });
    await files.close();
  });
});

test("without JavaScript, a bulk Cancel of an expired link only says why nothing was cancelled", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const account = uniqueAccount("selnojs");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = (await login(account, PASSWORD)).data!;
  const files = await connectFiles(FILE_URL, signedIn.websocket_token);
  await files.ok("mkdir", { groupId: 0, path: "/", name: "gone" });
  await createLink(signedIn.token, { shareFiles: ["/gone"], shareExpireTime: Math.floor(Date.now() / 1000) + 2 });
  await expect.poll(async () => (await statuses(signedIn.token)).gone).toBe(2);
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await page.goto("/link");
  const table = page.getByRole("region", { name: "Share links" });
  await expect(table.getByRole("button", { name: "Cancel link gone" })).toHaveCount(0);
  await table.getByRole("checkbox", { name: "Select row gone" }).check();
  await page.getByRole("group", { name: "Selected links" }).getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Only links in use can be cancelled" })).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  expect(await statuses(signedIn.token)).toEqual({ gone: 2 });
  await files.close();
  await context.close();
});

test.describe("screens", () => {
  for (const lang of ["en", "zh"] as const) {
    test(`the changed screens in ${lang} at 1440 and 1280 px: names, row menu, delete confirmations, expired links`, async ({ browser }) => {
      const context = await browser.newContext({ locale: lang === "zh" ? "zh-CN" : "en-US" });
      const page = await context.newPage();
      const { token, files, socketToken } = await newUser(page);
      await files.ok("mkdir", { groupId: 0, path: "/", name: "projects" });
      await seedFile(files, socketToken, "/chart.png", solidPng(40, 30));
      await seedFile(files, socketToken, "/notes.txt", "notes");
      await createLink(token, { shareFiles: ["/projects"] });
      await createLink(token, { shareFiles: ["/notes.txt"], shareExpireTime: Math.floor(Date.now() / 1000) + 2 });
      await expect.poll(async () => (await statuses(token))["notes.txt"]).toBe(2);
      await page.getByRole("button", { name: lang === "zh" ? "刷新" : "Refresh" }).click();
      for (const width of [1440, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto("/personal");
        await hydrated(page);
        await expect(fileRow(page, "projects").getByRole("link", { name: "projects" })).toBeVisible();
        await page.getByRole("button", { name: lang === "zh" ? "chart.png 的更多操作" : "More actions for chart.png" }).click();
        await expect(page.getByRole("menuitem", { name: lang === "zh" ? "预览" : "Preview" })).toBeVisible();
        await screenshot(page, `select-files-menu-${lang}-${width}`);
        await page.keyboard.press("Escape");
        await fileRow(page, "chart.png").getByRole("checkbox").check();
        await fileRow(page, "notes.txt").getByRole("checkbox").check();
        await page.getByRole("toolbar").getByRole("button", { name: lang === "zh" ? "删除" : "Delete" }).click();
        const confirm = page.getByRole("dialog", { name: lang === "zh" ? "删除" : "Delete" });
        await expect(confirm.getByRole("listitem")).toHaveText(["chart.png", "notes.txt"]);
        await screenshot(page, `select-files-delete-${lang}-${width}`);
        await confirm.getByRole("button", { name: lang === "zh" ? "取消" : "Cancel" }).click();

        await page.goto("/link");
        await hydrated(page);
        const table = page.getByRole("region", { name: lang === "zh" ? "分享链接" : "Share links" });
        await expect(table.getByRole("button", { name: lang === "zh" ? "删除链接 notes.txt" : "Delete link notes.txt" })).toBeVisible();
        await table.getByRole("checkbox", { name: /projects/ }).check();
        await table.getByRole("checkbox", { name: /notes\.txt/ }).check();
        await screenshot(page, `select-link-expired-${lang}-${width}`);
        await page.getByRole("group", { name: lang === "zh" ? "所选链接" : "Selected links" }).getByRole("button", { name: lang === "zh" ? "删除" : "Delete" }).click();
        const ask = page.getByRole("dialog", { name: lang === "zh" ? "删除链接" : "Delete links" });
        await expect(ask.getByRole("listitem")).toHaveText(["notes.txt", "projects"]);
        await screenshot(page, `select-link-delete-${lang}-${width}`);
        await ask.getByRole("button", { name: lang === "zh" ? "取消" : "Cancel" }).click();
      }
      await files.close();
      await context.close();
    });
  }
});
