import type { Page } from "@playwright/test";
import { LOCAL_PROTOCOL_VERSION, MIN_CLIENT_VERSION } from "../../app/client/protocol";
import { PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, createUser, ok, uniqueAccount } from "../support/e2e-helpers";
import { putInstallers, removeInstallers } from "../support/installers";
import { startPeer, type Peer } from "./client-peer";
import { expect, hydrated, screenshot, screenshotsAt, signIn, test } from "./fixtures";

/**
 * The desktop-client path: the notice bar's states, the client-start / size-overflow dialog. A
 * small WebSocket server on one of the configured local ports stands in for the desktop client
 * (./client-peer.ts). The bar invites to start a client only when the administrator has installers.
 */

const PASSWORD = "Client#Test2026";

async function signedInUser(page: Page) {
  const account = uniqueAccount("client");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
}

const bar = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });
/** The probe retries every 6 s; a state change may take one period plus the page's own work. */
const PROBE_WAIT = { timeout: 15_000 };

test.describe("desktop client", () => {
  // The browser reports Linux, so the dialog offers rpm and deb (Playwright's desktop preset says Windows).
  test.use({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" });
  let peer: Peer | null = null;
  test.beforeEach(() => putInstallers("ferry-client-3.0.0.deb", "ferry-client-3.0.0.rpm"));
  test.afterEach(async () => {
    removeInstallers();
    await peer?.close();
    peer = null;
  });

  test("without a local client the bar invites to start it and the file pages work through the file server", async ({ page }) => {
    await signedInUser(page);
    await expect(bar(page, "Start the transfer client to upload and download at full speed.")).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "Disconnected from the server" })).toHaveCount(0);
    // The file server answers the listing: the empty personal space shows, no spinner left.
    await expect(page.getByRole("region", { name: /^Files in/ })).toBeVisible();
    await expect(page.getByText("Connecting to the file server")).toHaveCount(0);
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "New folder" }).click();
    await page.getByRole("dialog", { name: "Create folder" }).getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("button", { name: "New folder", exact: true }).last()).toBeVisible();
    await screenshotsAt(page, "client-start-bar-en");

    // Starting: the bar says so and the client-start dialog offers the Linux installers.
    await bar(page, "Start the transfer client").getByRole("button", { name: "Start client" }).click();
    await expect(bar(page, "Starting the transfer client…")).toBeVisible();
    const dialog = page.getByRole("dialog", { name: "Start the transfer client" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "CentOS (rpm)" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Ubuntu (deb)" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Windows (exe)" })).toHaveCount(0);
    // The role sits on the full-screen wrapper; the panel is the title's parent.
    expect(await dialog.getByRole("heading").locator("..").evaluate((el) => el.getBoundingClientRect().width)).toBe(450);
    await screenshotsAt(page, "client-start-dialog-en");

    // The client comes up: the dialog closes by itself and the bar goes away.
    peer = await startPeer(MIN_CLIENT_VERSION);
    await expect(dialog).toBeHidden(PROBE_WAIT);
    await expect(bar(page, /transfer client/)).toHaveCount(0);
    expect(peer.checks[0]).toEqual({ action: "check", protocol: LOCAL_PROTOCOL_VERSION });
  });

  test("a client older than the minimum shows low version with an upgrade offer; a newer release shows update", async ({ page }) => {
    peer = await startPeer("1.9.9");
    await signedInUser(page);
    const low = bar(page, `Your transfer client is older than version ${MIN_CLIENT_VERSION}. Please upgrade it.`);
    await expect(low).toBeVisible(PROBE_WAIT);
    await low.getByRole("button", { name: "Upgrade" }).click();
    const dialog = page.getByRole("dialog", { name: "Upgrade the transfer client" });
    await expect(dialog.getByRole("button", { name: "CentOS (rpm)" })).toBeVisible();
    await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
    await expect(dialog).toBeHidden();

    // The client goes away: after a while the page invites to start it again.
    await peer.close();
    peer = null;
    await expect(bar(page, "Start the transfer client to upload")).toBeVisible(PROBE_WAIT);

    peer = await startPeer(MIN_CLIENT_VERSION, "99.0.0");
    const update = bar(page, "A new version of the transfer client is available.");
    await expect(update).toBeVisible(PROBE_WAIT);
    // Closing the bar hides it.
    await update.getByRole("button", { name: "Close" }).click();
    await expect(update).toHaveCount(0);
  });

  test("a file over the server's size limit opens the size-overflow dialog with the limit and the Linux installers", async ({ page }) => {
    const admin = await adminToken();
    const before = await ok<{ tcpFileSizeLimitKB: number }>("GET", "/api/admin/settings/transfer", { token: admin });
    await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 1 } });
    try {
      await signedInUser(page);
      await page.getByLabel("Upload files").setInputFiles({ name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(4096, 7) });
      const dialog = page.getByRole("dialog", { name: "File too large for the browser" });
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText("The browser transfers files up to 1.00 KB.");
      await expect(dialog.getByRole("button", { name: "CentOS (rpm)" })).toBeVisible();
      await expect(dialog.getByRole("button", { name: "Ubuntu (deb)" })).toBeVisible();
      await screenshotsAt(page, "client-size-overflow-en");
      await page.keyboard.press("Escape");
      await expect(dialog).toHaveCount(0);
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await hydrated(page);
      await page.getByLabel("上传文件", { exact: true }).setInputFiles({ name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(4096, 7) });
      const dialogZh = page.getByRole("dialog", { name: "文件超出浏览器传输上限" });
      await expect(dialogZh.getByRole("button", { name: "Ubuntu (deb)" })).toBeVisible();
      await screenshotsAt(page, "client-size-overflow-zh");
      await page.keyboard.press("Escape");
      await expect(dialogZh).toHaveCount(0);
      await page.getByRole("button", { name: "切换语言为英文" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "en");
      await hydrated(page);
      await page.getByLabel("Upload files", { exact: true }).setInputFiles({ name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(4096, 7) });
      await expect(dialog).toBeVisible();

      // The same dialog closes by itself once a client connects.
      peer = await startPeer(MIN_CLIENT_VERSION);
      await expect(dialog).toBeHidden(PROBE_WAIT);
    } finally {
      await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: before.tcpFileSizeLimitKB } });
    }
  });
});

