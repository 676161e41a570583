import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteInfo } from "../../contract/site";
import { startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_EDITION: "enterprise" });
});
afterAll(() => t?.stop());

describe("site and server information", () => {
  it("gives every site-info field with the spec's defaults, without a token", async () => {
    const reply = await t.call("GET", "/api/website/info");
    expect(reply.body.code).toBe(200);
    expect(siteInfo.strict().safeParse(reply.body.data).success).toBe(true);
    expect(reply.body.data).toMatchObject({
      primaryColor: "#FD5C1F",
      backgroundColor: "#F7F7F7",
      position: 5,
      soft_version: "enterprise",
      raysyncZH: "飞渡",
      raysyncEN: "Ferry",
    });
  });

  it("lets the administrator change the branding, and only the administrator, with valid values", async () => {
    const admin = await t.adminToken();
    const changed = await t.call("PATCH", "/api/admin/settings/site", { token: admin, body: { position: 1, primaryColor: "#0066CC", productNameEN: "Acme Share" } });
    expect(changed.body.data).toMatchObject({ position: 1, primaryColor: "#0066CC", productNameEN: "Acme Share", productNameZH: "飞渡" });
    expect((await t.call("GET", "/api/website/info")).body.data).toMatchObject({ position: 1, primaryColor: "#0066CC", raysyncEN: "Acme Share" });
    for (const body of [{ position: 10 }, { primaryColor: "orange" }, { productNameEN: "" }, { logo: "x" }]) {
      expect((await t.call("PATCH", "/api/admin/settings/site", { token: admin, body })).body.code).toBe(400);
    }
    const user = await t.createUser("brander");
    expect((await t.call("PATCH", "/api/admin/settings/site", { token: user.token, body: { position: 9 } })).body.code).toBe(1008);
    await t.call("PATCH", "/api/admin/settings/site", { token: admin, body: { position: 5, primaryColor: "#FD5C1F", productNameEN: "Ferry" } });
    expect((await t.call("GET", "/api/website/info")).body.data).toMatchObject({ position: 5, raysyncEN: "Ferry" });
  });

  it("gives the server info to signed-in users only, with the size limit in KB", async () => {
    expect((await t.call("GET", "/api/service/info")).body.code).toBe(1009);
    const user = await t.createUser("viewer");
    const server = (await t.call("GET", "/api/service/info", { token: user.token })).body.data.server;
    // The test engine's file server listens on an ephemeral port: the info reports the one in use.
    expect(server).toMatchObject({ no_ssl_port: Number(new URL(t.fileUrl).port), ssl_port: 2481, TCPFileSizeLimit: 100 * 1024 * 1024, host: "", cHashVerifySwitch: true });
    // The test engine's API listens on an ephemeral port too: the info reports the one in use.
    expect(server.apiport).toBe(Number(new URL(t.url).port));
  });

  it("lets the administrator change the file-server limits that /api/service/info reports", async () => {
    const admin = await t.adminToken();
    const changed = await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 2048, syncSwitch: true } });
    expect(changed.body.data).toMatchObject({ tcpFileSizeLimitKB: 2048, syncSwitch: true, cHashVerifySwitch: true });
    const user = await t.createUser("limited");
    expect((await t.call("GET", "/api/service/info", { token: user.token })).body.data.server).toMatchObject({ TCPFileSizeLimit: 2048, syncSwitch: true });
    for (const [body, code] of [[{ tcpFileSizeLimitKB: 0 }, 400], [{ tcpFileSizeLimitKB: "big" }, 402], [{ unknown: 1 }, 400]] as const) {
      expect((await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body })).body.code).toBe(code);
    }
    expect((await t.call("PATCH", "/api/admin/settings/transfer", { token: user.token, body: { syncSwitch: false } })).body.code).toBe(1008);
    expect((await t.call("GET", "/api/admin/settings/transfer", { token: admin })).body.data).toMatchObject({ tcpFileSizeLimitKB: 2048 });
    await t.call("PATCH", "/api/admin/settings/transfer", { token: admin, body: { tcpFileSizeLimitKB: 100 * 1024 * 1024, syncSwitch: false } });
  });

  it("reports health", async () => {
    const reply = await t.call("GET", "/api/health");
    expect(reply.body.data).toMatchObject({ status: "ok", database: t.databaseUrl.split(":")[0] === "sqlite" ? "sqlite" : expect.any(String) });
  });

  it("serves the OpenAPI document that docs/openapi.json holds", async () => {
    const served = (await t.call("GET", "/api/openapi.json")).body.data;
    const file = JSON.parse(await readFile(new URL("../../docs/openapi.json", import.meta.url), "utf8"));
    // The document names the addresses this engine serves; the file names the default ones (8090, file server 2480).
    expect(served.servers).toEqual([{ url: t.url }]);
    const fileServerPaths = Object.keys(file.paths).filter((p) => !p.startsWith("/api/"));
    expect(fileServerPaths).toEqual(expect.arrayContaining(["/uploads/", "/uploads/{id}", "/uploads/batch"]));
    for (const p of fileServerPaths) {
      expect(served.paths[p].servers, p).toEqual([{ url: t.fileUrl, description: expect.any(String) }]);
      served.paths[p].servers = file.paths[p].servers;
    }
    expect({ ...served, servers: file.servers }).toEqual(file);
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(["/api/user/login", "/api/notice/list", "/api/admin/users/{id}"]));
  });

  it("sends no-store and nosniff on API answers, and the envelope on unknown paths", async () => {
    const reply = await t.call("GET", "/api/nothing/here");
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 4103, result: false });
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });
});
