import type { Locator, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect, hydrated, screenshot, seriousViolations, signIn, test } from "./fixtures";

/**
 * Issue 13, item 6: the transfer panel never hides the controls it sits over (the file table's
 * last column: row menus, Modified), open or folded, folds to its summary ("1 done") by itself
 * once everything has finished (not when something failed) and when the user clicks elsewhere, and
 * remembers the user's own choice across a reload.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Panel#Dock2026";
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-panel-"));

function makeFile(relative: string, bytes: Buffer): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, bytes);
  return full;
}

/** A user whose personal space holds enough files for the table to reach the bottom of the screen. */
async function userWithFiles(page: Page): Promise<{ socketToken: string }> {
  const account = uniqueAccount("docked");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const files = await connectFiles(FILE_URL, socketToken);
  for (let i = 1; i <= 16; i++) {
    const bytes = new TextEncoder().encode(`file ${i}`);
    const created = await tusClient(FILE_URL, socketToken).create({ groupId: "0", path: `/report-${String(i).padStart(2, "0")}.txt` }, bytes.length, bytes);
    await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
  }
  await files.close();
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
  return { socketToken };
}

const panel = (page: Page) => page.getByRole("region", { name: /^(Transfers|传输列表)$/ });
const transferList = (page: Page) => panel(page).getByRole("list", { name: /^(Transfer list|传输列表)$/ });
const table = (page: Page) => page.getByRole("region", { name: /^Files in|中的文件$/ });

/** True when a person can hit the element: scrolled into view, and the topmost element at its centre is it (nothing lies over it). */
async function uncovered(locator: Locator): Promise<boolean> {
  await locator.scrollIntoViewIfNeeded();
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
}

/** The last row's menu button and Modified cell are visible and not covered; the menu opens with a plain click. */
async function lastColumnReachable(page: Page) {
  // After a reload the listing may still be loading (slowly, while a throttled upload fills the link).
  await expect(table(page).getByRole("columnheader").filter({ hasText: /Modified|修改时间/ })).toBeVisible({ timeout: 30_000 });
  const headers = await table(page).getByRole("columnheader").allInnerTexts();
  const modified = headers.findIndex((text) => /^(Modified|修改时间)/.test(text.trim()));
  expect(modified).toBeGreaterThan(0);
  const last = table(page).getByRole("row").last();
  const menu = last.getByRole("button", { name: /^More actions for|的更多操作$/ });
  await expect(menu).toBeVisible();
  // Polled: the listing may still be refreshing after an upload (the last row changes).
  await expect.poll(() => uncovered(menu), { message: "the last row's menu button is not covered" }).toBe(true);
  await expect.poll(() => uncovered(last.getByRole("cell").nth(modified)), { message: "the last row's Modified cell is not covered" }).toBe(true);
  await menu.click();
  await expect(page.getByRole("menuitem").first()).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("menuitem")).toHaveCount(0);
}

