import { readFileSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { StatisticsReport } from "../../contract/statistics";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, call, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { adminConsolePage, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, screenshot, seedFile, test } from "./fixtures";

/**
 * The console's Statistics screen (admin spec section 2 "Statistics", section 3 "Statistics period
 * in hours"): real uploads (tus) and a download by a new user, one of the uploads in a group space,
 * then the page's chart, its per-user and per-group rows, the CSV export, a range change and the
 * period setting, in English and Chinese.
 */
const PASSWORD = "Stats#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/statistics";

let account: string;
let groupName: string;

async function statisticsOf(search: string, groupBy: "user" | "group"): Promise<StatisticsReport> {
  const query = new URLSearchParams({ groupBy, search, from: String(Date.now() - 86_400_000), to: String(Date.now() + 60_000) });
  const reply = await call<StatisticsReport>("GET", `/api/admin/statistics?${query.toString()}`, { token: await adminToken() });
  return reply.data!;
}

test.beforeAll(async () => {
  account = uniqueAccount("stat");
  groupName = `Stats ${account.slice(-6)}`;
  const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: await adminToken(), body: { name: groupName } });
  await ok("PUT", `/api/admin/groups/${group.id}/members/${user.id}`, { token: await adminToken(), body: { groupPermission: PERMISSION_FULL } });
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const files = await connectFiles(FILE_URL, socketToken);
  // 1000 + 2000 bytes in the personal space, 1024 in the group space; the 1000-byte file downloaded once.
  await seedFile(files, socketToken, "/one.bin", new Uint8Array(1000).fill(1));
  await seedFile(files, socketToken, "/two.bin", new Uint8Array(2000).fill(2));
  const team = new Uint8Array(1024).fill(3);
  const created = await tusClient(FILE_URL, socketToken).create({ groupId: String(group.id), path: "/team.bin" }, team.length, team);
  expect(created.id, created.text).toBeTruthy();
  await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(team) });
  const { url } = await files.ok("download", { groupId: 0, paths: ["/one.bin"] });
  expect((await (await fetch(FILE_URL + url)).arrayBuffer()).byteLength).toBe(1000);
  await files.close();
  // The log is written in batches off the transfers' path: wait until the engine has them.
  await expect.poll(async () => (await statisticsOf(account, "user")).list[0]?.downloads ?? 0, { timeout: 20_000 }).toBe(1);
});

const LOCALES = [
  { locale: "en-US", lang: "en", title: "Statistics", users: "Per user", groups: "Per group space", search: "Search accounts", show: "Show", range: "Time range", week: "Last 7 days", empty: "No transfers in this range.", exportUser: "Export per-user CSV", volume: /^Bar chart of bytes uploaded and downloaded per day/, period: "Statistics period (hours)", save: "Save period", saved: "Statistics period saved", periodOption: "Statistics period (48 h)", from: "From (date)", to: "To (date, inclusive)" },
  { locale: "zh-CN", lang: "zh", title: "统计", users: "按用户", groups: "按群组空间", search: "搜索账号", show: "查看", range: "时间范围", week: "最近 7 天", empty: "此范围内没有传输。", exportUser: "导出按用户 CSV", volume: /^每日上传和下载字节数的柱状图/, period: "统计周期（小时）", save: "保存周期", saved: "统计周期已保存", periodOption: "统计周期（48 小时）", from: "开始日期", to: "结束日期（含）" },
] as const;

