import { ENGINE_URL, WEB_EN_URL } from "../support/e2e-env";
import { call, createUser, getSecurity, lockUser, setSecurity, uniqueAccount } from "../support/e2e-helpers";
import { expect, screenshot, sessionTimersRunning, signIn, test } from "./fixtures";

const PASSWORD = "Walk#Ferry2026";

test.describe("sign-in", () => {
  test("a user signs in, lands on /personal, and no engine token reaches the page", async ({ page, context }) => {
    const account = uniqueAccount("alice");
    await createUser(account, PASSWORD);
    await page.goto("/");
    await expect(page).toHaveURL(/\/signin$/);
    await expect(page.getByRole("heading", { name: "Sign in to Ferry" })).toBeVisible();
    await screenshot(page, "signin-en");
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await expect(page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Personal" })).toBeVisible();
    await screenshot(page, "personal-en");

    // The session cookie is HttpOnly and SameSite=Lax, and browser JavaScript cannot see it.
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "ferry");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect(await page.evaluate(() => document.cookie)).not.toContain("ferry=");

    // Nothing in the HTML or the scripts works as an engine token.
    const html = await page.content();
    const scripts = await Promise.all(
      (await page.locator("script[src]").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).src))).map(async (src) => (await page.request.get(src)).text()),
    );
    const candidates = new Set([...`${html}\n${scripts.join("\n")}\n${session!.value}`.matchAll(/[A-Za-z0-9_-]{43}/g)].map((m) => m[0]));
    for (const candidate of candidates) {
      const reply = await fetch(`${ENGINE_URL}/api/user/info`, { headers: { authorization: `Bearer ${candidate}` } });
      expect(((await reply.json()) as { code: number }).code, `a string in the page works as a token`).toBe(1009);
    }
  });

  test("required fields and a wrong password show the spec's messages with the counts", async ({ page }) => {
    const account = uniqueAccount("bob");
    await createUser(account, PASSWORD);
    await page.goto("/signin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Please enter your account")).toBeVisible();
    await expect(page.getByText("Please enter your password")).toBeVisible();

    await signIn(page, account, "Wrong#Pass1");
    await expect(page.getByRole("alert").filter({ hasText: "wrong password" })).toHaveText(
      "Wrong password: failed attempts 1 of 5 within 3 min; at the limit the account is locked",
    );
    await page.getByLabel("Password").fill("Wrong#Pass2");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "wrong password" })).toContainText("failed attempts 2 of 5");
    await expect(page.getByLabel("Password")).toHaveValue("");
  });

  test("the account locks after N wrong passwords", async ({ page }) => {
    const before = await getSecurity();
    await setSecurity({ lockTimes: 3, lockMinutes: 10 });
    try {
      const account = uniqueAccount("carol");
      await createUser(account, PASSWORD);
      for (let i = 1; i <= 2; i++) {
        await signIn(page, account, `Wrong#Pass${i}`);
        await expect(page.getByRole("alert").filter({ hasText: `failed attempts ${i} of` })).toContainText("within 10 min");
      }
      await signIn(page, account, "Wrong#Pass3");
      await expect(page.getByRole("alert").filter({ hasText: "locked" })).toHaveText("The account has been locked. Try again in 10 minutes.");
      await signIn(page, account, PASSWORD);
      await expect(page.getByRole("alert").filter({ hasText: "locked" })).toBeVisible();
      await expect(page).toHaveURL(/\/signin/);
    } finally {
      await setSecurity({ lockTimes: before.lockTimes, lockMinutes: before.lockMinutes });
    }
  });

  test("an e-mail address signs in as its account", async ({ page }) => {
    const account = uniqueAccount("dora");
    await createUser(account, PASSWORD, { email: `${account}@example.com` });
    await signIn(page, `${account}@example.com`, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await expect(page.getByRole("button", { name: new RegExp(`Account menu for ${account}`) })).toBeVisible();
  });

  test("sign-in works with JavaScript disabled", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      const account = uniqueAccount("nojs");
      await createUser(account, PASSWORD);
      await page.goto("/signin");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByText("Please enter your account")).toBeVisible();
      await page.getByLabel("Account").fill(account);
      await page.getByLabel("Password").fill("Wrong#Pass1");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByText(/failed attempts 1 of/)).toBeVisible();
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/personal$/);
      await expect(page.getByRole("navigation", { name: "Main menu" })).toBeVisible();
    } finally {
      await context.close();
    }
  });

  test("cross-site posts to the sign-in action are refused and sign nobody in", async ({ request }) => {
    const account = uniqueAccount("csrf");
    await createUser(account, PASSWORD);
    const form = { account, password: PASSWORD };
    // Another origin (Remix's own check refuses it before the action runs).
    const foreign = await request.post("/signin", { form, headers: { Origin: "https://evil.example" }, maxRedirects: 0 });
    expect(foreign.status()).toBeGreaterThanOrEqual(400);
    expect(foreign.headers()["set-cookie"] ?? "").not.toContain("ferry=");
    // The browser says the request is cross-site (Ferry's check).
    const crossSite = await request.post("/signin", { form, headers: { "Sec-Fetch-Site": "cross-site" }, maxRedirects: 0 });
    expect(crossSite.status()).toBe(403);
    expect(crossSite.headers()["set-cookie"] ?? "").not.toContain("ferry=");
  });

  test("redirectTo cannot send the browser to another site", async ({ page }) => {
    const account = uniqueAccount("erin");
    await createUser(account, PASSWORD);
    await page.goto("/signin?redirectTo=%2F%2Fevil.example");
    await page.getByLabel("Account").fill(account);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/personal$/);
  });
});

