import type { Locator, Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT, WEB_URL } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { putInstallers, removeInstallers } from "../support/installers";
import { solidPng } from "../support/sample-files";
import { startPeer, type Peer } from "./client-peer";
import { expect, hydrated, signIn, test, seedFile } from "./fixtures";

/**
 * Every dialog of the product closes three ways — its own Close/Cancel button, the × in its corner
 * and Escape — and gives the keyboard focus back to what opened it (issue 13, item 2: the client
 * dialog could not be closed at all).
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Dialog#Test2026";

type Way = "button" | "x" | "escape";

interface DialogCase {
  /** The dialog's accessible name (its title). */
  name: string | RegExp;
  /** Opens the dialog; `way` lets a case alternate between keyboard and mouse. */
  open: (attempt: number) => Promise<void>;
  /** Where focus must be once the dialog is gone (what the user used to open it). */
  opener: () => Locator;
  /** The dialog's own closing button (Cancel or Close); none for dialogs that only have × (a form with a submit). */
  button?: string;
}

/** Presses Enter on `target`, the way a keyboard user opens things. */
async function pressOn(target: Locator) {
  await target.focus();
  await target.press("Enter");
}

async function closeBy(page: Page, dialog: Locator, way: Way, button: string | undefined) {
  if (way === "escape") return page.keyboard.press("Escape");
  // The × comes right after the title, before the content and the footer.
  if (way === "x") return dialog.getByRole("button", { name: /^(Close|关闭)$/ }).first().click();
  await dialog.getByRole("button", { name: button, exact: true }).last().click();
}

/** Opens the dialog and closes it every way it offers; each time it must be gone and focus back on the opener. */
async function walk(page: Page, c: DialogCase) {
  const ways: Way[] = c.button ? ["button", "x", "escape"] : ["x", "escape"];
  let attempt = 0;
  for (const way of ways) {
    await c.open(attempt++);
    const dialog = page.getByRole("dialog", { name: c.name });
    await expect(dialog, `${String(c.name)} opens`).toBeVisible();
    await closeBy(page, dialog, way, c.button);
    await expect(dialog, `${String(c.name)} closes by ${way}`).toHaveCount(0);
    await expect(c.opener(), `focus returns to the opener of ${String(c.name)} after ${way}`).toBeFocused();
  }
}

/** A user with every permission and an e-mail sender type, with a folder, a text file and an image. */
async function scene(page: Page) {
  const account = uniqueAccount("dialogs");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL, emailSenderType: 2 });
  const signedIn = (await login(account, PASSWORD)).data!;
  const files = await connectFiles(FILE_URL, signedIn.websocket_token);
  await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
  await seedFile(files, signedIn.websocket_token, "/notes.txt", "some notes");
  await seedFile(files, signedIn.websocket_token, "/photo.png", solidPng(24, 16));
  await files.close();
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
  return { account, token: signedIn.token, socketToken: signedIn.websocket_token };
}

/** Chooses `file` through the toolbar's Upload files button (clicked or, on even attempts, pressed with Enter): the button is what opened whatever the upload asks. */
async function uploadThrough(page: Page, button: Locator, attempt: number, file: { name: string; mimeType: string; buffer: Buffer }) {
  const chooser = page.waitForEvent("filechooser");
  if (attempt % 2) await button.click();
  else await pressOn(button);
  await (await chooser).setFiles(file);
}

const table = (page: Page) => page.getByRole("region", { name: /^(Files in|.*中的文件$)/ });
const row = (page: Page, name: string) => table(page).getByRole("row").filter({ hasText: name });
const toolbar = (page: Page) => page.getByRole("toolbar", { name: "File actions" });
const clientBar = (page: Page) => page.getByRole("status").filter({ hasText: /transfer client|传输客户端/ });

