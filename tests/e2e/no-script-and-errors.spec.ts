import type { Browser, Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { createUser, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { expect, screenshot, signIn, test } from "./fixtures";

/**
 * Issue 13, item 5: every page without JavaScript either works or says plainly that it needs it
 * (never a spinner that turns for ever), and every error is the product's own page, translated,
 * saying what went wrong and what to do (never a bare "Bad Request").
 */

const PASSWORD = "NoScript#Ferry26";
type Lang = "en" | "zh";

/** A browser context without JavaScript, in `lang` (the language cookie the switch would set). */
async function noScriptPage(browser: Browser, lang: Lang, width = 1440): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 900 }, locale: lang === "zh" ? "zh-CN" : "en-US" });
  await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
  return context.newPage();
}

const needsScript = { en: "This page needs JavaScript. Turn JavaScript on in your browser and reload the page.", zh: "此页面需要 JavaScript。请在浏览器中启用 JavaScript 后重新加载页面。" };
const spinner = (page: Page) => page.getByRole("status", { name: /^(Loading|Connecting.*|加载中|正在连接.*)$/ });

test.describe("without JavaScript", () => {
  for (const lang of ["en", "zh"] as const) {
    test(`the signed-in pages work or say they need JavaScript (${lang})`, async ({ browser }) => {
      const account = uniqueAccount("noscript");
      await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
      const page = await noScriptPage(browser, lang);
      try {
        await signIn(page, account, PASSWORD);
        await expect(page).toHaveURL(/\/personal$/);

        // The file spaces list over the file server's socket: a plain message instead of a spinner.
        await expect(page.getByRole("alert").filter({ hasText: needsScript[lang] })).toBeVisible();
        await expect(spinner(page)).toBeHidden();
        await screenshot(page, `noscript-personal-${lang}-1440`);
        await page.setViewportSize({ width: 1280, height: 900 });
        await screenshot(page, `noscript-personal-${lang}-1280`);
        await page.setViewportSize({ width: 1440, height: 900 });

        // The others render on the server and work as they are.
        const pages: [string, string | null][] = [
          ["/group", lang === "en" ? "Group spaces" : "群组空间"],
          ["/link", null],
          ["/notification", null],
          ["/p2p/sender", lang === "en" ? "Send to a device" : "发送到设备"],
          ["/p2p/receiver", lang === "en" ? "Receive from a device" : "从设备接收"],
        ];
        for (const [path, heading] of pages) {
          const response = await page.goto(path);
          expect({ path, status: response?.status() }).toEqual({ path, status: 200 });
          await expect(page.getByRole("main").getByRole("heading", { level: 1, ...(heading ? { name: heading } : {}) }).first()).toBeVisible();
          // Nothing on them waits for a script that never runs.
          await expect(spinner(page)).toBeHidden();
          await expect(page.getByRole("main")).not.toContainText(needsScript[lang]);
        }
      } finally {
        await page.context().close();
      }
    });
  }
});

test.describe("error pages", () => {
  const malformed = ["/share/%E0%A4%A", "/share/!!!", `/share/${"a".repeat(400)}`, "/share/%ZZ"];
  const texts = {
    en: { title: "This address is not valid", tip: "Open the link again from where you got it", home: "Go to the start page" },
    zh: { title: "该地址无效", tip: "请从原处重新打开该链接", home: "前往首页" },
  };
  for (const lang of ["en", "zh"] as const) {
    for (const script of [false, true]) {
      test(`a malformed share address is the product's 400 page, in ${lang}, ${script ? "with" : "without"} JavaScript`, async ({ browser }) => {
        const context = await browser.newContext({ javaScriptEnabled: script, locale: lang === "zh" ? "zh-CN" : "en-US" });
        await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
        const page = await context.newPage();
        try {
          for (const address of malformed) {
            const response = await page.goto(address);
            expect({ address, status: response?.status() }).toEqual({ address, status: 400 });
            await expect(page.getByRole("heading", { name: texts[lang].title })).toBeVisible();
            await expect(page.getByText(texts[lang].tip, { exact: false })).toBeVisible();
            await expect(page.locator("body")).not.toContainText("Bad Request");
            await expect(page.getByRole("link", { name: texts[lang].home })).toHaveAttribute("href", "/");
          }
          if (!script) {
            await screenshot(page, `error-400-${lang}-1440`);
            await page.setViewportSize({ width: 1280, height: 900 });
            await screenshot(page, `error-400-${lang}-1280`);
            await page.setViewportSize({ width: 390, height: 844 });
            await screenshot(page, `error-400-${lang}-390`);
          }
        } finally {
          await context.close();
        }
      });
    }
  }
});
