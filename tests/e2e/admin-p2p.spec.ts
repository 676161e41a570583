import { randomBytes } from "node:crypto";
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { P2P_DEFAULTS, type P2pSettings } from "../../contract/p2p";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, call, createUser, login, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { adminConsolePage, consoleScreens, noScriptConsole, noScriptShot } from "./admin-console";
import { expect, hydrated, seriousViolations, test } from "./fixtures";

/**
 * The administrator's Point to point screen (admin spec section 2 "Transfer: Point to point";
 * docs/p2p.md): two users' browsers, played by file-server sockets speaking the engine's P2P
 * commands, make transfers — one done, one failed with a reason, one declined, one held for an
 * offline receiver and one sending through the relay. The live list shows the open ones and updates
 * itself as progress comes; the history shows the ended ones with their result, reason and
 * duration, filtered by account, device id, result and days. The settings form saves, reloads and
 * refuses bad values under the fields, with and without JavaScript. English and Chinese, axe,
 * screenshots at 1440 and 1280 px to /tmp/ferry/screens/p2p/.
 */
const PASSWORD = "P2p#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const SCREENS = "/tmp/ferry/screens/p2p";
const MIB = 1024 * 1024;

interface Device {
  account: string;
  files: FileClient;
  deviceId: string;
}
let sender: Device;
let receiver: Device;
let offline: Device;
let live: string;
let held: string;

const toast = (page: Page, text: string) => page.getByRole("region", { name: /^(Notifications|通知)$/ }).getByText(text);
const spaced = (id: string) => `${id.slice(0, 3)} ${id.slice(3, 6)} ${id.slice(6)}`;

async function device(prefix: string): Promise<Device> {
  const account = uniqueAccount(prefix);
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const files = await connectFiles(FILE_URL, (await login(account, PASSWORD)).data!.websocket_token);
  const { deviceId } = await files.ok("p2pRegister", { deviceKey: randomBytes(32).toString("base64url") });
  return { account, files, deviceId };
}

async function putSettings(body: Partial<P2pSettings>) {
  const reply = await call<P2pSettings>("PUT", "/api/admin/p2p/settings", { token: await adminToken(), body });
  expect(reply.code, JSON.stringify(reply)).toBe(200);
}
async function readSettings(): Promise<P2pSettings> {
  return (await call<P2pSettings>("GET", "/api/admin/p2p/settings", { token: await adminToken() })).data!;
}

/** An offer from the sender to the receiver, accepted. */
async function accepted(files: { path: string; size: number; kind?: 0 | 1 }[]) {
  const { transferId } = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: files.map((f) => ({ kind: 0 as const, ...f })), hold: false });
  await receiver.files.ok("p2pAnswer", { transferId, accept: true, target: "local" });
  return transferId;
}

test.beforeAll(async () => {
  await putSettings(P2P_DEFAULTS);
  sender = await device("p2psend");
  receiver = await device("p2precv");
  offline = await device("p2poff");
  await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });

  // Ended: done, failed with a reason, declined.
  const done = await accepted([{ path: "report.pdf", size: 2 * MIB }]);
  await sender.files.ok("p2pProgress", { transferId: done, file: 0, bytes: 2 * MIB, path: "direct" });
  await sender.files.ok("p2pEnd", { transferId: done, result: "done" });
  const failed = await accepted([{ path: "backup.tar", size: 8 * MIB }]);
  await sender.files.ok("p2pProgress", { transferId: failed, file: 0, bytes: MIB, path: "relay" });
  await sender.files.ok("p2pEnd", { transferId: failed, result: "failed", reason: "connection lost" });
  const { transferId: declined } = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: [{ path: "draft.docx", size: 4096, kind: 0 }], hold: false });
  await receiver.files.ok("p2pAnswer", { transferId: declined, accept: false, target: "local" });

  // Open: held for a receiver whose page is closed, and one sending through the relay.
  held = (await sender.files.ok("p2pOffer", { to: offline.deviceId, fromDevice: sender.deviceId, files: [{ path: "minutes.txt", size: 1000, kind: 0 }], hold: true })).transferId;
  live = await accepted([
    { path: "holiday.mov", size: 64 * MIB },
    { path: "photos", size: 0, kind: 1 },
    { path: "photos/beach.jpg", size: 3 * MIB },
  ]);
  await sender.files.ok("p2pProgress", { transferId: live, file: 0, bytes: 16 * MIB, path: "relay" });
});

