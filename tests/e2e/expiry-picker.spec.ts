import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

/**
 * Issue 13, item 13: the share and invite dialogs' date picker offers only days the engine takes: a
 * link lasts to the end of the picked day and the engine refuses an expiry that has passed (4232)
 * or lies past its last one (9999-12-31), so the picker runs from today to that day.
 */

const PASSWORD = "Expiry#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;

/** YYYY-MM-DD of the browser's today plus `days`. */
const browserDate = (page: Page, days: number) =>
  page.evaluate((offset) => {
    const now = new Date();
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
    return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
  }, days);

for (const lang of ["en", "zh"] as const) {
  test(`the expiry date picker offers today to the engine's last day, no day it would refuse (${lang})`, async ({ browser }) => {
    const context = await browser.newContext({ locale: lang === "zh" ? "zh-CN" : "en-US", timezoneId: "America/New_York" });
    const page = await context.newPage();
    try {
      const account = uniqueAccount("expiry");
      await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
      const files = await connectFiles(FILE_URL, (await login(account, PASSWORD)).data!.websocket_token);
      await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
      await files.close();
      await signIn(page, account, PASSWORD);
      await page.waitForURL(/\/personal/);
      await hydrated(page);
      const words =
        lang === "en"
          ? { more: "More actions for docs", share: "Share", validFor: "Valid for", date: "Expiry date", create: "Create link", created: "Link created" }
          : { more: "docs 的更多操作", share: "分享", validFor: "有效期", date: "到期日期", create: "创建链接", created: "链接已创建" };
      await page.getByRole("button", { name: words.more }).click();
      await page.getByRole("menuitem", { name: words.share }).click();
      const dialog = page.getByRole("dialog", { name: words.share });
      await dialog.getByRole("combobox", { name: words.validFor }).selectOption("date");
      const picker = dialog.getByLabel(words.date);
      const today = await browserDate(page, 0);
      await expect(picker).toHaveAttribute("min", today);
      // West of UTC the engine's last second (9999-12-31 23:59:59 UTC) falls on the 30th.
      await expect(picker).toHaveAttribute("max", "9999-12-30");
      await screenshot(page, `expiry-picker-${lang}-1440`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(page, `expiry-picker-${lang}-1280`);
      // The first day offered is one the engine takes.
      await picker.fill(today);
      await dialog.getByRole("button", { name: words.create }).click();
      await expect(dialog.getByText(words.created)).toBeVisible();
    } finally {
      await context.close();
    }
  });
}
