import type { Browser, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, openTransfers, screenshot, seedFile, seriousViolations, signIn, test, transferPanel } from "./fixtures";

/**
 * Issue 18, building step 2 (docs/p2p.md): the sender and receiver pages between two browsers.
 * Two Chromium contexts are two devices of two users; the bytes go over a WebRTC data channel.
 */

const PASSWORD = "P2p#Devices2026";
type Lang = "en" | "zh";
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-p2p-"));
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;

/** The bytes the engine holds at a path of the account's personal space (null while it is not there), through a download URL as any client would. */
async function storedBytes(account: string, filePath: string): Promise<Buffer | null> {
  const files = await connectFiles(FILE_URL, (await login(account, PASSWORD)).data!.websocket_token);
  try {
    const ticket = await files.cmd("download", { groupId: 0, paths: [filePath] });
    if (ticket.code !== 200) return null;
    const response = await fetch(new URL(ticket.data!.url, FILE_URL));
    return response.status === 200 ? Buffer.from(await response.arrayBuffer()) : null;
  } finally {
    await files.close();
  }
}

// Two contexts of one browser on this machine reach each other by their host addresses: Chromium's
// mDNS names for them (.local) do not resolve in a container.
test.use({
  launchOptions: {
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-features=WebRtcHideLocalIpsWithMdns"],
  },
});

const L = {
  en: { sender: "Send to a device", receiver: "Receive from a device", allow: "Allow receiving", id: "Receiver's device ID", send: "Send", error1: "Enter the receiver's device ID", error2: "Choose at least one file or folder to send", error3: "No device has this ID" },
  zh: { sender: "发送到设备", receiver: "从设备接收", allow: "允许接收", id: "接收方设备 ID", send: "发送", error1: "请输入接收方设备 ID", error2: "请至少选择一个要发送的文件或文件夹", error3: "不存在此 ID 的设备" },
};

async function userPage(browser: Browser, lang: Lang, prefix: string): Promise<{ page: Page; account: string }> {
  const account = uniqueAccount(prefix);
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: lang === "zh" ? "zh-CN" : "en-US" });
  await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
  const page = await context.newPage();
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  return { page, account };
}

/** The device id the receiver page shows, as shown ("482 913 557"). */
async function shownDeviceId(page: Page, lang: Lang): Promise<string> {
  const id = page.getByRole("status", { name: lang === "en" ? "This device's ID" : "本设备 ID" });
  await expect(id).toHaveText(/^[1-9]\d{2} \d{3} \d{3}$/);
  return (await id.textContent())!;
}

for (const lang of ["en", "zh"] as const) {
  test(`the sender and receiver pages, their checks and axe (${lang})`, async ({ browser }) => {
    const l = L[lang];
    const { page } = await userPage(browser, lang, "p2ppages");
    try {
      await page.goto("/p2p/receiver");
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: l.receiver })).toBeVisible();
      const id = await shownDeviceId(page, lang);
      await expect(page.getByRole("switch", { name: l.allow })).toBeChecked();
      // The same browser and account keep their device id.
      await page.reload();
      await hydrated(page);
      expect(await shownDeviceId(page, lang)).toBe(id);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `p2p-receiver-${lang}-1440`);

      await page.goto("/p2p/sender");
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: l.sender })).toBeVisible();
      await page.getByRole("button", { name: l.send, exact: true }).click();
      await expect(page.getByText(l.error1)).toBeVisible();
      await expect(page.getByText(l.error2)).toBeVisible();
      const file = path.join(workDir, `note-${lang}.txt`);
      writeFileSync(file, "hello");
      await page.getByLabel(lang === "en" ? "Add files" : "添加文件", { exact: true }).setInputFiles(file);
      await expect(page.getByRole("button", { name: lang === "en" ? `Remove note-${lang}.txt from the list` : `从列表中移除 note-${lang}.txt` })).toBeVisible();
      await page.getByRole("combobox", { name: l.id }).fill("100 000 001");
      await page.getByRole("button", { name: l.send, exact: true }).click();
      await expect(page.getByText(l.error3)).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `p2p-sender-${lang}-1440`);
    } finally {
      await page.context().close();
    }
  });
}

