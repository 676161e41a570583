import type { Page } from "@playwright/test";
import type { SpeedPeriod } from "../../contract/settings";
import { ADMIN_PASSWORD, adminToken, ok } from "../support/e2e-helpers";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, screenshot, test } from "./fixtures";

/**
 * The General settings (common, security, transfer with speed periods) and Transfer protocol
 * screens (issue 15, "Settings"): each section saves what the engine then answers, field errors
 * are shown translated, a speed period is added, refused when its end is not after its start,
 * edited and deleted. Every setting changed here is put back (one engine serves every spec).
 */
const GROUPS = ["general", "security", "speed", "transfer", "protocol"] as const;
type Saved = Record<(typeof GROUPS)[number], Record<string, unknown>>;

async function snapshot(): Promise<Saved> {
  const token = await adminToken();
  const entries = await Promise.all(GROUPS.map(async (g) => [g, await ok<Record<string, unknown>>("GET", `/api/admin/settings/${g}`, { token })] as const));
  return Object.fromEntries(entries) as Saved;
}
async function restore(saved: Saved) {
  const token = await adminToken();
  for (const g of GROUPS) await ok("PATCH", `/api/admin/settings/${g}`, { token, body: saved[g] });
}

const toast = (page: Page, text: string | RegExp) => page.getByRole("region", { name: /^(Notifications|通知)$/ }).getByText(text);
const shots = (name: string) => `settings/${name}`;
/** The audit after a click: the pointer leaves the button first (its hover look is not its look). */
async function audit(page: Page, what: string) {
  await page.mouse.move(0, 0);
  await auditPage(page, what);
}

