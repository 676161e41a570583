import { afterEach, describe, expect, it } from "vitest";
import { isAlive, type Product, startProduct } from "../support/product";

// `npm start` keeps the web and the engine running: one dying never takes the other down.

const answers = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return 0;
  }
};

let product: Product | undefined;
afterEach(async () => {
  await product?.stop();
  product = undefined;
});

describe("npm start", () => {
  it("restarts a web or engine process that was killed, and the other one keeps serving", async () => {
    product = await startProduct();
    const engine = product.pid("engine");
    const web = product.pid("web");
    expect(await answers(`${product.webUrl}/signin`)).toBe(200);

    const mark = product.output.length;
    process.kill(web, "SIGKILL");
    await product.waitFor(/\[ferry\] web exited \(SIGKILL\); restarting it in 1 s/, 30_000, mark);
    // The engine was not stopped with it.
    expect(isAlive(engine)).toBe(true);
    expect(await answers(`${product.apiUrl}/api/health`)).toBe(200);
    await product.waitFor(/\[ferry\] web started \(pid \d+\)/, 30_000, mark);
    const newWeb = product.pid("web");
    expect(newWeb).not.toBe(web);
    await expect.poll(() => answers(`${product!.webUrl}/signin`), { timeout: 60_000, interval: 300 }).toBe(200);

    const mark2 = product.output.length;
    process.kill(engine, "SIGKILL");
    await product.waitFor(/\[ferry\] engine exited \(SIGKILL\); restarting it in 1 s/, 30_000, mark2);
    expect(isAlive(newWeb)).toBe(true);
    await product.waitFor(/\[ferry\] engine started \(pid \d+\)/, 30_000, mark2);
    await expect.poll(() => answers(`${product!.apiUrl}/api/health`), { timeout: 60_000, interval: 300 }).toBe(200);
    // The web reaches the new engine: the sign-in page renders the site's settings from it.
    expect(await answers(`${product.webUrl}/signin`)).toBe(200);
    expect(product.output).not.toMatch(/stopping Ferry/);
  });

  it("with FERRY_RESTART_LIMIT=0 stops everything with exit code 1 and says why, for a supervisor", async () => {
    product = await startProduct({ FERRY_RESTART_LIMIT: "0" });
    const engine = product.pid("engine");
    process.kill(product.pid("web"), "SIGKILL");
    expect(await product.exited).toBe(1);
    expect(product.output).toMatch(/\[ferry\] web exited \(SIGKILL\) after 0 restart\(s\) within 60 s \(FERRY_RESTART_LIMIT=0\); stopping Ferry with exit code 1/);
    expect(isAlive(engine)).toBe(false);
  });
});