test("a direct transfer of files and a folder between two browsers, bytes checked, the id remembered", async ({ browser }) => {
  test.setTimeout(120_000);
  const receiver = await userPage(browser, "en", "p2precv");
  const sender = await userPage(browser, "en", "p2psend");
  try {
    await receiver.page.goto("/p2p/receiver");
    await hydrated(receiver.page);
    const id = await shownDeviceId(receiver.page, "en");

    // Past the 16 MiB the sender may have unwritten at the receiver (protocol.ts, WRITE_WINDOW_BYTES).
    const big = randomBytes(20 * 1024 * 1024 + 123);
    const small = Buffer.from("small file\n");
    const folder = path.join(workDir, "album");
    mkdirSync(path.join(folder, "inner"), { recursive: true });
    writeFileSync(path.join(folder, "inner", "photo.bin"), big);
    // More entries than the offer event carries (P2P_SUMMARY_ENTRIES, 20): the receiver pages the rest in by p2pFiles.
    mkdirSync(path.join(folder, "many"));
    for (let i = 1; i <= 24; i++) writeFileSync(path.join(folder, "many", `note-${i}.txt`), `note ${i}\n`);
    const loose = path.join(workDir, "loose.txt");
    writeFileSync(loose, small);

    await sender.page.goto("/p2p/sender");
    await hydrated(sender.page);
    await sender.page.getByLabel("Add files", { exact: true }).setInputFiles(loose);
    await sender.page.getByLabel("Add a folder", { exact: true }).setInputFiles(folder);
    await expect(sender.page.getByText("1 file, 1 folder, 20.00 MB")).toBeVisible();
    await sender.page.getByRole("combobox", { name: "Receiver's device ID" }).fill(id);
    await sender.page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(sender.page.getByText(`Offered to ${receiver.account}`)).toBeVisible();

    const offer = receiver.page.getByRole("listitem").filter({ hasText: `From ${sender.account}` });
    await expect(offer).toContainText("loose.txt");
    // loose.txt and the album's 25 files (folders that hold files are not entries of their own): 26 entries, 8 of them listed
    // (photo.bin may be one of the 18 not listed; its bytes are checked below).
    await expect(offer).toContainText("26 items");
    await expect(offer).toContainText("and 18 more");
    await screenshot(receiver.page, "p2p-receiver-offer-en-1440");
    // Into the receiver's Ferry space, the default folder /P2P/<sender>.
    await expect(offer.getByRole("textbox", { name: "Folder in my Ferry space" })).toHaveValue(`/P2P/${sender.account}`);
    await offer.getByRole("button", { name: `Accept the files from ${sender.account}` }).click();

    await openTransfers(sender.page);
    const row = transferPanel(sender.page).getByRole("listitem").filter({ hasText: `To ${receiver.account}` });
    await expect(row).toContainText("direct between the browsers");
    await expect(row).toContainText("Sent and checked", { timeout: 60_000 });
    await screenshot(sender.page, "p2p-sender-done-en-1440");

    // The files are in the receiver's space, byte for byte, the folder's tree kept.
    const base = `/P2P/${sender.account}`;
    await expect.poll(async () => (await storedBytes(receiver.account, `${base}/loose.txt`))?.equals(small) ?? false, { timeout: 30_000 }).toBe(true);
    await expect.poll(async () => (await storedBytes(receiver.account, `${base}/album/inner/photo.bin`))?.equals(big) ?? false, { timeout: 30_000 }).toBe(true);
    for (let i = 1; i <= 24; i++) expect((await storedBytes(receiver.account, `${base}/album/many/note-${i}.txt`))?.toString()).toBe(`note ${i}\n`);

    // The sender remembers the id, and the list is empty again.
    await sender.page.goto("/p2p/sender");
    await hydrated(sender.page);
    await sender.page.getByRole("button", { name: "Show the device IDs you sent to before" }).click();
    await expect(sender.page.getByRole("option", { name: id })).toBeVisible();
  } finally {
    await sender.page.context().close();
    await receiver.page.context().close();
  }
});

test("a declined offer: the sender's row says so", async ({ browser }) => {
  const receiver = await userPage(browser, "zh", "p2pdecl");
  const sender = await userPage(browser, "en", "p2pdecs");
  try {
    await receiver.page.goto("/p2p/receiver");
    await hydrated(receiver.page);
    const id = await shownDeviceId(receiver.page, "zh");
    const file = path.join(workDir, "unwanted.txt");
    writeFileSync(file, "no thanks");
    await sender.page.goto("/p2p/sender");
    await hydrated(sender.page);
    await sender.page.getByLabel("Add files", { exact: true }).setInputFiles(file);
    // Typed without the spaces.
    await sender.page.getByRole("combobox", { name: "Receiver's device ID" }).fill(id.replace(/ /g, ""));
    await sender.page.getByRole("button", { name: "Send", exact: true }).click();
    const offer = receiver.page.getByRole("listitem").filter({ hasText: `来自 ${sender.account}` });
    await expect(offer).toContainText("unwanted.txt");
    await offer.getByRole("button", { name: `拒绝 ${sender.account} 发送的文件` }).click();
    await expect(offer).toBeHidden();
    await openTransfers(sender.page);
    await expect(transferPanel(sender.page).getByRole("listitem").filter({ hasText: `${receiver.account} (${id}) declined` })).toBeVisible();
  } finally {
    await sender.page.context().close();
    await receiver.page.context().close();
  }
});