test.afterAll(async () => {
  for (const id of [live, held]) if (id) await sender.files.cmd("p2pEnd", { transferId: id, result: "cancelled" });
  await putSettings(P2P_DEFAULTS);
  for (const d of [sender, receiver, offline]) await d?.files.close();
});

const LOCALES = [
  {
    locale: "en-US",
    lang: "en",
    title: "Point to point",
    live: "In progress",
    history: "History",
    settings: "Settings",
    liveTable: "Point-to-point transfers in progress",
    historyTable: "Point-to-point history",
    search: "Search point-to-point transfers in progress",
    filter: "Filter the point-to-point history",
    text: "Account or device id",
    result: "Result",
    from: "Created from",
    to: "Created to",
    searchButton: "Search",
    relay: "Relayed through this server",
    heldPath: "Held by this server (hand-over)",
    direct: "Direct, browser to browser",
    running: "Sending",
    heldStatus: "Held for the receiver",
    done: "Done",
    failed: "Failed",
    declined: "Declined",
    counts: "2 files, 1 folder",
    liveEmpty: "No point-to-point transfer is in progress.",
    historyNone: "No ended transfer matches the filter.",
    of: (done: string, total: string) => `${done} of ${total}`,
    enabled: "Point to point on",
    directSwitch: "Direct transfers",
    relaySwitch: "Relay through this server",
    hold: "Hand-over hours",
    size: "Largest transfer (MiB)",
    ice: "STUN/TURN servers",
    save: "Save",
    saved: "Point-to-point settings saved",
    holdError: "Enter a whole number of hours from 0 to 8760.",
    iceError: "Each line must be a stun:, stuns:, turn: or turns: URL without spaces.",
  },
  {
    locale: "zh-CN",
    lang: "zh",
    title: "点对点",
    live: "传输中",
    history: "历史记录",
    settings: "设置",
    liveTable: "进行中的点对点传输",
    historyTable: "点对点历史记录",
    search: "搜索进行中的点对点传输",
    filter: "筛选点对点历史记录",
    text: "账号或设备 ID",
    result: "结果",
    from: "创建日期从",
    to: "创建日期至",
    searchButton: "搜索",
    relay: "经本服务器中转",
    heldPath: "由本服务器暂存（离线转交）",
    direct: "直连，浏览器到浏览器",
    running: "发送中",
    heldStatus: "为接收方暂存",
    done: "完成",
    failed: "失败",
    declined: "已拒绝",
    counts: "2 个文件，1 个文件夹",
    liveEmpty: "当前没有进行中的点对点传输。",
    historyNone: "没有符合筛选条件的已结束传输。",
    of: (done: string, total: string) => `${done} / ${total}`,
    enabled: "开启点对点",
    directSwitch: "直连传输",
    relaySwitch: "经本服务器中转",
    hold: "离线转交保留小时数",
    size: "单次传输上限（MiB）",
    ice: "STUN/TURN 服务器",
    save: "保存",
    saved: "点对点设置已保存",
    holdError: "请输入 0 到 8760 之间的整数小时。",
    iceError: "每行必须是不含空格的 stun:、stuns:、turn: 或 turns: URL。",
  },
] as const;

async function axeClean(page: Page, what: string) {
  expect(await seriousViolations(page), `${what}: serious or critical accessibility violations`).toEqual([]);
}

/** Copies screenshots out of test-results/screens at once (other runs wipe test-results). */
async function keep(names: string[]) {
  await mkdir(SCREENS, { recursive: true });
  for (const name of names) {
    for (const file of [`${name}.png`, `${name}-1280.png`]) await copyFile(path.join("test-results", "screens", file), path.join(SCREENS, file));
  }
}

