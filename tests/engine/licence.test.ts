import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import type { LicenceState } from "../../contract/licence";
import type { DashboardLicense } from "../../contract/dashboard";
import { PERMISSION_DEFAULT } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { otherKey, signLicence, TEST_LICENCE_PUBLIC_KEY } from "../support/licence";

/** Licences (docs/licence.md): verification, and the edition's gates following the licence live. */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
let user: { token: string; socketToken: string };
const open: FileClient[] = [];
const DAY = 24 * 3600;
const nowSeconds = () => Math.floor(t.clock.now() / 1000);

const state = async () => (await t.call<LicenceState>("GET", "/api/admin/licence", { token: admin })).body.data!;
const upload = (licence: string) => t.call<LicenceState>("POST", "/api/admin/licence", { token: admin, body: { licence } });
const remove = () => t.call<LicenceState>("DELETE", "/api/admin/licence", { token: admin });

async function desktop(): Promise<number> {
  const client = await connectFiles(t.fileUrl, null);
  open.push(client);
  return (await client.cmd("login", { token: user.socketToken, client: { version: "3.2.1" } })).code;
}

beforeAll(async () => {
  // FERRY_EDITION unset: without a licence the engine is the free edition.
  t = await startTestEngine({ FERRY_LICENSE_PUBLIC_KEY: TEST_LICENCE_PUBLIC_KEY });
  admin = await t.adminToken();
  user = await t.createUser("licensed", { permission: PERMISSION_DEFAULT });
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await t?.stop();
});