for (const lang of ["en", "zh"] as const) {
  test(`without JavaScript both pages say sending and receiving need it (${lang})`, async ({ browser }) => {
    const account = uniqueAccount("p2pnojs");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1440, height: 900 }, locale: lang === "zh" ? "zh-CN" : "en-US" });
    await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
    const page = await context.newPage();
    try {
      await signIn(page, account, PASSWORD);
      await expect(page).toHaveURL(/\/personal$/);
      const message = lang === "en" ? "Sending and receiving between devices needs JavaScript" : "设备之间发送和接收文件需要 JavaScript";
      for (const [where, heading] of [
        ["/p2p/sender", L[lang].sender],
        ["/p2p/receiver", L[lang].receiver],
      ] as const) {
        const response = await page.goto(where);
        expect({ where, status: response?.status() }).toEqual({ where, status: 200 });
        await expect(page.getByRole("main").getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await expect(page.getByRole("alert").filter({ hasText: message })).toBeVisible();
        await expect(page.getByRole("status", { name: /Connecting|正在连接/ })).toBeHidden();
      }
      await screenshot(page, `p2p-noscript-receiver-${lang}-1440`);
    } finally {
      await context.close();
    }
  });
}

test("files and a folder from the sender's Ferry space, into a folder the receiver typed", async ({ browser }) => {
  test.setTimeout(120_000);
  const receiver = await userPage(browser, "en", "p2pfrecv");
  const sender = await userPage(browser, "zh", "p2pfsend");
  const report = Buffer.from("quarterly report\n");
  const data = randomBytes(5 * 1024 * 1024 + 17);
  const token = (await login(sender.account, PASSWORD)).data!.websocket_token;
  const files = await connectFiles(FILE_URL, token);
  try {
    await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
    await files.ok("mkdir", { groupId: 0, path: "/docs", name: "sub" });
    await seedFile(files, token, "/docs/report.txt", report);
    await seedFile(files, token, "/docs/sub/data.bin", data);
  } finally {
    await files.close();
  }
  try {
    await receiver.page.goto("/p2p/receiver");
    await hydrated(receiver.page);
    const id = await shownDeviceId(receiver.page, "en");

    await sender.page.goto("/p2p/sender");
    await hydrated(sender.page);
    await sender.page.getByRole("button", { name: "从我的 Ferry 空间" }).click();
    const dialog = sender.page.getByRole("dialog", { name: "从我的 Ferry 空间选择" });
    await dialog.getByRole("checkbox", { name: "选择 docs" }).click();
    expect(await seriousViolations(sender.page, '[role="dialog"]')).toEqual([]);
    await screenshot(sender.page, "p2p-sender-ferry-zh-1440");
    await dialog.getByRole("button", { name: "添加" }).click();
    await expect(dialog).toBeHidden();
    await expect(sender.page.getByRole("button", { name: "从列表中移除 docs" })).toBeVisible();
    await expect(sender.page.getByText("我的 Ferry 空间", { exact: true })).toBeVisible();
    await sender.page.getByRole("combobox", { name: "接收方设备 ID" }).fill(id);
    await sender.page.getByRole("button", { name: "发送", exact: true }).click();

    const offer = receiver.page.getByRole("listitem").filter({ hasText: `From ${sender.account}` });
    await expect(offer).toContainText("docs/sub/data.bin");
    await offer.getByRole("textbox", { name: "Folder in my Ferry space" }).fill("/inbox/from-colleague");
    await offer.getByRole("button", { name: `Accept the files from ${sender.account}` }).click();

    await openTransfers(sender.page);
    await expect(transferPanel(sender.page).getByRole("listitem").filter({ hasText: "已发送并校验" })).toBeVisible({ timeout: 60_000 });
    await expect.poll(async () => (await storedBytes(receiver.account, "/inbox/from-colleague/docs/report.txt"))?.equals(report) ?? false, { timeout: 30_000 }).toBe(true);
    await expect.poll(async () => (await storedBytes(receiver.account, "/inbox/from-colleague/docs/sub/data.bin"))?.equals(data) ?? false, { timeout: 30_000 }).toBe(true);
  } finally {
    await sender.page.context().close();
    await receiver.page.context().close();
  }
});
