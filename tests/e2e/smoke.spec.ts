import path from "node:path";
import { expect, test } from "@playwright/test";

// The start page is being rewritten (it becomes the sign-in page): only what any version has.
test("the start page answers and shows a heading", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.ok(), `GET / answered ${response?.status()}`).toBe(true);
  await expect(page.locator("html")).toHaveAttribute("lang", /^[a-z]{2}(-[A-Za-z]{2,})?$/);
  await expect(page.getByRole("heading").first()).toBeVisible();
  await page.screenshot({ path: path.join(test.info().project.outputDir, "smoke.png"), fullPage: true });
});