test.describe("language", () => {
  test("switches to Chinese and back, kept in a cookie and mirrored to localStorage", async ({ page }) => {
    await page.goto("/signin");
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.getByRole("heading", { name: "登录飞渡" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh");
    await screenshot(page, "signin-zh");
    await expect.poll(() => page.evaluate(() => localStorage.getItem("ferry_lang"))).toBe("zh");
    await page.reload();
    await expect(page.getByRole("heading", { name: "登录飞渡" })).toBeVisible();
    await page.getByRole("button", { name: "切换语言为英文" }).click();
    await expect(page.getByRole("heading", { name: "Sign in to Ferry" })).toBeVisible();
    await expect.poll(() => page.evaluate(() => localStorage.getItem("ferry_lang"))).toBe("en");
  });

  test("without a choice, a Chinese browser gets Chinese and any other language English", async ({ browser }) => {
    for (const [locale, heading] of [["zh-CN", "登录飞渡"], ["fr-FR", "Sign in to Ferry"], ["en-GB", "Sign in to Ferry"]]) {
      const context = await browser.newContext({ locale });
      const page = await context.newPage();
      await page.goto("/signin");
      await expect(page.getByRole("heading", { name: heading })).toBeVisible();
      await context.close();
    }
  });

  test("the English edition is English only and shows no language toggle", async ({ browser }) => {
    const context = await browser.newContext({ locale: "zh-CN" });
    await context.addCookies([{ name: "ferry_lang", value: "zh", url: WEB_EN_URL }]);
    const page = await context.newPage();
    await page.goto(`${WEB_EN_URL}/signin`);
    await expect(page.getByRole("heading", { name: "Sign in to Ferry" })).toBeVisible();
    await expect(page.getByRole("button", { name: /language/i })).toHaveCount(0);
    await context.close();
  });

  test("the signed-in pages follow the language too", async ({ page }) => {
    const account = uniqueAccount("zhuser");
    await createUser(account, PASSWORD);
    await page.goto("/signin");
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await expect(page.getByRole("navigation", { name: "主菜单" }).getByRole("link", { name: "个人空间" })).toBeVisible();
    await screenshot(page, "personal-zh");
  });
});

test.describe("session", () => {
  // These tests move the browser's clock. The session timers mount with the signed-in page, after
  // its data has arrived — later than hydration (the sign-in page hydrated already) — and take
  // the time they mount as the last activity: moved before that, the clock changed nothing (the
  // old flake, ~1 in 10). So every test waits for them to run first.
  test("30 minutes without activity signs out with the logout notice", async ({ page }) => {
    await page.clock.install();
    const account = uniqueAccount("idle");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await sessionTimersRunning(page);
    // At 29 minutes the timer refreshes the token; the page's loaders then reload (revalidation), and
    // their answer sets the session cookie. Here the 31st minute's tick follows milliseconds later, while
    // that reload is under way: let in after the sign-out's answer, it signed the browser back in (the
    // old flake, ~1 in 5: the page stayed, /signin lost its notice, or /personal opened again). So the
    // reload is held until the sign-out has answered, or a second has passed.
    const post = (path: RegExp) => (r: { method(): string; url(): string }) => r.method() === "POST" && path.test(new URL(r.url()).pathname);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/personal\.data/, async (route) => {
      await released;
      await route.continue();
    });
    const refreshed = page.waitForResponse((r) => post(/^\/session(\.data)?$/)(r.request()));
    await page.clock.fastForward("29:00");
    expect((await refreshed).ok()).toBe(true);
    await expect(page).toHaveURL(/\/personal$/);
    const signedOut = page.waitForResponse((r) => post(/^\/logout(\.data)?$/)(r.request()));
    await page.clock.fastForward("02:00");
    await Promise.race([signedOut, page.waitForTimeout(1000)]);
    release();
    await expect(page).toHaveURL(/\/signin\?reason=expired$/);
    const notice = page.getByRole("dialog", { name: "Signed out" });
    await expect(notice).toContainText("Your sign-in has expired. Please sign in again.");
    await screenshot(page, "logout-notice-en");
    // OK and the × (which does the same, tests/e2e/dialogs.spec.ts): nothing else to choose.
    await expect(notice.getByRole("button")).toHaveCount(2);
    await notice.getByRole("button", { name: "OK" }).click();
    await expect(notice).toBeHidden();
    await page.goto("/personal");
    await expect(page).toHaveURL(/\/signin/);
  });

  test("the token is refreshed every 20 minutes, and a failed refresh signs out", async ({ page }) => {
    await page.clock.install();
    const account = uniqueAccount("fresh");
    const user = await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    await sessionTimersRunning(page);

    // Activity keeps the session alive; at 20 minutes the timer refreshes the token.
    await page.clock.fastForward("15:00");
    await page.getByRole("link", { name: "Link" }).click();
    await expect(page).toHaveURL(/\/link$/);
    const refreshed = page.waitForResponse((r) => /\/session(\.data)?(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search) && r.request().method() === "POST");
    // runFor fires every tick of the one-minute check in between (fastForward fires a due timer at most once).
    await page.clock.runFor("06:00");
    expect((await refreshed).ok()).toBe(true);
    await page.getByRole("link", { name: "Personal" }).click();
    await expect(page).toHaveURL(/\/personal$/);

    // The administrator locks the account: its tokens are revoked, so the timer's next refresh fails.
    await lockUser(user.id);
    await page.clock.fastForward("20:00");
    await expect(page).toHaveURL(/\/signin\?reason=expired$/);
    await expect(page.getByRole("dialog", { name: "Signed out" })).toBeVisible();
  });

  test("an engine answer 1009 (token revoked) ends the session with the logout notice", async ({ page }) => {
    const account = uniqueAccount("revoked");
    const user = await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
    // The page's file-server socket has signed in and listed the folder: from now on only the
    // navigation below talks to the engine (a socket signing in after the lock would end the session too).
    await expect(page.getByRole("region", { name: /^Files in/ }).getByText("No data")).toBeVisible();
    await lockUser(user.id);
    await page.getByRole("link", { name: "Link" }).click();
    await expect(page).toHaveURL(/\/signin\?reason=expired$/);
    await expect(page.getByRole("dialog", { name: "Signed out" })).toBeVisible();
  });

  test("signing out revokes the session and the back button shows nothing private", async ({ page }) => {
    const account = uniqueAccount("leaver");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await page.getByRole("button", { name: new RegExp(`Account menu for ${account}`) }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await page.goto("/personal");
    await expect(page).toHaveURL(/\/signin\?redirectTo=%2Fpersonal$/);
    expect((await call("GET", "/api/health")).code).toBe(200);
  });
});
