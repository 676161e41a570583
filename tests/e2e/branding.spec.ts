import { setSite } from "../support/e2e-helpers";
import { expect, hydrated, screenshot, test } from "./fixtures";

test.describe("branding from the server's site settings", () => {
  test("the sign-in page takes the product name, colours and login-box position", async ({ page }) => {
    const before = await setSite({ position: 1, backgroundColor: "#223344", primaryColor: "#0066CC", productNameEN: "Acme Share", productNameZH: "艾克美" });
    try {
      await page.goto("/signin");
      await expect(page.getByRole("heading", { name: "Sign in to Acme Share" })).toBeVisible();
      const box = await page.getByRole("main").boundingBox();
      expect(box!.x).toBeLessThan(100);
      expect(box!.y).toBeLessThan(100);
      const submit = page.getByRole("button", { name: "Sign in" });
      await expect(submit).toHaveCSS("background-color", "rgb(0, 102, 204)");
      await expect(page.getByRole("main").locator("..")).toHaveCSS("background-color", "rgb(34, 51, 68)");
      await screenshot(page, "signin-branded-position-1");

      await setSite({ position: 9 });
      await page.reload();
      const corner = await page.getByRole("main").boundingBox();
      const viewport = page.viewportSize()!;
      expect(corner!.x + corner!.width).toBeGreaterThan(viewport.width - 100);
      expect(corner!.y + corner!.height).toBeGreaterThan(viewport.height - 100);
    } finally {
      await setSite(before);
    }
  });

  test("a burst of sign-in clicks sends one request, 500 ms after the last", async ({ page }) => {
    await page.clock.install();
    await page.goto("/signin");
    await hydrated(page);
    await page.getByLabel("Account").fill("nobody_debounce");
    await page.getByLabel("Password").fill("Wrong#Pass1");
    // Stop the page's clock (it otherwise flows in real time), so only runFor moves it.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    const posts: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname.startsWith("/signin")) posts.push(r.url());
    });
    const button = page.getByRole("button", { name: "Sign in" });
    await button.click();
    await page.clock.runFor(300);
    await button.click();
    await page.clock.runFor(300);
    await button.click();
    await page.clock.runFor(499);
    expect(posts).toHaveLength(0);
    await page.clock.runFor(2);
    await expect(page.getByText(/failed attempts 1 of \d+/)).toBeVisible();
    expect(posts).toHaveLength(1);
  });
});
