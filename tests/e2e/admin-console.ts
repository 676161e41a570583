import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

/** Signs in at the admin console's own sign-in page (/admin/signin), as a person does, in either language. */
export async function adminSignIn(page: Page, account: string, password: string) {
  await page.goto("/admin/signin");
  await page.getByLabel(/^(Account|账号)$/).fill(account);
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

/** axe-core (WCAG 2.1 A/AA) on the page: no serious or critical violation, and it looked at something. */
export async function auditPage(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect.soft(blocking, `${what}: serious or critical accessibility violations`).toEqual([]);
  expect(results.passes.length, `${what}: axe checked something`).toBeGreaterThan(5);
}
