import type { Browser, Page } from "@playwright/test";
import { isAlive, type Product, PRODUCT_ADMIN_PASSWORD, productAdminToken, startProduct } from "../support/product";
import { adminSignIn, auditPage } from "./admin-console";
import { expect, hydrated, screenshot, test } from "./fixtures";

/**
 * The dashboard's restart and shut down, end to end (issue 14: "restart brings the engine back and
 * the page shows restarting, then running"). The shared e2e engine runs inside its launcher and must
 * keep running, so this spec starts the product of its own as an operator does — `npm start`
 * (scripts/start.mjs: the built engine and the web under its supervisor) on free ports with a fresh
 * data directory (tests/support/product.ts) — and the administrator drives its console in Chromium.
 * Restart in English, again in Chinese, then shut down, which ends the product.
 */

const TEXT = {
  en: {
    status: "Server status",
    restart: "Restart Ferry",
    restartTitle: "Restart Ferry?",
    shutdown: "Shut down Ferry",
    shutdownTitle: "Shut down Ferry?",
    state: "State",
    running: "Running",
    restarting: "Restarting",
    shuttingDown: "Shutting down",
    pending: "Restarting: waiting for the engine to answer again…",
    done: "Ferry is running again.",
    stopped: "Ferry is shutting down.",
    pid: "Process id",
    host: "Rebooting or shutting down the host machine is not Ferry's to do",
  },
  zh: {
    status: "服务器状态",
    restart: "重启 Ferry",
    restartTitle: "重启 Ferry？",
    shutdown: "关闭 Ferry",
    shutdownTitle: "关闭 Ferry？",
    state: "状态",
    running: "运行中",
    restarting: "正在重启",
    shuttingDown: "正在关闭",
    pending: "正在重启：等待引擎再次响应…",
    done: "Ferry 已重新运行。",
    stopped: "Ferry 正在关闭。",
    pid: "进程号",
    host: "重启或关闭主机不由 Ferry 负责",
  },
};

/** A start and its engine are slow on a busy 2-core machine; every wait below polls for a state. */
const STARTUP_MS = 180_000;

test.describe.configure({ mode: "serial" });

let product: Product | undefined;
test.beforeAll(async () => {
  test.setTimeout(STARTUP_MS + 60_000);
  product = await startProduct();
  // The forced first password change, through the engine: the console's sign-in is what is tested here.
  await productAdminToken(product);
});
test.afterAll(async () => {
  await product?.stop();
  product = undefined;
});

