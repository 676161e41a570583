import { mkdir } from "node:fs/promises";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { ADMIN_PASSWORD, adminToken, call } from "../support/e2e-helpers";
import { startTestSmtp, type TestSmtp } from "../support/smtp";
import { expect, hydrated, screenshot, test } from "./fixtures";

/** Signs in at the admin console's own sign-in page (/admin/signin), as a person does, in either language. */
export async function adminSignIn(page: Page, account: string, password: string) {
  await page.goto("/admin/signin");
  await page.getByLabel(/^(Account|账号)$/).fill(account);
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

/** A new 1440 px browser context in `locale` (en-US, zh-CN) with the administrator signed in at the console. */
export async function adminConsolePage(browser: Browser, locale: string) {
  const context = await browser.newContext({ locale, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  return { context, page };
}

/** adminConsolePage, then the console screen at `path`, hydrated, and (given its name) its level-1 heading shown. */
export async function openConsoleScreen(browser: Browser, locale: string, path: string, heading?: string) {
  const opened = await adminConsolePage(browser, locale);
  await opened.page.goto(path);
  await hydrated(opened.page);
  if (heading !== undefined) await expect(opened.page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  return opened;
}

/** Screenshots at 1440 px (`name`) and at 1280 px (`name-1280`, where the 1400 px console scrolls sideways). */
export async function consoleScreens(page: Page, name: string) {
  await screenshot(page, name);
  const size = page.viewportSize() ?? { width: 1440, height: 900 };
  await page.setViewportSize({ width: 1280, height: size.height });
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize(size);
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

/**
 * axe needs scripts in the page, so a page without JavaScript is audited as the same URL and
 * session in a context whose script files are blocked: the server's HTML, never hydrated. Only a
 * page a GET shows (a form's `edit=`, a confirmation's `remove=`), not the answer to a POST.
 */
export async function auditWithoutScript(page: Page, locale: string, what: string) {
  const browser = page.context().browser();
  if (!browser) throw new Error("auditWithoutScript needs a page of a browser's context");
  const context = await browser.newContext({ locale, viewport: page.viewportSize() ?? { width: 1440, height: 900 }, storageState: await page.context().storageState() });
  const copy = await context.newPage();
  await copy.route(/\.m?js(\?|$)/, (route) => route.abort());
  await copy.goto(page.url());
  await expect(copy.getByRole("heading", { level: 1 })).toBeVisible();
  await auditPage(copy, what);
  await context.close();
}

/** A 1440 px context in `locale` with the administrator signed in and JavaScript off (signed in with it on). */
export async function noScriptConsole(browser: Browser, locale: string) {
  const { context: signedIn } = await adminConsolePage(browser, locale);
  const storageState = await signedIn.storageState();
  await signedIn.close();
  const context = await browser.newContext({ javaScriptEnabled: false, storageState, locale, viewport: { width: 1440, height: 900 } });
  return { context, page: await context.newPage() };
}

/** A full-page screenshot of a console page without JavaScript, to /tmp/ferry/screens/nojs-admin/<name>.png (looked at by a person). */
export async function noScriptShot(page: Page, name: string) {
  const folder = "/tmp/ferry/screens/nojs-admin";
  await mkdir(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true });
}

/**
 * A real smtp-server (tests/support/smtp.ts) with this login for a spec's tests: started before them
 * and closed after; the server's mail account, which the tests save, is removed after each test.
 */
export function serverMailRelay(login: { user: string; password: string }): { readonly smtp: TestSmtp } {
  const relay = {} as { smtp: TestSmtp };
  test.beforeAll(async () => {
    relay.smtp = await startTestSmtp({ ...login, mode: "none" });
  });
  test.afterAll(async () => {
    await relay.smtp?.close();
  });
  test.afterEach(async () => {
    await call("DELETE", "/api/admin/settings/mail", { token: await adminToken() });
  });
  return relay;
}