/** yyyy-mm-dd of a day offset from today, in the browser's time zone (the test machine's). */
const day = (offset: number) => {
  const d = new Date(Date.now() + offset * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

for (const l of LOCALES) {
  test(`p2p: the live list updates itself and is searched; the history filters (${l.lang})`, async ({ browser }) => {
    test.setTimeout(90_000);
    const { context, page } = await adminConsolePage(browser, l.locale);
    await page.goto("/admin/transfer/p2p");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: l.title })).toBeVisible();
    await expect(page.getByRole("tab", { name: l.live, selected: true })).toBeVisible();

    // Live: the relayed transfer with both parties, names, progress, path and status; the held one.
    const table = page.getByRole("table", { name: l.liveTable });
    const row = table.getByRole("row").filter({ hasText: receiver.account });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(sender.account);
    await expect(row).toContainText(spaced(sender.deviceId));
    await expect(row).toContainText(spaced(receiver.deviceId));
    await expect(row).toContainText("holiday.mov, photos");
    await expect(row).toContainText(l.counts);
    await expect(row).toContainText(l.relay);
    await expect(row).toContainText(l.running);
    const bar = row.getByRole("progressbar");
    // 16 MiB of 67 MiB at first (40 MiB once the other language's run has moved it on).
    const first = `23% ${l.of("16.00 MB", "67.00 MB")}`;
    const second = `59% ${l.of("40.00 MB", "67.00 MB")}`;
    await expect(bar).toHaveAttribute("aria-valuetext", new RegExp(`^(${first}|${second})$`));
    const heldRow = table.getByRole("row").filter({ hasText: offline.account });
    await expect(heldRow).toContainText(l.heldPath);
    await expect(heldRow).toContainText(l.heldStatus);

    // Progress from the sender's browser reaches the open page without a reload.
    const before = await bar.getAttribute("aria-valuetext");
    await new Promise((r) => setTimeout(r, 1100));
    await sender.files.ok("p2pProgress", { transferId: live, file: 0, bytes: (before === first ? 40 : 60) * MIB });
    await expect(bar).toHaveAttribute("aria-valuetext", before === first ? second : `89% ${l.of("60.00 MB", "67.00 MB")}`, { timeout: 10_000 });
    await axeClean(page, `p2p live ${l.lang}`);
    await consoleScreens(page, `admin-p2p-live-${l.lang}`);
    await keep([`admin-p2p-live-${l.lang}`]);

    // Search by a device id typed as it is read out, then by nothing that exists.
    const search = page.getByRole("search", { name: l.search });
    await search.getByLabel(l.text).fill(spaced(offline.deviceId));
    await search.getByRole("button", { name: l.searchButton }).click();
    await expect(table.getByRole("row").filter({ hasText: offline.account })).toHaveCount(1);
    await expect(table.getByRole("row").filter({ hasText: receiver.account })).toHaveCount(0);
    await search.getByLabel(l.text).fill(`nobody_${Date.now()}`);
    await search.getByRole("button", { name: l.searchButton }).click();
    await expect(page.getByText(l.liveEmpty)).toBeVisible();

    // History: the three ended transfers with result, reason, path and duration.
    await page.getByRole("tab", { name: l.history }).click();
    await expect(page.getByRole("tab", { name: l.history, selected: true })).toBeVisible();
    const filter = page.getByRole("search", { name: l.filter });
    await filter.getByLabel(l.text).fill(sender.account);
    await filter.getByRole("button", { name: l.searchButton }).click();
    const history = page.getByRole("table", { name: l.historyTable });
    const rows = history.getByRole("row").filter({ hasText: sender.account });
    await expect(rows).toHaveCount(3);
    const failedRow = rows.filter({ hasText: "backup.tar" });
    await expect(failedRow).toContainText(l.failed);
    await expect(failedRow).toContainText("connection lost");
    await expect(failedRow).toContainText(l.relay);
    await expect(failedRow).toContainText(l.of("1.00 MB", "8.00 MB"));
    const doneRow = rows.filter({ hasText: "report.pdf" });
    await expect(doneRow).toContainText(l.done);
    await expect(doneRow).toContainText(l.direct);
    await expect(doneRow).toContainText(/\d+:\d\d/);
    const declinedRow = rows.filter({ hasText: "draft.docx" });
    await expect(declinedRow).toContainText(l.declined);
    await expect(declinedRow.getByRole("cell", { name: "—", exact: true })).toHaveCount(1);
    await expect(declinedRow).not.toContainText(/\bdeclined\b/);
    await axeClean(page, `p2p history ${l.lang}`);
    await consoleScreens(page, `admin-p2p-history-${l.lang}`);
    await keep([`admin-p2p-history-${l.lang}`]);

    // Filters: the result, a device id, the days.
    await filter.getByLabel(l.result).selectOption({ label: l.failed });
    await filter.getByRole("button", { name: l.searchButton }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText("backup.tar");
    await filter.getByLabel(l.result).selectOption({ index: 0 });
    await filter.getByLabel(l.text).fill(receiver.deviceId);
    await filter.getByLabel(l.from).fill(day(0));
    await filter.getByRole("button", { name: l.searchButton }).click();
    await expect(rows).toHaveCount(3);
    await filter.getByLabel(l.from).fill(day(-3));
    await filter.getByLabel(l.to).fill(day(-1));
    await filter.getByRole("button", { name: l.searchButton }).click();
    await expect(page.getByText(l.historyNone)).toBeVisible();
    await context.close();
  });

  test(`p2p settings: save, reload, refusals under the fields (${l.lang})`, async ({ browser }) => {
    const { context, page } = await adminConsolePage(browser, l.locale);
    await page.goto("/admin/transfer/p2p?tab=settings");
    await hydrated(page);
    await expect(page.getByRole("tab", { name: l.settings, selected: true })).toBeVisible();
    await expect(page.getByRole("switch", { name: l.enabled })).toBeChecked();
    await expect(page.getByRole("switch", { name: l.directSwitch })).toBeChecked();
    await expect(page.getByLabel(l.hold)).toHaveValue("72");

    // Refused as typed: the messages under the fields, translated; nothing is saved.
    await page.getByLabel(l.hold).fill("9000");
    await expect(page.getByText(l.holdError)).toBeVisible();
    await page.getByLabel(l.ice).fill("http://stun.example.org");
    await expect(page.getByText(l.iceError)).toBeVisible();
    await page.getByRole("button", { name: l.save }).click();
    await expect(page.getByText(l.holdError)).toBeVisible();
    expect((await readSettings()).holdHours).toBe(72);
    await axeClean(page, `p2p settings errors ${l.lang}`);
    await consoleScreens(page, `admin-p2p-settings-errors-${l.lang}`);
    await keep([`admin-p2p-settings-errors-${l.lang}`]);

    await page.getByRole("switch", { name: l.directSwitch }).uncheck();
    await page.getByLabel(l.hold).fill("24");
    await page.getByLabel(l.size).fill("2048");
    await page.getByLabel(l.ice).fill("stun:stun.example.org:3478\n\nturn:turn.example.org:3478?transport=tcp");
    await page.getByRole("button", { name: l.save }).click();
    await expect(toast(page, l.saved)).toBeVisible();
    expect(await readSettings()).toEqual({ enabled: true, direct: false, relay: true, holdHours: 24, maxTransferBytes: 2048 * MIB, iceServers: ["stun:stun.example.org:3478", "turn:turn.example.org:3478?transport=tcp"] });

    await page.reload();
    await hydrated(page);
    await expect(page.getByRole("switch", { name: l.directSwitch })).not.toBeChecked();
    await expect(page.getByRole("switch", { name: l.relaySwitch })).toBeChecked();
    await expect(page.getByLabel(l.hold)).toHaveValue("24");
    await expect(page.getByLabel(l.size)).toHaveValue("2048");
    await expect(page.getByLabel(l.ice)).toHaveValue("stun:stun.example.org:3478\nturn:turn.example.org:3478?transport=tcp");
    await axeClean(page, `p2p settings ${l.lang}`);
    await consoleScreens(page, `admin-p2p-settings-${l.lang}`);
    await keep([`admin-p2p-settings-${l.lang}`]);
    await putSettings(P2P_DEFAULTS);
    await context.close();
  });
}

