import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, ok, uniqueAccount } from "../support/e2e-helpers";
import { expect, hydrated, openTransfers, screenshot, signIn, test, transferPanel } from "./fixtures";
import { createLink, downloadedBytes, OWNER_PASSWORD, owner, seedFile, sha256, withContext } from "./share-scene";

/**
 * Narrower screens (issue 13, item 7): at 1280 px the signed-in pages hide nothing behind a
 * horizontal scrollbar; on a 390-px phone the share pages and the sign-in work — password, listing,
 * download, invitation upload — in both languages, with and without JavaScript.
 */

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The page itself never scrolls sideways. */
async function noSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(innerWidth);
}

async function language(page: Page, lang: "en" | "zh") {
  if ((await page.locator("html").getAttribute("lang")) === lang) return;
  await page.getByRole("button", { name: lang === "zh" ? "Switch the language to Chinese" : "切换语言为英文" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
}

test.describe("narrow screens", () => {
  test.describe.configure({ timeout: 180_000 });

  test("at 1280 px the signed-in pages keep the top bar and the row menus on screen (both languages)", async ({ browser }) => {
    const o = await owner("narrow");
    await o.files.ok("mkdir", { groupId: 0, path: "/", name: "a folder with a rather long name to test the table width" });
    await seedFile(o, "/quarterly report.pdf", new TextEncoder().encode("report"));
    await createLink(o, { shareUrlType: 1, shareFiles: ["/quarterly report.pdf"], needPassword: true, shareUrlPasswd: "ab12" });
    // A group space with a file in it: its row menus stay on screen too.
    const admin = await adminToken();
    const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: admin, body: { name: uniqueAccount("narrowteam") } });
    await ok("PUT", `/api/admin/groups/${group.id}/members/${o.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    await seedFile(o, "/quarterly report.pdf", new TextEncoder().encode("team report"), group.id);
    const groupSpace = `/group/detail/${group.id}`;
    await withContext(browser, { viewport: { width: 1280, height: 800 } }, async (_context, page) => {
      await signIn(page, o.account, OWNER_PASSWORD);
      await expect(page).toHaveURL(/\/personal$/);
      for (const lang of ["en", "zh"] as const) {
        for (const route of ["/personal", "/group", groupSpace, "/link", "/notification"]) {
          await page.goto(route);
          await hydrated(page);
          await language(page, lang);
          const zh = lang === "zh";
          const bar = page.getByRole("banner");
          await expect(bar.getByRole("button", { name: new RegExp(zh ? `${o.account}` : `Account menu for ${o.account}`) })).toBeInViewport({ ratio: 1 });
          await expect(bar.getByRole("button", { name: zh ? "切换语言为英文" : "Switch the language to Chinese" })).toBeInViewport({ ratio: 1 });
          await expect(bar.getByRole("button", { name: zh ? /下载客户端/ : /Download client/ })).toBeInViewport({ ratio: 1 });
          await expect(bar.getByRole("button", { name: zh ? "传输列表" : "Transfer list" })).toBeInViewport({ ratio: 1 });
          if (route === "/personal" || route === groupSpace) {
            const more = page.getByRole("button", { name: zh ? "quarterly report.pdf 的更多操作" : "More actions for quarterly report.pdf" });
            await expect(more).toBeInViewport({ ratio: 1 });
            await more.click();
            await expect(page.getByRole("menuitem").first()).toBeInViewport({ ratio: 1 });
            await page.keyboard.press("Escape");
          }
          if (route === "/link") {
            const row = page.getByRole("row").filter({ hasText: "quarterly report.pdf" });
            for (const button of await row.getByRole("button").all()) await expect(button).toBeInViewport({ ratio: 1 });
          }
          await noSidewaysScroll(page);
          await screenshot(page, `narrow-1280${route === groupSpace ? "-group-space" : route.replace("/", "-")}-${lang}`);
        }
      }
    });
    await o.files.close();
  });

  test("tables give the name its room at 1280 px, and expanded rows make no extra columns (1280 and 1440 px, both languages)", async ({ browser }) => {
    const o = await owner("cols");
    const name = "quarterly report 2026.pdf";
    await seedFile(o, `/${name}`, new TextEncoder().encode("report"));
    await createLink(o, { shareUrlType: 1, shareFiles: [`/${name}`], needPassword: true, shareUrlPasswd: "ab12" });
    const shots = "/tmp/ferry/screens/link1280";
    /** The header's cells fill the table: a cell spanning more columns than it shows would add unnamed ones that take width. */
    const headerFillsTable = async (page: Page) => {
      const { cells, table } = await page.locator("table").first().evaluate((t) => ({
        cells: [...t.querySelectorAll("thead th")].reduce((sum, th) => sum + th.getBoundingClientRect().width, 0),
        table: t.getBoundingClientRect().width,
      }));
      expect(Math.abs(cells - table), "columns without a header").toBeLessThan(2);
    };
    for (const width of [1280, 1440]) {
      await withContext(browser, { viewport: { width, height: 800 } }, async (_context, page) => {
        await signIn(page, o.account, OWNER_PASSWORD);
        await expect(page).toHaveURL(/\/personal$/);
        for (const lang of ["en", "zh"] as const) {
          await page.goto("/link");
          await hydrated(page);
          await language(page, lang);
          const zh = lang === "zh";
          const row = page.getByRole("row").filter({ hasText: name });
          const shown = row.locator(`span[title="${name}"]`);
          expect(await shown.evaluate((e) => e.scrollWidth <= e.clientWidth), "the name reads in full").toBe(true);
          await expect(page.getByRole("columnheader", { name: zh ? "邮件通知" : /^E-?mail/ })).toHaveCount(width >= 1400 ? 1 : 0);
          await headerFillsTable(page);
          await row.getByRole("button", { name: new RegExp(`^${zh ? "展开此行" : "Expand row"}`) }).click();
          const detail = page.getByRole("row").filter({ hasText: "ab12" });
          await expect(detail).toBeVisible();
          await headerFillsTable(page);
          // The e-mail column's value moves into the expanded row where the column is hidden.
          await expect(detail.getByText(zh ? "邮件通知" : /^E-?mail/).filter({ visible: true })).toHaveCount(width >= 1400 ? 0 : 1);
          await page.screenshot({ path: `${shots}/link-expanded-${lang}-${width}.png`, fullPage: true });
          await page.goto("/personal");
          await hydrated(page);
          await expect(page.getByRole("row").filter({ hasText: name })).toBeVisible();
          await headerFillsTable(page);
          await page.screenshot({ path: `${shots}/personal-${lang}-${width}.png`, fullPage: true });
        }
      });
    }
    await o.files.close();
  });

  for (const javaScriptEnabled of [true, false]) {
    const js = javaScriptEnabled ? "js" : "nojs";

    test(`a 390-px phone, ${javaScriptEnabled ? "with" : "without"} JavaScript: sign-in, share password, listing and download, both languages`, async ({ browser }) => {
      const o = await owner("phone");
      const bytes = new Uint8Array(randomBytes(40_000));
      await o.files.ok("mkdir", { groupId: 0, path: "/", name: "holiday photos" });
      await seedFile(o, "/holiday photos/a rather long file name from the camera 0001.bin", bytes);
      const { shareUrl } = await createLink(o, { shareUrlType: 1, shareFiles: ["/holiday photos"], needPassword: true, shareUrlPasswd: "ph12" });
      await withContext(browser, { ...PHONE, javaScriptEnabled }, async (_context, page) => {
        for (const lang of ["en", "zh"] as const) {
          const zh = lang === "zh";
          await page.goto("/signin");
          if (javaScriptEnabled) await hydrated(page);
          await language(page, lang);
          await expect(page.getByLabel(zh ? "账号" : "Account", { exact: true })).toBeInViewport({ ratio: 1 });
          await expect(page.getByRole("button", { name: zh ? "登录" : "Sign in", exact: true })).toBeInViewport({ ratio: 1 });
          await noSidewaysScroll(page);
          await screenshot(page, `phone-signin-${js}-${lang}`);
        }

        for (const lang of ["en", "zh"] as const) {
          const zh = lang === "zh";
          // Each round is a new visit: the password is asked again.
          await page.context().clearCookies({ name: "ferry_share" });
          await page.goto(shareUrl);
          if (javaScriptEnabled) await hydrated(page);
          await language(page, lang);
          const password = page.getByLabel(zh ? "访问密码" : "Password", { exact: true });
          await expect(password).toBeInViewport({ ratio: 1 });
          await noSidewaysScroll(page);
          await screenshot(page, `phone-share-login-${js}-${lang}`);
          await password.fill("ph12");
          await page.getByRole("button", { name: zh ? "打开" : "Open" }).click();
          const folderName = "holiday photos";
          const root = page.getByRole("region", { name: javaScriptEnabled ? (zh ? "/ 中的文件" : "Files in /") : zh ? "/ 中的分享文件" : "Shared files in /" });
          const folder = javaScriptEnabled ? root.getByRole("link", { name: folderName, exact: true }) : root.getByRole("link", { name: zh ? `打开文件夹 ${folderName}` : `Open folder ${folderName}` });
          await expect(folder).toBeInViewport();
          await noSidewaysScroll(page);
          await folder.click();
          const inside = page.getByRole("region", { name: javaScriptEnabled ? (zh ? `/${folderName} 中的文件` : `Files in /${folderName}`) : zh ? `/${folderName} 中的分享文件` : `Shared files in /${folderName}` });
          const download = inside.getByRole("button", { name: zh ? /^下载 a rather long file name/ : /^Download a rather long file name/ });
          await expect(download).toBeInViewport({ ratio: 1 });
          await noSidewaysScroll(page);
          await screenshot(page, `phone-share-listing-${js}-${lang}`);
          const [file] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), download.click()]);
          expect(sha256(await downloadedBytes(file))).toBe(sha256(bytes));
        }
      });
      await o.files.close();
    });

    test(`a 390-px phone, ${javaScriptEnabled ? "with" : "without"} JavaScript: an upload invitation, both languages`, async ({ browser }) => {
      const o = await owner("phoneup");
      await o.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
      const { shareUrl } = await createLink(o, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up34" });
      const dir = mkdtempSync(path.join(tmpdir(), "ferry-phone-"));
      try {
        await withContext(browser, { ...PHONE, javaScriptEnabled }, async (_context, page) => {
          for (const lang of ["en", "zh"] as const) {
            const zh = lang === "zh";
            await page.context().clearCookies({ name: "ferry_share" });
            await page.goto(shareUrl);
            if (javaScriptEnabled) await hydrated(page);
            await language(page, lang);
            await page.getByLabel(zh ? "访问密码" : "Password", { exact: true }).fill("up34");
            await page.getByRole("button", { name: zh ? "打开" : "Open" }).click();
            await expect(page.getByRole("heading", { name: zh ? "上传文件" : "Upload files", level: 1 })).toBeVisible();
            if (javaScriptEnabled) {
              const upload = page.getByRole("toolbar", { name: zh ? "文件操作" : "File actions" }).getByRole("button", { name: zh ? "上传文件" : "Upload files", exact: true });
              await expect(upload).toBeInViewport({ ratio: 1 });
              const file = path.join(dir, `from-phone-${lang}.txt`);
              writeFileSync(file, `sent from a phone (${lang})`);
              // The upload is held at the file server's door until the panel has been measured while it runs.
              let release!: () => void;
              const held = new Promise<void>((resolve) => (release = resolve));
              await page.route("**/uploads**", async (route) => {
                if (route.request().method() !== "GET") await held;
                await route.continue();
              });
              await page.locator(`input[type="file"][aria-label="${zh ? "上传文件" : "Upload files"}"]`).setInputFiles(file);
              await openTransfers(page);
              const panel = transferPanel(page);
              await expect(panel.getByRole("listitem").filter({ hasText: `from-phone-${lang}.txt` })).toBeVisible();
              // Open during the upload, the panel is as tall as its rows (not a fixed 470 px), at most half
              // the screen, and the page has exactly that much room below it.
              const box = (await panel.boundingBox())!;
              expect(box.height).toBeLessThanOrEqual(PHONE.viewport.height / 2);
              expect(box.height).toBeLessThan(250);
              const room = await page.locator("main").evaluate((main) => parseFloat(getComputedStyle(main).marginBottom));
              expect(Math.abs(room - box.height)).toBeLessThanOrEqual(1);
              await page.screenshot({ path: path.join("test-results", "screens", `phone-share-invite-uploading-${lang}.png`) });
              release();
              const table = page.getByRole("region", { name: zh ? "/ 中的文件" : "Files in /" });
              const row = table.getByText(`from-phone-${lang}.txt`, { exact: true });
              await expect(row).toBeVisible({ timeout: 60_000 });
              // The row the panel sits over is not under it.
              await openTransfers(page);
              expect(await row.evaluate((el) => {
                el.scrollIntoView({ block: "nearest" });
                const r = el.getBoundingClientRect();
                return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
              })).toBe(true);
            } else {
              await expect(page.getByText(zh ? "上传需要 JavaScript" : "Uploading needs JavaScript", { exact: false })).toBeInViewport();
            }
            await noSidewaysScroll(page);
            await screenshot(page, `phone-share-invite-${js}-${lang}`);
          }
        });
        if (javaScriptEnabled) expect((await o.files.ok("list", { groupId: 0, path: "/inbox" })).names.sort()).toEqual(["from-phone-en.txt", "from-phone-zh.txt"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await o.files.close();
      }
    });
  }

  test("share pages and sign-in at 1440 and 1280 px (screenshots, both languages)", async ({ browser }) => {
    const o = await owner("wide");
    await seedFile(o, "/notes.txt", new TextEncoder().encode("notes"));
    const { shareUrl } = await createLink(o, { shareUrlType: 1, shareFiles: ["/notes.txt"], needPassword: true, shareUrlPasswd: "wd12" });
    for (const width of [1440, 1280]) {
      await withContext(browser, { viewport: { width, height: 900 } }, async (_context, page) => {
        for (const lang of ["en", "zh"] as const) {
          await page.goto("/signin");
          await hydrated(page);
          await language(page, lang);
          await noSidewaysScroll(page);
          await screenshot(page, `signin-${width}-${lang}`);
          await page.context().clearCookies({ name: "ferry_share" });
          await page.goto(shareUrl);
          await hydrated(page);
          await noSidewaysScroll(page);
          await screenshot(page, `share-login-${width}-${lang}`);
          await page.getByLabel(lang === "zh" ? "访问密码" : "Password", { exact: true }).fill("wd12");
          await page.getByRole("button", { name: lang === "zh" ? "打开" : "Open" }).click();
          await expect(page.getByRole("region", { name: lang === "zh" ? "/ 中的文件" : "Files in /" }).getByText("notes.txt", { exact: true })).toBeVisible();
          await noSidewaysScroll(page);
          await screenshot(page, `share-disk-${width}-${lang}`);
        }
      });
    }
    await o.files.close();
  });
});
