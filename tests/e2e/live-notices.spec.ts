import { createUser, sendNotice, uniqueAccount } from "../support/e2e-helpers";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

/** Serious and critical axe findings on the page (WCAG 2.1 A and AA). */
async function seriousViolations(page: Page) {
  // The pointer rests where nothing hovers (a resize leaves it over whichever top-bar button moved there).
  await page.mouse.move(600, 600);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const PASSWORD = "Live#Ferry2026";

test.describe("notifications arrive live", () => {
  test("the bell and the list update without navigation; mark all as read zeroes the count", async ({ page }) => {
    const account = uniqueAccount("live");
    const user = await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await hydrated(page);
    await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    // The empty folder's listing came over the socket: it is signed in and gets the pushed events.
    await expect(page.getByRole("region", { name: /^Files in/ }).getByText("No data")).toBeVisible();
    // Gone if the page reloads or navigates: the updates below must come without either.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    await sendNotice("Disk check tonight", "The server checks its disks at 23:00.", [user.id]);
    await expect(page.getByRole("link", { name: "Notifications, 1 unread" })).toBeVisible();
    await sendNotice("Second notice", "Another one.", [user.id]);
    await expect(page.getByRole("link", { name: "Notifications, 2 unread" })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await expect(page).toHaveURL(/\/personal$/);

    await page.getByRole("link", { name: "Notifications, 2 unread" }).click();
    await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
    await hydrated(page);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await sendNotice("Arrived while reading", "New while the list is open.", [user.id]);
    await expect(page.getByRole("button", { name: /^Arrived while reading .* Unread$/ })).toBeVisible();
    await expect(page.getByRole("link", { name: "Notifications, 3 unread" })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    for (const width of [1440, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `notifications-live-en-${width}`);
    }
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Mark all as read" }).click();
    await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /Unread$/ })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Mark all as read" })).toBeDisabled();
    await page.reload();
    await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /Unread$/ })).toHaveCount(0);
  });

  test("in Chinese, and mark all as read works without JavaScript", async ({ page, browser }) => {
    const account = uniqueAccount("huo");
    const user = await createUser(account, PASSWORD);
    await page.goto("/signin");
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await page.getByRole("link", { name: "通知" }).click();
    await expect(page.getByRole("heading", { name: "消息通知", level: 1 })).toBeVisible();
    await hydrated(page);
    await sendNotice("系统维护", "今晚 23:00 维护。", [user.id]);
    await expect(page.getByRole("link", { name: "通知，1 条未读" })).toBeVisible();
    await expect(page.getByRole("button", { name: /^系统维护 .* 未读$/ })).toBeVisible();
    for (const width of [1440, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `notifications-live-zh-${width}`);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "全部标为已读" }).click();
    await expect(page.getByRole("link", { name: "通知", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /未读$/ })).toHaveCount(0);

    await sendNotice("Plain one", "Read without scripts.", [user.id]);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    try {
      await signIn(plain, account, PASSWORD);
      await plain.goto("/notification");
      await expect(plain.getByRole("link", { name: "Notifications, 1 unread" })).toBeVisible();
      await plain.getByRole("button", { name: "Mark all as read" }).click();
      await expect(plain.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
      await expect(plain).toHaveURL(/\/notification/);
    } finally {
      await context.close();
    }
  });
});
