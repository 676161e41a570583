import type { Browser, Page } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT, E2E_WEB_PORT, FORWARD_SECRET, SALT, e2eRunDir } from "../support/e2e-env";
import { createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { adminConsolePage, noScriptConsole } from "./admin-console";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

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

/** A browser context in `lang`, with or without JavaScript. */
async function langPage(browser: Browser, lang: Lang, script: boolean): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: script, locale: lang === "zh" ? "zh-CN" : "en-US" });
  await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
  return context.newPage();
}

/** What every error page has: its heading, what went wrong, what to do, a way to the start page, and nothing of the framework's own pages. */
async function expectErrorPage(page: Page, words: { title: string; tip: string; home: string }, status: number) {
  await expect(page.getByRole("alert").getByRole("heading", { level: 1, name: words.title })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText(words.tip);
  await expect(page.getByRole("alert")).toContainText(new RegExp(`(Error code|错误码)[:：] ?${status}`));
  await expect(page.getByRole("link", { name: words.home })).toHaveAttribute("href", "/");
  await expect(page.locator("body")).not.toContainText(/Unexpected Server Error|Application Error|Not Found$|Forbidden|Internal Server Error/);
  // The product's own look: its stylesheet is on the page (once it has loaded: after a form post the
  // page's text is there before its stylesheet).
  await expect.poll(() => page.getByRole("alert").evaluate((el) => getComputedStyle(el).display)).toBe("flex");
}

async function shots(page: Page, name: string, widths: number[] = [1440, 1280, 390]) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await screenshot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

const home = { en: "Go to the start page", zh: "前往首页" };
const words = {
  403: {
    en: { title: "You cannot open this page", tip: "Sign in with another account, or ask your administrator for access.", home: home.en },
    zh: { title: "您无法打开此页面", tip: "请使用其他账号登录，或联系管理员开通权限。", home: home.zh },
  },
  404: {
    en: { title: "Page not found", tip: "Check the address, or go to the start page.", home: home.en },
    zh: { title: "页面不存在", tip: "请检查地址，或前往首页。", home: home.zh },
  },
  413: {
    en: { title: "What you sent is too large", tip: "This server accepts at most 64 KB in one form. Go back, shorten what you entered and send it again.", home: home.en },
    zh: { title: "提交的内容过大", tip: "服务器每次最多接收 64 KB 的表单内容。请返回，缩短填写的内容后重新提交。", home: home.zh },
  },
  500: {
    en: { title: "The server ran into a problem", tip: "This is not your fault. Try again in a moment; if it keeps happening, tell your administrator.", home: home.en },
    zh: { title: "服务器出现问题", tip: "这不是您的操作问题。请稍后重试；如果问题持续出现，请联系管理员。", home: home.zh },
  },
} as const;

test.describe("error pages by status", () => {
  for (const lang of ["en", "zh"] as const) {
    for (const script of [false, true]) {
      const how = `${lang}, ${script ? "with" : "without"} JavaScript`;

      test(`an unknown address leads to sign-in, or on to the files when signed in (${how})`, async ({ browser }) => {
        // docs/web.md: "/ and any unknown path: redirect to /signin" (and a signed-in visitor goes on to /personal).
        const account = uniqueAccount("e404");
        await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
        const page = await langPage(browser, lang, script);
        try {
          for (const address of ["/no-such-page", "/download/no-such-platform", "/personal/deeper/still"]) {
            await page.goto(address);
            await expect(page, address).toHaveURL(/\/signin(\?|$)/);
            await expect(page.getByRole("heading", { level: 1, name: lang === "en" ? /^Sign in to / : /^登录/ })).toBeVisible();
          }
          await signIn(page, account, PASSWORD);
          await expect(page).toHaveURL(/\/personal$/);
          for (const address of ["/no-such-page", "/download/no-such-platform"]) {
            await page.goto(address);
            await expect(page, address).toHaveURL(/\/personal$/);
          }
        } finally {
          await page.context().close();
        }
      });

      test(`a 404 (the console's page of a user who does not exist) is the product's page (${how})`, async ({ browser }) => {
        const locale = lang === "zh" ? "zh-CN" : "en-US";
        const { context, page } = script ? await adminConsolePage(browser, locale) : await noScriptConsole(browser, locale);
        try {
          await context.addCookies([{ name: "ferry_lang", value: lang, url: WEB_URL }]);
          for (const address of ["/admin/users/987654321", "/admin/users/not-an-id"]) {
            const response = await page.goto(address);
            expect({ address, status: response?.status() }).toEqual({ address, status: 404 });
            if (script) await hydrated(page);
            await expectErrorPage(page, words[404][lang], 404);
          }
          if (!script) await shots(page, `error-404-${lang}`, [1440, 1280]);
          await page.getByRole("link", { name: home[lang] }).click();
          await expect(page).toHaveURL(/\/signin$|\/personal$/);
        } finally {
          await context.close();
        }
      });

      test(`a 403 (a form posted from another site) is the product's page (${how})`, async ({ browser }) => {
        const page = await langPage(browser, lang, script);
        try {
          // Another site's page with a form that posts to Ferry's sign-in, as a forged request would.
          await page.route("http://elsewhere.test/**", (route) =>
            route.fulfill({
              contentType: "text/html",
              body: `<!doctype html><form method="post" action="${WEB_URL}/signin"><input name="account" value="someone"><input name="password" value="secret"><button>Send</button></form>`,
            }),
          );
          await page.goto("http://elsewhere.test/form");
          const answer = page.waitForResponse((r) => r.url() === `${WEB_URL}/signin` && r.request().method() === "POST");
          await page.getByRole("button", { name: "Send" }).click();
          expect((await answer).status()).toBe(403);
          await expect(page).toHaveURL(`${WEB_URL}/signin`);
          if (script) await hydrated(page);
          await expectErrorPage(page, words[403][lang], 403);
          if (!script) await shots(page, `error-403-${lang}`);
        } finally {
          await page.context().close();
        }
      });

      test(`a 413 (a form over the web's limit) is the product's page with the limit, a way back and to the start page (${how})`, async ({ browser }) => {
        const page = await langPage(browser, lang, script);
        try {
          await page.goto("/signin");
          if (script) await hydrated(page);
          await page.getByLabel(lang === "en" ? "Account" : "账号", { exact: true }).fill("someone");
          await page.getByLabel(lang === "en" ? "Password" : "密码", { exact: true }).fill("Some#Password1");
          // More than the form limit (64 KiB) in the form: what a pasted text would add.
          await page.locator("form").filter({ has: page.getByRole("button", { name: lang === "en" ? "Sign in" : "登录" }) }).evaluate((form) => {
            const pad = document.createElement("input");
            pad.type = "hidden";
            pad.name = "pad";
            pad.value = "x".repeat(70 * 1024);
            form.append(pad);
          });
          await page.getByRole("button", { name: lang === "en" ? "Sign in" : "登录" }).click();
          await expectErrorPage(page, words[413][lang], 413);
          await expect(page.getByRole("link", { name: lang === "en" ? "Back to the page" : "返回页面" })).toHaveAttribute("href", "/signin");
          if (!script) await shots(page, `error-413-${lang}`);
          // Back to the form, which loads again (not the post sent once more).
          await page.getByRole("link", { name: lang === "en" ? "Back to the page" : "返回页面" }).click();
          await expect(page.getByRole("button", { name: lang === "en" ? "Sign in" : "登录" })).toBeVisible();
        } finally {
          await page.context().close();
        }
      });
    }
  }

  test.describe("the engine unreachable", () => {
    // A second web process on the run's session secret whose engine address answers nothing: what
    // the web shows while the engine is down, without stopping the engine every other test uses.
    const DEAD_PORT = E2E_WEB_PORT + 7;
    const DEAD_URL = `http://127.0.0.1:${DEAD_PORT}`;
    let web: ChildProcess | null = null;
    test.beforeAll(async () => {
      web = spawn(process.execPath, ["--import", "./scripts/web-peer.mjs", "node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
        env: { ...process.env, NODE_ENV: "production", PORT: String(DEAD_PORT), HOST: "127.0.0.1", FERRY_ENGINE_URL: "http://127.0.0.1:9", FERRY_API_PORT: "", FERRY_HASHID_SALT: SALT, FERRY_FORWARD_SECRET: FORWARD_SECRET, FERRY_DATA_DIR: path.join(e2eRunDir(), "web"), FERRY_ENGLISH_ONLY: "0" },
        stdio: "ignore",
      });
      for (let i = 0; i < 100; i++) {
        const up = await fetch(`${DEAD_URL}/favicon.svg`).then((r) => r.ok, () => false);
        if (up) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error("the second web did not start");
    });
    test.afterAll(() => {
      web?.kill("SIGTERM");
    });

    for (const lang of ["en", "zh"] as const) {
      for (const script of [false, true]) {
        test(`a share page is the product's 500 page (${lang}, ${script ? "with" : "without"} JavaScript)`, async ({ browser }) => {
          const account = uniqueAccount("e500");
          await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
          const signedIn = (await login(account, PASSWORD)).data!;
          const files = await connectFiles(`http://127.0.0.1:${E2E_FILE_PORT}`, signedIn.websocket_token);
          await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
          await files.close();
          const { shareId } = await ok<{ shareId: string }>("POST", "/api/share/link/create", { token: signedIn.token, body: { shareBaseUrl: WEB_URL, shareUrlType: 1, shareFiles: ["/docs"], needPassword: false } });
          const context = await browser.newContext({ javaScriptEnabled: script, locale: lang === "zh" ? "zh-CN" : "en-US" });
          await context.addCookies([{ name: "ferry_lang", value: lang, url: DEAD_URL }]);
          const page = await context.newPage();
          try {
            const response = await page.goto(`${DEAD_URL}/share/${shareId}`);
            expect(response?.status()).toBe(500);
            if (script) await hydrated(page);
            await expectErrorPage(page, words[500][lang], 500);
            if (!script) await shots(page, `error-500-${lang}`);
          } finally {
            await context.close();
          }
        });
      }
    }
  });
});
