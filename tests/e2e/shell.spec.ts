import { createUser, uniqueAccount } from "../support/e2e-helpers";
import { expect, screenshot, signIn, test } from "./fixtures";

const PASSWORD = "Shell#Ferry2026";

test.describe("shell", () => {
  test("the left menu has the spec's entries, and hides Group for Linux accounts", async ({ page }) => {
    const normal = uniqueAccount("menu");
    await createUser(normal, PASSWORD);
    await signIn(page, normal, PASSWORD);
    const menu = page.getByRole("navigation", { name: "Main menu" });
    for (const name of ["Personal", "Group", "Sender", "Receiver", "Link"]) await expect(menu.getByRole("link", { name })).toBeVisible();
    await menu.getByRole("link", { name: "Group" }).click();
    await expect(page).toHaveURL(/\/group$/);
    await expect(page.getByRole("heading", { name: "Group spaces" })).toBeVisible();

    const linux = uniqueAccount("penguin");
    await createUser(linux, PASSWORD, { accountType: 6 });
    await page.getByRole("button", { name: new RegExp(`Account menu for ${normal}`) }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    // Wait for the sign-out to end: a sign-in page opened while the engine is still revoking the
    // token finds the old cookie, goes on to /personal, and that page's refused token reads as expired.
    await expect(page).toHaveURL(/\/signin$/);
    await signIn(page, linux, PASSWORD);
    await expect(page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Personal" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Group" })).toHaveCount(0);
  });

  test("the account menu names directory and e-mail accounts, and offers the password change to Normal accounts only", async ({ page }) => {
    const ldap = uniqueAccount("ldap");
    await createUser(ldap, PASSWORD, { accountType: 4 });
    await signIn(page, ldap, PASSWORD);
    const menuButton = page.getByRole("button", { name: `Account menu for ${ldap} (LDAP)` });
    await expect(menuButton).toBeVisible();
    await menuButton.click();
    await expect(page.getByRole("menuitem", { name: "Sign out" })).toBeVisible();
    await expect(page.getByRole("menuitem", { name: "Change password" })).toHaveCount(0);
  });

  test("a Normal account changes its password in the dialog and signs in again", async ({ page }) => {
    const account = uniqueAccount("changer");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await page.getByRole("button", { name: new RegExp(`Account menu for ${account}`) }).click();
    await page.getByRole("menuitem", { name: "Change password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change password" });
    await expect(dialog).toBeVisible();
    // The dialog role sits on the overlay; the visible panel inside it is 700 px wide (spec).
    expect(await dialog.evaluate((el) => el.querySelector<HTMLElement>("[style*='width']")?.getBoundingClientRect().width)).toBe(700);
    await screenshot(page, "change-password-en");

    await dialog.getByLabel("Old password").fill("Wrong#Old2026");
    await dialog.getByLabel("New password", { exact: true }).fill("Newer#Ferry2026");
    await dialog.getByLabel("Confirm password").fill("Newer#Ferry2026");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(dialog.getByRole("alert")).toContainText("failed attempts 1 of 5");

    await dialog.getByLabel("Old password").fill(PASSWORD);
    await dialog.getByLabel("New password", { exact: true }).fill("Newer#Ferry2026");
    await dialog.getByLabel("Confirm password").fill("Newer#Ferry2026");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();
    await signIn(page, account, "Newer#Ferry2026");
    await expect(page).toHaveURL(/\/personal$/);
  });

  test("the transfer list opens from the top bar", async ({ page }) => {
    const account = uniqueAccount("mover");
    await createUser(account, PASSWORD);
    await signIn(page, account, PASSWORD);
    await page.getByRole("button", { name: "Transfer list" }).click();
    await expect(page.getByText("No transfers yet")).toBeVisible();
  });
});
