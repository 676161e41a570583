import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD } from "../support/e2e-helpers";
import { adminSignIn } from "./admin-console";
import { expect, screenshot, signIn, test } from "./fixtures";

/**
 * The administrator signs in where the console is (/admin/signin, docs/web.md "Admin console"): the
 * very first sign-in forces a new password at /admin/update-info, then the console opens. The
 * administrator's personal space at /signin takes the same new password.
 */
test("the administrator's first sign-in at /admin/signin forces a new password, then opens the console", async ({ page }) => {
  await adminSignIn(page, "admin", ADMIN_INITIAL_PASSWORD);
  await expect(page).toHaveURL(/\/admin\/update-info$/);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  // The forced reset asks no old password: the one just typed waits, sealed, in the session.
  await expect(page.getByLabel("Old password")).toHaveCount(0);
  await screenshot(page, "admin-update-info-reset-en");

  // A password that breaks the rules is refused with the spec's message; nothing changes.
  await page.getByLabel("New password", { exact: true }).fill("alllowercase");
  await page.getByLabel("Confirm password").fill("alllowercase");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText(/does not meet the rules/).first()).toBeVisible();

  await page.getByLabel("New password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByLabel("Confirm password").fill("Different#2026");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("The two passwords are different")).toBeVisible();

  await page.getByLabel("Confirm password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page).toHaveURL(/\/admin\/signin$/);
  await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();

  // The old password no longer opens anything; the new one opens the console.
  await adminSignIn(page, "admin", ADMIN_INITIAL_PASSWORD);
  await expect(page.getByText(/^Wrong password/)).toBeVisible();
  await adminSignIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("banner").getByText("Admin Console")).toBeVisible();

  // The user app is a separate sign-in: the administrator's personal space takes the new password too.
  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await expect(page.getByRole("button", { name: /Account menu for admin/ })).toBeVisible();
});
