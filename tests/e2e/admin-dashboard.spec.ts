import type { Browser, Page } from "@playwright/test";
import type { DashboardMetrics, DashboardSummary, DashboardTuning } from "../../contract/dashboard";
import { ADMIN_PASSWORD, adminToken, ok } from "../support/e2e-helpers";
import { adminSignIn, auditPage } from "./admin-console";
import { expect, hydrated, screenshot, test } from "./fixtures";

/**
 * The console's dashboard at /admin (issue 14; admin spec section 2, "Dashboard panels"): the
 * panels show what the engine's /api/admin/dashboard answers, the charts take new samples without a
 * reload, restart and shut down ask first. The e2e engine runs server/main.ts in the launcher's
 * process, so it could obey (canRestart is true): these tests never confirm, the shared engine
 * keeps running. The engine's refusal (4109) and the restart's progress are in
 * app/admin/dashboard/power.test.tsx.
 */

const TEXT = {
  en: { storage: "Storage status", cpu: "CPU", network: "Network", status: "Server status", restart: "Restart Ferry", shutdown: "Shut down Ferry", cancel: "Cancel" },
  zh: { storage: "存储状态", cpu: "CPU", network: "网络", status: "服务器状态", restart: "重启 Ferry", shutdown: "关闭 Ferry", cancel: "取消" },
};

const summary = async () => ok<DashboardSummary>("GET", "/api/admin/dashboard", { token: await adminToken() });
const metrics = async () => ok<DashboardMetrics>("GET", "/api/admin/dashboard/metrics", { token: await adminToken() });

