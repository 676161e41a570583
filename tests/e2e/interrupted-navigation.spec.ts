import { createUser, uniqueAccount } from "../support/e2e-helpers";
import { expect, hydrated, signIn, test } from "./fixtures";

/**
 * A navigation interrupted by another one aborts its data request. When the page's data had begun
 * to arrive but its stream had not ended yet (a slow or busy connection), the decoder of Remix's
 * single fetch (turbo-stream 2.4.1) left a rejected promise nobody handled: the browser reported
 * "signal is aborted without reason" as an uncaught error (seen once in auth.spec's token-refresh
 * test, where the refresh's revalidation was cut short by the next click). patches/ fixes the
 * decoder; the fixture fails this test on any uncaught error in the page.
 */
test("a navigation cut short while its data is still arriving leaves no uncaught error", async ({ page, pageErrors }) => {
  const account = uniqueAccount("interrupt");
  await createUser(account, "Walk#Ferry2026");
  await signIn(page, account, "Walk#Ferry2026");
  await expect(page).toHaveURL(/\/personal$/);

  // The connection delivers the data of /personal at once but its end late: the stream stays open
  // until the browser aborts the request, which then fails the body with the abort reason.
  await page.addInitScript(() => {
    const realFetch = window.fetch;
    window.fetch = async (input, init) => {
      const response = await realFetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input), location.href);
      const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      if (url.pathname !== "/personal.data" || !signal) return response;
      const bytes = new Uint8Array(await response.arrayBuffer());
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          signal.addEventListener("abort", () => controller.error(signal.reason), { once: true });
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
  });
  // The page's code for /personal arrives late too, so the navigation is still under way when the
  // person clicks on.
  await page.route(/\/build\/routes\/_app\.personal-[^/]*\.js$/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue();
  });

  await page.goto("/link");
  await hydrated(page);
  const menu = page.getByRole("navigation", { name: "Main menu" });
  const personalData = page.waitForResponse((r) => new URL(r.url()).pathname === "/personal.data");
  await menu.getByRole("link", { name: "Personal" }).click();
  await personalData;
  await menu.getByRole("link", { name: "Group" }).click();
  await expect(page).toHaveURL(/\/group$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // An unhandled rejection is reported after the microtasks that could still have handled it.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
  expect(pageErrors.map((e) => e.message)).toEqual([]);
});