for (const l of LOCALES) {
  test(`statistics: chart, per-user and per-group rows, CSV, range and period (${l.lang})`, async ({ browser }) => {
    const { context, page } = await adminConsolePage(browser, l.locale);
    try {
      await page.goto(`/admin/statistics?range=24h&uq=${encodeURIComponent(account)}&gq=${encodeURIComponent(groupName)}`);
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: l.title })).toBeVisible();
      // The chart is drawn (a canvas named by what it shows), with the range's totals as its description.
      const chart = page.getByRole("img", { name: l.volume });
      await expect(chart).toBeVisible();
      expect(await chart.evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > 0)).toBe(true);

      const users = page.getByRole("table", { name: l.users });
      const row = users.getByRole("row").filter({ hasText: account });
      await expect(row).toHaveCount(1);
      // Uploaded 4024 B in 3 uploads, downloaded 1000 B in 1, total 5024 B, none failed.
      await expect(row.getByRole("cell")).toHaveText([account, "3.93 KB", "3", "1000 B", "1", "4.91 KB", "0"]);
      const groupRow = page.getByRole("table", { name: l.groups }).getByRole("row").filter({ hasText: groupName });
      await expect(groupRow.getByRole("cell")).toHaveText([groupName, "1.00 KB", "1", "0 B", "0", "1.00 KB", "0"]);

      await mkdir(SCREENS, { recursive: true });
      await auditPage(page, `statistics (${l.lang})`);
      await consoleScreens(page, `admin-statistics-${l.lang}`);
      for (const name of [`admin-statistics-${l.lang}`, `admin-statistics-${l.lang}-1280`]) await copyFile(path.join("test-results", "screens", `${name}.png`), path.join(SCREENS, `${name}.png`));

      await page.getByRole("table", { name: l.groups }).scrollIntoViewIfNeeded();
      await screenshot(page, `admin-statistics-lists-${l.lang}`);
      await copyFile(path.join("test-results", "screens", `admin-statistics-lists-${l.lang}.png`), path.join(SCREENS, `admin-statistics-lists-${l.lang}.png`));

      // The CSV of the per-user list, as the browser saves it.
      const arrived = page.waitForEvent("download");
      await page.getByRole("link", { name: l.exportUser }).click();
      const download = await arrived;
      expect(download.suggestedFilename()).toBe("ferry-statistics-user.csv");
      const csv = readFileSync((await download.path())!, "utf8").split("\r\n");
      expect(csv[0]).toBe("key,name,uploadBytes,uploads,uploadFiles,downloadBytes,downloads,downloadFiles,failed");
      expect(csv).toContain(`${account},${account},4024,3,3,1000,1,1,0`);

      // A range change: a week keeps the row; two days in 2020 hold nothing (the empty state).
      await page.getByLabel(l.range, { exact: true }).selectOption("7d");
      await page.getByRole("button", { name: l.show }).click();
      await expect(page).toHaveURL(/range=7d/);
      await expect(page.getByRole("table", { name: l.users }).getByRole("row").filter({ hasText: account })).toHaveCount(1);
      // The 7-day answer may still be rendering and put its own dates back: fill again until the dates hold.
      await expect(async () => {
        await page.getByLabel(l.from).fill("2020-01-01");
        await page.getByLabel(l.to).fill("2020-01-02");
        await expect(page.getByLabel(l.from)).toHaveValue("2020-01-01", { timeout: 1000 });
        await expect(page.getByLabel(l.to)).toHaveValue("2020-01-02", { timeout: 1000 });
      }).toPass({ timeout: 10_000 });
      await expect(page.getByLabel(l.range, { exact: true })).toHaveValue("custom");
      await page.getByRole("button", { name: l.show }).click();
      await expect(page).toHaveURL(/range=custom/);
      await expect(page.getByText(l.empty).first()).toBeVisible();
      await expect(page.getByRole("table", { name: l.users })).toHaveCount(0);
      // The pointer off the button just pressed: the kit's hover look fades it below AA contrast.
      await page.mouse.move(0, 0);
      await auditPage(page, `statistics, empty (${l.lang})`);
      await consoleScreens(page, `admin-statistics-empty-${l.lang}`);
      await copyFile(path.join("test-results", "screens", `admin-statistics-empty-${l.lang}.png`), path.join(SCREENS, `admin-statistics-empty-${l.lang}.png`));

      // The statistics period: saved with a toast, and offered as the default range.
      await page.getByLabel(l.period).fill("48");
      await page.getByRole("button", { name: l.save }).click();
      await expect(page.getByRole("region", { name: /^(Notifications|通知)$/ }).getByText(l.saved)).toBeVisible();
      await page.goto("/admin/statistics");
      await expect(page.getByLabel(l.range, { exact: true }).locator("option:checked")).toHaveText(l.periodOption);
      const period = await call<{ periodHours: number }>("GET", "/api/admin/settings/statistics", { token: await adminToken() });
      expect(period.data?.periodHours).toBe(48);
    } finally {
      await call("PATCH", "/api/admin/settings/statistics", { token: await adminToken(), body: { periodHours: 168 } });
      await context.close();
    }
  });
}