test.describe("the client invitation", () => {
  test.use({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" });
  test.afterEach(() => removeInstallers());

  /** The personal space has listed its (empty) root: the page is hydrated and has talked to the file server, so the bar had its chance. */
  async function settled(page: Page) {
    await hydrated(page);
    await expect(page.getByRole("region", { name: /^(Files in|.*中的文件$)/ })).toBeVisible();
    await expect(page.getByText(/Connecting to the file server|正在连接文件服务器/)).toHaveCount(0);
  }
  const invitation = (page: Page) => page.getByRole("status").filter({ hasText: /Start the transfer client|启动传输客户端|Starting the transfer client|正在启动传输客户端/ });

  test("is absent while the administrator has no installer, shows when one exists, and a dismissal lasts in that browser", async ({ page, browser }) => {
    removeInstallers();
    const account = uniqueAccount("invite");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    await signIn(page, account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await settled(page);
    await expect(invitation(page)).toHaveCount(0);
    await page.getByRole("link", { name: "Link", exact: true }).click();
    await expect(page).toHaveURL(/\/link/);
    await expect(page.getByRole("tab", { name: "Share files" })).toBeVisible();
    await expect(invitation(page)).toHaveCount(0);

    // The administrator drops one installer in: the next page offers the client, and only that installer.
    putInstallers("ferry-client-3.0.0.deb");
    await page.goto("/personal");
    await settled(page);
    await expect(invitation(page)).toBeVisible();
    for (const [lang, width] of [
      ["en", 1440],
      ["en", 1280],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `client-invitation-${lang}-${width}`);
    }
    await invitation(page).getByRole("button", { name: "Start client" }).click();
    const dialog = page.getByRole("dialog", { name: "Start the transfer client" });
    await expect(dialog.getByRole("button", { name: "Ubuntu (deb)" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "CentOS (rpm)" })).toHaveCount(0);
    await screenshotsAt(page, "client-start-dialog-installer-en");
    await dialog.getByRole("button", { name: "Close" }).last().click();
    await expect(dialog).toHaveCount(0);
    // Starting: the bar keeps offering to start it again, and focus is back on that button.
    await expect(invitation(page)).toContainText("Starting the transfer client…");
    await expect(invitation(page).getByRole("button", { name: "Start client" })).toBeFocused();
    await screenshotsAt(page, "client-starting-en");

    // In Chinese too.
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await settled(page);
    await expect(invitation(page)).toContainText("启动传输客户端");
    for (const width of [1440, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `client-invitation-zh-${width}`);
    }
    await invitation(page).getByRole("button", { name: "启动客户端" }).click();
    const dialogZh = page.getByRole("dialog", { name: "启动传输客户端" });
    await expect(dialogZh.getByRole("button", { name: "Ubuntu (deb)" })).toBeVisible();
    await screenshotsAt(page, "client-start-dialog-installer-zh");
    await page.keyboard.press("Escape");
    await expect(dialogZh).toHaveCount(0);
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshotsAt(page, "client-starting-zh");

    // Closing the bar dismisses the invitation for this browser: after a reload, on other pages, in either language.
    await invitation(page).getByRole("button", { name: "关闭" }).click();
    await expect(invitation(page)).toHaveCount(0);
    await page.reload();
    await settled(page);
    await expect(invitation(page)).toHaveCount(0);
    await page.getByRole("button", { name: "切换语言为英文" }).click();
    await settled(page);
    await expect(invitation(page)).toHaveCount(0);

    // Another browser (a fresh profile) is still invited.
    const other = await browser.newContext({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" });
    try {
      const second = await other.newPage();
      await signIn(second, account, PASSWORD);
      await second.waitForURL(/\/personal/);
      await settled(second);
      await expect(invitation(second)).toBeVisible();
    } finally {
      await other.close();
    }
  });
});
