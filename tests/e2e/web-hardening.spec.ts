import type { Browser } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { rawPost } from "../support/raw-post";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

/**
 * The web client under careless and hostile requests (docs/security.md, sections 1 and 3): bodies
 * past the form cap, posts to pages without an action, pages that carry tokens, and odd redirect
 * targets at sign-in. Bodies are sent by hand (tests/support/raw-post.ts) to the running remix-serve.
 */

const PASSWORD = "Harden#Web2026";
const FORM_LIMIT = 64 * 1024;
const MiB = 1024 * 1024;

/** Every path with an action, as an anonymous client may post to it. */
async function actionPaths(shareId: string) {
  return [
    "/signin",
    "/signin.data",
    `/share/${shareId}`,
    `/share/${shareId}.data`,
    "/language",
    "/logout",
    "/session",
    "/link/create",
    "/link",
    "/notification",
    "/account/password",
    "/account/smtp",
    "/reset-password",
    "/no-such-page/at-all",
  ];
}

async function shareOfFolder(): Promise<string> {
  const account = uniqueAccount("harden");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = await login(account, PASSWORD);
  const files = await connectFiles(`http://127.0.0.1:${E2E_FILE_PORT}`, signedIn.data!.websocket_token);
  try {
    await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
  } finally {
    await files.close();
  }
  const created = await ok<{ shareId: string }>("POST", "/api/share/link/create", { token: signedIn.data!.token, body: { shareBaseUrl: WEB_URL, shareUrlType: 1, shareFiles: ["/docs"], needPassword: false } });
  return created.shareId;
}

/** The web still does its ordinary work: the sign-in page renders and a user signs in. */
async function webStillAnswers(browser: Browser) {
  const page = await fetch(`${WEB_URL}/signin`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Sign in to");
  const account = uniqueAccount("after");
  await createUser(account, PASSWORD);
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    await signIn(tab, account, PASSWORD);
    await expect(tab).toHaveURL(/\/personal$/);
  } finally {
    await context.close();
  }
}

