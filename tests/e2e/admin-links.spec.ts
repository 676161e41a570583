import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ShareCreateBody } from "../../contract/share";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { ADMIN_PASSWORD, adminToken, createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, seedFile, test } from "./fixtures";

/**
 * The console's Share files and Request files screens (admin spec sections 2 "Links", 3 "Share link
 * (admin view)", 4): real users' links and invitations, a visitor's download in the statistics,
 * disable (the visitor's page says the link is disabled) and enable, unbind, delete, single and bulk
 * with the confirmation naming exactly the rows, search, sort and paging; en and zh, and without JavaScript.
 */
const PASSWORD = "Links#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/links";

interface Made {
  shareUrl: string;
  shareId: string;
}

/** A user with files (name → content), signed in for REST; its links are made with `share`. */
async function owner(files: Record<string, string>) {
  const account = uniqueAccount("lk");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = (await login(account, PASSWORD)).data!;
  const client = await connectFiles(FILE_URL, signedIn.websocket_token);
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith("/")) await client.ok("mkdir", { groupId: 0, path: "/", name: name.slice(0, -1) });
    else await seedFile(client, signedIn.websocket_token, `/${name}`, content);
  }
  await client.close();
  const share = (body: Partial<ShareCreateBody>) =>
    ok<Made>("POST", "/api/share/link/create", {
      token: signedIn.token,
      body: { shareBaseUrl: WEB_URL, shareUrlType: 1, needPassword: false, shareUrlPasswd: "", shareAllowDownload: 1, ...body },
    });
  return { account, share };
}

