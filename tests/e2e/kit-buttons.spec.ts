import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { adminToken, ok } from "../support/e2e-helpers";
import { signLicence } from "../support/licence";
import { adminConsolePage, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, test } from "./fixtures";

/**
 * The interface kit's buttons keep WCAG AA contrast while the pointer is over them: every variant
 * (contained, outlined, text; normal and danger; the link that looks like a button) is hovered on a
 * real console page and axe audits the page in that state. Hover darkens; it never fades the text.
 */

test.afterEach(async () => {
  const token = await adminToken();
  await ok("DELETE", "/api/admin/licence", { token });
});

/** Hovers `button` and waits for its colour transition to end, so axe reads the hovered colours. */
async function hover(page: Page, button: Locator) {
  await button.hover();
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== "running"));
}

/**
 * axe's colour-contrast rule on the hovered button alone (marked for the audit, then unmarked): the
 * subject here. The pages themselves are audited whole by their own specs and once here.
 */
async function auditHovered(page: Page, button: Locator, what: string) {
  await button.evaluate((element) => element.setAttribute("data-axe-hovered", ""));
  try {
    const results = await new AxeBuilder({ page }).withRules(["color-contrast"]).include("[data-axe-hovered]").analyze();
    const failed = results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.failureSummary).join("; ")}`);
    expect.soft(failed, `${what}: contrast while hovered`).toEqual([]);
    expect(results.passes.length + results.incomplete.length, `${what}: axe read the button's colours`).toBeGreaterThan(0);
  } finally {
    await button.evaluate((element) => element.removeAttribute("data-axe-hovered"));
  }
}

for (const [lang, locale] of [
  ["en", "en-US"],
  ["zh", "zh-CN"],
] as const) {
  test(`${lang}: every button variant stays readable while hovered (axe, WCAG 2.1 AA)`, async ({ browser }) => {
    test.setTimeout(90_000);
    const text =
      lang === "en"
        ? { search: "Search", keep: "Save retention", reset: "Reset", export: "Export CSV", logout: "Log out", upload: "Upload licence", restore: "Restore defaults", remove: "Remove licence" }
        : { search: "搜索", keep: "保存保留期限", reset: "重置", export: "导出 CSV", logout: "退出登录", upload: "上传许可证", restore: "恢复默认", remove: "移除许可证" };
    await ok("POST", "/api/admin/licence", { token: await adminToken(), body: { licence: signLicence({ edition: "enterprise", id: `e2e-kit-${lang}` }) } });
    const { context, page } = await adminConsolePage(browser, locale);
    try {
      await page.goto("/admin/logs");
      await hydrated(page);
      const logs: [string, Locator][] = [
        ["contained primary", page.getByRole("button", { name: text.search, exact: true })],
        ["outlined primary", page.getByRole("button", { name: text.keep })],
        ["outlined link", page.getByRole("link", { name: text.reset, exact: true })],
        ["outlined link", page.getByRole("link", { name: text.export })],
        ["text primary", page.getByRole("button", { name: text.logout })],
      ];
      for (const [what, button] of logs) {
        await hover(page, button);
        await auditHovered(page, button, `logs, hovering the ${what} button (${lang})`);
      }
      await hover(page, logs[0]![1]);
      await auditPage(page, `logs, hovering the search button (${lang})`);
      await consoleScreens(page, `kit-button-hover-${lang}`);

      await page.goto("/admin/site-design");
      await hydrated(page);
      const design: [string, Locator][] = [
        ["contained primary", page.getByRole("button", { name: text.upload })],
        ["outlined danger", page.getByRole("button", { name: text.restore })],
        ["outlined danger", page.getByRole("button", { name: text.remove })],
      ];
      for (const [what, button] of design) {
        await button.scrollIntoViewIfNeeded();
        await hover(page, button);
        await auditHovered(page, button, `site design, hovering the ${what} button (${lang})`);
      }
      await page.getByRole("button", { name: text.remove }).click();
      const dialog = page.getByRole("dialog");
      const confirm = dialog.getByRole("button", { name: text.remove });
      await expect(confirm).toBeVisible();
      await hover(page, confirm);
      await auditHovered(page, confirm, `site design, hovering the dialog's contained danger button (${lang})`);
    } finally {
      await context.close();
    }
  });
}
