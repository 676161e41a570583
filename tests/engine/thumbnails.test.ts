import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";

/**
 * Thumbnails (docs/file-server.md, "Thumbnails"): the `thumbnails` command's signed folder URL, the
 * small WebP it serves for raster images, its refusals (SVG, other people's files, no Download,
 * preview off, too large), the cache under the data directory, and share visitors.
 */

type User = Awaited<ReturnType<TestEngine["createUser"]>>;

/** A real image made by sharp: a solid colour, in `format`. */
const image = (width: number, height: number, format: "png" | "jpeg" | "webp" | "gif", rgb: [number, number, number] = [200, 40, 40]) =>
  sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .toFormat(format)
    .toBuffer();

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><script>alert(1)</script><rect width="300" height="300" fill="red"/></svg>`;

let t: TestEngine;
let alice: User;
let bob: User;
let carol: User;
let aliceFiles: FileClient;
let bobFiles: FileClient;
let carolFiles: FileClient;
let groupId: number;

async function put(userId: number, rel: string, data: Uint8Array | string, group = 0) {
  const space = await t.engine.services.spaces.open(userId, group);
  const file = path.join(t.engine.services.spaces.root, space.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
}

async function get(url: string) {
  const res = await fetch(t.fileUrl + url, { headers: { "accept-language": "en" } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** Every file of the thumbnail cache. */
async function cacheFiles(): Promise<string[]> {
  const dir = path.join(t.dataDir, "thumbnails");
  const found: string[] = [];
  for (const folder of await readdir(dir).catch(() => [])) for (const name of await readdir(path.join(dir, folder))) found.push(path.join(dir, folder, name));
  return found;
}

beforeAll(async () => {
  t = await startTestEngine({ FERRY_PREVIEW: "on", FERRY_THUMBNAIL_MAX_PIXELS: "1000000", FERRY_THUMBNAIL_MAX_BYTES: "204800", ...SHARE_ENV });
  alice = await t.createUser("alice", { permission: PERMISSION_FULL });
  bob = await t.createUser("bob", { permission: PERMISSION_FULL });
  carol = await t.createUser("carol", { permission: PERMISSION_FULL & ~Permission.Download });
  const admin = await t.adminToken();
  groupId = (await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "pics" } })).body.data.id as number;
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${alice.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${bob.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL & ~Permission.Download } });
  aliceFiles = await connectFiles(t.fileUrl, alice.socketToken);
  bobFiles = await connectFiles(t.fileUrl, bob.socketToken);
  carolFiles = await connectFiles(t.fileUrl, carol.socketToken);
  await put(alice.id, "/photos/red.png", await image(900, 600, "png"));
  await put(alice.id, "/photos/blue.jpg", await image(400, 800, "jpeg", [20, 40, 220]));
  await put(alice.id, "/photos/green.webp", await image(300, 300, "webp", [20, 200, 40]));
  await put(alice.id, "/photos/one.gif", await image(120, 80, "gif"));
  await put(alice.id, "/photos/evil.svg", SVG);
  await put(alice.id, "/photos/svg-in-disguise.png", SVG);
  await put(alice.id, "/photos/notes.txt", "not an image");
  await put(alice.id, "/photos/huge.png", await image(1200, 1000, "png"));
  await put(alice.id, "/photos/heavy.png", randomBytes(300 * 1024));
  await put(alice.id, "/team.png", await image(500, 500, "png"), groupId);
  await put(bob.id, "/mine.png", await image(50, 50, "png"));
});

afterAll(async () => {
  await Promise.all([aliceFiles?.close(), bobFiles?.close(), carolFiles?.close()]);
  await t?.stop();
});

describe("thumbnails of a signed-in user's images", () => {
  it("serves a small WebP within a 256-pixel box for PNG, JPEG, WebP and GIF", async () => {
    const { url } = await aliceFiles.ok("thumbnails", { groupId: 0, path: "/photos" });
    expect(url).toMatch(/^\/thumbnail\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\/$/);
    const sizes: Record<string, [number, number]> = { "red.png": [256, 171], "blue.jpg": [128, 256], "green.webp": [256, 256], "one.gif": [120, 80] };
    for (const [name, [width, height]] of Object.entries(sizes)) {
      const { res, body } = await get(url + encodeURIComponent(name));
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/webp");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const meta = await sharp(body).metadata();
      expect({ name, format: meta.format, width: meta.width, height: meta.height }).toEqual({ name, format: "webp", width, height });
      expect(body.length).toBeLessThan(10_000);
    }
  });

  it("works in a group space where the member holds Download", async () => {
    const { url } = await aliceFiles.ok("thumbnails", { groupId, path: "/" });
    const { res, body } = await get(`${url}team.png`);
    expect(res.status).toBe(200);
    expect((await sharp(body).metadata()).width).toBe(256);
  });

  it("never renders SVG, even named .png, nor what is not an image", async () => {
    const { url } = await aliceFiles.ok("thumbnails", { groupId: 0, path: "/photos" });
    for (const name of ["evil.svg", "svg-in-disguise.png", "notes.txt"]) {
      const { res, body } = await get(url + encodeURIComponent(name));
      expect({ name, status: res.status, code: res.headers.get("x-ferry-code") }).toEqual({ name, status: 415, code: String(ErrorCode.PreviewUnsupported) });
      expect(body.toString()).toBe("Preview is not supported for this file\n");
    }
  });

  it("refuses images over the pixel or byte limit with 4300", async () => {
    const { url } = await aliceFiles.ok("thumbnails", { groupId: 0, path: "/photos" });
    for (const name of ["huge.png", "heavy.png"]) {
      const { res, body } = await get(url + name);
      expect({ name, status: res.status, code: res.headers.get("x-ferry-code") }).toEqual({ name, status: 413, code: String(ErrorCode.ThumbnailTooLarge) });
      expect(body.toString()).toContain("too large for a thumbnail");
    }
  });

  it("refuses other people's files, paths out of the folder, forged tickets and users without Download", async () => {
    // Bob's ticket names Bob's folder: Alice's file name there is simply not found.
    const bobs = await bobFiles.ok("thumbnails", { groupId: 0, path: "/" });
    expect((await get(`${bobs.url}mine.png`)).res.status).toBe(200);
    expect((await get(`${bobs.url}photos%2Fred.png`)).res.status).toBe(404);
    expect((await get(`${bobs.url}..%2Fusers`)).res.status).toBe(404);
    expect((await get(`${bobs.url}red.png`)).res.status).toBe(404);
    const alices = await aliceFiles.ok("thumbnails", { groupId: 0, path: "/photos" });
    const forged = alices.url.replace(/\.([A-Za-z0-9_-])/, (_m, c: string) => `.${c === "A" ? "B" : "A"}`);
    expect((await get(`${forged}red.png`)).res.status).toBe(403);
    // No Download bit: no thumbnails, personally or in a group.
    expect((await carolFiles.cmd("thumbnails", { groupId: 0, path: "/" })).code).toBe(ErrorCode.PermissionDenied);
    expect((await bobFiles.cmd("thumbnails", { groupId, path: "/" })).code).toBe(ErrorCode.PermissionDenied);
    expect((await aliceFiles.cmd("thumbnails", { groupId: 0, path: "/photos/red.png" })).code).toBe(ErrorCode.PathIsFile);
  });

  it("stops working once the sign-in ends", async () => {
    const signedIn = await t.login("bob", bob.password);
    const files = await connectFiles(t.fileUrl, signedIn.body.data.websocket_token as string);
    const { url } = await files.ok("thumbnails", { groupId: 0, path: "/" });
    expect((await get(`${url}mine.png`)).res.status).toBe(200);
    expect((await t.call("POST", "/api/user/logout", { token: signedIn.body.data.token as string })).body.code).toBe(200);
    expect((await get(`${url}mine.png`)).res.status).toBe(403);
    await files.close();
  });
});

describe("the thumbnail cache", () => {
  it("is reused while the file is unchanged and replaced when it changes", async () => {
    await put(alice.id, "/cache/pic.png", await image(600, 600, "png", [250, 0, 0]));
    const { url } = await aliceFiles.ok("thumbnails", { groupId: 0, path: "/cache" });
    const before = new Set(await cacheFiles());
    const first = await get(`${url}pic.png`);
    expect(first.res.status).toBe(200);
    const added = (await cacheFiles()).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    expect(await readFile(added[0]!)).toEqual(first.body);

    // A marker in place of the cached thumbnail: the next request is answered from the cache.
    const marker = await sharp({ create: { width: 7, height: 7, channels: 3, background: "#00ff00" } }).webp().toBuffer();
    await writeFile(added[0]!, marker);
    expect((await get(`${url}pic.png`)).body).toEqual(marker);

    // The file changes (new size and time): a new thumbnail, and the old entry is gone.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await put(alice.id, "/cache/pic.png", await image(300, 150, "png", [0, 0, 250]));
    const changed = await get(`${url}pic.png`);
    const meta = await sharp(changed.body).metadata();
    expect([meta.width, meta.height]).toEqual([256, 128]);
    const now = (await cacheFiles()).filter((f) => !before.has(f));
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(added[0]);
  });
});

describe("share visitors", () => {
  it("get thumbnails from a download link that allows downloads, and nothing outside it", async () => {
    const link = await makeLink(t, alice.token, { shareFiles: ["/photos"] });
    const visitor = await connectVisitor(t.fileUrl, await shareTokenOf(t, link));
    const { url } = await visitor.ok("thumbnails", { groupId: 0, path: "/photos" });
    const { res, body } = await get(`${url}red.png`);
    expect(res.status).toBe(200);
    expect((await sharp(body).metadata()).width).toBe(256);
    expect((await get(`${url}evil.svg`)).res.status).toBe(415);
    // The share's root holds the shared folder, not files of the owner's home.
    const root = await visitor.ok("thumbnails", { groupId: 0, path: "/" });
    expect((await get(`${root.url}photos`)).res.status).toBe(404);
    expect((await visitor.cmd("thumbnails", { groupId: 0, path: "/cache" })).code).toBe(ErrorCode.PathNotFound);
    await visitor.close();
  });

  it("get none when the link does not allow downloads", async () => {
    const link = await makeLink(t, alice.token, { shareFiles: ["/photos"], shareAllowDownload: 0 });
    const visitor = await connectVisitor(t.fileUrl, await shareTokenOf(t, link));
    expect((await visitor.cmd("thumbnails", { groupId: 0, path: "/photos" })).code).toBe(ErrorCode.DownloadRestricted);
    await visitor.close();
  });
});

describe("with preview off", () => {
  it("refuses thumbnails as it refuses preview (4109)", async () => {
    const off = await startTestEngine({ FERRY_PREVIEW: "off" });
    try {
      const user = await off.createUser("dave", { permission: PERMISSION_FULL });
      const files = await connectFiles(off.fileUrl, user.socketToken);
      expect((await files.cmd("thumbnails", { groupId: 0, path: "/" })).code).toBe(ErrorCode.FeatureNotSupported);
      await files.close();
    } finally {
      await off.stop();
    }
  });
});
