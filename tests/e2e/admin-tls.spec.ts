import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ClientTlsInfo, TlsInfo } from "../../contract/tls";
import { E2E_FILE_TLS_PORT } from "../support/e2e-env";
import { ADMIN_PASSWORD, adminToken, createUser, ok, uniqueAccount } from "../support/e2e-helpers";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, signIn, test } from "./fixtures";

/**
 * The console's TLS certificate and Client TLS screens (issue 15; admin document sections 3 "TLS",
 * 4, 5 and codes 4029–4032): uploads of real certificates made by openssl, refused ones with their
 * translated message, a good one shown with its domain and validity and served by the file server's
 * TLS port at once; "disable non-TLS" behind its confirmation, and a user's page then talking to the
 * file server over wss on the TLS port. The run's engine is shared: every test puts the certificate,
 * the non-TLS switch and the client authorities back as they were.
 */

const dir = mkdtempSync(path.join(tmpdir(), "ferry-e2e-tls-"));
let before: TlsInfo;

function makeCertificate(name: string, bits = 2048, days = 365) {
  const [cert, key] = [path.join(dir, `${name}.crt`), path.join(dir, `${name}.key`)];
  execFileSync("openssl", ["req", "-x509", "-newkey", `rsa:${bits}`, "-nodes", "-days", String(days), "-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name},IP:127.0.0.1`, "-keyout", key, "-out", cert], { stdio: "ignore" });
  return { cert, key, pem: readFileSync(cert, "utf8") };
}
const good = makeCertificate("files.ferry.test");
const short = makeCertificate("short.ferry.test", 1024);
const other = makeCertificate("other.ferry.test");

test.beforeAll(async () => {
  before = await ok<TlsInfo>("GET", "/api/admin/tls", { token: await adminToken() });
});

/** Back to the run's state: non-TLS allowed, no uploaded certificate unless there was one, no client authorities. */
async function restore() {
  const token = await adminToken();
  const now = await ok<TlsInfo>("GET", "/api/admin/tls", { token });
  if (now.plainDisabled && !before.plainDisabled) await ok("PUT", "/api/admin/tls/plain", { token, body: { plainDisabled: false } });
  if (now.source === "uploaded" && before.source !== "uploaded") await ok("DELETE", "/api/admin/tls/certificate", { token });
  await ok<ClientTlsInfo>("DELETE", "/api/admin/client-tls", { token });
}
test.afterEach(restore);
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function upload(page: Page, certificate: string, key: string, submit: RegExp) {
  // The labels carry the required mark "*" before the name.
  await page.getByLabel(/^\*?(Certificate \(PEM\)|证书（PEM）)$/).setInputFiles(certificate);
  await page.getByLabel(/^\*?(Private key \(PEM\)|私钥（PEM）)$/).setInputFiles(key);
  await page.getByRole("button", { name: submit }).click();
}

test("en: a 1024-bit key is refused with its message; a good certificate is shown and served; non-TLS is disabled (after the warning) and a user's page then uses wss on the TLS port", async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await adminConsolePage(browser, "en-US");
  try {
    await page.goto("/admin/settings/tls");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "TLS certificate" })).toBeVisible();
    await expect(page.getByText("No certificate: the file server accepts non-TLS connections only.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Disable non-TLS" })).toBeDisabled();
    await auditPage(page, "tls, no certificate");

    await upload(page, short.cert, short.key, /^Upload and use$/);
    await expect(page.getByRole("alert").filter({ hasText: "The certificate key must be at least 2048 bits" })).toBeVisible();
    await consoleScreens(page, "admin-tls-refused-en");
    // A key that is not the certificate's: 4032.
    await upload(page, good.cert, other.key, /^Upload and use$/);
    await expect(page.getByRole("alert").filter({ hasText: "The certificate and the private key do not match" })).toBeVisible();

    await upload(page, good.cert, good.key, /^Upload and use$/);
    await expect(page.getByRole("status").filter({ hasText: "Certificate in use: new connections get it now" })).toBeVisible();
    const facts = page.getByRole("definition");
    await expect(facts.filter({ hasText: "files.ferry.test, 127.0.0.1" })).toBeVisible();
    await expect(facts.filter({ hasText: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} to \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/ })).toBeVisible();
    await expect(facts.filter({ hasText: /^Valid$/ })).toBeVisible();
    await expect(facts.filter({ hasText: "RSA 2048 bits" })).toBeVisible();
    await expect(facts.filter({ hasText: `TLS ${E2E_FILE_TLS_PORT}` })).toBeVisible();
    await page.mouse.move(0, 0);
    await auditPage(page, "tls, certificate in use");
    await consoleScreens(page, "admin-tls-en");

    await page.getByRole("button", { name: "Disable non-TLS" }).click();
    const dialog = page.getByRole("dialog", { name: "Disable non-TLS connections?" });
    await expect(dialog.getByText(/The non-TLS port closes at once/)).toBeVisible();
    await consoleScreens(page, "admin-tls-confirm-en");
    await dialog.getByRole("button", { name: "Disable non-TLS" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Non-TLS connections disabled" })).toBeVisible();
    await expect(page.getByText("Disabled: the non-TLS port is closed; every client connects with TLS.")).toBeVisible();
    expect((await ok<TlsInfo>("GET", "/api/admin/tls", { token: await adminToken() })).plainPort).toBeNull();

    // A user's page on http now reaches the file server with TLS (the browser is told to accept the test's self-signed certificate).
    const userContext = await browser.newContext({ locale: "en-US", ignoreHTTPSErrors: true });
    try {
      const account = uniqueAccount("tlsweb");
      await createUser(account, "Tls#Web-2026", { permission: PERMISSION_FULL });
      const userPage = await userContext.newPage();
      const socket = userPage.waitForEvent("websocket", (ws) => ws.url().includes("/ws"));
      await signIn(userPage, account, "Tls#Web-2026");
      await userPage.waitForURL(/\/personal/);
      expect((await socket).url()).toMatch(new RegExp(`^wss://[^/]+:${E2E_FILE_TLS_PORT}/ws$`));
      await expect(userPage.getByRole("region", { name: /^Files in/ })).toBeVisible();
    } finally {
      await userContext.close();
    }

    await page.getByRole("button", { name: "Allow non-TLS again" }).click();
    await page.getByRole("dialog", { name: "Allow non-TLS connections again?" }).getByRole("button", { name: "Allow non-TLS" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Non-TLS connections allowed" })).toBeVisible();
    await expect(page.getByText(/^Allowed: clients may also connect without TLS on port \d+\.$/)).toBeVisible();

    await page.getByRole("button", { name: "Remove uploaded certificate" }).click();
    await page.getByRole("dialog", { name: "Remove uploaded certificate" }).getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Uploaded certificate removed" })).toBeVisible();
    await expect(page.getByText("No certificate: the file server accepts non-TLS connections only.")).toBeVisible();
  } finally {
    await context.close();
  }
});

test("zh: a mismatched key is refused in Chinese; a good certificate shows its domain and validity", async ({ browser }) => {
  const { context, page } = await adminConsolePage(browser, "zh-CN");
  try {
    await page.goto("/admin/settings/tls");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "TLS 证书" })).toBeVisible();
    await upload(page, good.cert, other.key, /^上传并使用$/);
    await expect(page.getByRole("alert").filter({ hasText: "证书与私钥不匹配" })).toBeVisible();
    await consoleScreens(page, "admin-tls-refused-zh");
    await upload(page, good.cert, good.key, /^上传并使用$/);
    await expect(page.getByRole("status").filter({ hasText: "证书已启用" })).toBeVisible();
    const facts = page.getByRole("definition");
    await expect(facts.filter({ hasText: "files.ferry.test, 127.0.0.1" })).toBeVisible();
    await expect(facts.filter({ hasText: / 至 / })).toBeVisible();
    await expect(facts.filter({ hasText: /^有效$/ })).toBeVisible();
    await page.mouse.move(0, 0);
    await auditPage(page, "tls zh");
    await consoleScreens(page, "admin-tls-zh");
  } finally {
    await context.close();
  }
});

