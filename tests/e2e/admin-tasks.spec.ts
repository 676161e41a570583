import { randomBytes } from "node:crypto";
import { copyFile, mkdir } from "node:fs/promises";
import { request, type IncomingMessage } from "node:http";
import path from "node:path";
import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { adminConsolePage, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, seedFile, test } from "./fixtures";

/**
 * General tasks (admin spec section 2 "Transfer"): a user's large download, read
 * slowly by this test, shows on the tasks screen with its bytes growing as the page updates itself;
 * the administrator stops it after a confirmation naming it, the download breaks and the row leaves;
 * the transfer log has it as stopped, with a detail view (Point to point: admin-p2p.spec.ts).
 * English and Chinese, axe, screenshots to /tmp/ferry/screens/tasks/.
 */
const PASSWORD = "Tasks#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/tasks";
const SIZE = 32 * 1024 * 1024;

let account: string;
let files: FileClient;

test.beforeAll(async () => {
  account = uniqueAccount("tasks");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  files = await connectFiles(FILE_URL, socketToken);
  for (const lang of ["en", "zh"]) await seedFile(files, socketToken, `/video-${lang}.bin`, randomBytes(SIZE));
});
test.afterAll(async () => {
  await files?.close();
});

/** A download this test reads slowly (~640 KiB/s); `ended` tells whether the whole body came. */
function slowDownload(url: string) {
  let timer: NodeJS.Timeout | null = null;
  const ended = new Promise<{ complete: boolean }>((resolve) => {
    const req = request(url, (res: IncomingMessage) => {
      res.pause();
      timer = setInterval(() => {
        let got = 0;
        let chunk: Buffer | null;
        while (got < 64 * 1024 && (chunk = res.read() as Buffer | null) !== null) got += chunk.length;
      }, 100);
      res.on("end", () => resolve({ complete: true }));
      res.on("close", () => resolve({ complete: res.complete }));
      res.on("error", () => resolve({ complete: false }));
    });
    req.on("error", () => resolve({ complete: false }));
    req.end();
  });
  void ended.finally(() => timer && clearInterval(timer));
  return ended;
}

const LOCALES = [
  {
    locale: "en-US",
    lang: "en",
    title: "General tasks",
    table: "Transfers in progress",
    stop: "Stop",
    stopLabel: (file: string) => `Stop the download of ${file} by ${account}`,
    confirm: (file: string) => `Stop the download of ${file} by ${account}?`,
    stopped: "Transfer stopped",
    log: "Transfer log",
    stoppedResult: "Stopped",
    details: "Details",
    detailTitle: "Transfer details",
  },
  {
    locale: "zh-CN",
    lang: "zh",
    title: "普通任务",
    table: "传输中的任务",
    stop: "停止",
    stopLabel: (file: string) => `停止 ${account} 对 ${file} 的下载`,
    confirm: (file: string) => `停止 ${account} 对 ${file} 的下载？`,
    stopped: "传输已停止",
    log: "传输日志",
    stoppedResult: "已停止",
    details: "详情",
    detailTitle: "传输详情",
  },
] as const;

for (const l of LOCALES) {
  test(`tasks: watch a slow download, stop it, find it in the log (${l.lang})`, async ({ browser }) => {
    test.setTimeout(120_000);
    const file = `/video-${l.lang}.bin`;
    const { url } = await files.ok("download", { groupId: 0, paths: [file] });
    const download = slowDownload(FILE_URL + url);

    const { context, page } = await adminConsolePage(browser, l.locale);
    await page.goto("/admin/transfer/tasks");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: l.title })).toBeVisible();
    const table = page.getByRole("table", { name: l.table });
    const row = table.getByRole("row").filter({ hasText: file });
    await expect(row).toBeVisible();
    await expect(row).toContainText(account);
    await expect(row).toContainText("127.0.0.1");

    // The page updates itself: the bar's value grows without a reload.
    const bar = row.getByRole("progressbar");
    const valueOf = async () => Number(await bar.getAttribute("aria-valuenow"));
    const textOf = async () => (await bar.getAttribute("aria-valuetext")) ?? "";
    const before = await textOf();
    await expect.poll(textOf, { timeout: 20_000 }).not.toBe(before);
    expect(await valueOf()).toBeLessThan(100);
    await auditPage(page, `tasks in progress ${l.lang}`);
    await consoleScreens(page, `admin-tasks-${l.lang}`);

    // Stop, confirmed in a dialog that names the transfer.
    await row.getByRole("button", { name: l.stopLabel(file) }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText(l.confirm(file));
    await screenshotOnly(page, `admin-tasks-stop-${l.lang}`);
    await dialog.getByRole("button", { name: l.stop, exact: true }).click();
    await expect(page.getByText(l.stopped)).toBeVisible();
    await expect(table.getByRole("row").filter({ hasText: file })).toHaveCount(0);
    expect((await download).complete).toBe(false);

    // The transfer log: the stopped download, and its detail.
    await page.getByRole("tab", { name: l.log }).click();
    const logTable = page.getByRole("table", { name: l.log });
    const logRow = logTable.getByRole("row").filter({ hasText: file }).first();
    await expect(logRow).toContainText(l.stoppedResult);
    await logRow.getByRole("link", { name: new RegExp(l.details) }).click();
    const detail = page.getByRole("region", { name: l.detailTitle });
    await expect(detail).toContainText(file);
    await expect(detail).toContainText("4187");
    await auditPage(page, `transfer log ${l.lang}`);
    await consoleScreens(page, `admin-tasks-log-${l.lang}`);

    await mkdir(SCREENS, { recursive: true });
    for (const name of [`admin-tasks-${l.lang}`, `admin-tasks-stop-${l.lang}`, `admin-tasks-log-${l.lang}`]) {
      await copyFile(path.join("test-results", "screens", `${name}.png`), path.join(SCREENS, `${name}.png`));
    }
    await context.close();
  });
}

async function screenshotOnly(page: Page, name: string) {
  await page.screenshot({ path: path.join("test-results", "screens", `${name}.png`) });
}
