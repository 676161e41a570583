import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productCodec, type Product, startProduct } from "../support/product";

/**
 * What a new operator meets at the first `npm start` (issue 13, item 14), at the default log level
 * and with a generated administrator password, as a fresh installation has.
 */
let product: Product;
beforeAll(async () => {
  product = await startProduct({ FERRY_ADMIN_PASSWORD: "", FERRY_LOG_LEVEL: "info" });
});
afterAll(() => product?.stop());

const api = async (p: string, init: RequestInit = {}) => (await fetch(product.apiUrl + p, { ...init, headers: { "content-type": "application/json", ...init.headers } })).json();

describe("the first start", () => {
  it("prints the initial administrator password last, framed, and keeps it in a file only its owner reads until the first change", async () => {
    const output = product.output;
    const generated = /\[engine\]\s+Initial password: +(\S+)/.exec(output)?.[1];
    expect(generated).toBeTruthy();
    // The start banner, the last thing printed, repeats it between its two rules.
    const banner = /\n(=+)\n( Ferry is running\.[\s\S]*?)\n(=+)\n\n$/.exec(output);
    expect(banner, output.slice(-2000)).not.toBeNull();
    expect(banner![2]).toContain(`initial password:  ${generated}`);
    // The administrator's first sign-in is at the admin console (docs/web.md, "Admin console").
    expect(banner![2]).toContain(`First sign-in at the admin console, http://localhost:${new URL(product.webUrl).port}/admin:`);
    const file = path.join(product.dataDir, "initial-admin-password");
    expect(banner![2]).toContain(`The password is also in ${file}`);
    expect(output.lastIndexOf(generated!)).toBeGreaterThan(output.indexOf(" Ferry is running."));

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).trim()).toBe(generated);

    const first = await api("/api/user/login", { method: "POST", body: JSON.stringify({ UK: productCodec.encodeUK("admin", generated!) }) });
    expect(first.code).toBe(1074);
    const changed = await api("/api/user/password/update", {
      method: "PUT",
      body: JSON.stringify({ account: "admin", oldPassword: productCodec.encode(generated!), newPassword: productCodec.encode("Chosen#Boss2026"), needUpdatePwd: false }),
    });
    expect(changed.code).toBe(200);
    expect(() => statSync(file)).toThrow(/ENOENT/);
  });

  it("logs one line per request or less at the default level", async () => {
    const mark = product.output.length;
    const requests = 12;
    for (let i = 0; i < requests / 3; i++) {
      await fetch(`${product.webUrl}/signin`);
      await api("/api/health");
      await api("/api/user/login", { method: "POST", body: JSON.stringify({ UK: productCodec.encodeUK("nobody", "Wrong#Pass1") }) });
    }
    // The last request leaves a warning behind (an address signature that does not verify): once it
    // is in the output, so is whatever the requests before it logged.
    await fetch(`${product.apiUrl}/api/health`, { headers: { "x-ferry-client-address": "10.0.0.1", "x-ferry-client-signature": "00" } });
    await product.waitFor(/signature that does not verify/, 30_000, mark);
    const lines = product.output.slice(mark).split("\n").filter(Boolean);
    expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(requests + 1);
    expect(lines.filter((l) => l.startsWith("[engine]")).length, lines.join("\n")).toBeLessThanOrEqual(requests / 3 * 2 + 1);
  });

  it("/api/openapi.json names the address the engine serves", async () => {
    const doc = await api("/api/openapi.json");
    expect(doc.data.servers).toEqual([{ url: product.apiUrl }]);
  });
});