for (const [locale, L] of [
  [
    "en-US",
    {
      save: "Save",
      saved: "Settings saved. They apply from the next request.",
      tabSecurity: "Security",
      tabTransfer: "Transfer",
      bind: "Bind first device",
      lockTimes: "Lock after wrong passwords",
      lockError: "Enter a whole number from 3 to 30",
      formats: "File formats",
      blacklist: "All but these formats",
      maxUpload: "Max upload speed",
      maxUploadUnit: "Unit of Max upload speed",
      add: "Add speed period",
      start: "Start",
      end: "End",
      repeat: "Repeat",
      weekend: "Weekend",
      upload: "Upload speed",
      endError: "The end must be after the start (split a period that runs past midnight in two)",
      edit1: "Edit period 1",
      delete1: "Delete period 1",
      deleteAsk: /^Delete speed period 1 \(08:00–10:30\)\?$/,
      deleteButton: "Delete",
      cancel: "Cancel",
      deleted: "Speed period deleted.",
      periods: "Speed periods",
      parallel: "Parallel uploads",
      parallelError: "Enter a whole number from 1 to 10",
      hash: "Hash check",
      watermarkReason: "Available in the enterprise edition only: upload an enterprise licence first.",
    },
  ],
  [
    "zh-CN",
    {
      save: "保存",
      saved: "设置已保存，从下一个请求起生效。",
      tabSecurity: "安全",
      tabTransfer: "传输",
      bind: "绑定首个设备",
      lockTimes: "密码错误锁定次数",
      lockError: "请输入 3 到 30 之间的整数",
      formats: "文件格式",
      blacklist: "禁止这些格式",
      maxUpload: "最大上传速度",
      maxUploadUnit: "最大上传速度的单位",
      add: "添加限速时段",
      start: "开始时间",
      end: "结束时间",
      repeat: "重复",
      weekend: "周末",
      upload: "上传速度",
      endError: "结束时间必须晚于开始时间（跨午夜的时段请拆成两段）",
      edit1: "编辑时段 1",
      delete1: "删除时段 1",
      deleteAsk: /^删除限速时段 1（08:00–10:30）？$/,
      deleteButton: "删除",
      cancel: "取消",
      deleted: "限速时段已删除。",
      periods: "限速时段",
      parallel: "并行上传数",
      parallelError: "请输入 1 到 10 之间的整数",
      hash: "哈希校验",
      watermarkReason: "仅企业版可用：请先上传企业版许可证。",
    },
  ],
] as const) {
  test(`general settings: common, security, transfer and speed periods (${locale})`, async ({ browser }) => {
    const saved = await snapshot();
    const { context, page } = await adminConsolePage(browser, locale);
    const lang = locale.slice(0, 2);
    try {
      // Common: a switch saved is what the engine answers; the watermark says why it is off.
      await page.goto("/admin/settings/general");
      await expect(page.getByText(L.watermarkReason)).toBeVisible();
      const bind = page.getByRole("switch", { name: L.bind });
      const wasBound = await bind.isChecked();
      await bind.setChecked(!wasBound);
      await page.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      await expect.poll(async () => (await ok<{ bindFirstDevice: boolean }>("GET", "/api/admin/settings/general", { token: await adminToken() })).bindFirstDevice).toBe(!wasBound);
      await audit(page, `general common ${lang}`);
      await consoleScreens(page, shots(`common-${lang}`));

      // Security: an out-of-range lock count is shown under its field; a good one saves.
      await page.getByRole("tab", { name: L.tabSecurity }).click();
      await expect(page).toHaveURL(/tab=security/);
      await page.getByLabel(L.lockTimes).fill("31");
      await page.getByRole("button", { name: L.save }).click();
      await expect(page.getByText(L.lockError)).toBeVisible();
      await page.getByLabel(L.lockTimes).fill("4");
      await page.getByRole("radio", { name: L.blacklist }).check();
      await page.getByLabel(L.formats, { exact: true }).fill("exe;bat");
      await page.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      await expect.poll(async () => ok("GET", "/api/admin/settings/security", { token: await adminToken() })).toMatchObject({ lockTimes: 4, fileFormatMode: 2, fileFormats: "exe;bat" });
      await audit(page, `general security ${lang}`);
      await consoleScreens(page, shots(`security-${lang}`));

      // Transfer: a max speed in MB/s is stored in KB/s.
      await page.getByRole("tab", { name: L.tabTransfer }).click();
      await expect(page).toHaveURL(/tab=transfer/);
      await page.getByRole("spinbutton", { name: L.maxUpload }).fill("2");
      await page.getByLabel(L.maxUploadUnit).selectOption("MB");
      await page.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      await expect.poll(async () => (await ok<{ maxUploadSpeed: number }>("GET", "/api/admin/settings/speed", { token: await adminToken() })).maxUploadSpeed).toBe(2048);

      // A speed period: end before start is refused on the form, a good one is added, edited, deleted.
      const periods = page.getByRole("table", { name: L.periods });
      await page.getByRole("link", { name: L.add }).click();
      const form = page.getByRole("region", { name: L.add });
      await form.getByLabel(L.start).fill("18:00");
      await form.getByLabel(L.end).fill("09:00");
      await form.getByRole("spinbutton", { name: L.upload }).fill("512");
      await form.getByRole("button", { name: L.save }).click();
      await expect(form.getByText(L.endError)).toBeVisible();
      await form.getByLabel(L.start).fill("08:00");
      await form.getByLabel(L.repeat).selectOption("weekend");
      await form.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toContainText(L.weekend);
      await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toContainText("512 KB/s");
      await audit(page, `general transfer ${lang}`);
      await consoleScreens(page, shots(`transfer-${lang}`));

      await page.getByRole("link", { name: L.edit1 }).click();
      const edit = page.getByRole("region", { name: L.edit1 });
      await edit.getByLabel(L.end).fill("10:30");
      await edit.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toContainText("10:30");

      // Delete asks in the kit's dialog, naming the period; Cancel keeps it and gives the focus back to the row's button.
      await page.getByRole("button", { name: L.delete1 }).click();
      const ask = page.getByRole("dialog", { name: L.delete1 });
      await expect(ask.getByText(L.deleteAsk)).toBeVisible();
      await screenshot(page, shots(`period-delete-${lang}`));
      await ask.getByRole("button", { name: L.cancel, exact: true }).click();
      await expect(ask).toBeHidden();
      await expect(page.getByRole("button", { name: L.delete1 })).toBeFocused();
      await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toHaveCount(1);
      await page.getByRole("button", { name: L.delete1 }).click();
      await ask.getByRole("button", { name: L.deleteButton, exact: true }).click();
      await expect(toast(page, L.deleted)).toBeVisible();
      await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toHaveCount(0);
    } finally {
      await restore(saved);
      await context.close();
    }
  });

  test(`transfer protocol: hash check and parallel uploads (${locale})`, async ({ browser }) => {
    const saved = await snapshot();
    const { context, page } = await adminConsolePage(browser, locale);
    const lang = locale.slice(0, 2);
    try {
      await page.goto("/admin/settings/protocol");
      await page.getByLabel(L.parallel).fill("0");
      await page.getByRole("button", { name: L.save }).click();
      await expect(page.getByText(L.parallelError)).toBeVisible();
      await page.getByLabel(L.parallel).fill("5");
      await page.getByRole("switch", { name: L.hash }).setChecked(false);
      await page.getByRole("button", { name: L.save }).click();
      await expect(toast(page, L.saved)).toBeVisible();
      const token = await adminToken();
      await expect.poll(async () => (await ok<{ parallelUploads: number }>("GET", "/api/admin/settings/protocol", { token })).parallelUploads).toBe(5);
      expect((await ok<{ cHashVerifySwitch: boolean }>("GET", "/api/admin/settings/transfer", { token })).cHashVerifySwitch).toBe(false);
      await audit(page, `protocol ${lang}`);
      await consoleScreens(page, shots(`protocol-${lang}`));
    } finally {
      await restore(saved);
      await context.close();
    }
  });
}

test("without JavaScript: deleting a speed period asks in the page first, naming it; Cancel keeps it, the confirmed post deletes it", async ({ browser }) => {
  const token = await adminToken();
  const before = await ok<{ periods: SpeedPeriod[] }>("GET", "/api/admin/settings/speed", { token });
  await ok("PATCH", "/api/admin/settings/speed", { token, body: { periods: [{ start: "08:00", end: "10:30", repeat: "weekend", uploadSpeed: 512, downloadSpeed: 0 }] } });
  const context = await browser.newContext({ locale: "en-US", javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);
    await page.goto("/admin/settings/general?tab=transfer");
    const periods = page.getByRole("table", { name: "Speed periods" });
    await page.getByRole("button", { name: "Delete period 1" }).click();
    await expect(page).toHaveURL(/\/admin\/settings\/general\?tab=transfer&remove=0$/);
    const ask = page.getByRole("alertdialog", { name: /^Delete speed period 1 \(08:00–10:30\)\?$/ });
    await screenshot(page, shots("period-delete-nojs-en"));
    await ask.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toHaveCount(1);
    await page.getByRole("button", { name: "Delete period 1" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await expect(periods.getByRole("row").filter({ hasText: "08:00" })).toHaveCount(0);
    expect((await ok<{ periods: SpeedPeriod[] }>("GET", "/api/admin/settings/speed", { token })).periods).toEqual([]);
  } finally {
    await ok("PATCH", "/api/admin/settings/speed", { token, body: { periods: before.periods } });
    await context.close();
  }
});
