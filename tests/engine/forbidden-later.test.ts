import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, downloadShared, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";
import { zipNames } from "../support/zip-listing";

/**
 * A path forbidden (admin API, `forbiddenPaths`) after something was handed out for it: every
 * check is made again at use, so a thumbnail URL, a zip or ranged-download URL, a share link and an
 * upload in progress issued before reach nothing of it afterwards (docs/admin-api.md, "Forbidden
 * paths and virtual directories"), while the rest of what they name still works.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let user: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;
let home: string;

const forbid = async (paths: string[]) =>
  expect((await t.call("PATCH", `/api/admin/users/${user.id}`, { token: await t.adminToken(), body: { forbiddenPaths: paths } })).body.code).toBe(200);

async function zipListing(res: Response): Promise<string[]> {
  expect(res.status).toBe(200);
  return zipNames(Buffer.from(await res.arrayBuffer()));
}

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_PREVIEW: "on" });
  user = await t.createUser("later", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "later");
  const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 200, g: 0, b: 0 } } }).png().toBuffer();
  await writeTree(home, {
    "pics/open.png": png,
    "pics/hidden.png": png,
    "mixed/open.txt": "open",
    "mixed/secret/a.txt": "0123456789 secret",
    "drop/keep.txt": "keep",
  });
  files = await connectFiles(t.fileUrl, user.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("a path forbidden after it was handed out", () => {
  it("is refused by thumbnail, zip and ranged-download URLs issued before; the rest still comes", async () => {
    await forbid([]);
    const { url: thumbs } = await files.ok("thumbnails", { groupId: 0, path: "/pics" });
    const { url: zip } = await files.ok("download", { groupId: 0, paths: ["/mixed"] });
    const { url: ranged } = await files.ok("download", { groupId: 0, paths: ["/mixed/secret/a.txt"] });
    expect((await fetch(t.fileUrl + ranged, { headers: { range: "bytes=0-3" } })).status).toBe(206);

    await forbid(["/pics/hidden.png", "/mixed/secret"]);
    expect((await fetch(t.fileUrl + thumbs + "hidden.png")).status).toBe(403);
    expect((await fetch(t.fileUrl + thumbs + "open.png")).status).toBe(200);
    expect(await zipListing(await fetch(t.fileUrl + zip))).toEqual(["mixed/", "mixed/open.txt"]);
    const refused = await fetch(t.fileUrl + ranged, { headers: { range: "bytes=0-3" } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain("0123");
    expect((await files.ok("list", { groupId: 0, path: "/pics" })).names).toEqual(["open.png"]);
  });

  it("is left out of a share link made before: not listed, not downloaded, not zipped", async () => {
    await forbid([]);
    const token = await shareTokenOf(t, await makeLink(t, user.token, { shareFiles: ["/mixed"] }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      expect((await visitor.ok("list", { groupId: 0, path: "/mixed" })).names).toEqual(["secret", "open.txt"]);
      await forbid(["/mixed/secret"]);
      expect((await visitor.ok("list", { groupId: 0, path: "/mixed" })).names).toEqual(["open.txt"]);
      expect((await visitor.cmd("list", { groupId: 0, path: "/mixed/secret" })).code).not.toBe(200);
      expect((await downloadShared(t, token, ["/mixed/secret/a.txt"])).code).not.toBe(200);
      const zipped = await downloadShared(t, token, ["/mixed"]);
      expect(zipped.code).toBe(200);
      expect(zipped.body!.includes("0123456789 secret")).toBe(false);
      expect((await downloadShared(t, token, ["/mixed/open.txt"])).body?.toString()).toBe("open");
    } finally {
      await visitor.close();
    }
  });

  it("stops an upload under way into it: the commit is refused and nothing lands", async () => {
    await forbid([]);
    const data = randomBytes(2000);
    const tus = tusClient(t.fileUrl, user.socketToken);
    const created = await tus.create({ groupId: "0", path: "/drop/new.bin" }, data.length, data.subarray(0, 1000));
    expect(created.status).toBe(201);
    await forbid(["/drop"]);
    await tus.patch(created.id!, 1000, data.subarray(1000));
    expect((await files.cmd("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).code).toBe(1008);
    expect(await readdir(path.join(home, "drop"))).toEqual(["keep.txt"]);
    expect((await files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["mixed", "pics"]);
  });
});
