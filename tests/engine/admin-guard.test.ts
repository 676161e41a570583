import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEngine, type TestEngine } from "../support/engine";

/**
 * The admin console's other half: every /api/admin route the engine serves — read from its own
 * OpenAPI document, so a route added later is checked too — refuses anyone but the administrator:
 * a user's token gets 1008, no token or a forged one 1009, and nothing is answered with data.
 */
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

describe("administrator API guard", () => {
  it("refuses every /api/admin route to users and to callers without a valid token", async () => {
    const admin = await t.adminToken();
    const user = await t.createUser("plainuser");
    const document = (await t.call("GET", "/api/openapi.json")).body.data as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith("/api/admin/"))
      .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, "1") })));
    // The users, groups, notices, settings and shares areas at least (docs/admin-api.md).
    expect(operations.length).toBeGreaterThanOrEqual(25);

    for (const { method, url } of operations) {
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      const asUser = await t.call(method, url, { token: user.token, body });
      expect({ method, url, code: asUser.body.code, data: asUser.body.data }).toEqual({ method, url, code: 1008, data: null });
      const anonymous = await t.call(method, url, { body });
      expect({ method, url, code: anonymous.body.code }).toEqual({ method, url, code: 1009 });
      const forged = await t.call(method, url, { token: `${admin.slice(0, -4)}AAAA`, body });
      expect({ method, url, code: forged.body.code }).toEqual({ method, url, code: 1009 });
    }
    // The user's own calls still work, and the administrator's token opens the admin API.
    expect((await t.call("GET", "/api/user/info", { token: user.token })).body.code).toBe(200);
    expect((await t.call("GET", "/api/admin/users", { token: admin })).body.code).toBe(200);
  });
});
