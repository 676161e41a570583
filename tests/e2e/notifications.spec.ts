import { createUser, sendNotice, uniqueAccount } from "../support/e2e-helpers";
import { expect, screenshot, signIn, test } from "./fixtures";

const PASSWORD = "Bell#Ferry2026";

test.describe("notifications", () => {
  test("the bell counts unread notices; expanding one shows its text and marks it read", async ({ page }) => {
    const account = uniqueAccount("reader");
    const user = await createUser(account, PASSWORD);
    await sendNotice("Maintenance tonight", "The server restarts at 22:00.\nSave your work <b>first</b>.", [user.id]);
    await sendNotice("Welcome", "Hello and welcome.", [user.id]);

    await signIn(page, account, PASSWORD);
    await page.getByRole("link", { name: "Notifications, 2 unread" }).click();
    await expect(page).toHaveURL(/\/notification$/);
    await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
    await screenshot(page, "notifications-en");

    const item = page.getByRole("button", { name: /^Maintenance tonight .* Unread$/ });
    await expect(item).toHaveAttribute("aria-expanded", "false");
    await item.click();
    await expect(page.getByRole("button", { name: /^Maintenance tonight / })).toHaveAttribute("aria-expanded", "true");
    // Newlines become line breaks; markup stays text.
    await expect(page.getByText("Save your work <b>first</b>.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Notifications, 1 unread" })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Maintenance tonight .* Unread$/ })).toHaveCount(0);

    await page.getByRole("button", { name: /^Welcome .* Unread$/ }).click();
    await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("button", { name: /Unread$/ })).toHaveCount(0);
  });

  test("an empty list says so, in Chinese too", async ({ page }) => {
    const account = uniqueAccount("quiet");
    await createUser(account, PASSWORD);
    await page.goto("/signin");
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await signIn(page, account, PASSWORD);
    await page.getByRole("link", { name: "通知" }).click();
    await expect(page.getByRole("heading", { name: "消息通知", level: 1 })).toBeVisible();
    await expect(page.getByText("暂无通知")).toBeVisible();
    await screenshot(page, "notifications-empty-zh");
  });

  test("notices can be read without JavaScript", async ({ browser }) => {
    const account = uniqueAccount("plain");
    const user = await createUser(account, PASSWORD);
    await sendNotice("Plain notice", "Readable without scripts.", [user.id]);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await signIn(page, account, PASSWORD);
      await page.goto("/notification");
      await page.getByText("Plain notice").click();
      await expect(page.getByText("Readable without scripts.")).toBeVisible();
      await page.getByRole("button", { name: "Mark as read" }).click();
      await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    } finally {
      await context.close();
    }
  });
});

test.describe("client downloads", () => {
  test("a platform without an installer answers with a clear message", async ({ page }) => {
    const account = uniqueAccount("dl");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await page.getByRole("button", { name: "Download client" }).click();
    await page.getByRole("menuitem", { name: "Windows (exe)" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "No installer for this platform" })).toBeVisible();
    await expect(page).toHaveURL(/\/personal$/);
  });
});
