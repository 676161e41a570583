import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestEngine, type TestEngine } from "../support/engine";

/**
 * URLs an administrator types (issue 12, docs/security.md section 5): the company links accept
 * only http: and https:, the desktop client's launch scheme only a custom scheme name. Refused
 * with the parameter error (400), and nothing is stored.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
const patch = (body: Record<string, unknown>) => t.call("PATCH", "/api/admin/settings/site", { token: admin, body });
const site = async () => (await t.call("GET", "/api/website/info")).body.data as { companyLink: string; companyLinkEN: string; urlName: string };

beforeAll(async () => {
  // The company links are site customisation: enterprise only (docs/licence.md, FERRY_EDITION override).
  t = await startTestEngine({ FERRY_EDITION: "enterprise" });
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

describe("site branding links", () => {
  it("accept empty, http: and https: addresses", async () => {
    for (const link of ["", "https://www.example.com", "http://intranet.corp:8080/about?x=1#top", "HTTPS://Example.COM/路径"]) {
      const reply = await patch({ companyLink: link, companyLinkEN: link });
      expect(reply.body.code, link).toBe(200);
      expect((await site()).companyLink).toBe(link);
    }
  });

  it("refuse script, data, file and every other scheme, and addresses that only look like http", async () => {
    await patch({ companyLink: "https://ok.example", companyLinkEN: "https://ok.example/en" });
    const bad = [
      "javascript:alert(1)",
      "JavaScript:alert(document.cookie)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "vbscript:msgbox(1)",
      "blob:https://example.com/x",
      "ftp://example.com",
      "//evil.example",
      "www.example.com",
      "https:evil.example",
      "http://",
      "https://exa mple.com",
      "https://example.com/\nSet-Cookie:x",
    ];
    for (const link of bad) {
      for (const field of ["companyLink", "companyLinkEN"]) {
        const reply = await patch({ [field]: link });
        expect(reply.body.code, `${field} ${JSON.stringify(link)}`).toBe(400);
      }
    }
    expect(await site()).toMatchObject({ companyLink: "https://ok.example", companyLinkEN: "https://ok.example/en" });
  });
});

describe("the desktop client's launch scheme (urlName)", () => {
  it("accepts a custom scheme name", async () => {
    for (const name of ["ferry", "raysync", "my-client+v2.app", "X1"]) {
      expect((await patch({ urlName: name })).body.code, name).toBe(200);
      expect((await site()).urlName).toBe(name);
    }
  });

  it("refuses web, script and file schemes and anything that is not a scheme name", async () => {
    await patch({ urlName: "ferry" });
    const bad = ["javascript", "JavaScript", "data", "file", "http", "HTTPS", "vbscript", "blob", "about", "", "1ferry", "fer ry", "ferry:", "ferry://x", "javascript:alert(1)//", "-ferry", "fërry", "a\nb"];
    for (const name of bad) expect((await patch({ urlName: name })).body.code, JSON.stringify(name)).toBe(400);
    expect((await site()).urlName).toBe("ferry");
  });

  it("a value stored before the rule tightened falls back to its default alone, keeping the rest", async () => {
    await patch({ productNameEN: "Acme Share", companyLink: "https://acme.example" });
    const k = t.engine.services.db.kysely;
    const row = await k.selectFrom("settings").select("value").where("key", "=", "site").executeTakeFirstOrThrow();
    const stored = { ...JSON.parse(row.value), companyLink: "javascript:alert(1)", urlName: "javascript" };
    await k.updateTable("settings").set({ value: JSON.stringify(stored) }).where("key", "=", "site").execute();
    const info = await t.call("GET", "/api/website/info");
    expect(info.body.data).toMatchObject({ companyLink: "", urlName: "ferry", raysyncEN: "Acme Share" });
  });
});