test.describe("every dialog closes by its button, its × and Escape, and returns focus to its opener", () => {
  // The browser reports Linux, so the client dialog offers the Linux installers.
  test.use({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" });
  let peer: Peer | null = null;
  test.beforeEach(() => putInstallers("ferry-client.deb", "ferry-client.rpm"));
  test.afterEach(async () => {
    removeInstallers();
    await peer?.close();
    peer = null;
  });

  test("the client-start dialog (English and Chinese) and the upgrade dialog", async ({ page }) => {
    await scene(page);
    const start = () => clientBar(page).getByRole("button", { name: /^(Start client|启动客户端)$/ });
    const startCase: DialogCase = {
      name: /^(Start the transfer client|启动传输客户端)$/,
      open: (attempt) => (attempt % 2 ? start().click() : pressOn(start())),
      opener: start,
      button: "Close",
    };
    await walk(page, startCase);
    // Starting the client is the user's click on the scheme link the dialog offers, never a
    // navigation the page makes by itself (that left the tab unresponsive under the browser's
    // "Open Ferry?" prompt, and nothing could close the dialog).
    await start().click();
    const startDialog = page.getByRole("dialog", { name: startCase.name });
    await expect(startDialog.getByRole("link", { name: "Open the client" })).toHaveAttribute("href", /^ferry:\/\/start\?secure=0&host=127\.0\.0\.1&certSelect=\d+$/);
    expect(page.frames()).toHaveLength(1);
    await page.keyboard.press("Escape");
    await expect(startDialog).toHaveCount(0);

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(clientBar(page).getByRole("button", { name: "启动客户端" })).toBeVisible();
    await walk(page, { ...startCase, button: "关闭" });
    await page.getByRole("button", { name: "切换语言为英文" }).click();

    // A client older than the minimum: the bar offers the upgrade dialog.
    peer = await startPeer("1.0.0");
    const upgrade = () => clientBar(page).getByRole("button", { name: "Upgrade" });
    await expect(upgrade()).toBeVisible({ timeout: 15_000 });
    await walk(page, { name: "Upgrade the transfer client", open: (n) => (n % 2 ? upgrade().click() : pressOn(upgrade())), opener: upgrade, button: "Close" });
  });

  test("the file dialogs: create folder, rename, move, copy, delete, attributes, search, preview", async ({ page }) => {
    await scene(page);
    const bar = toolbar(page);
    await expect(row(page, "notes.txt")).toBeVisible();

    const mkdir = () => bar.getByRole("button", { name: "New folder" });
    await walk(page, { name: "Create folder", open: () => pressOn(mkdir()), opener: mkdir, button: "Cancel" });

    const search = () => page.getByRole("button", { name: "Search", exact: true });
    await walk(page, { name: "Search", open: (n) => (n % 2 ? search().click() : pressOn(search())), opener: search });

    // Toolbar actions on a selection.
    await table(page).getByRole("checkbox", { name: /notes\.txt/ }).check();
    for (const [label, title] of [
      ["Move", "Move to"],
      ["Copy", "Copy to"],
      ["Delete", "Delete"],
      ["Share", "Share"],
    ] as const) {
      const opener = () => bar.getByRole("button", { name: label, exact: true });
      await walk(page, { name: title, open: (n) => (n % 2 ? opener().click() : pressOn(opener())), opener, button: label === "Share" ? undefined : "Cancel" });
    }
    await table(page).getByRole("checkbox", { name: /notes\.txt/ }).uncheck();

    const invite = () => bar.getByRole("button", { name: "Invite", exact: true });
    await walk(page, { name: "Invite upload", open: () => pressOn(invite()), opener: invite });

    // Row menu items: focus goes back to the row's menu button.
    for (const [entry, item, title, button] of [
      ["notes.txt", "Rename", "Rename", "Cancel"],
      ["docs", "Attributes", "Attributes", "Confirm"],
    ] as const) {
      const more = () => page.getByRole("button", { name: `More actions for ${entry}` });
      await walk(page, {
        name: title,
        open: async (n) => {
          if (n % 2) await more().click();
          else await pressOn(more());
          await page.getByRole("menuitem", { name: item }).click();
        },
        opener: more,
        button,
      });
    }

    // Preview: Enter on the file's name opens it.
    const photo = () => row(page, "photo.png").getByRole("button", { name: "photo.png", exact: true }).or(row(page, "photo.png").getByRole("link", { name: "photo.png", exact: true }));
    await walk(page, { name: "photo.png", open: () => pressOn(photo()), opener: photo });
  });

  test("the notice for a folder that does not exist closes by OK, × and Escape, each time to the root listing (English and Chinese)", async ({ page }) => {
    await scene(page);
    for (const [lang, ways] of [
      ["en", ["button", "x", "escape"]],
      ["zh", ["escape", "x"]],
    ] as const) {
      if (lang === "zh") {
        await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
        await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      }
      for (const way of ways) {
        await page.goto("/personal?path=%2Fgone");
        await hydrated(page);
        const notice = page.getByRole("dialog", { name: lang === "en" ? "Tips" : "提示" });
        await expect(notice).toContainText(lang === "en" ? "The path does not exist" : "路径不存在");
        await closeBy(page, notice, way, lang === "en" ? "OK" : "确定");
        await expect(notice, `the notice closes by ${way} (${lang})`).toHaveCount(0);
        await expect(page).toHaveURL(/\/personal$/);
        await expect(row(page, "docs")).toBeVisible();
      }
    }
  });

  test("the account menu's dialogs: change password and e-mail settings", async ({ page }) => {
    const { account } = await scene(page);
    const accountMenu = () => page.getByRole("button", { name: `Account menu for ${account}` });
    for (const [item, title, button] of [
      ["Change password", "Change password", "Cancel"],
      ["E-mail settings", "E-mail settings", undefined],
    ] as const) {
      await walk(page, {
        name: title,
        open: async (n) => {
          if (n % 2) await accountMenu().click();
          else await pressOn(accountMenu());
          await page.getByRole("menuitem", { name: item }).click();
        },
        opener: accountMenu,
        button,
      });
    }
  });

  test("the link page's confirmations, per row and in bulk", async ({ page }) => {
    const { token } = await scene(page);
    await ok("POST", "/api/share/link/create", { token, body: { shareUrlType: 1, shareBaseUrl: WEB_URL, shareFiles: ["/docs"] } });
    await page.goto("/link");
    await hydrated(page);
    const links = page.getByRole("region", { name: "Share links" });
    for (const [label, title] of [
      ["Cancel link docs", "Cancel links"],
      ["Delete link docs", "Delete links"],
    ] as const) {
      const opener = () => links.getByRole("button", { name: label });
      await walk(page, { name: title, open: (n) => (n % 2 ? opener().click() : pressOn(opener())), opener, button: "Cancel" });
    }
    await links.getByRole("checkbox", { name: "Select row docs" }).check();
    const bulk = page.getByRole("group", { name: "Selected links" });
    for (const [label, title] of [
      ["Cancel", "Cancel links"],
      ["Delete", "Delete links"],
    ] as const) {
      const opener = () => bulk.getByRole("button", { name: label, exact: true });
      await walk(page, { name: title, open: (n) => (n % 2 ? opener().click() : pressOn(opener())), opener, button: "Cancel" });
    }
  });

  test("the upload's name-clash question (English and Chinese)", async ({ page }) => {
    await scene(page);
    await expect(row(page, "notes.txt")).toBeVisible();
    for (const [lang, upload, title, cancel] of [
      ["en", "Upload files", "Files already exist", "Cancel"],
      ["zh", "上传文件", "文件已存在", "取消"],
    ] as const) {
      if (lang === "zh") {
        await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
        await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      }
      const opener = () => page.getByRole("toolbar", { name: /^(File actions|文件操作)$/ }).getByRole("button", { name: upload, exact: true });
      await walk(page, {
        name: title,
        open: (n) => uploadThrough(page, opener(), n, { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("other notes") }),
        opener,
        button: cancel,
      });
    }
    // Every way out was "do not upload": the file there is the one it was.
    await page.getByRole("button", { name: "切换语言为英文" }).click();
    await expect(row(page, "notes.txt")).toContainText("10 B");
  });

  test("move and copy's overwrite question: focus goes back to the toolbar button that started the move or copy", async ({ page }) => {
    const { socketToken } = await scene(page);
    const files = await connectFiles(FILE_URL, socketToken);
    await seedFile(files, socketToken, "/docs/notes.txt", "older notes");
    await files.close();
    await expect(row(page, "notes.txt")).toBeVisible();
    await table(page).getByRole("checkbox", { name: /notes\.txt/ }).check();
    for (const mode of ["Copy", "Move"] as const) {
      const opener = () => toolbar(page).getByRole("button", { name: mode, exact: true });
      await walk(page, {
        name: "Overwrite?",
        open: async (n) => {
          if (n % 2) await opener().click();
          else await pressOn(opener());
          const target = page.getByRole("dialog", { name: `${mode} to` });
          await target.getByRole("button", { name: "docs", exact: true }).click();
          await expect(target).toContainText("Target folder: /docs");
          await target.getByRole("button", { name: "Confirm" }).click();
        },
        opener,
        button: "Cancel",
      });
    }
    // Nothing was overwritten or moved.
    await expect(row(page, "notes.txt")).toBeVisible();
  });

  test("the client's size-overflow and large-upload dialogs (English and Chinese)", async ({ page }) => {
    test.setTimeout(90_000);
    const admin = await adminToken();
    const transfer = await ok<{ tcpFileSizeLimitKB: number }>("GET", "/api/admin/settings/transfer", { token: admin });
    const speed = await ok<{ clientPromptMB: number }>("GET", "/api/admin/settings/speed", { token: admin });
    try {
      await scene(page);
      const upload = () => toolbar(page).getByRole("button", { name: "Upload files", exact: true });
      // A batch over 1 MB suggests the client first.
      await ok("PATCH", "/api/admin/settings/speed", { token: admin, body: { clientPromptMB: 1 } });
      await page.reload();
      await hydrated(page);
      const big = { name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(2 * 1024 * 1024, 7) };
      await walk(page, { name: "Large upload", open: (n) => uploadThrough(page, upload(), n, big), opener: upload, button: "Cancel" });
      // Every way out leaves the batch to the client: nothing went up in the browser.
      await expect(row(page, "big.bin")).toHaveCount(0);

      // A file over the browser's limit is refused with the size-overflow dialog.
      await ok("PATCH", "/api/admin/settings/speed", { token: admin, body: { clientPromptMB: speed.clientPromptMB } });
      await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 1 } });
      await page.reload();
      await hydrated(page);
      const overLimit = { name: "over.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(4096, 7) };
      await walk(page, { name: "File too large for the browser", open: (n) => uploadThrough(page, upload(), n, overLimit), opener: upload, button: "Close" });
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      const uploadZh = () => page.getByRole("toolbar", { name: "文件操作" }).getByRole("button", { name: "上传文件", exact: true });
      await walk(page, { name: "文件超出浏览器传输上限", open: (n) => uploadThrough(page, uploadZh(), n, overLimit), opener: uploadZh, button: "关闭" });
      await page.getByRole("button", { name: "切换语言为英文" }).click();
    } finally {
      await ok("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: transfer.tcpFileSizeLimitKB } });
      await ok("PATCH", "/api/admin/settings/speed", { token: admin, body: { clientPromptMB: speed.clientPromptMB } });
    }
  });
});

test("the session-expired notice closes by OK, × and Escape onto the sign-in form, focus in its account field (English and Chinese)", async ({ browser }) => {
  for (const lang of ["en", "zh"] as const) {
    const context = await browser.newContext({ locale: lang === "zh" ? "zh-CN" : "en-US" });
    await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
    const page = await context.newPage();
    try {
      for (const way of ["button", "x", "escape"] as const) {
        await page.goto("/signin?reason=expired");
        await hydrated(page);
        const notice = page.getByRole("dialog", { name: lang === "en" ? "Signed out" : "已退出登录" });
        await expect(notice).toContainText(lang === "en" ? "Your sign-in has expired. Please sign in again." : "登录已失效，请重新登录。");
        await closeBy(page, notice, way, lang === "en" ? "OK" : "确定");
        await expect(notice, `the notice closes by ${way} (${lang})`).toHaveCount(0);
        await expect(page).toHaveURL(/\/signin$/);
        await expect(page.getByLabel(lang === "en" ? "Account" : "账号", { exact: true })).toBeFocused();
      }
    } finally {
      await context.close();
    }
  }
});
