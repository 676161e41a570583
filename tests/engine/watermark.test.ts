import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { signLicence, TEST_LICENCE_PUBLIC_KEY } from "../support/licence";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";

/**
 * The watermark (docs/file-server.md, "Watermark"): over real HTTP, image previews and thumbnails
 * carry it where the setting puts it — the uploaded image, or the viewer's account and the time —
 * only while it is on in the enterprise edition; downloads stay the original bytes; images it
 * cannot be drawn on are refused (4382); the switch itself is refused outside enterprise (4381).
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type User = Awaited<ReturnType<TestEngine["createUser"]>>;
const RED: [number, number, number] = [200, 40, 40];
const W = 600;
const H = 400;

const solid = (width: number, height: number, format: "png" | "jpeg", rgb: [number, number, number]) =>
  sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .toFormat(format)
    .toBuffer();

let t: TestEngine;
let admin: string;
let alice: User;
let files: FileClient;
let original: Buffer;

async function put(rel: string, data: Uint8Array | string) {
  const space = await t.engine.services.spaces.open(alice.id, 0);
  const file = path.join(t.engine.services.spaces.root, space.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
}

async function fetchBytes(url: string) {
  const res = await fetch(t.fileUrl + url, { headers: { "accept-language": "en" } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

const preview = async (file: string) => fetchBytes((await files.ok("preview", { groupId: 0, path: file })).url);
const general = (body: Record<string, unknown>) => t.call("PATCH", "/api/admin/settings/general", { token: admin, body });

/** Pixels of an image (RGB), with its size. */
async function pixels(bytes: Buffer) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** How many pixels of each third (3 × 3 cells, 1 top left … 9 bottom right) differ from `rgb` by more than `tolerance`. */
async function changedCells(bytes: Buffer, rgb: [number, number, number], tolerance = 12): Promise<number[]> {
  const { data, width, height } = await pixels(bytes);
  const cells = Array.from({ length: 9 }, () => 0);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const off = Math.abs(data[i]! - rgb[0]) + Math.abs(data[i + 1]! - rgb[1]) + Math.abs(data[i + 2]! - rgb[2]);
      if (off > tolerance) cells[Math.min(2, Math.floor((3 * y) / height)) * 3 + Math.min(2, Math.floor((3 * x) / width))]! += 1;
    }
  }
  return cells;
}

