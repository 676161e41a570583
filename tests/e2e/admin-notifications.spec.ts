import { adminToken, call, codec, createUser, ok, sendNotice, tokenFor, uniqueAccount } from "../support/e2e-helpers";
import { adminConsolePage, auditPage, consoleScreens, openConsoleScreen, serverMailRelay } from "./admin-console";
import { expect, screenshot, test } from "./fixtures";

/**
 * Notifications (admin document sections 3 and 5): compose to picked users or to all, on the
 * website and/or by e-mail, with the spec's rules answered by the engine (no way, no receivers,
 * e-mail before the server's mail account, with a link to the Email setting); the mails arrive at
 * a real smtp-server; the list shows read counts and e-mail delivery; delete one and several after a
 * confirmation. Also without JavaScript. The server's mail account is removed again after each test.
 */

const PASSWORD = "Notice#Pass26";
const SMTP_USER = "ferry-notices@mail.test";
const SMTP_PASS = "Notice-Smtp#2026";

const relay = serverMailRelay({ user: SMTP_USER, password: SMTP_PASS });

async function setServerAccount() {
  await ok("PATCH", "/api/admin/settings/mail", {
    token: await adminToken(),
    body: { emailFromName: "Ferry", emailType: 9, emailAccount: SMTP_USER, emailPassword: codec.encode(SMTP_PASS), emailSmtpHost: relay.smtp.host, emailSmtpPort: relay.smtp.port, emailEncryptType: 0 },
  });
}

