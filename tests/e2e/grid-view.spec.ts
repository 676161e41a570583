import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect, hydrated, screenshot, signIn, test, seedFile } from "./fixtures";

/**
 * The grid view (docs/web.md, "Grid view"; issue 13 item 15): a List | Tree | Grid switch on the
 * personal page and List | Grid on the share page, remembered by the browser; image tiles show the
 * engine's thumbnails (docs/file-server.md, "Thumbnails"), SVG shows an icon; folders open with a
 * click, tiles keep their checkbox and row actions.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Grid#View2026";
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80"><rect width="80" height="80" fill="red"/></svg>`;

const png = (width: number, height: number, background: string) => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
const jpeg = (width: number, height: number, background: string) => sharp({ create: { width, height, channels: 3, background } }).jpeg().toBuffer();

/** Waits until the image has really been decoded (a broken image has naturalWidth 0). */
async function expectLoaded(image: Locator) {
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
}

/** No serious or critical accessibility violation on the page as it is. */
async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious).toEqual([]);
}

async function atWidths(page: Page, name: string, widths: number[]) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test.describe("grid view", () => {
  test.describe.configure({ timeout: 120_000 });

  test("personal page: uploaded images show thumbnails, SVG an icon; folders open; selection and row menu stay; the choice survives a reload; both languages", async ({ page }) => {
    const account = uniqueAccount("grid");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = await login(account, PASSWORD);
    const files = await connectFiles(FILE_URL, signedIn.data!.websocket_token);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "album" });
    await signIn(page, account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await hydrated(page);

    const dir = mkdtempSync(path.join(tmpdir(), "ferry-grid-"));
    writeFileSync(path.join(dir, "sunset.png"), await png(1200, 800, "#f97316"));
    writeFileSync(path.join(dir, "sea.jpg"), await jpeg(600, 900, "#0ea5e9"));
    writeFileSync(path.join(dir, "logo.svg"), SVG);
    await page.getByLabel("Upload files").setInputFiles(["sunset.png", "sea.jpg", "logo.svg"].map((n) => path.join(dir, n)));
    const list = page.getByRole("region", { name: "Files in /" });
    await expect(list.getByRole("button", { name: "logo.svg", exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(list.getByRole("button", { name: "sea.jpg", exact: true })).toBeVisible();
    await expect(list.getByRole("button", { name: "sunset.png", exact: true })).toBeVisible();
    // The browser has read the files once the listing shows them.
    rmSync(dir, { recursive: true, force: true });

    const views = page.getByRole("group", { name: "View" });
    await expect(views.getByRole("button")).toHaveText(["List", "Tree", "Grid"]);
    await views.getByRole("button", { name: "Grid" }).click();
    await expect(views.getByRole("button", { name: "Grid" })).toHaveAttribute("aria-pressed", "true");
    const grid = page.getByRole("region", { name: "Files in /" });
    await expect(grid.getByRole("table")).toHaveCount(0);
    await expectLoaded(grid.getByRole("img", { name: "Thumbnail of sunset.png" }));
    await expectLoaded(grid.getByRole("img", { name: "Thumbnail of sea.jpg" }));
    await expect(grid.getByRole("img", { name: "Thumbnail of sunset.png" })).toHaveAttribute("loading", "lazy");
    // SVG is never rendered into a thumbnail: its tile shows the file icon.
    await expect(grid.getByRole("img", { name: "Thumbnail of logo.svg" })).toHaveCount(0);
    await expect(grid.getByRole("listitem").filter({ hasText: "logo.svg" }).getByRole("img", { name: "File" })).toBeVisible();

    // Selection by each tile's checkbox (reachable by keyboard), and the row menu on the tile.
    const pick = grid.getByRole("checkbox", { name: "Select sea.jpg" });
    await pick.focus();
    await page.keyboard.press("Space");
    await expect(pick).toBeChecked();
    await expect(page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Download", exact: true })).toBeEnabled();
    await expect(grid.getByRole("button", { name: "More actions for sunset.png" })).toBeVisible();
    await expectAccessible(page);
    await atWidths(page, "grid-personal-en", [1440, 1280]);

    // The choice is the browser's: after a reload the grid is back, thumbnails and all.
    await page.reload();
    await hydrated(page);
    await expect(page.getByRole("group", { name: "View" }).getByRole("button", { name: "Grid" })).toHaveAttribute("aria-pressed", "true");
    await expectLoaded(page.getByRole("region", { name: "Files in /" }).getByRole("img", { name: "Thumbnail of sunset.png" }));

    // A folder opens with one click on its name.
    await page.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "album", exact: true }).click();
    await expect(page).toHaveURL(/\?path=%2Falbum$/);
    await expect(page.getByRole("region", { name: "Files in /album" }).getByText("No data")).toBeVisible();
    await page.goBack();

    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh");
    await expect(page.getByRole("group", { name: "视图" }).getByRole("button", { name: "网格" })).toHaveAttribute("aria-pressed", "true");
    const zhGrid = page.getByRole("region", { name: "/ 中的文件" });
    await expectLoaded(zhGrid.getByRole("img", { name: "sunset.png 的缩略图" }));
    await expect(zhGrid.getByRole("checkbox", { name: "选择 sea.jpg" })).toBeVisible();
    await expectAccessible(page);
    await atWidths(page, "grid-personal-zh", [1440, 1280]);

    // Back to the list: the table returns and the choice is remembered again.
    await page.getByRole("group", { name: "视图" }).getByRole("button", { name: "列表" }).click();
    await expect(zhGrid.getByRole("table")).toBeVisible();
    await page.reload();
    await hydrated(page);
    await expect(page.getByRole("region", { name: "/ 中的文件" }).getByRole("table")).toBeVisible();
    await files.close();
  });

  test("group page: a member with Download sees thumbnails in the grid, one without sees icons, in both languages", async ({ browser }) => {
    const admin = await adminToken();
    const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: admin, body: { name: uniqueAccount("gridteam") } });
    const member = async (prefix: string, groupPermission: number) => {
      const account = uniqueAccount(prefix);
      const user = await createUser(account, PASSWORD, { permission: Permission.List });
      await ok("PUT", `/api/admin/groups/${group.id}/members/${user.id}`, { token: admin, body: { groupPermission } });
      return account;
    };
    const uploader = await member("gridup", Permission.List | Permission.Download | Permission.Upload);
    const looker = await member("gridlook", Permission.List);
    const socketToken = (await login(uploader, PASSWORD)).data!.websocket_token;
    const files = await connectFiles(FILE_URL, socketToken);
    for (const [name, bytes] of [
      ["lake.png", await png(800, 500, "#0d9488")],
      ["dune.jpg", await jpeg(400, 600, "#ca8a04")],
    ] as const) {
      const created = await tusClient(FILE_URL, socketToken).create({ groupId: String(group.id), path: `/${name}` }, bytes.length, bytes);
      expect(created.id, created.text).toBeTruthy();
      await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
    }
    await files.close();

    const openGrid = async (account: string) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, account, PASSWORD);
      await page.waitForURL(/\/personal/);
      await page.goto(`/group/detail/${group.id}`);
      await hydrated(page);
      const views = page.getByRole("group", { name: "View" });
      await expect(views.getByRole("button")).toHaveText(["List", "Tree", "Grid"]);
      await views.getByRole("button", { name: "Grid" }).click();
      await expect(views.getByRole("button", { name: "Grid" })).toHaveAttribute("aria-pressed", "true");
      return { context, page, grid: page.getByRole("region", { name: "Files in /" }) };
    };

    const withDownload = await openGrid(uploader);
    try {
      const { page, grid } = withDownload;
      await expect(grid.getByRole("table")).toHaveCount(0);
      await expectLoaded(grid.getByRole("img", { name: "Thumbnail of lake.png" }));
      await expectLoaded(grid.getByRole("img", { name: "Thumbnail of dune.jpg" }));
      await expect(grid.getByRole("checkbox", { name: "Select lake.png" })).toBeVisible();
      await expectAccessible(page);
      await atWidths(page, "grid-group-en", [1440, 1280]);
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await expectLoaded(page.getByRole("region", { name: "/ 中的文件" }).getByRole("img", { name: "lake.png 的缩略图" }));
      await expectAccessible(page);
      await atWidths(page, "grid-group-zh", [1440, 1280]);
    } finally {
      await withDownload.context.close();
    }

    // Without Download a member gets no preview, so no thumbnail either: the tiles show the file icon.
    const listOnly = await openGrid(looker);
    try {
      const { grid } = listOnly;
      const tile = grid.getByRole("listitem").filter({ hasText: "lake.png" });
      await expect(tile.getByRole("img", { name: "File" })).toBeVisible();
      await expect(grid.getByRole("img", { name: /^Thumbnail of/ })).toHaveCount(0);
    } finally {
      await listOnly.context.close();
    }
  });

  test("share page: a visitor switches to the grid and sees thumbnails, also on a phone, in both languages", async ({ browser }) => {
    const account = uniqueAccount("gridshare");
    await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
    const signedIn = await login(account, PASSWORD);
    const socketToken = signedIn.data!.websocket_token;
    const files = await connectFiles(FILE_URL, socketToken);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "pics" });
    await seedFile(files, socketToken, "/pics/meadow.png", await png(900, 600, "#22c55e"));
    await seedFile(files, socketToken, "/pics/night.jpg", await jpeg(500, 500, "#1e3a8a"));
    const link = await ok<{ shareUrl: string }>("POST", "/api/share/link/create", {
      token: signedIn.data!.token,
      body: { shareBaseUrl: WEB_URL, shareUrlType: 1, shareFiles: ["/pics"], needPassword: true, shareUrlPasswd: "gr1d" },
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(link.shareUrl);
      await hydrated(page);
      await page.getByLabel("Password", { exact: true }).fill("gr1d");
      await page.getByRole("button", { name: "Open" }).click();
      await page.getByRole("region", { name: "Files in /" }).getByRole("link", { name: "pics", exact: true }).click();
      const views = page.getByRole("group", { name: "View" });
      // A visitor has no tree.
      await expect(views.getByRole("button")).toHaveText(["List", "Grid"]);
      await views.getByRole("button", { name: "Grid" }).click();
      const grid = page.getByRole("region", { name: "Files in /pics" });
      await expectLoaded(grid.getByRole("img", { name: "Thumbnail of meadow.png" }));
      await expectLoaded(grid.getByRole("img", { name: "Thumbnail of night.jpg" }));
      await expect(grid.getByRole("checkbox", { name: "Select night.jpg" })).toBeVisible();
      await expectAccessible(page);
      await atWidths(page, "grid-share-en", [1440, 1280, 390]);

      await page.reload();
      await hydrated(page);
      await expectLoaded(page.getByRole("region", { name: "Files in /pics" }).getByRole("img", { name: "Thumbnail of meadow.png" }));

      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await expectLoaded(page.getByRole("region", { name: "/pics 中的文件" }).getByRole("img", { name: "meadow.png 的缩略图" }));
      await expectAccessible(page);
      await atWidths(page, "grid-share-zh", [1440, 1280, 390]);
    } finally {
      await context.close();
      await files.close();
    }
  });
});
