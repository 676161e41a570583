import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD } from "../support/e2e-helpers";
import { expect, screenshot, signIn, test } from "./fixtures";

test("the administrator's first sign-in forces a new password, then signs in with it", async ({ page }) => {
  await signIn(page, "admin", ADMIN_INITIAL_PASSWORD);
  await expect(page).toHaveURL(/\/reset-password$/);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await screenshot(page, "reset-password-en");

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
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();

  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await expect(page.getByRole("button", { name: /Account menu for admin/ })).toBeVisible();
});