async function openDashboard(browser: Browser, lang: "en" | "zh") {
  const context = await browser.newContext({ baseURL: product!.webUrl, locale: lang === "en" ? "en-US" : "zh-CN", viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await adminSignIn(page, "admin", PRODUCT_ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await hydrated(page);
  return { context, page };
}

const statusPanel = (page: Page, lang: "en" | "zh") => page.getByRole("region", { name: TEXT[lang].status, exact: true });
/** The state badge's line ("State Running"), the panel's first status. */
const stateOf = (page: Page, lang: "en" | "zh") => statusPanel(page, lang).getByRole("status").filter({ hasText: TEXT[lang].state });
const startedOf = (page: Page, lang: "en" | "zh") => statusPanel(page, lang).locator("time").getAttribute("datetime");

/** Screenshots at 1440 px and 1280 px (`-1280`), the console's widths. */
async function screens(page: Page, name: string) {
  await screenshot(page, name);
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

for (const lang of ["en", "zh"] as const) {
  test(`restart: the page shows restarting, then running with the new engine's start time and process, without a reload (${lang})`, async ({ browser }) => {
    test.setTimeout(STARTUP_MS + 60_000);
    const text = TEXT[lang];
    const { context, page } = await openDashboard(browser, lang);
    const status = statusPanel(page, lang);
    const oldPid = product!.pid("engine");
    const webPid = product!.pid("web");
    await expect(stateOf(page, lang)).toContainText(text.running);
    await expect(status).toContainText(`${text.pid}${oldPid}`);
    await expect(status).toContainText(text.host);
    const startedBefore = await startedOf(page, lang);
    expect(startedBefore).toBeTruthy();
    // A mark on the window: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { powerMark: number }).powerMark = 1));

    const mark = product!.output.length;
    await status.getByRole("button", { name: text.restart }).click();
    const dialog = page.getByRole("dialog", { name: text.restartTitle });
    await dialog.getByRole("button", { name: text.restart }).click();
    await expect(dialog).toBeHidden();

    // Restarting: the state, the message, and both buttons wait.
    await expect(stateOf(page, lang)).toContainText(text.restarting);
    await expect(status.getByRole("status").filter({ hasText: text.pending })).toBeVisible();
    await expect(status.getByRole("button", { name: text.restart })).toBeDisabled();
    await expect(status.getByRole("button", { name: text.shutdown })).toBeDisabled();
    await screens(page, `admin-dashboard-restarting-${lang}`);

    // The supervisor saw the engine leave with "restart me" and started a new one.
    await product!.waitFor(/\[ferry\] engine restarting at the administrator's request/, STARTUP_MS, mark);
    await product!.waitFor(/\[ferry\] engine started \(pid \d+\)/, STARTUP_MS, mark);
    const newPid = product!.pid("engine");
    expect(newPid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    // Meanwhile the page waits for it: no "does not answer" alarm beside the restart it asked for.
    await expect(stateOf(page, lang)).toContainText(text.restarting);
    await expect(page.getByRole("alert")).toHaveCount(0);

    // The page, polling, finds the new engine: running, its start time and process id.
    await expect(status.getByRole("status").filter({ hasText: text.done })).toBeVisible({ timeout: STARTUP_MS });
    await expect(stateOf(page, lang)).toContainText(text.running);
    await expect(status).toContainText(`${text.pid}${newPid}`);
    const startedAfter = await startedOf(page, lang);
    expect(Date.parse(startedAfter!)).toBeGreaterThan(Date.parse(startedBefore!));
    await expect(status.getByRole("button", { name: text.restart })).toBeEnabled();
    await expect(page.getByRole("alert")).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { powerMark?: number }).powerMark)).toBe(1);
    await screens(page, `admin-dashboard-restarted-${lang}`);
    await auditPage(page, `dashboard after a restart (${lang})`);

    // The web was not restarted with it, and the administrator is still signed in at the next page.
    expect(product!.pid("web")).toBe(webPid);
    expect(product!.output.slice(mark)).not.toMatch(/web exited|stopping Ferry/);
    await page.reload();
    await expect(page).toHaveURL(/\/admin$/);
    await expect(stateOf(page, lang)).toContainText(text.running);
    await context.close();
  });
}

test("shut down: the page says Ferry is shutting down, the engine and the web stop, npm start exits with 0", async ({ browser }) => {
  test.setTimeout(STARTUP_MS);
  const text = TEXT.en;
  const { context, page } = await openDashboard(browser, "en");
  const status = statusPanel(page, "en");
  const engine = product!.pid("engine");
  const web = product!.pid("web");

  await status.getByRole("button", { name: text.shutdown }).click();
  const dialog = page.getByRole("dialog", { name: text.shutdownTitle });
  await dialog.getByRole("button", { name: text.shutdown }).click();
  await expect(dialog).toBeHidden();
  await expect(stateOf(page, "en")).toContainText(text.shuttingDown);
  await expect(status.getByRole("status").filter({ hasText: text.stopped })).toBeVisible();
  await expect(status.getByRole("button", { name: text.restart })).toBeDisabled();
  await screenshot(page, "admin-dashboard-shutting-down-en");

  // The supervisor stops the web too and exits cleanly: a service manager sees a wanted stop.
  expect(await product!.exited).toBe(0);
  expect(product!.output).toMatch(/\[ferry\] shut down at the administrator's request/);
  expect(isAlive(engine)).toBe(false);
  expect(isAlive(web)).toBe(false);
  // The page keeps saying so (it stopped asking the engine): no error takes its place.
  await expect(status.getByRole("status").filter({ hasText: text.stopped })).toBeVisible();
  await context.close();
});