test.describe("request bodies past the form cap", () => {
  test("every action answers 413 to a body over the cap, announced or chunked, and reads no further", async ({ browser }) => {
    test.setTimeout(240_000);
    const shareId = await shareOfFolder();
    for (const path of await actionPaths(shareId)) {
      for (const size of [FORM_LIMIT + 1, 1 * MiB, 64 * MiB]) {
        for (const chunked of [false, true]) {
          const answer = await rawPost(`${WEB_URL}${path}`, { size, chunked });
          // A page that does not exist redirects, its body discarded; the others refuse with 413 what
          // passes their cap (the share dialogs' 1 MiB: under it, read, then sent to sign in).
          const cap = path === "/link/create" ? MiB : FORM_LIMIT;
          const expected = path === "/no-such-page/at-all" || size <= cap ? 302 : 413;
          expect({ path, size, chunked, status: answer.status }).toEqual({ path, size, chunked, status: expected });
          // The server stopped taking the body: of 64 MiB, no more than the socket buffers were sent.
          if (size === 64 * MiB) expect({ path, chunked, stopped: answer.written < 24 * MiB }).toEqual({ path, chunked, stopped: true });
        }
      }
    }
    await webStillAnswers(browser);
  });

  test("the 413 answer is translated: a page for documents, JSON with the limit for resource routes", async () => {
    const page = await rawPost(`${WEB_URL}/signin`, { size: FORM_LIMIT + 100 });
    expect(page.status).toBe(413);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.body).toContain("What you sent is too large");
    expect(page.body).toContain("accepts at most 64 KB in one form");
    const zh = await rawPost(`${WEB_URL}/signin`, { size: FORM_LIMIT + 100, chunked: true, headers: { "Accept-Language": "zh-CN,zh;q=0.9" } });
    expect(zh.status).toBe(413);
    expect(zh.body).toContain("提交的内容过大");
    expect(zh.body).toContain("最多接收 64 KB");

    for (const path of ["/language", "/logout", "/link/create", "/session"]) {
      const answer = await rawPost(`${WEB_URL}${path}`, { size: 2 * MiB, chunked: true, headers: { "Accept-Language": "zh-CN" } });
      expect({ path, status: answer.status, json: /application\/json/.test(answer.headers["content-type"] ?? "") }).toEqual({ path, status: 413, json: true });
      const body = JSON.parse(answer.body) as { code: number; limit: number; message: string };
      const limit = path === "/link/create" ? MiB : FORM_LIMIT;
      expect(body).toEqual({ code: 4280, limit, message: `请求过大（最多 ${path === "/link/create" ? "1.00 MB" : "64.00 KB"}）` });
    }
  });

  test("a body of exactly the cap is read: a sign-in padded to 64 KiB signs in", async () => {
    const account = uniqueAccount("padded");
    await createUser(account, PASSWORD);
    const fields = `account=${account}&password=${encodeURIComponent(PASSWORD)}&redirectTo=%2Fpersonal&pad=`;
    for (const [size, status] of [
      [FORM_LIMIT, 302],
      [FORM_LIMIT + 1, 413],
    ] as const) {
      const body = fields + "x".repeat(size - fields.length);
      const answer = await fetch(`${WEB_URL}/signin`, { method: "POST", body, redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
      expect({ size, status: answer.status }).toEqual({ size, status });
      if (status === 302) expect(answer.headers.get("location")).toBe("/personal");
    }
  });

  test("the share dialogs' form, which may list 1000 paths, reads up to 1 MiB", async () => {
    // A link of 1000 files with paths of about 100 characters: over 64 KiB, under 1 MiB.
    const items = Array.from({ length: 1000 }, (_, i) => `items[${i}].path=${encodeURIComponent(`/Projects/2026/Quarterly reports/Department ${i}/report-${String(i).padStart(4, "0")}.pdf`)}&items[${i}].folder=0`).join("&");
    const body = `kind=download&serverPath=%2F&${items}`;
    expect(body.length).toBeGreaterThan(FORM_LIMIT);
    // Read, then sent to sign in (no session): not refused for its size.
    const read = await fetch(`${WEB_URL}/link/create`, { method: "POST", body, redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(read.status).toBe(302);
    expect(read.headers.get("location")).toMatch(/^\/signin/);
    for (const chunked of [false, true]) {
      const refused = await rawPost(`${WEB_URL}/link/create`, { size: MiB + 1, chunked });
      expect({ chunked, status: refused.status }).toEqual({ chunked, status: 413 });
    }
  });

  test("a post to a page without an action is refused without reading its body", async ({ browser }) => {
    test.setTimeout(120_000);
    const shareId = await shareOfFolder();
    for (const path of ["/personal", "/group", "/p2p/receiver", `/share/${shareId}/socket`, "/download/windows", "/transfers/hash-worker.js", "/"]) {
      for (const chunked of [false, true]) {
        const answer = await rawPost(`${WEB_URL}${path}`, { size: 256 * MiB, chunked });
        expect({ path, chunked, status: answer.status }).toEqual({ path, chunked, status: 405 });
        expect({ path, chunked, written: answer.written < 24 * MiB }).toEqual({ path, chunked, written: true });
      }
    }
    await webStillAnswers(browser);
  });

  test("the 413 page in both languages, from a form posted without JavaScript", async ({ browser }) => {
    for (const [locale, title] of [
      ["en-US", "What you sent is too large"],
      ["zh-CN", "提交的内容过大"],
    ] as const) {
      const context = await browser.newContext({ javaScriptEnabled: false, locale });
      try {
        const page = await context.newPage();
        await page.goto("/signin");
        await page.locator("input[name=account]").fill("someone");
        await page.locator("input[name=password]").fill("p".repeat(FORM_LIMIT + 10));
        const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.getByRole("button", { name: locale === "en-US" ? "Sign in" : "登录" }).click()]);
        expect(response.status()).toBe(413);
        await expect(page.getByRole("heading", { name: title })).toBeVisible();
        await expect(page.getByText(locale === "en-US" ? "Error code: 413" : "错误码：413")).toBeVisible();
        await expect(page.getByText(locale === "en-US" ? "This server accepts at most 64 KB in one form." : "服务器每次最多接收 64 KB 的表单内容。", { exact: false })).toBeVisible();
        await screenshot(page, `form-too-large-${locale.slice(0, 2)}`);
        // Back to the form, without JavaScript: a plain link to the page, not a repeated post.
        await page.getByRole("link", { name: locale === "en-US" ? "Back to the page" : "返回页面" }).click();
        await expect(page.locator("input[name=password]")).toBeVisible();
      } finally {
        await context.close();
      }
    }
  });

  test("the 413 page hydrates in the reader's language when JavaScript runs", async ({ browser }) => {
    for (const [locale, title] of [
      ["zh-CN", "提交的内容过大"],
      ["en-US", "What you sent is too large"],
    ] as const) {
      const context = await browser.newContext({ locale });
      const errors: string[] = [];
      try {
        const page = await context.newPage();
        page.on("pageerror", (error) => errors.push(error.message));
        await page.goto("/signin");
        await hydrated(page);
        // A plain form post (as before the scripts load, or from another tool): the document itself is the 413.
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === "POST"),
          page.evaluate((size) => {
            const form = document.createElement("form");
            form.method = "post";
            form.action = "/signin";
            const field = document.createElement("input");
            field.name = "password";
            field.value = "p".repeat(size);
            form.append(field);
            document.body.append(form);
            HTMLFormElement.prototype.submit.call(form);
          }, FORM_LIMIT + 10),
        ]);
        expect(response.status()).toBe(413);
        await hydrated(page);
        await expect(page.getByRole("heading", { name: title })).toBeVisible();
        await expect(page.locator("html")).toHaveAttribute("lang", locale.slice(0, 2));
        expect({ locale, errors }).toEqual({ locale, errors: [] });
      } finally {
        await context.close();
      }
    }
  });

  test("over-long sign-in fields are refused by the form, before the engine hears of them", async ({ page }) => {
    const account = uniqueAccount("longpw");
    await createUser(account, PASSWORD);
    for (const [fields, message] of [
      [{ account, password: "x".repeat(65) }, "The password is too long"],
      [{ account, password: "Wrong#".repeat(5000) }, "The password is too long"],
      [{ account: `${"a".repeat(250)}@example.com`, password: "Wrong#Pass1" }, "The account or e-mail address is too long"],
      [{ account: "b".repeat(20_000), password: "Wrong#Pass1" }, "The account or e-mail address is too long"],
    ] as const) {
      const answer = await fetch(`${WEB_URL}/signin`, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
      expect({ length: fields.password.length + fields.account.length, status: answer.status }).toEqual({ length: fields.password.length + fields.account.length, status: 400 });
      expect(await answer.text()).toContain(message);
    }
    // None of them counted as a wrong password: the first real wrong one is the first.
    await signIn(page, account, "Wrong#Pass1");
    await expect(page.getByRole("alert").filter({ hasText: "Wrong password" })).toContainText("failed attempts 1 of");
  });
});