/** A visitor's download of `file` through the file server, as the share page does (the engine counts it). */
async function visitorDownload(link: Made, file: string, fingerprint: string) {
  const info = await ok<{ token: string }>("GET", `/api/share/link/info?${new URLSearchParams({ url: link.shareUrl, fingerprint })}`);
  const ticket = await ok<{ url: string }>("POST", "/api/share/files/download", { token: info.token, body: { paths: [`/${file}`] } });
  const res = await fetch(FILE_URL + ticket.url);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const linksTable = (page: Page, name: RegExp) => page.getByRole("table", { name });
const toast = (page: Page, text: string | RegExp) => page.getByRole("region", { name: /^(Notifications|通知)$/ }).getByText(text);
const bulk = (page: Page) => page.getByRole("group", { name: /^(Selected links|所选链接)$/ });

/** axe with the pointer away from the controls: a hovered primary button is paler (opacity 90 %) than at rest. */
async function audit(page: Page, what: string) {
  await page.mouse.move(0, 0);
  await auditPage(page, what);
}

async function screens(page: Page, name: string) {
  await consoleScreens(page, name);
  await mkdir(SCREENS, { recursive: true });
  for (const file of [name, `${name}-1280`]) await copyFile(path.join("test-results", "screens", `${file}.png`), path.join(SCREENS, `${file}.png`));
}

test.describe("admin Links", () => {
  test.describe.configure({ timeout: 120_000 });
  test("Share files: search by owner, details with the download statistics, disable / enable, unbind, bulk delete (English)", async ({ browser }) => {
    const ann = await owner({ "alpha.txt": "alpha bytes", "beta.txt": "beta", "gamma.txt": "gamma" });
    const alpha = await ann.share({ shareFiles: ["/alpha.txt"], bindSwitch: true });
    const beta = await ann.share({ shareFiles: ["/beta.txt"], shareExpireTime: Math.floor(Date.now() / 1000) + 7 * 86_400 });
    await ann.share({ shareFiles: ["/gamma.txt"] });
    await visitorDownload(alpha, "alpha.txt", "e2e-device-1");

    const { context, page } = await adminConsolePage(browser, "en-US");
    try {
      await page.goto("/admin/shares/files");
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: "Share files" })).toBeVisible();
      const search = page.getByRole("search", { name: "Search links" });
      await search.getByLabel("Owner account").fill(ann.account);
      await search.getByRole("button", { name: "Search" }).click();
      await expect(page).toHaveURL(new RegExp(`account=${ann.account}`));
      const table = linksTable(page, /^Download links$/);
      await expect(table.getByRole("row")).toHaveCount(4);
      await expect(table.getByRole("row", { name: /alpha\.txt/ })).toContainText("Yes");
      await expect(table.getByRole("row", { name: /beta\.txt/ })).toContainText("Normal");
      await audit(page, "Share files");
      await screens(page, "admin-links-files-en");

      // Details: files, password not set, bound device id, and the visitor's download.
      await table.getByRole("link", { name: "1 download of alpha.txt" }).click();
      const detail = page.getByRole("region", { name: "Details of alpha.txt" });
      await expect(detail.getByRole("list").getByText("/alpha.txt", { exact: true })).toBeVisible();
      await expect(detail.getByText("Not set")).toBeVisible();
      await expect(detail.getByText("e2e-device-1")).toBeVisible();
      await expect(detail.getByRole("heading", { name: "Download statistics (1)" })).toBeVisible();
      const stats = detail.getByRole("table", { name: "Downloads of alpha.txt" });
      await expect(stats.getByRole("row")).toHaveCount(2);
      await expect(stats.getByRole("row").nth(1)).toContainText("/alpha.txt");
      await expect(stats.getByRole("row").nth(1)).toContainText("11 B");
      await audit(page, "Share files details");
      await screens(page, "admin-links-files-detail-en");

      // Disable one link: the confirmation names it; the visitor's page then says it is disabled.
      await table.getByRole("button", { name: "Disable beta.txt" }).click();
      const dialog = page.getByRole("dialog", { name: "Disable links" });
      await expect(dialog.getByRole("listitem")).toHaveText([`beta.txt (${ann.account})`]);
      await dialog.getByRole("button", { name: "Confirm" }).click();
      await expect(toast(page, "1 link disabled")).toBeVisible();
      await expect(table.getByRole("row", { name: /beta\.txt/ })).toContainText("Disabled");
      const visitor = await context.newPage();
      await visitor.goto(beta.shareUrl);
      await expect(visitor.getByRole("heading", { name: "Link unavailable" })).toBeVisible();
      await table.getByRole("button", { name: "Enable beta.txt" }).click();
      await expect(toast(page, "1 link enabled")).toBeVisible();
      await expect(table.getByRole("row", { name: /beta\.txt/ })).toContainText("Normal");
      await visitor.reload();
      await expect(visitor.getByRole("heading", { name: "Link unavailable" })).toHaveCount(0);
      await visitor.close();

      // Unbind the device: asked first, then the device id is gone.
      await table.getByRole("button", { name: "Unbind the device of alpha.txt" }).click();
      await page.getByRole("dialog", { name: "Unbind devices" }).getByRole("button", { name: "Confirm" }).click();
      await expect(toast(page, "1 device unbound")).toBeVisible();
      await expect(table.getByRole("button", { name: "Unbind the device of alpha.txt" })).toHaveCount(0);
      await expect(page.getByRole("region", { name: "Details of alpha.txt" }).getByText("No device bound yet")).toBeVisible();

      // Bulk delete: exactly the two ticked rows are named and deleted; the selection ends.
      await table.getByRole("checkbox", { name: "Select row beta.txt" }).check();
      await table.getByRole("checkbox", { name: "Select row gamma.txt" }).check();
      await bulk(page).getByRole("button", { name: "Delete" }).click();
      const ask = page.getByRole("dialog", { name: "Delete links" });
      // In the order of the list (newest first).
      await expect(ask.getByRole("listitem")).toHaveText([`gamma.txt (${ann.account})`, `beta.txt (${ann.account})`]);
      await ask.getByRole("button", { name: "Confirm" }).click();
      await expect(toast(page, "2 links deleted")).toBeVisible();
      await expect(table.getByRole("row")).toHaveCount(2);
      await expect(table.getByRole("row", { name: /alpha\.txt/ })).toBeVisible();
      await expect(bulk(page).getByRole("button", { name: "Delete" })).toBeDisabled();
    } finally {
      await context.close();
    }
  });

  test("文件请求与文件分享：按用户搜索、排序、分页、详情、批量禁用（中文）", async ({ browser }) => {
    const ben = await owner({ "inbox/": "", "report.txt": "report" });
    for (let i = 0; i < 11; i++) await ben.share({ shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: `p${i}` });
    await ben.share({ shareFiles: ["/report.txt"] });

    const { context, page } = await adminConsolePage(browser, "zh-CN");
    try {
      await page.goto(`/admin/shares/requests?account=${ben.account}`);
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: "文件收集" })).toBeVisible();
      const table = linksTable(page, /^上传邀请$/);
      // Eleven invitations: ten on the first page, one on the second.
      await expect(table.getByRole("row")).toHaveCount(11);
      await expect(page.getByText("共 11 条")).toBeVisible();
      await page.getByRole("navigation", { name: "链接分页" }).getByRole("link", { name: /第 ?2 ?页|^2$/ }).click();
      await expect(table.getByRole("row")).toHaveCount(2);
      // Sorted by invite time, oldest first: the header is a link that starts at page 1.
      await table.getByRole("link", { name: "按邀请时间排序" }).click();
      await expect(page).toHaveURL(/orderBy=2&order=asc/);
      await expect(table.getByRole("row")).toHaveCount(11);

      // Details of an invitation: directory, password set, time window; no download statistics.
      await table.getByRole("row").nth(1).getByRole("link", { name: "/inbox 的详情和下载统计" }).click();
      const detail = page.getByRole("region", { name: "/inbox 的详情" });
      await expect(detail.getByText("已设置")).toBeVisible();
      await expect(detail.getByText("开始和结束时间")).toBeVisible();
      await expect(detail.getByText("下载统计")).toHaveCount(0);
      await audit(page, "文件收集");
      await screens(page, "admin-links-requests-zh");

      // Bulk disable of two ticked rows, named in the question.
      const rows = table.getByRole("row").filter({ has: page.getByRole("checkbox", { name: /^选择此行/ }) });
      await rows.nth(0).getByRole("checkbox").check();
      await rows.nth(1).getByRole("checkbox").check();
      await bulk(page).getByRole("button", { name: "禁用" }).click();
      const ask = page.getByRole("dialog", { name: "禁用链接" });
      await expect(ask.getByRole("listitem")).toHaveText([`/inbox (${ben.account})`, `/inbox (${ben.account})`]);
      await ask.getByRole("button", { name: "确定" }).click();
      await expect(toast(page, "已禁用 2 个链接")).toBeVisible();
      await expect(table.getByRole("row").filter({ hasText: "已禁用" })).toHaveCount(2);
      // The rows stay, the selection does not: nothing ticked, the bulk buttons wait for a new one.
      await expect(rows.nth(0).getByRole("checkbox")).not.toBeChecked();
      await expect(rows.nth(1).getByRole("checkbox")).not.toBeChecked();
      await expect(bulk(page).getByRole("button", { name: "禁用" })).toBeDisabled();
      await page.goto(`/admin/shares/requests?account=${ben.account}&status=3`);
      await expect(table.getByRole("row")).toHaveCount(3);

      // The Share files tab in Chinese.
      await page.goto(`/admin/shares/files?account=${ben.account}`);
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: "文件分享" })).toBeVisible();
      await expect(linksTable(page, /^下载链接$/).getByRole("row", { name: /report\.txt/ })).toContainText("正常");
      await audit(page, "文件分享");
      await screens(page, "admin-links-files-zh");
    } finally {
      await context.close();
    }
  });

  test("without JavaScript: disable asks on the page naming the row, then a toast; enable; the search is a plain GET form", async ({ browser }) => {
    const cy = await owner({ "drop/": "" });
    const invite = await cy.share({ shareUrlType: 0, shareServerPath: "/drop", needPassword: true, shareUrlPasswd: "d1" });
    // Sign-in works as a plain form too.
    const noScript = await browser.newContext({ locale: "en-US", viewport: { width: 1440, height: 900 }, javaScriptEnabled: false });
    const page = await noScript.newPage();
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);
    try {
      await page.goto("/admin/shares/requests");
      const search = page.getByRole("search", { name: "Search links" });
      await search.getByLabel("Owner account").fill(cy.account);
      await search.getByRole("button", { name: "Search" }).click();
      const table = linksTable(page, /^Upload invitations$/);
      await expect(table.getByRole("row")).toHaveCount(2);
      await table.getByRole("button", { name: "Disable /drop" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Disable links" });
      await expect(confirm.getByRole("listitem")).toHaveText([`/drop (${cy.account})`]);
      await confirm.getByRole("button", { name: "Confirm" }).click();
      await expect(toast(page, "1 link disabled")).toBeVisible();
      await expect(table.getByRole("row", { name: /\/drop/ })).toContainText("Disabled");
      expect((await ok<{ disabled: boolean }>("GET", `/api/admin/shares/${invite.shareId}`, { token: await adminToken() })).disabled).toBe(true);
      await table.getByRole("button", { name: "Enable /drop" }).click();
      await expect(toast(page, "1 link enabled")).toBeVisible();
      await expect(table.getByRole("row", { name: /\/drop/ })).toContainText("Normal");
      // The bulk form without a ticked row says what to do.
      await bulk(page).getByRole("button", { name: "Delete" }).click();
      await expect(toast(page, "Tick the links to act on first.")).toBeVisible();
    } finally {
      await noScript.close();
    }
  });
});