test("p2p settings without JavaScript: a refusal comes back under its field, a good post saves", async ({ browser }) => {
  const l = LOCALES[0];
  const { context, page } = await noScriptConsole(browser, l.locale);
  await page.goto("/admin/transfer/p2p?tab=settings");
  await expect(page.getByRole("heading", { level: 1, name: l.title })).toBeVisible();
  await page.getByLabel(l.hold).fill("-1");
  await page.getByRole("button", { name: l.save }).click();
  await expect(page.getByLabel(l.hold)).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(l.holdError)).toBeVisible();
  expect((await readSettings()).holdHours).toBe(72);
  await noScriptShot(page, "admin-p2p-settings-error");

  await page.getByLabel(l.hold).fill("0");
  await page.getByRole("switch", { name: l.relaySwitch }).uncheck();
  await page.getByRole("button", { name: l.save }).click();
  await expect(toast(page, l.saved)).toBeVisible();
  await expect(page.getByLabel(l.hold)).toHaveValue("0");
  await expect(page.getByRole("switch", { name: l.relaySwitch })).not.toBeChecked();
  expect(await readSettings()).toEqual({ ...P2P_DEFAULTS, holdHours: 0, relay: false });
  await noScriptShot(page, "admin-p2p-settings-saved");
  await putSettings(P2P_DEFAULTS);
  await context.close();
});