async function openDashboard(browser: Browser, lang: "en" | "zh", width = 1440, javaScriptEnabled = true) {
  const context = await browser.newContext({ locale: lang === "en" ? "en-US" : "zh-CN", viewport: { width, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  return { context, page };
}

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
/** The exact byte counts behind the storage panel's shown sizes (`<data value>`): size, used, free. */
const bytesOf = async (page: Page, row: "Size" | "Used" | "Free") =>
  Number(await page.getByRole("region", { name: /^(Storage status|存储状态)$/ }).locator("data").nth(["Size", "Used", "Free"].indexOf(row)).getAttribute("value"));

test("the panels show what the engine answers: connections, storage, licence, status, main information", async ({ browser }) => {
  const { context, page } = await openDashboard(browser, "en");
  await hydrated(page);
  const engine = await summary();

  const connections = region(page, "User connections");
  const { client_online, clientLimit, webOnline } = engine.connections;
  expect(clientLimit, "the e2e engine is the free edition").toBe(3);
  await expect(connections.getByText(`${client_online} of ${clientLimit}`, { exact: true })).toBeVisible();
  await expect(connections).toContainText(`Web online users${webOnline}`);
  await expect(connections).toContainText("The free edition allows 3 desktop clients at once");

  // Storage: the first disk's size is the engine's to the byte; used and free move with other writes.
  const disk = engine.storage.disks[0]!;
  const storage = region(page, "Storage status");
  await expect(storage.getByRole("combobox", { name: "Disk" }).locator("option")).toHaveCount(engine.storage.disks.length);
  expect(await bytesOf(page, "Size")).toBe(disk.total);
  const slack = 256 * 1024 * 1024;
  expect(Math.abs((await bytesOf(page, "Used")) - disk.used)).toBeLessThan(slack);
  expect(Math.abs((await bytesOf(page, "Free")) - disk.free)).toBeLessThan(slack);
  await expect(storage).toContainText(disk.paths[0]!);
  await expect(storage.getByRole("img", { name: /% used: .* of .*, .* free/ })).toBeVisible();

  await expect(region(page, "License")).toContainText("EditionFree");
  await expect(region(page, "License")).toContainText(`User accounts${engine.license.userCount} created, no limit`);
  await expect(region(page, "Server status").getByRole("status")).toContainText("Running");
  await expect(region(page, "Server status")).toContainText(`Process id${engine.status.pid}`);
  await expect(region(page, "Server status")).toContainText("Rebooting or shutting down the host machine is not Ferry's to do");
  const info = region(page, "Main information");
  for (const value of [engine.info.name, engine.info.version, engine.info.host, engine.info.os]) await expect(info).toContainText(value);
  await expect(info).toContainText(`API ${engine.info.apiport} · file server ${engine.info.no_ssl_port}`);
  await context.close();
});

test("the CPU and network charts take the engine's new samples without a reload", async ({ browser }) => {
  const { context, page } = await openDashboard(browser, "en");
  await hydrated(page);
  // A mark on the window: a reload would lose it.
  await page.evaluate(() => ((window as unknown as { dashboardMark: number }).dashboardMark = 1));
  const cpu = region(page, "CPU");
  const network = region(page, "Network");
  await expect(cpu.getByRole("img", { name: /^CPU and memory use over the last \d+ minutes/ })).toBeVisible();
  await expect(network.getByRole("img", { name: /^Network traffic of All cards over the last \d+ minutes/ })).toBeVisible();
  const latest = (panel: typeof cpu) => panel.locator("time").getAttribute("datetime");
  const first = await latest(cpu);
  expect(first, "the engine had a sample when the page loaded").toBeTruthy();
  // The page polls; the engine samples every few seconds: the latest sample shown moves on.
  await expect.poll(() => latest(cpu), { timeout: 30_000 }).not.toBe(first);
  const shown = Date.parse((await latest(cpu))!);
  expect(shown).toBeGreaterThan(Date.parse(first!));
  // It is the engine's sample, not a clock of the page's.
  expect((await metrics()).points.map((p) => p.t)).toContain(shown);
  await expect.poll(() => latest(network)).toBe(await latest(cpu));
  expect(await page.evaluate(() => (window as unknown as { dashboardMark?: number }).dashboardMark)).toBe(1);
  await context.close();
});

test("restart and shut down ask first: Cancel and Escape close the question, nothing restarts", async ({ browser }) => {
  const before = (await summary()).status;
  const { context, page } = await openDashboard(browser, "en");
  await hydrated(page);
  const status = region(page, "Server status");

  await status.getByRole("button", { name: "Restart Ferry" }).click();
  let dialog = page.getByRole("dialog", { name: "Restart Ferry?" });
  await expect(dialog).toContainText("You stay signed in");
  await screenshot(page, "admin-dashboard-restart-dialog-en");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(status.getByRole("button", { name: "Restart Ferry" })).toBeFocused();

  await status.getByRole("button", { name: "Shut down Ferry" }).click();
  dialog = page.getByRole("dialog", { name: "Shut down Ferry?" });
  await expect(dialog).toContainText("this page and every user's page will stop answering");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(status.getByRole("button", { name: "Shut down Ferry" })).toBeFocused();

  await status.getByRole("button", { name: "Restart Ferry" }).click();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(status.getByRole("alert")).toHaveCount(0);

  await expect(status.getByRole("status")).toContainText("Running");
  const after = (await summary()).status;
  expect({ state: after.state, startedAt: after.startedAt }).toEqual({ state: "running", startedAt: before.startedAt });
  await context.close();
});

test("without JavaScript the dashboard is a page of numbers, the charts say they need JavaScript, restart and shut down confirm in the page", async ({ browser }) => {
  const { context, page } = await openDashboard(browser, "en", 1440, false);
  const engine = await summary();
  expect(await bytesOf(page, "Size")).toBe(engine.storage.disks[0]!.total);
  await expect(region(page, "Main information")).toContainText(engine.info.name);
  // (Playwright's text of a region leaves <noscript> out: the message is found as the alert it is.)
  await expect(region(page, "CPU").getByRole("alert").filter({ hasText: "The live charts need JavaScript" })).toBeVisible();
  await expect(region(page, "CPU").locator("canvas")).toBeHidden();
  await expect(region(page, "CPU").locator("time")).toHaveCount(1);
  await screenshot(page, "admin-dashboard-nojs-en");

  const status = region(page, "Server status");
  await status.getByRole("button", { name: "Restart Ferry" }).click();
  await expect(page).toHaveURL(/\/admin\?confirm=restart$/);
  // The kit's confirmation in the page (ConfirmedAction's no-JavaScript step), named by what it will do.
  const confirm = status.getByRole("alertdialog", { name: /The Ferry engine stops and starts again/ });
  await confirm.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(status.getByRole("alertdialog")).toHaveCount(0);
  await status.getByRole("button", { name: "Shut down Ferry" }).click();
  await expect(page).toHaveURL(/\/admin\?confirm=shutdown$/);
  const shutdown = status.getByRole("alertdialog", { name: /Ferry stops: this page/ });
  await expect(shutdown).toContainText("will stop answering");
  // Its button posts the action (not pressed here: the e2e engine would obey).
  await expect(shutdown.getByRole("button", { name: "Shut down Ferry" })).toHaveAttribute("type", "submit");
  await screenshot(page, "admin-dashboard-nojs-confirm-en");
  await context.close();
});

test("in Chinese, restart asks in the kit's dialog, and without JavaScript in the page", async ({ browser }) => {
  const { context, page } = await openDashboard(browser, "zh");
  await hydrated(page);
  const status = region(page, TEXT.zh.status);
  await status.getByRole("button", { name: "重启 Ferry" }).click();
  const dialog = page.getByRole("dialog", { name: "重启 Ferry？" });
  await expect(dialog).toContainText("您将保持登录");
  await screenshot(page, "admin-dashboard-restart-dialog-zh");
  await dialog.getByRole("button", { name: "取消" }).click();
  await expect(status.getByRole("button", { name: "重启 Ferry" })).toBeFocused();
  await context.close();

  const nojs = await openDashboard(browser, "zh", 1440, false);
  const nojsStatus = region(nojs.page, TEXT.zh.status);
  await nojsStatus.getByRole("button", { name: "重启 Ferry" }).click();
  await expect(nojs.page).toHaveURL(/\/admin\?confirm=restart$/);
  const confirm = nojsStatus.getByRole("alertdialog", { name: /Ferry 引擎将停止并重新启动/ });
  await expect(confirm.getByRole("button", { name: "重启 Ferry" })).toHaveAttribute("type", "submit");
  await screenshot(nojs.page, "admin-dashboard-nojs-confirm-zh");
  await nojs.context.close();
});

for (const lang of ["en", "zh"] as const) {
  test(`the dashboard passes axe and is looked at (${lang}, 1440 and 1280 px)`, async ({ browser }) => {
    const text = TEXT[lang];
    for (const width of [1440, 1280]) {
      const { context, page } = await openDashboard(browser, lang, width);
      await hydrated(page);
      await expect(region(page, text.storage)).toBeVisible();
      await expect(region(page, text.cpu).locator("canvas")).toBeVisible();
      await auditPage(page, `dashboard (${lang}, ${width})`);
      await screenshot(page, `admin-dashboard-${lang}${width === 1440 ? "" : "-1280"}`);
      if (width === 1440) {
        // The charts sit below the fold of the console's scrolling main area.
        await region(page, text.cpu).scrollIntoViewIfNeeded();
        await screenshot(page, `admin-dashboard-charts-${lang}`);
        await region(page, text.status).getByRole("button", { name: text.shutdown }).click();
        await expect(page.getByRole("dialog")).toBeVisible();
        await auditPage(page, `dashboard shutdown dialog (${lang})`);
        await screenshot(page, `admin-dashboard-shutdown-${lang}`);
        await page.getByRole("dialog").getByRole("button", { name: text.cancel }).click();
        await expect(page.getByRole("dialog")).toBeHidden();
      }
      await context.close();
    }
  });
}

/**
 * Host tuning (issue 16; docs/doctor.md, "The admin dashboard"): the Server status panel's line says
 * what the engine's quick doctor checks find on this machine; what to expect is read from the
 * engine's route, not written here.
 */
const TUNING = {
  en: {
    short: { congestion: "congestion control", qdisc: "default qdisc", buffers: "socket buffers", "open-files": "open files", disk: "free disk", clock: "clock sync" },
    name: { congestion: "TCP congestion control", qdisc: "Default queueing discipline (qdisc)", buffers: "Socket buffer limits", "open-files": "Open-file limits", disk: "Free disk of Ferry's storage", clock: "Clock synchronisation" },
    line: (warn: string[], unknown: string[]) =>
      warn.length > 0
        ? `Host tuning: ${warn.length} setting${warn.length === 1 ? " slows" : "s slow"} transfers (${warn.join(", ")}) — run ferry doctor on the server`
        : unknown.length > 0
          ? `Host tuning: all good; ${unknown.length} check${unknown.length === 1 ? "" : "s"} could not be made here (${unknown.join(", ")})`
          : "Host tuning: all good",
    unknown: "could not be checked here:",
    copy: (name: string) => `Copy the fix for ${name}`,
    copied: "Copied to the clipboard.",
  },
  zh: {
    short: { congestion: "拥塞控制", qdisc: "默认队列规则", buffers: "套接字缓冲区", "open-files": "打开文件数", disk: "磁盘剩余空间", clock: "时钟同步" },
    name: { congestion: "TCP 拥塞控制", qdisc: "默认队列规则（qdisc）", buffers: "套接字缓冲区上限", "open-files": "打开文件数上限", disk: "Ferry 存储的磁盘剩余空间", clock: "时钟同步" },
    line: (warn: string[], unknown: string[]) =>
      warn.length > 0
        ? `主机调优：${warn.length} 项设置拖慢传输（${warn.join("、")}）— 请在服务器上运行 ferry doctor`
        : unknown.length > 0
          ? `主机调优：一切正常；${unknown.length} 项无法在此检查（${unknown.join("、")}）`
          : "主机调优：一切正常",
    unknown: "无法在此检查：",
    copy: (name: string) => `复制“${name}”的修复`,
    copied: "已复制到剪贴板。",
  },
};
const SCREENS = "/tmp/ferry/screens/dashboard-doctor";

for (const lang of ["en", "zh"] as const) {
  test(`the Server status panel says what the host-tuning checks find on this machine, with the fixes behind a disclosure (${lang})`, async ({ browser }) => {
    const text = TUNING[lang];
    const { context, page } = await openDashboard(browser, lang);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await hydrated(page);
    // The engine reuses one reading for a minute: the page and this call see the same checks.
    const tuning = await ok<DashboardTuning>("GET", "/api/admin/dashboard/tuning", { token: await adminToken() });
    const warn = tuning.checks.filter((c) => c.status === "warn");
    const unknown = tuning.checks.filter((c) => c.status === "unknown");
    const status = region(page, TEXT[lang].status);
    const line = text.line(
      warn.map((c) => text.short[c.id]),
      unknown.map((c) => text.short[c.id]),
    );
    if (warn.length === 0 && unknown.length === 0) {
      await expect(status.getByText(line, { exact: true })).toBeVisible();
      await auditPage(page, `dashboard tuning (${lang})`);
      await page.screenshot({ path: `${SCREENS}/dashboard-doctor-${lang}.png` });
      await context.close();
      return;
    }
    const summaryLine = status.locator("details > summary");
    await expect(summaryLine).toHaveText(line);
    if (warn.length > 0) await expect(summaryLine.locator("code")).toHaveText("ferry doctor");
    const details = status.locator("details");
    await expect(details).not.toHaveAttribute("open");
    await page.screenshot({ path: `${SCREENS}/dashboard-doctor-${lang}.png` });

    // Opened from the keyboard: focus moves onto the line, Enter opens it.
    await summaryLine.focus();
    await expect(summaryLine).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(details).toHaveAttribute("open");
    for (const c of warn) {
      const item = details.getByRole("listitem", { name: text.name[c.id] });
      await expect(item).toBeVisible();
      await expect(item.locator("code").first()).toHaveText(c.found);
      const lines = c.sysctl.map((s) => `${s.key} = ${s.value}`);
      if (lines.length > 0) await expect(item.locator("pre").first()).toHaveText(lines.join("\n"));
      await expect(item.getByRole("button", { name: text.copy(text.name[c.id]) })).toHaveCount(lines.length > 0 ? 1 : 0);
    }
    for (const c of unknown) await expect(details.getByRole("listitem").filter({ hasText: `${text.name[c.id]} — ${text.unknown}` })).toContainText(c.found);
    await auditPage(page, `dashboard tuning open (${lang})`);
    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/dashboard-doctor-open-${lang}.png`, fullPage: true });

    // Copy puts the check's sysctl lines on the clipboard.
    const fixable = warn.find((c) => c.sysctl.length > 0);
    if (fixable) {
      await details.getByRole("button", { name: text.copy(text.name[fixable.id]) }).click();
      await expect(page.getByText(text.copied)).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${fixable.sysctl.map((s) => `${s.key} = ${s.value}`).join("\n")}\n`);
    }
    // Enter on the line closes it again.
    await summaryLine.focus();
    await page.keyboard.press("Enter");
    await expect(details).not.toHaveAttribute("open");
    await context.close();
  });
}

test("without JavaScript the host-tuning line and its disclosure work (no copy button: the lines are selected by hand)", async ({ browser }) => {
  const tuning = await ok<DashboardTuning>("GET", "/api/admin/dashboard/tuning", { token: await adminToken() });
  const warn = tuning.checks.filter((c) => c.status === "warn");
  const unknown = tuning.checks.filter((c) => c.status === "unknown");
  const { context, page } = await openDashboard(browser, "en", 1440, false);
  const status = region(page, "Server status");
  const line = TUNING.en.line(
    warn.map((c) => TUNING.en.short[c.id]),
    unknown.map((c) => TUNING.en.short[c.id]),
  );
  if (warn.length === 0 && unknown.length === 0) {
    await expect(status.getByText(line, { exact: true })).toBeVisible();
  } else {
    const details = status.locator("details");
    await expect(details.locator("summary")).toHaveText(line);
    await details.locator("summary").click();
    await expect(details).toHaveAttribute("open");
    for (const c of warn) await expect(details.getByRole("listitem", { name: TUNING.en.name[c.id] })).toBeVisible();
    await expect(details.getByRole("button")).toHaveCount(0);
  }
  await context.close();
});
