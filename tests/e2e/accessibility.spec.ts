import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, sendNotice, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect, hydrated, screenshot, signIn, test } from "./fixtures";

/**
 * An automated accessibility audit (axe-core, WCAG 2.1 A/AA rules) of the pages a user and a share
 * visitor meet, in both languages, with content on them: a file in the personal space, a group, a
 * link in /link, a notification, a password-protected share and its listing. Serious and critical
 * violations fail; each one is listed with the elements it names, so a failure says what to mend.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Axe#Audit2026";
const SHARE_PASSWORD = "k7Qp2x";

async function audit(page: Page, what: string) {
  await hydrated(page);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => `${n.target.join(" ")} [${n.failureSummary?.split("\n").slice(1).join(" ").trim()}]`).join(", ")}`);
  // Soft: one run lists every page's violations, not just the first page's.
  expect.soft(blocking, `${what}: serious or critical accessibility violations`).toEqual([]);
  // The audit looked at a real page, not an empty shell.
  expect(results.passes.length, `${what}: axe checked something`).toBeGreaterThan(5);
}

/** A user with a file, a group, a link and a notification: every page has rows to audit. */
async function scene() {
  const account = uniqueAccount("axe");
  const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = await login(account, PASSWORD);
  const socketToken = signedIn.data!.websocket_token;
  const files = await connectFiles(FILE_URL, socketToken);
  await files.ok("mkdir", { groupId: 0, path: "/", name: "reports" });
  const bytes = new TextEncoder().encode("quarterly numbers\n");
  const created = await tusClient(FILE_URL, socketToken).create({ groupId: "0", path: "/reports/q3.txt" }, bytes.length, bytes);
  await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
  await files.close();

  const admin = await adminToken();
  const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: admin, body: { name: uniqueAccount("axeteam") } });
  await ok("PUT", `/api/admin/groups/${group.id}/members/${user.id}`, { token: admin, body: { groupPermission: Permission.List | Permission.Mkdir } });
  await sendNotice("Maintenance tonight", "The site restarts at 22:00.", [user.id]);
  const link = await ok<{ shareUrl: string; shareId: string }>("POST", "/api/share/link/create", {
    token: signedIn.data!.token,
    body: { shareBaseUrl: WEB_URL, shareUrlType: 1, shareFiles: ["/reports"], needPassword: true, shareUrlPasswd: SHARE_PASSWORD },
  });
  return { account, group, link };
}

for (const [locale, lang] of [["en-US", "en"], ["zh-CN", "zh"]] as const) {
  test(`pages pass an accessibility audit (${lang})`, async ({ browser }) => {
    // Eight full audits and the scene behind them: more than the default 30 s on a busy 2-core machine.
    test.setTimeout(120_000);
    const { account, group, link } = await scene();

    const visitor = await browser.newContext({ locale });
    const share = await visitor.newPage();
    await share.goto(`/share/${link.shareId}`);
    await expect(share.locator("html")).toHaveAttribute("lang", lang);
    await audit(share, "share page, password");
    const passwordField = share.getByLabel(lang === "en" ? "Password" : "访问密码", { exact: true });
    await passwordField.fill(SHARE_PASSWORD);
    await passwordField.press("Enter");
    await expect(share.getByText("q3.txt").or(share.getByText("reports")).first()).toBeVisible();
    await audit(share, "share page, listing");
    await screenshot(share, `axe-share-${lang}`);
    await visitor.close();

    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await page.goto("/signin");
    await audit(page, "sign-in");
    await signIn(page, account, PASSWORD);
    await expect(page).toHaveURL(/\/personal/);
    await expect(page.getByText("reports").first()).toBeVisible();
    await audit(page, "personal");
    await page.goto("/group");
    await audit(page, "group list");
    await page.goto(`/group/detail/${group.id}`);
    await audit(page, "group space");
    await page.goto("/link");
    await expect(page.getByText("reports").first()).toBeVisible();
    await audit(page, "links");
    await page.goto("/notification");
    await expect(page.getByText("Maintenance tonight").first()).toBeVisible();
    await audit(page, "notifications");
    await context.close();
  });
}
