import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { createUser, getSecurity, setSecurity, uniqueAccount } from "../support/e2e-helpers";
import { expect, screenshot, signIn, test } from "./fixtures";

/** Serious and critical axe findings on the page (WCAG 2.1 A and AA). */
async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const PASSWORD = "Lock#Ferry2026";

/** Wrong passwords until the account locks (lockTimes is 3 in these tests), each answered before the next. */
async function lockOut(page: Page, account: string) {
  for (let i = 1; i <= 3; i++) {
    const answered = page.waitForResponse((r) => r.request().method() === "POST" && /^\/signin(\.data)?$/.test(new URL(r.url()).pathname));
    await signIn(page, account, `Wrong#Pass${i}`);
    await answered;
  }
}

test.describe("the lockout message says for how long", () => {
  test("in English, in minutes left, singular and plural, also for the right password while locked", async ({ page }) => {
    const before = await getSecurity();
    try {
      await setSecurity({ lockTimes: 3, lockMinutes: 10 });
      const account = uniqueAccount("locked");
      await createUser(account, PASSWORD);
      await lockOut(page, account);
      const alert = page.getByRole("alert").filter({ hasText: "Try again" });
      await expect(alert).toHaveText("The account has been locked. Try again in 10 minutes.");
      await signIn(page, account, PASSWORD);
      await expect(alert).toHaveText("The account has been locked. Try again in 10 minutes.");
      await expect(page).toHaveURL(/\/signin/);
      for (const width of [1440, 1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `signin-locked-en-${width}`);
      }
      expect(await seriousViolations(page)).toEqual([]);

      await setSecurity({ lockMinutes: 1 });
      const brief = uniqueAccount("brief");
      await createUser(brief, PASSWORD);
      await lockOut(page, brief);
      await expect(alert).toHaveText("The account has been locked. Try again in 1 minute.");
    } finally {
      await setSecurity({ lockTimes: before.lockTimes, lockMinutes: before.lockMinutes });
    }
  });

  test("in Chinese", async ({ page }) => {
    const before = await getSecurity();
    try {
      await setSecurity({ lockTimes: 3, lockMinutes: 5 });
      const account = uniqueAccount("suo");
      await createUser(account, PASSWORD);
      await page.goto("/signin");
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.getByRole("button", { name: "登录" })).toBeVisible();
      await lockOut(page, account);
      await expect(page.getByRole("alert").filter({ hasText: "后再试" })).toHaveText("账号已被锁定，请 5 分钟后再试。");
      for (const width of [1440, 1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `signin-locked-zh-${width}`);
      }
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await setSecurity({ lockTimes: before.lockTimes, lockMinutes: before.lockMinutes });
    }
  });
});
