import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import type { SiteDesign } from "../../contract/site-design";
import type { SiteInfo } from "../../contract/site";
import { startTestEngine, type TestEngine } from "../support/engine";
import { signLicence, TEST_LICENCE_PUBLIC_KEY } from "../support/licence";

/** Site design (docs/admin-api.md, "Site design"): the image checks of spec section 5, serving, and the enterprise gate. */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;

const image = (format: "png" | "jpeg" | "gif", width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 30 } } })
    .toFormat(format)
    .toBuffer();

/** An ICO file holding one PNG image; `sizeByte` is what the directory says (0 means 256). */
async function ico(width: number, height: number, sizeByte = width): Promise<Buffer> {
  const png = await image("png", width, height);
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(1, 4);
  head[6] = sizeByte % 256;
  head[7] = (sizeByte === width ? height : sizeByte) % 256;
  head.writeUInt16LE(1, 10);
  head.writeUInt16LE(32, 12);
  head.writeUInt32LE(png.length, 14);
  head.writeUInt32LE(22, 18);
  return Buffer.concat([head, png]);
}

async function put(asset: string, body: Buffer, token = admin, type = "application/octet-stream") {
  const res = await fetch(`${t.url}/api/admin/site-design/${asset}`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": type }, body: new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as { code: number; message: string; data: SiteDesign | null } };
}
const info = async () => (await t.call<SiteInfo>("GET", "/api/website/info")).body.data!;

beforeAll(async () => {
  t = await startTestEngine({ FERRY_LICENSE_PUBLIC_KEY: TEST_LICENCE_PUBLIC_KEY });
  admin = await t.adminToken();
  expect((await t.call("POST", "/api/admin/licence", { token: admin, body: { licence: signLicence({ edition: "enterprise" }) } })).body.code).toBe(200);
});
afterAll(() => t?.stop());

describe("site design images", () => {
  it("accepts each image at its limit and serves it back byte-identical with its type", async () => {
    const cases: Array<[string, Buffer, string]> = [
      ["icon", await image("png", 64, 64), "image/png"],
      ["icon", await ico(64, 64), "image/x-icon"],
      ["logo", await image("png", 160, 70), "image/png"],
      ["logo", await image("gif", 160, 70), "image/gif"],
      ["logo", await image("jpeg", 160, 70), "image/jpeg"],
      ["background", await image("png", 1920, 1080), "image/png"],
      ["background", await image("jpeg", 1920, 1080), "image/jpeg"],
    ];
    for (const [asset, bytes, type] of cases) {
      const reply = await put(asset, bytes, admin, type === "image/x-icon" ? "image/vnd.microsoft.icon" : type);
      expect(reply.body.code, `${asset} ${type}`).toBe(200);
      const stored = reply.body.data!.assets[asset as "icon"]!;
      const res = await fetch(t.url + stored.url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toContain("immutable");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    const site = await info();
    expect(site).toMatchObject({ is_icon_change: 1, is_logo_change: 1, is_bg_change: 1 });
    expect(site.logo).toMatch(/^\/customize\/logo-[0-9a-f]{16}\.jpg$/);
    expect(site.background).toMatch(/^\/customize\/background-[0-9a-f]{16}\.jpg$/);
    expect(site.ico).toMatch(/^\/customize\/icon-[0-9a-f]{16}\.ico$/);
  });

  it("refuses an image above its pixel limit, of a wrong type, not an image, corrupt or too large, and keeps the stored one", async () => {
    const before = await info();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    const png = await image("png", 100, 50);
    const cases: Array<[string, Buffer, number]> = [
      ["icon", await image("png", 65, 64), ErrorCode.ImageDimensionsTooLarge],
      ["icon", await ico(64, 64, 0), ErrorCode.ImageDimensionsTooLarge],
      ["icon", await image("jpeg", 32, 32), ErrorCode.ImageTypeRefused],
      ["logo", await image("png", 161, 70), ErrorCode.ImageDimensionsTooLarge],
      ["logo", await image("gif", 160, 71), ErrorCode.ImageDimensionsTooLarge],
      ["logo", await ico(32, 32), ErrorCode.ImageTypeRefused],
      ["logo", svg, ErrorCode.ImageTypeRefused],
      ["logo", Buffer.from("just some text, not an image at all"), ErrorCode.ImageTypeRefused],
      ["logo", png.subarray(0, png.length - 20), ErrorCode.ImageTypeRefused],
      ["background", await image("jpeg", 1921, 1080), ErrorCode.ImageDimensionsTooLarge],
      ["background", await image("png", 1920, 1081), ErrorCode.ImageDimensionsTooLarge],
      ["background", await image("gif", 100, 100), ErrorCode.ImageTypeRefused],
      ["icon", Buffer.alloc(256 * 1024 + 1), ErrorCode.ImageFileTooLarge],
      ["logo", Buffer.alloc(1024 * 1024 + 1), ErrorCode.ImageFileTooLarge],
    ];
    for (const [asset, bytes, code] of cases) {
      const reply = await put(asset, bytes);
      expect(reply.body.code, `${asset} ${bytes.length}`).toBe(code);
    }
    expect((await put("icon", await image("png", 65, 64))).body.message).toBe("The image is 65×64 pixels; at most 64×64 is allowed");
    // Far over the cap: refused before the body is read.
    const huge = await put("background", Buffer.alloc(9 * 1024 * 1024));
    expect(huge).toMatchObject({ status: 413, body: { code: ErrorCode.ImageFileTooLarge } });
    expect((await put("logo", svg, admin, "application/json")).body.code).not.toBe(200);
    expect(await info()).toEqual(before);
  });

  it("answers only the administrator, and serves only stored image names", async () => {
    const user = await t.createUser("designer");
    expect((await put("logo", await image("png", 10, 10), user.token)).body.code).toBe(ErrorCode.PermissionDenied);
    expect((await put("logo", await image("png", 10, 10), "nonsense")).body.code).toBe(ErrorCode.InvalidToken);
    expect((await t.call("PATCH", "/api/admin/site-design", { token: user.token, body: { position: 2 } })).body.code).toBe(ErrorCode.PermissionDenied);
    for (const name of ["..%2Fferry.db", "logo.png", "logo-0123456789abcdef.svg", "logo-0123456789abcdef.png"]) {
      expect((await fetch(`${t.url}/customize/${name}`)).status, name).toBe(404);
    }
  });

  it("changes and resets the branding fields, with valid values only", async () => {
    const changed = await t.call<SiteDesign>("PATCH", "/api/admin/site-design", { token: admin, body: { position: 7, opacity: 80, primaryColor: "#0066CC", productNameEN: "Acme", companyLink: "https://acme.example" } });
    expect(changed.body.data!.fields).toMatchObject({ position: 7, opacity: 80, primaryColor: "#0066CC", productNameEN: "Acme" });
    expect(await info()).toMatchObject({ position: 7, opacity: 80, primaryColor: "#0066CC", raysyncEN: "Acme", companyLink: "https://acme.example" });
    for (const body of [{ position: 0 }, { opacity: 10 }, { primaryColor: "red" }, { companyLink: "javascript:alert(1)" }, { urlName: "x" }]) {
      expect((await t.call("PATCH", "/api/admin/site-design", { token: admin, body })).body.code, JSON.stringify(body)).toBe(ErrorCode.ParameterError);
    }
    const reset = await t.call<SiteDesign>("POST", "/api/admin/site-design/reset", { token: admin });
    expect(reset.body.data).toMatchObject({ fields: { position: 5, opacity: 100, primaryColor: "#FD5C1F", productNameEN: "Ferry" }, assets: { icon: null, logo: null, background: null } });
    expect(await info()).toMatchObject({ position: 5, is_logo_change: 0, logo: "", is_bg_change: 0, is_icon_change: 0 });
  });

  it("outside the enterprise edition: every change refused with 4460, the site shows the defaults and the images are not served", async () => {
    const logo = await put("logo", await image("png", 120, 40));
    await t.call("PATCH", "/api/admin/site-design", { token: admin, body: { position: 1 } });
    const url = logo.body.data!.assets.logo!.url;
    expect((await fetch(t.url + url)).status).toBe(200);

    await t.call("DELETE", "/api/admin/licence", { token: admin });
    expect((await put("logo", await image("png", 120, 40))).body.code).toBe(ErrorCode.SiteDesignEnterprise);
    expect((await t.call("PATCH", "/api/admin/site-design", { token: admin, body: { position: 2 } })).body.code).toBe(ErrorCode.SiteDesignEnterprise);
    expect((await t.call("DELETE", "/api/admin/site-design/logo", { token: admin })).body.code).toBe(ErrorCode.SiteDesignEnterprise);
    expect((await t.call("POST", "/api/admin/site-design/reset", { token: admin })).body.code).toBe(ErrorCode.SiteDesignEnterprise);
    expect((await t.call<SiteDesign>("GET", "/api/admin/site-design", { token: admin })).body.data).toMatchObject({ allowed: false, edition: "free" });
    expect(await info()).toMatchObject({ position: 5, is_logo_change: 0, logo: "" });
    expect((await fetch(t.url + url)).status).toBe(404);

    // The licence back: what was set comes back with it.
    await t.call("POST", "/api/admin/licence", { token: admin, body: { licence: signLicence({ edition: "enterprise" }) } });
    expect(await info()).toMatchObject({ position: 1, is_logo_change: 1, logo: url });
  });
});