test.describe("pages that carry tokens", () => {
  test("answer with Cache-Control: no-store, as pages and as data", async ({ page, browser }) => {
    const account = uniqueAccount("nostore");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    for (const path of ["/personal", "/group", "/link", "/notification", "/p2p/sender"]) {
      const response = await page.goto(path);
      expect({ path, cacheControl: response?.headers()["cache-control"] }).toEqual({ path, cacheControl: "no-store" });
    }
    for (const path of ["/personal.data", "/group.data", "/link.data"]) {
      const response = await page.request.get(path);
      expect({ path, status: response.status(), cacheControl: response.headers()["cache-control"] }).toEqual({ path, status: 200, cacheControl: "no-store" });
    }

    // A share link without a password: the page issues the visitor a share token at once.
    const shareId = await shareOfFolder();
    const visitor = await browser.newContext();
    try {
      const tab = await visitor.newPage();
      const response = await tab.goto(`/share/${shareId}`);
      expect(response?.headers()["cache-control"]).toBe("no-store");
      await hydrated(tab);
      for (const path of [`/share/${shareId}/socket`, `/share/${shareId}.data`]) {
        const data = await tab.request.get(path);
        expect({ path, status: data.status(), cacheControl: data.headers()["cache-control"] }).toEqual({ path, status: 200, cacheControl: "no-store" });
      }
    } finally {
      await visitor.close();
    }
  });
});

test.describe("redirect targets at sign-in", () => {
  const odd = [
    "/personal\u3000",
    "/\u3000",
    "/personal\u007f",
    "/personal%7F",
    "/个人",
    "/personal?path=/文件",
    "/personal?path=%E3%80%80",
    "/personal\u202e",
    "/personal%0d%0aSet-Cookie:%20x=1",
    "//evil.example/",
    "/\\evil.example",
    `/${"a".repeat(5000)}`,
    `/${"文".repeat(600)}`,
    "/%FF",
  ];

  test("are refused or normalised before any token is issued: never a 500", async () => {
    const account = uniqueAccount("redir");
    await createUser(account, PASSWORD);
    for (const redirectTo of odd) {
      const answer = await fetch(`${WEB_URL}/signin`, { method: "POST", body: new URLSearchParams({ account, password: PASSWORD, redirectTo }), redirect: "manual" });
      const location = answer.headers.get("location") ?? "";
      expect({ redirectTo, status: answer.status }).toEqual({ redirectTo, status: 302 });
      expect({ redirectTo, location, safe: /^\/(?![/\\])[\x21-\x7e]*$/.test(location) }).toEqual({ redirectTo, location, safe: true });
    }
  });

  test("a person signing in with them lands on a sane page", async ({ browser }) => {
    test.setTimeout(120_000);
    const account = uniqueAccount("lands");
    await createUser(account, PASSWORD);
    for (const redirectTo of ["/personal\u3000", "/personal\u007f", "/个人", "/personal?path=%E3%80%80", "//evil.example/", `/${"a".repeat(5000)}`]) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const failures: string[] = [];
        page.on("response", (response) => {
          if (response.status() >= 500) failures.push(`${response.status()} ${response.url()}`);
        });
        await page.goto(`/signin?redirectTo=${encodeURIComponent(redirectTo)}`);
        await page.getByLabel("Account").fill(account);
        await page.getByLabel("Password").fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await expect(page).toHaveURL(/\/personal(\?|$)/);
        // The signed-in shell (a folder that does not exist shows its notice over it), no error page.
        await expect(page.getByRole("navigation", { name: "Main menu", includeHidden: true })).toBeAttached();
        await expect(page.getByRole("heading", { name: "Something went wrong" })).toHaveCount(0);
        expect({ redirectTo, failures, origin: new URL(page.url()).origin }).toEqual({ redirectTo, failures: [], origin: WEB_URL });
      } finally {
        await context.close();
      }
    }
  });
});