test("(en) compose: the engine's rules, then website and e-mail to picked users; read counts, details, delete", async ({ browser }) => {
  test.setTimeout(120_000);
  const withMail = await createUser(uniqueAccount("nma"), PASSWORD, { email: `${uniqueAccount("a")}@mail.test` });
  const noMail = await createUser(uniqueAccount("nmb"), PASSWORD);
  const subject = `Maintenance ${uniqueAccount("s")}`;
  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/notifications", "Notifications");

  await page.getByRole("link", { name: "New notification" }).click();
  const dialog = page.getByRole("dialog", { name: "New notification" });
  await dialog.getByLabel("Subject").fill(subject);
  await dialog.getByLabel("Content").fill("The servers restart tonight.\nPlease save your work.");
  // No way chosen: the engine's 4440.
  await dialog.getByRole("checkbox", { name: "Website" }).uncheck();
  await dialog.getByRole("button", { name: "Send" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Choose how to send the notification");
  // No receivers: 4441.
  await dialog.getByRole("checkbox", { name: "Website" }).check();
  await dialog.getByRole("checkbox", { name: "E-mail" }).check();
  await dialog.getByRole("button", { name: "Send" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Choose the receivers");
  for (const user of [withMail, noMail]) {
    await dialog.getByLabel("Find users").fill(user.account);
    await dialog.getByRole("button", { name: `Add ${user.account}` }).click();
    await expect(dialog.getByRole("button", { name: `Remove ${user.account}` })).toBeVisible();
  }
  await expect(dialog.getByText("no e-mail address")).toBeVisible();
  // E-mail before the server's mail account: 4442, with the way to the Email setting.
  await dialog.getByRole("button", { name: "Send" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Sending by e-mail needs the server's mail account");
  await expect(dialog.getByRole("link", { name: "Set up the mail account" })).toHaveAttribute("href", "/admin/shares/email");
  await auditPage(page, "compose dialog (en)");
  await screenshot(page, "admin-notifications-compose-en");

  await setServerAccount();
  const start = relay.smtp.received.length;
  await dialog.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText("The notification was sent; the e-mails go out now")).toBeVisible();
  await expect(dialog).toBeHidden();
  const [mail] = (await relay.smtp.waitFor(start + 1)).slice(start);
  expect(mail!.envelopeTo).toEqual([withMail.email]);
  expect(mail!.mail.subject).toBe(subject);
  expect(mail!.mail.text).toContain("Please save your work.");

  // The receiver reads it on the website: the list's read count follows.
  const list = await call<{ list: Array<{ id: number; title: string }> }>("GET", `/api/admin/notices?search=${encodeURIComponent(subject)}`, { token: await adminToken() });
  const id = list.data!.list[0]!.id;
  await call("PATCH", "/api/notice/status/update", { token: await tokenFor(withMail.account, PASSWORD), body: { noticeIds: [id] } });
  await page.getByRole("searchbox", { name: "Search subject or content" }).fill(subject);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByRole("row").filter({ hasText: subject });
  await expect(row).toContainText("1 / 2");
  await expect(row).toContainText("Website + E-mail");
  await expect(row).toContainText("1 sent");
  await expect(row).toContainText("1 without address");
  await row.getByRole("link", { name: `Details: ${subject}` }).click();
  const details = page.getByRole("region", { name: `Receivers of “${subject}”` });
  await expect(details.getByRole("row").filter({ hasText: withMail.account })).toContainText("Sent");
  await expect(details.getByRole("row").filter({ hasText: noMail.account })).toContainText("No address");
  await page.mouse.move(0, 0);
  await auditPage(page, "notifications list (en)");
  await consoleScreens(page, "admin-notifications-en");

  await row.getByRole("button", { name: `Delete: ${subject}` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete notification" });
  await expect(confirm).toContainText(`Delete “${subject}” for every receiver?`);
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("1 notification deleted")).toBeVisible();
  const after = await call<{ total: number }>("GET", `/api/admin/notices?search=${encodeURIComponent(subject)}`, { token: await adminToken() });
  expect(after.data!.total).toBe(0);
  await context.close();
});

test("(zh) 发送给所有用户，网站通知，批量删除", async ({ browser }) => {
  test.setTimeout(90_000);
  const user = await createUser(uniqueAccount("nzh"), PASSWORD);
  const tag = uniqueAccount("z");
  const { context, page } = await openConsoleScreen(browser, "zh-CN", "/admin/notifications", "通知");
  await page.getByRole("link", { name: "新建通知" }).click();
  const dialog = page.getByRole("dialog", { name: "新建通知" });
  await dialog.getByLabel("主题").fill(`全体通知 ${tag}`);
  await dialog.getByLabel("内容").fill("系统将于今晚维护。");
  await dialog.getByRole("radio", { name: "所有用户" }).check();
  await auditPage(page, "compose dialog (zh)");
  await screenshot(page, "admin-notifications-compose-zh");
  await dialog.getByRole("button", { name: "发送" }).click();
  await expect(page.getByText("通知已发送", { exact: true })).toBeVisible();
  const inbox = await call<{ notic_list: Array<{ title: string }> }>("GET", "/api/notice/list", { token: await tokenFor(user.account, PASSWORD) });
  expect(inbox.data!.notic_list.map((n) => n.title)).toContain(`全体通知 ${tag}`);

  await sendNotice(`第二条 ${tag}`, "内容", [user.id]);
  await page.getByRole("searchbox", { name: "搜索主题或内容" }).fill(tag);
  await page.getByRole("button", { name: "搜索", exact: true }).click();
  await expect(page.getByRole("row").filter({ hasText: tag })).toHaveCount(2);
  // The pointer rests on Search (the kit's hover look); the audit is of the page at rest.
  await page.mouse.move(0, 0);
  await auditPage(page, "notifications list (zh)");
  await consoleScreens(page, "admin-notifications-zh");
  await page.getByRole("checkbox", { name: `选择此行 全体通知 ${tag}` }).check();
  await page.getByRole("checkbox", { name: `选择此行 第二条 ${tag}` }).check();
  await page.getByRole("button", { name: "删除所选" }).click();
  const confirm = page.getByRole("dialog", { name: "删除通知" });
  await expect(confirm).toContainText("确定为所有接收人删除 2 条通知吗");
  await confirm.getByRole("button", { name: "删除" }).click();
  await expect(page.getByText("已删除 2 条通知")).toBeVisible();
  const after = await call<{ total: number }>("GET", `/api/admin/notices?search=${tag}`, { token: await adminToken() });
  expect(after.data!.total).toBe(0);
  await context.close();
});

test("without JavaScript: compose with Find, the engine's refusal, send, and delete after the page's confirmation", async ({ browser }) => {
  test.setTimeout(90_000);
  const user = await createUser(uniqueAccount("nnj"), PASSWORD);
  const subject = `Plain ${uniqueAccount("p")}`;
  const { context: signedIn, page: first } = await adminConsolePage(browser, "en-US");
  const state = await signedIn.storageState();
  await first.close();
  await signedIn.close();
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: state, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/admin/notifications");
  await page.getByRole("link", { name: "New notification" }).click();
  const panel = page.getByRole("region", { name: "New notification" });
  await panel.getByLabel("Subject").fill(subject);
  await panel.getByLabel("Content").fill("Plain HTML works.");
  await panel.getByLabel("Find users").fill(user.account);
  await panel.getByRole("button", { name: "Find" }).click();
  await page.getByRole("region", { name: "New notification" }).getByLabel(`Add ${user.account}`).check();
  await page.getByRole("region", { name: "New notification" }).getByRole("checkbox", { name: "Website" }).uncheck();
  await page.getByRole("region", { name: "New notification" }).getByRole("button", { name: "Send" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Choose how to send the notification" })).toBeVisible();
  const again = page.getByRole("region", { name: "New notification" });
  await again.getByRole("checkbox", { name: "Website" }).check();
  await again.getByLabel("Find users").fill(user.account);
  await again.getByRole("button", { name: "Find" }).click();
  await page.getByRole("region", { name: "New notification" }).getByLabel(`Add ${user.account}`).check();
  await page.getByRole("region", { name: "New notification" }).getByRole("button", { name: "Send" }).click();
  await expect(page.getByText("The notification was sent", { exact: true })).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: subject });
  await expect(row).toContainText("0 / 1");
  await row.getByRole("button", { name: `Delete: ${subject}` }).click();
  await expect(page.getByText(`Delete “${subject}” for every receiver?`)).toBeVisible();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(page.getByText("1 notification deleted")).toBeVisible();
  await context.close();
});
