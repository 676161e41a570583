import type { Locator, Page } from "@playwright/test";
import { createUser, uniqueAccount } from "../support/e2e-helpers";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

const PASSWORD = "Mail#Ferry2026";

async function openDialog(page: Page, account: string, name = "E-mail settings"): Promise<Locator> {
  await page.getByRole("button", { name: new RegExp(`(Account menu for|${account})`) }).first().click();
  await page.getByRole("menuitem", { name }).click();
  const dialog = page.getByRole("dialog", { name });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: /^(Save|保存)$/ })).toBeVisible();
  return dialog;
}

const optionsOf = (select: Locator) => select.locator("option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).textContent ?? ""));

test.describe("e-mail (SMTP) settings", () => {
  for (const [type, label] of [
    [0, "none"],
    [1, "the server's account"],
  ] as const) {
    test(`are offered only to users whose e-mail sender type is their own account, not ${label}`, async ({ page }) => {
      const account = uniqueAccount("nosender");
      await createUser(account, PASSWORD, { emailSenderType: type });
      await signIn(page, account, PASSWORD);
      await hydrated(page);
      await page.getByRole("button", { name: new RegExp(`Account menu for ${account}`) }).click();
      await expect(page.getByRole("menuitem", { name: "Sign out" })).toBeVisible();
      await expect(page.getByRole("menuitem", { name: "E-mail settings" })).toHaveCount(0);
    });
  }

  test("presets, encryption per provider, required fields, save and reopen", async ({ page }) => {
    const account = uniqueAccount("mailer");
    await createUser(account, PASSWORD, { emailSenderType: 2 });
    await signIn(page, account, PASSWORD);
    await hydrated(page);
    let dialog = await openDialog(page, account);
    // The dialog role sits on the overlay; the visible panel inside it is 600 px wide (spec).
    expect(await dialog.evaluate((el) => el.querySelector<HTMLElement>("[style*='width']")?.getBoundingClientRect().width)).toBe(600);

    // The spec's defaults: type Other, port 465, SSL.
    const provider = dialog.getByLabel("Provider");
    const host = dialog.getByLabel("SMTP host");
    const port = dialog.getByLabel("SMTP port");
    const encryption = dialog.getByLabel("Encryption");
    await expect(provider).toHaveValue("9");
    await expect(port).toHaveValue("465");
    await expect(encryption).toHaveValue("1");
    await screenshot(page, "smtp-dialog-en");

    // A provider fills host, port and encryption, and limits the encryptions.
    await provider.selectOption({ label: "Gmail" });
    await expect(host).toHaveValue("smtp.gmail.com");
    await expect(port).toHaveValue("465");
    await expect(encryption).toHaveValue("1");
    expect(await optionsOf(encryption)).toEqual(["Please select", "SSL"]);

    await provider.selectOption({ label: "Outlook" });
    await expect(host).toHaveValue("smtp-mail.outlook.com");
    await expect(port).toHaveValue("587");
    await expect(encryption).toHaveValue("2");
    expect(await optionsOf(encryption)).toEqual(["Please select", "STARTTLS"]);

    await provider.selectOption({ label: "Yahoo" });
    await expect(host).toHaveValue("smtp.mail.yahoo.com");
    await expect(encryption).toHaveValue("1");
    expect(await optionsOf(encryption)).toEqual(["Please select", "None", "SSL", "STARTTLS"]);

    // Every field is required; an empty form shows the translated message under each field.
    await host.fill("");
    await port.fill("");
    await dialog.getByRole("button", { name: "Save" }).click();
    for (const label of ["Sender name", "SMTP account", "SMTP password", "SMTP host", "SMTP port"]) {
      await expect(dialog.getByLabel(label)).toHaveAttribute("aria-invalid", "true");
    }
    await expect(dialog.getByText("This field is required")).toHaveCount(5);
    // A field's own rule, in words.
    await dialog.getByLabel("SMTP account").fill("not-an-address");
    await expect(dialog.getByText("Enter the SMTP account as an e-mail address")).toBeVisible();

    // Fill it in and save: a success toast, the dialog closes.
    await provider.selectOption({ label: "Microsoft 365" });
    await dialog.getByLabel("Sender name").fill("Mail Tester");
    await dialog.getByLabel("SMTP account").fill(`${account}@example.com`);
    await dialog.getByLabel("SMTP password").fill("Smtp#Secret1");
    await expect(host).toHaveValue("smtp.office365.com");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved successfully" })).toBeVisible();
    await expect(dialog).toBeHidden();

    // Reopen: the saved values, no password (a placeholder says it is kept).
    dialog = await openDialog(page, account);
    await expect(dialog.getByLabel("Sender name")).toHaveValue("Mail Tester");
    await expect(dialog.getByLabel("Provider")).toHaveValue("4");
    await expect(dialog.getByLabel("SMTP account")).toHaveValue(`${account}@example.com`);
    await expect(dialog.getByLabel("SMTP host")).toHaveValue("smtp.office365.com");
    await expect(dialog.getByLabel("SMTP port")).toHaveValue("587");
    await expect(dialog.getByLabel("Encryption")).toHaveValue("2");
    const password = dialog.getByLabel("SMTP password");
    await expect(password).toHaveValue("");
    await expect(password).toHaveAttribute("placeholder", "Saved. Leave empty to keep it");
    expect(await page.content()).not.toContain("Smtp#Secret1");

    // Saving again without typing the password keeps it.
    await dialog.getByLabel("Sender name").fill("Mail Tester 2");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved successfully" })).toBeVisible();
    await expect(dialog).toBeHidden();
    dialog = await openDialog(page, account);
    await expect(dialog.getByLabel("Sender name")).toHaveValue("Mail Tester 2");
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(dialog).toBeHidden();
  });

  test("the engine's refusal of a private host shows under the host field", async ({ page }) => {
    const account = uniqueAccount("mailpriv");
    await createUser(account, PASSWORD, { emailSenderType: 2 });
    await signIn(page, account, PASSWORD);
    await hydrated(page);
    const dialog = await openDialog(page, account);
    await dialog.getByLabel("Sender name").fill("Private Relay");
    await dialog.getByLabel("SMTP account").fill(`${account}@example.com`);
    await dialog.getByLabel("SMTP password").fill("Smtp#Secret1");
    await dialog.getByLabel("SMTP host").fill("127.0.0.1");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog.getByText("This host is on a private or local network, which the administrator does not allow")).toBeVisible();
    await expect(dialog.getByLabel("SMTP host")).toHaveAttribute("aria-invalid", "true");
  });

  test("'Other' starts with empty host and port: no guessed server, nothing left from the previous provider", async ({ page }) => {
    const account = uniqueAccount("mailother");
    await createUser(account, PASSWORD, { emailSenderType: 2 });
    await signIn(page, account, PASSWORD);
    await hydrated(page);
    for (const [lang, width] of [
      ["en", 1440],
      ["en", 1280],
      ["zh", 1440],
      ["zh", 1280],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      const zh = lang === "zh";
      const dialog = await openDialog(page, account, zh ? "邮箱设置" : "E-mail settings");
      const provider = dialog.getByLabel(zh ? "邮箱服务商" : "Provider");
      const host = dialog.getByLabel(zh ? "SMTP 服务器" : "SMTP host");
      const port = dialog.getByLabel(zh ? "SMTP 端口" : "SMTP port");
      const encryption = dialog.getByLabel(zh ? "加密方式" : "Encryption");
      // Nothing saved yet: type Other with the spec's port and SSL, and no host to mistake for one's own.
      await expect(provider).toHaveValue("9");
      await expect(host).toHaveValue("");
      await expect(port).toHaveValue("465");

      await provider.selectOption({ label: "Gmail" });
      await expect(host).toHaveValue("smtp.gmail.com");
      await provider.selectOption({ label: "Outlook" });
      await expect(host).toHaveValue("smtp-mail.outlook.com");
      await expect(port).toHaveValue("587");
      await provider.selectOption({ label: zh ? "其他" : "Other" });
      await expect(host).toHaveValue("");
      await expect(port).toHaveValue("");
      expect(await optionsOf(encryption)).toEqual(zh ? ["请选择", "不加密", "SSL", "STARTTLS"] : ["Please select", "None", "SSL", "STARTTLS"]);
      // Saving asks for the user's own server instead of sending someone else's.
      await dialog.getByRole("button", { name: zh ? "保存" : "Save" }).click();
      await expect(host).toHaveAttribute("aria-invalid", "true");
      await expect(port).toHaveAttribute("aria-invalid", "true");
      await screenshot(page, `smtp-other-${lang}-${width}`);
      await dialog.getByRole("button", { name: zh ? "关闭" : "Close" }).click();
      await expect(dialog).toBeHidden();
      if (lang === "en" && width === 1280) await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    }
  });

  test("in Chinese", async ({ page }) => {
    const account = uniqueAccount("mailzh");
    await createUser(account, PASSWORD, { emailSenderType: 2 });
    await page.goto("/signin");
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await signIn(page, account, PASSWORD);
    await hydrated(page);
    const dialog = await openDialog(page, account, "邮箱设置");
    await expect(dialog.getByLabel("邮箱服务商")).toHaveValue("9");
    await expect(dialog.getByLabel("加密方式")).toHaveValue("1");
    await dialog.getByLabel("SMTP 服务器").fill("");
    await dialog.getByRole("button", { name: "保存" }).click();
    await expect(dialog.getByText("此项为必填项").first()).toBeVisible();
    await screenshot(page, "smtp-dialog-zh");
  });
});