beforeAll(async () => {
  t = await startTestEngine({ FERRY_PREVIEW: "on", FERRY_LICENSE_PUBLIC_KEY: TEST_LICENCE_PUBLIC_KEY, FERRY_TIME_ZONE: "UTC", ...SHARE_ENV });
  admin = await t.adminToken();
  alice = await t.createUser("alice", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, alice.socketToken);
  original = await solid(W, H, "png", RED);
  await put("/pics/red.png", original);
  await put("/pics/red.jpg", await solid(W, H, "jpeg", RED));
  await put("/pics/vector.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="red"/></svg>`);
});

afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("watermark", () => {
  it("is refused outside the enterprise edition (4381) and previews stay the file's bytes there", async () => {
    expect((await general({ watermark: true })).body.code).toBe(ErrorCode.WatermarkEnterprise);
    // Position and opacity are only where it would be drawn: they may be set in any edition.
    expect((await general({ watermarkPosition: 9, watermarkOpacity: 100 })).body.code).toBe(200);
    const { res, body } = await preview("/pics/red.png");
    expect(res.status).toBe(200);
    expect(body.equals(original)).toBe(true);
  });

  it("is off by default in the enterprise edition: previews and thumbnails unchanged", async () => {
    expect((await t.call("POST", "/api/admin/licence", { token: admin, body: { licence: signLicence({ edition: "enterprise" }) } })).body.code).toBe(200);
    expect((await t.call("GET", "/api/admin/settings/general", { token: admin })).body.data).toMatchObject({ watermark: false, watermarkPosition: 9, watermarkOpacity: 100 });
    expect((await preview("/pics/red.png")).body.equals(original)).toBe(true);
    const { url } = await files.ok("thumbnails", { groupId: 0, path: "/pics" });
    expect(await changedCells((await fetchBytes(`${url}red.png`)).body, RED)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("draws the uploaded image at its position on previews; the rest of the image is untouched", async () => {
    const mark = await solid(120, 120, "png", [20, 60, 220]);
    const upload = await fetch(`${t.url}/api/admin/site-design/watermark`, { method: "PUT", headers: { authorization: `Bearer ${admin}`, "content-type": "image/png" }, body: new Uint8Array(mark) });
    const uploaded = (await upload.json()) as { code: number; data: { assets: { watermark: { url: string; type: string } } } };
    expect(uploaded.code).toBe(200);
    expect(uploaded.data.assets.watermark).toMatchObject({ type: "png" });
    expect((await general({ watermark: true, watermarkPosition: 9, watermarkOpacity: 100 })).body.code).toBe(200);

    const { res, body } = await preview("/pics/red.png");
    expect(res.status, body.toString()).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toMatch(/^inline;/);
    expect(body.equals(original)).toBe(false);
    const meta = await sharp(body).metadata();
    expect([meta.width, meta.height]).toEqual([W, H]);
    // The mark is scaled to 30 % of the height (120 px here) and sits in the bottom-right cell, opaque blue.
    const { data } = await pixels(body);
    const at = (x: number, y: number) => [...data.subarray((y * W + x) * 3, (y * W + x) * 3 + 3)];
    expect(at(W - 30, H - 30)).toEqual([20, 60, 220]);
    expect(at(20, 20)).toEqual(RED);
    const cells = await changedCells(body, RED);
    expect(cells[8]).toBeGreaterThan(5000);
    expect(cells.slice(0, 8).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it("follows the position and opacity: top left, half transparent", async () => {
    expect((await general({ watermarkPosition: 1, watermarkOpacity: 50 })).body.code).toBe(200);
    const { body } = await preview("/pics/red.png");
    const { data } = await pixels(body);
    const [r, g, b] = [...data.subarray((30 * W + 30) * 3, (30 * W + 30) * 3 + 3)];
    // Half of blue (20, 60, 220) over red (200, 40, 40).
    expect(Math.abs(r! - 110)).toBeLessThanOrEqual(3);
    expect(Math.abs(g! - 50)).toBeLessThanOrEqual(3);
    expect(Math.abs(b! - 130)).toBeLessThanOrEqual(3);
    const cells = await changedCells(body, RED);
    expect(cells[0]).toBeGreaterThan(5000);
    expect(cells.slice(1).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it("without an image draws the viewer's account and the time, also on JPEG previews (still JPEG)", async () => {
    expect((await t.call("DELETE", "/api/admin/site-design/watermark", { token: admin })).body.code).toBe(200);
    expect((await general({ watermarkPosition: 9, watermarkOpacity: 100 })).body.code).toBe(200);
    const png = await changedCells((await preview("/pics/red.png")).body, RED);
    // A band along the bottom, from the right: the top two thirds are untouched.
    expect(png[8]).toBeGreaterThan(500);
    expect(png.slice(0, 6).reduce((a, b) => a + b, 0)).toBe(0);

    const { res, body } = await preview("/pics/red.jpg");
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    // JPEG blurs edges a little: count clear changes only.
    const jpg = await changedCells(body, RED, 60);
    expect(jpg[8]).toBeGreaterThan(300);
    expect(jpg.slice(0, 6).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it("is drawn on thumbnails, a share visitor's too", async () => {
    const { url } = await files.ok("thumbnails", { groupId: 0, path: "/pics" });
    const { res, body } = await fetchBytes(`${url}red.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    const cells = await changedCells(body, RED, 40);
    expect(cells[8]).toBeGreaterThan(50);
    expect(cells[0]).toBe(0);

    const link = await makeLink(t, alice.token, { shareFiles: ["/pics"] });
    const visitor = await connectVisitor(t.fileUrl, await shareTokenOf(t, link));
    try {
      const shared = await visitor.ok("thumbnails", { groupId: 0, path: "/pics" });
      const visited = await changedCells((await fetchBytes(`${shared.url}red.png`)).body, RED, 40);
      expect(visited[8]).toBeGreaterThan(50);
      expect(visited[0]).toBe(0);
    } finally {
      await visitor.close();
    }
  });

  it("leaves downloads as the original bytes", async () => {
    const { url } = await files.ok("download", { groupId: 0, paths: ["/pics/red.png"] });
    const { res, body } = await fetchBytes(url);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(body.equals(original)).toBe(true);
  });

  it("refuses to preview an image it cannot draw on (SVG) with 4382, at the command and at the URL", async () => {
    const refused = await files.cmd("preview", { groupId: 0, path: "/pics/vector.svg" });
    expect(refused.code).toBe(ErrorCode.WatermarkPreviewUnsupported);
    expect(refused.data).toEqual({ bytes: "30 MB", pixels: "50,000,000" });
    expect(refused.message).toContain("The watermark is on: only JPEG, PNG and GIF images up to 30 MB and 50,000,000 pixels can be previewed");
    // A URL issued before the watermark was switched on is refused when used.
    expect((await general({ watermark: false })).body.code).toBe(200);
    const { url } = await files.ok("preview", { groupId: 0, path: "/pics/vector.svg" });
    expect((await general({ watermark: true })).body.code).toBe(200);
    const { res } = await fetchBytes(url);
    expect(res.status).toBe(415);
  });

  it("is not drawn once the edition is no longer enterprise, though the switch stays stored", async () => {
    expect((await t.call("DELETE", "/api/admin/licence", { token: admin })).body.code).toBe(200);
    expect((await t.call("GET", "/api/admin/settings/general", { token: admin })).body.data).toMatchObject({ watermark: true });
    expect((await preview("/pics/red.png")).body.equals(original)).toBe(true);
  });
});