test.describe("transfer panel", () => {
  test.describe.configure({ timeout: 180_000 });

  test("folds to its summary once everything has finished, never covers the table's last column, folds when the user clicks elsewhere, and remembers the choice", async ({ page }) => {
    await userWithFiles(page);
    await page.getByLabel("Upload files").setInputFiles(makeFile("one/summary.txt", Buffer.from("summary")));
    await expect(panel(page)).toBeVisible();
    await expect(table(page).getByText("summary.txt")).toBeVisible();

    // Everything finished: a moment later the panel folds by itself to its summary, the table free.
    await expect(panel(page).getByRole("button", { name: "Expand the transfer list" })).toBeVisible();
    await expect(transferList(page)).toHaveCount(0);
    await expect(panel(page)).toContainText("1 done");
    await expect(panel(page)).not.toContainText("failed");
    expect(await seriousViolations(page), "the folded panel: serious or critical accessibility violations").toEqual([]);
    await lastColumnReachable(page);
    await expect(transferList(page)).toHaveCount(0);

    // The summary opens it (a click on its words, not only the chevron) on the finished rows.
    await panel(page).getByText("1 done").click();
    await expect(transferList(page).getByRole("listitem", { name: "summary.txt" })).toContainText("Uploaded");
    await expect(panel(page).getByRole("button", { name: "Collapse the transfer list" })).toBeVisible();
    // Open, the table's last column is still free; the menu click there was a click elsewhere: folded.
    await lastColumnReachable(page);
    await expect(panel(page).getByRole("button", { name: "Expand the transfer list" })).toBeVisible();
    await expect(transferList(page)).toHaveCount(0);
    await panel(page).getByRole("button", { name: "Expand the transfer list" }).click();
    await expect(transferList(page)).toBeVisible();
    await page.getByRole("heading", { level: 1 }).or(page.getByRole("navigation", { name: "Current folder" })).first().click();
    await expect(transferList(page)).toHaveCount(0);

    // Folded by hand: it stays folded after a reload, even while an upload runs.
    await panel(page).getByRole("button", { name: "Expand the transfer list" }).click();
    await panel(page).getByRole("button", { name: "Collapse the transfer list" }).click();
    await page.reload();
    await hydrated(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    await page.getByLabel("Upload files").setInputFiles(makeFile("two/slow.bin", randomBytes(6 * 1024 * 1024)));
    await expect(panel(page)).toContainText("1 active");
    await expect(panel(page).getByRole("button", { name: "Expand the transfer list" })).toBeVisible();
    await expect(transferList(page)).toHaveCount(0);
    await lastColumnReachable(page);

    // Opened by hand: open after the reload too (the running upload comes back by itself).
    await panel(page).getByRole("button", { name: "Expand the transfer list" }).click();
    await expect(transferList(page).getByRole("listitem", { name: "slow.bin" })).toContainText("Uploading");
    page.on("dialog", (dialog) => void dialog.accept());
    await page.reload();
    await hydrated(page);
    await expect(transferList(page).getByRole("listitem", { name: "slow.bin" })).toBeVisible();
    await expect(panel(page).getByRole("button", { name: "Collapse the transfer list" })).toBeVisible();
    await screenshot(page, "transfer-panel-open-en-1440");
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, "transfer-panel-open-en-1280");
    await lastColumnReachable(page);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    // The menu click of the check above folded it; the summary tells when the upload is done.
    await expect(panel(page)).toContainText("1 done", { timeout: 60_000 });
    await lastColumnReachable(page);
    await expect(panel(page).getByRole("button", { name: "Expand the transfer list" })).toBeVisible();
    await screenshot(page, "transfer-panel-folded-en-1280");
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, "transfer-panel-folded-en-1440");
  });

  test("in Chinese: folded and open, the table's last column stays reachable", async ({ page }) => {
    await userWithFiles(page);
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh");
    await hydrated(page);
    await page.getByLabel("上传文件", { exact: true }).setInputFiles(makeFile("zh/总结.txt", Buffer.from("总结")));
    // Finished: folded by itself to its summary.
    await expect(panel(page).getByRole("button", { name: "展开传输列表" })).toBeVisible();
    await expect(panel(page)).toContainText("1 个已完成");
    expect(await seriousViolations(page), "the folded panel in Chinese: serious or critical accessibility violations").toEqual([]);
    await lastColumnReachable(page);
    await screenshot(page, "transfer-panel-folded-zh-1440");
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, "transfer-panel-folded-zh-1280");
    await panel(page).getByRole("button", { name: "展开传输列表" }).click();
    await expect(transferList(page).getByRole("listitem", { name: "总结.txt" })).toContainText("已上传");
    await screenshot(page, "transfer-panel-open-zh-1280");
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, "transfer-panel-open-zh-1440");
    await lastColumnReachable(page);
  });

  test("a failure keeps the panel open and its summary names it; the next run that ends well folds it again", async ({ page }) => {
    // The fold waits a moment after the last transfer ends: the test moves the browser's clock past it.
    await page.clock.install();
    const { socketToken } = await userWithFiles(page);
    // The file goes away (another device deleted it) after the page listed it: its download fails.
    await table(page).getByRole("checkbox", { name: "Select row report-16.txt" }).check();
    const files = await connectFiles(FILE_URL, socketToken);
    await files.ok("remove", { groupId: 0, paths: ["/report-16.txt"] });
    await files.close();
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Download", exact: true }).click();
    await expect(transferList(page).getByRole("listitem", { name: "report-16.txt" })).toContainText("Download failed");
    await expect(panel(page)).toContainText("1 failed");
    await page.clock.runFor(5_000);
    // Still open on the failure, its row in view; the table's last column is free all the same.
    await expect(transferList(page).getByRole("listitem", { name: "report-16.txt" })).toContainText("Download failed");
    await expect(panel(page).getByRole("button", { name: "Collapse the transfer list" })).toBeVisible();
    await screenshot(page, "transfer-panel-failed-open-en-1440");

    // An upload that ends well: folded again, the summary still tells of the failure.
    await page.getByLabel("Upload files").setInputFiles(makeFile("three/fine.txt", Buffer.from("fine")));
    await expect(transferList(page).getByRole("listitem", { name: "fine.txt" })).toContainText("Uploaded");
    await page.clock.runFor(5_000);
    await expect(panel(page).getByRole("button", { name: "Expand the transfer list" })).toBeVisible();
    await expect(panel(page)).toContainText("1 done");
    await expect(panel(page)).toContainText("1 failed");
    expect(await seriousViolations(page), "the folded panel with a failure: serious or critical accessibility violations").toEqual([]);
    await screenshot(page, "transfer-panel-failed-folded-en-1440");
    await lastColumnReachable(page);
  });
});