describe("licence verification", () => {
  it("runs as the free edition without a licence, and says so", async () => {
    expect(await state()).toMatchObject({ edition: "free", source: "default", status: "inactivated", licence: null, problem: null, clientLimit: 3, userLimit: null, siteDesign: false, preview: false });
    expect((await t.call<DashboardLicense>("GET", "/api/admin/dashboard/license", { token: admin })).body.data).toMatchObject({ status: "inactivated", edition: "free", source: "default", activationDate: null });
  });

  it("refuses a tampered licence, one signed with another key, an expired one and garbage with 1093/1092, and changes nothing", async () => {
    const good = JSON.parse(signLicence({ edition: "enterprise" })) as { payload: string; signature: string };
    const payload = JSON.parse(Buffer.from(good.payload, "base64").toString()) as Record<string, unknown>;
    const tampered = JSON.stringify({ ...good, payload: Buffer.from(JSON.stringify({ ...payload, userLimit: null, licensee: "Someone else" })).toString("base64") });
    const cases: Array<[string, number]> = [
      [tampered, ErrorCode.LicenseInvalid],
      [signLicence({ edition: "enterprise" }, otherKey()), ErrorCode.LicenseInvalid],
      [signLicence({ edition: "enterprise", expiresAt: nowSeconds() - 1 }), ErrorCode.LicenseExpired],
      ["not a licence", ErrorCode.LicenseInvalid],
      [JSON.stringify({ payload: good.payload, signature: "" }), ErrorCode.LicenseInvalid],
      [JSON.stringify({ ...good, signature: Buffer.alloc(64).toString("base64") }), ErrorCode.LicenseInvalid],
    ];
    for (const [text, code] of cases) {
      const reply = await upload(text);
      expect(reply.body.code, text.slice(0, 40)).toBe(code);
    }
    expect((await upload("x".repeat(17 * 1024))).body.code).toBe(ErrorCode.ParameterError);
    expect(await state()).toMatchObject({ edition: "free", source: "default", licence: null });
    // Only the administrator manages the licence.
    expect((await t.call("POST", "/api/admin/licence", { token: user.token, body: { licence: signLicence() } })).body.code).toBe(ErrorCode.PermissionDenied);
  });

  it("a good licence takes effect at once: a 4th desktop client, previews and site design; removing it takes them away again", async () => {
    expect([await desktop(), await desktop(), await desktop()]).toEqual([200, 200, 200]);
    expect(await desktop()).toBe(ErrorCode.FreeVersionClientLimit);
    const files = await connectFiles(t.fileUrl, user.socketToken);
    open.push(files);
    expect((await files.cmd("preview", { groupId: 0, path: "/a.png" })).code).toBe(ErrorCode.FeatureNotSupported);
    expect((await t.call("PATCH", "/api/admin/site-design", { token: admin, body: { position: 3 } })).body.code).toBe(ErrorCode.SiteDesignEnterprise);

    const activated = await upload(signLicence({ edition: "enterprise", licensee: "Acme", expiresAt: nowSeconds() + 30 * DAY }));
    expect(activated.body.code).toBe(200);
    expect(activated.body.data).toMatchObject({ edition: "enterprise", source: "licence", status: "activated", clientLimit: null, siteDesign: true, preview: true, licence: { licensee: "Acme" } });
    expect((await t.call<DashboardLicense>("GET", "/api/admin/dashboard/license", { token: admin })).body.data).toMatchObject({ status: "activated", edition: "enterprise", source: "licence", licensee: "Acme", expiryDate: nowSeconds() + 30 * DAY });
    expect((await t.call<{ soft_version: string }>("GET", "/api/website/info")).body.data!.soft_version).toBe("enterprise");
    expect(await desktop()).toBe(200);
    // The preview is no longer refused for the edition (the file does not exist, so it fails further on).
    expect((await files.cmd("preview", { groupId: 0, path: "/a.png" })).code).not.toBe(ErrorCode.FeatureNotSupported);
    expect((await t.call("PATCH", "/api/admin/site-design", { token: admin, body: { position: 3 } })).body.code).toBe(200);
    expect((await t.call<{ position: number }>("GET", "/api/website/info")).body.data!.position).toBe(3);

    expect((await remove()).body.data).toMatchObject({ edition: "free", source: "default", status: "inactivated", licence: null });
    expect(await desktop()).toBe(ErrorCode.FreeVersionClientLimit);
    expect((await files.cmd("preview", { groupId: 0, path: "/a.png" })).code).toBe(ErrorCode.FeatureNotSupported);
    // The stored design stays, but the site shows the defaults outside the enterprise edition.
    expect((await t.call<{ position: number }>("GET", "/api/website/info")).body.data!.position).toBe(5);
    expect((await t.call("PATCH", "/api/admin/settings/site", { token: admin, body: { primaryColor: "#000000" } })).body.code).toBe(ErrorCode.SiteDesignEnterprise);
    // Not site customisation: still allowed.
    expect((await t.call("PATCH", "/api/admin/settings/site", { token: admin, body: { clientText: "hello" } })).body.code).toBe(200);
  });

  it("a licence that expires while the engine runs drops it to free, with 1092 as the reason", async () => {
    await upload(signLicence({ edition: "pro", expiresAt: nowSeconds() + DAY }));
    expect(await state()).toMatchObject({ edition: "pro", status: "activated", clientLimit: null });
    t.clock.advance((DAY + 1) * 1000);
    admin = await t.adminToken();
    const after = await state();
    expect(after).toMatchObject({ edition: "free", source: "default", status: "inactivated", clientLimit: 3, problem: { code: 1092 }, licence: { edition: "pro" } });
    expect((await t.call<DashboardLicense>("GET", "/api/admin/dashboard/license", { token: admin })).body.data).toMatchObject({ status: "inactivated", edition: "free", problem: { code: 1092 } });
    await remove();
  });

  it("refuses account creation past the licence's user limit with 4464", async () => {
    const count = (await state()).userCount;
    await upload(signLicence({ edition: "smb", userLimit: count + 1 }));
    await t.createUser("lastseat");
    const refused = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "oneover", password: "Str0ng#Pass", needUpdatePwd: false } });
    expect(refused.body.code).toBe(ErrorCode.UserLimitReached);
    expect(refused.body.message).toContain(String(count + 1));
    await remove();
    // Without a licence there is no user limit.
    expect((await t.call("POST", "/api/admin/users", { token: admin, body: { account: "oneover", password: "Str0ng#Pass", needUpdatePwd: false } })).body.code).toBe(200);
  });

  it("gives the last seat to exactly one of several creations sent at once; the rest get 4464", async () => {
    const count = (await state()).userCount;
    await upload(signLicence({ edition: "smb", userLimit: count + 2 }));
    try {
      await t.createUser("seat_one");
      // Eight creations race for the one seat left: count, hash the password, insert.
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.call("POST", "/api/admin/users", { token: admin, body: { account: `racer_${i}`, password: "Str0ng#Pass", needUpdatePwd: false } })),
      );
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([200, ...Array<number>(7).fill(ErrorCode.UserLimitReached)]);
      expect((await state()).userCount).toBe(count + 2);
    } finally {
      await remove();
    }
  });
});

describe("FERRY_EDITION without a licence", () => {
  it("is an unlicensed override the state and the dashboard name as such", async () => {
    const e = await startTestEngine({ FERRY_EDITION: "pro" });
    try {
      const token = await e.adminToken();
      expect((await e.call<LicenceState>("GET", "/api/admin/licence", { token })).body.data).toMatchObject({ edition: "pro", source: "environment", status: "inactivated" });
      // Without FERRY_LICENSE_PUBLIC_KEY, the test key is not trusted: only the built-in key is.
      expect((await e.call("POST", "/api/admin/licence", { token, body: { licence: signLicence() } })).body.code).toBe(ErrorCode.LicenseInvalid);
    } finally {
      await e.stop();
    }
  });
});