test("client TLS in en and zh: an expired or unreadable file is refused, a CA is listed with what it covers", async ({ browser }) => {
  for (const [locale, texts] of [
    ["en-US", { title: "Client TLS", file: "CA certificates (PEM)", submit: /^Upload and trust$/, bad: "The certificate is not a PEM certificate", done: "Certificate authorities trusted", covers: "External HTTP sign-in (https://)", shot: "admin-client-tls-en" }],
    ["zh-CN", { title: "客户端 TLS", file: "CA 证书（PEM）", submit: /^上传并信任$/, bad: "证书不是 PEM 格式的证书", done: "证书颁发机构将从下一次连接起受信任", covers: "外部 HTTP 登录（https://）", shot: "admin-client-tls-zh" }],
  ] as const) {
    const { context, page } = await adminConsolePage(browser, locale);
    try {
      await page.goto("/admin/settings/client-tls");
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: texts.title })).toBeVisible();
      await expect(page.getByRole("listitem").filter({ hasText: texts.covers })).toBeVisible();
      await page.getByLabel(texts.file).setInputFiles(good.key);
      await page.getByRole("button", { name: texts.submit }).click();
      await expect(page.getByRole("alert").filter({ hasText: texts.bad })).toBeVisible();
      await page.getByLabel(texts.file).setInputFiles(good.cert);
      await page.getByRole("button", { name: texts.submit }).click();
      await expect(page.getByRole("status").filter({ hasText: texts.done })).toBeVisible();
      await expect(page.getByRole("definition").filter({ hasText: "files.ferry.test, 127.0.0.1" })).toBeVisible();
      // Not hovering the submit button (its hover state is a lighter orange).
      await page.mouse.move(0, 0);
      await auditPage(page, `client tls ${locale}`);
      await consoleScreens(page, texts.shot);
    } finally {
      await context.close();
    }
  }
  expect((await ok<ClientTlsInfo>("GET", "/api/admin/client-tls", { token: await adminToken() })).authorities).toHaveLength(1);
});

