import type { Locator } from "@playwright/test";
import { adminToken, call, codec } from "../support/e2e-helpers";
import { adminConsolePage, auditPage, consoleScreens, openConsoleScreen, serverMailRelay } from "./admin-console";
import { expect, hydrated, test } from "./fixtures";

/**
 * Email setting (admin document section 3): the server's SMTP account with the provider presets and
 * the encryptions each provider allows, and "Send test mail", which arrives at a real smtp-server
 * started here and reports the server's own answer — its acceptance, and its refusal text. The
 * account is server-wide: every test removes it again (DELETE /api/admin/settings/mail).
 */

const SMTP_USER = "ferry-e2e@mail.test";
const SMTP_PASS = "E2e-Smtp#2026";

const relay = serverMailRelay({ user: SMTP_USER, password: SMTP_PASS });

/** The choices of a select (without its empty "Please select" placeholder). */
const optionsOf = (select: Locator) =>
  select.locator("option").evaluateAll((els) => (els as HTMLOptionElement[]).filter((e) => e.value !== "").map((e) => e.textContent ?? ""));

for (const lang of ["en", "zh"] as const) {
  const L =
    lang === "en"
      ? { locale: "en-US", title: "Email setting", provider: "Provider", host: "SMTP host", port: "SMTP port", encryption: "Encryption", name: "Sender name", account: "SMTP account", password: "SMTP password", save: "Save", saved: "The mail account was saved.", to: "Send to", send: "Send test mail", accepted: "The mail server accepted the test mail", subject: "Ferry test mail", refused: "The mail server refused" }
      : { locale: "zh-CN", title: "邮箱设置", provider: "邮箱服务商", host: "SMTP 服务器", port: "SMTP 端口", encryption: "加密方式", name: "发件人名称", account: "SMTP 账号", password: "SMTP 密码", save: "保存", saved: "发件邮箱已保存。", to: "收件地址", send: "发送测试邮件", accepted: "邮件服务器已接收", subject: "Ferry 测试邮件", refused: "邮件服务器拒绝" };

  test(`(${lang}) presets per provider, save, and a test mail that arrives with the server's answer`, async ({ browser }) => {
    test.setTimeout(90_000);
    const { context, page } = await openConsoleScreen(browser, L.locale, "/admin/shares/email", L.title);
    const form = page.locator("form#server-mail");
    const provider = form.getByLabel(L.provider);
    const host = form.getByLabel(L.host);
    const port = form.getByLabel(L.port);
    const encryption = form.getByLabel(L.encryption);

    await provider.selectOption({ label: "Gmail" });
    await expect(host).toHaveValue("smtp.gmail.com");
    await expect(port).toHaveValue("465");
    expect(await optionsOf(encryption)).toEqual(["SSL"]);
    await provider.selectOption({ label: "Outlook" });
    await expect(host).toHaveValue("smtp-mail.outlook.com");
    await expect(port).toHaveValue("587");
    expect(await optionsOf(encryption)).toEqual(["STARTTLS"]);
    await provider.selectOption({ label: "Microsoft 365" });
    await expect(host).toHaveValue("smtp.office365.com");
    await provider.selectOption({ label: "iCloud" });
    await expect(host).toHaveValue("smtp.mail.me.com");
    await provider.selectOption({ label: "Yahoo" });
    await expect(host).toHaveValue("smtp.mail.yahoo.com");
    expect((await optionsOf(encryption)).length).toBe(3);
    await auditPage(page, `email setting (${lang})`);
    await consoleScreens(page, `admin-email-${lang}`);

    // The real account: "Other" at the test server, no encryption.
    await provider.selectOption("9");
    await expect(host).toHaveValue("");
    await form.getByLabel(L.name).fill("Ferry E2E");
    await form.getByLabel(L.account).fill(SMTP_USER);
    await form.getByLabel(L.password).fill(SMTP_PASS);
    await host.fill(relay.smtp.host);
    await port.fill(String(relay.smtp.port));
    await encryption.selectOption("0");
    await form.getByRole("button", { name: L.save }).click();
    await expect(page.getByRole("status").filter({ hasText: L.saved })).toBeVisible();
    const saved = (await call<Record<string, unknown>>("GET", "/api/admin/settings/mail", { token: await adminToken() })).data;
    expect(saved).toMatchObject({ emailType: 9, emailAccount: SMTP_USER, emailSmtpHost: relay.smtp.host, emailSmtpPort: relay.smtp.port, emailEncryptType: 0, hasPassword: true, emailPassword: "" });
    // The password never comes back into the page.
    await expect(form.getByLabel(L.password)).toHaveValue("");

    const start = relay.smtp.received.length;
    const to = `${lang}-test@mail.test`;
    await page.getByLabel(L.to).fill(to);
    await page.getByRole("button", { name: L.send }).click();
    const status = page.getByRole("status").filter({ hasText: L.accepted });
    await expect(status).toBeVisible();
    await expect(status).toContainText(/250/);
    const [got] = (await relay.smtp.waitFor(start + 1)).slice(start);
    expect(got!.envelopeTo).toEqual([to]);
    expect(got!.user).toBe(SMTP_USER);
    expect(got!.mail.subject).toBe(L.subject);
    await consoleScreens(page, `admin-email-tested-${lang}`);

    // A password the server refuses: its own answer is shown.
    await call("PATCH", "/api/admin/settings/mail", { token: await adminToken(), body: { emailPassword: codec.encode("Wrong#Pass1") } });
    await page.getByRole("button", { name: L.send }).click();
    const alert = page.getByRole("alert").filter({ hasText: L.refused });
    await expect(alert).toContainText("535");
    await expect(alert).toContainText("Invalid username or password");
    // The pointer still rests on the button (the kit's hover look); the audit is of the page at rest.
    await page.mouse.move(0, 0);
    await auditPage(page, `email setting refused (${lang})`);
    await consoleScreens(page, `admin-email-refused-${lang}`);
    await context.close();
  });
}

test("the engine refuses an encryption the provider does not allow, also when the form is bypassed", async ({ browser }) => {
  const { context, page } = await adminConsolePage(browser, "en-US");
  const reply = await call("PATCH", "/api/admin/settings/mail", {
    token: await adminToken(),
    body: { emailFromName: "X", emailType: 0, emailAccount: SMTP_USER, emailPassword: codec.encode(SMTP_PASS), emailSmtpHost: "smtp.gmail.com", emailSmtpPort: 465, emailEncryptType: 2 },
  });
  expect(reply.code).toBe(400);
  await page.goto("/admin/shares/email");
  await hydrated(page);
  // Nothing was saved: the test mail cannot be sent yet.
  await expect(page.getByText("Save the mail account before sending a test mail.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Send test mail" })).toBeDisabled();
  await context.close();
});
