import { test as base, expect, type Page } from "@playwright/test";
import path from "node:path";
import { E2E_FILE_PORT } from "../support/e2e-env";
import type { FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Every e2e test fails on an uncaught error in the page (a broken hydration, a `*.server` import
 * that became an empty module in the browser): a page that renders on the server but breaks in the
 * browser must not pass.
 */
export const test = base.extend<{ pageErrors: Error[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: Error[] = [];
      page.on("pageerror", (error) => errors.push(error));
      await use(errors);
      expect(errors.map((e) => e.message), "uncaught errors in the page").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Saves a screenshot under test-results/screens/ (looked at by a person; not compared). */
export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: path.join("test-results", "screens", `${name}.png`), fullPage: true });
}

/**
 * screenshot() at each width (`<name>-<width>`; 390 is a phone, 844 px high), then back to the
 * viewport the page had. Issue 13: every changed screen at 1440 and 1280, share pages and sign-in at 390 too.
 */
export async function screenshotsAt(page: Page, name: string, widths: readonly number[] = [1440, 1280]) {
  const before = page.viewportSize();
  for (const width of widths) {
    await page.setViewportSize({ width, height: width <= 480 ? 844 : 900 });
    await screenshot(page, `${name}-${width}`);
  }
  if (before) await page.setViewportSize(before);
}

/** Signs in through the page, as a person does. */
export async function signIn(page: Page, account: string, password: string) {
  await page.goto("/signin");
  await page.getByLabel(/^(Account|账号)$/).fill(account);
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

/** Waits until the signed-in page's session timers run (components/session-timers.tsx), before a test moves the clock. */
export async function sessionTimersRunning(page: Page) {
  await page.locator("html[data-session-timers]").waitFor({ state: "attached" });
}

/** Waits until Remix has hydrated the page (before that, forms behave as plain HTML, without scripts). */
export async function hydrated(page: Page) {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** Puts a file into a user's personal space as a browser does: a tus upload, then the commit with its hash. */
export async function seedFile(files: FileClient, socketToken: string, filePath: string, content: string | Uint8Array) {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const created = await tusClient(`http://127.0.0.1:${E2E_FILE_PORT}`, socketToken).create({ groupId: "0", path: filePath }, bytes.length, bytes);
  expect(created.id, created.text).toBeTruthy();
  await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
}

/** The transfer panel (app/transfers/transfer-panel.tsx), in either language. */
export const transferPanel = (page: Page) => page.getByRole("region", { name: /^(Transfers|传输列表)$/ });

/**
 * Opens the transfer panel by hand, as a person does to read its rows: the top bar's Transfer list
 * button. The panel folds to its summary by itself a moment after everything has finished; opened by
 * hand it stays open (until a click elsewhere on the page folds it), so call this before reading
 * finished rows, and again after such a click.
 */
export async function openTransfers(page: Page) {
  await page.getByRole("banner").getByRole("button", { name: /^(Transfer list|传输列表)$/ }).click();
  await expect(transferPanel(page).getByRole("button", { name: /^(Collapse the transfer list|收起传输列表)$/ })).toBeVisible();
}

/** The serious and critical WCAG 2.1 AA violations axe finds on the page (or in `include`, a CSS selector), each with the elements it names. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]);
  const results = await (include ? builder.include(include) : builder).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