test("without JavaScript: the upload posts as a plain multipart form, and disabling non-TLS asks in the page first", async ({ browser }) => {
  const context = await browser.newContext({ locale: "en-US", javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await page.goto("/admin/settings/tls");
    await upload(page, short.cert, short.key, /^Upload and use$/);
    await expect(page.getByRole("alert").filter({ hasText: "The certificate key must be at least 2048 bits" })).toBeVisible();
    await upload(page, good.cert, good.key, /^Upload and use$/);
    await expect(page.getByRole("status").filter({ hasText: "Certificate in use: new connections get it now" })).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: "files.ferry.test, 127.0.0.1" })).toBeVisible();

    await page.getByRole("button", { name: "Disable non-TLS" }).click();
    const ask = page.getByRole("alertdialog").filter({ hasText: "The non-TLS port closes at once" });
    await expect(ask).toBeVisible();
    expect((await ok<TlsInfo>("GET", "/api/admin/tls", { token: await adminToken() })).plainDisabled).toBe(false);
    await ask.getByRole("button", { name: "Disable non-TLS" }).click();
    await expect(page.getByText("Disabled: the non-TLS port is closed; every client connects with TLS.")).toBeVisible();
    await page.getByRole("button", { name: "Allow non-TLS again" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Allow non-TLS" }).click();
    await expect(page.getByText(/^Allowed: clients may also connect without TLS on port \d+\.$/)).toBeVisible();
  } finally {
    await context.close();
  }
});
