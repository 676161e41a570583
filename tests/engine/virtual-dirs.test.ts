import { randomBytes } from "node:crypto";
import { readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, downloadShared, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";
import { zipNames } from "../support/zip-listing";

/**
 * Virtual directories (docs/storage.md, "Virtual directories"): an alias of the personal space that
 * is a folder elsewhere in Ferry's storage, on every path a byte can take — socket commands, tus
 * uploads, ranged downloads, zips, previews, share links — with the user's permission and forbidden
 * paths, outside the user's quota, and no way out of the target.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let user: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;
let home: string;
let team: string;

const admin = async (method: string, url: string, body?: unknown) => (await t.call(method, url, { token: await t.adminToken(), body })).body;
const code = async (cmd: Parameters<FileClient["cmd"]>[0], args: Record<string, unknown>) => (await files.cmd(cmd, args as never)).code;
/** The code of a move/copy/remove: the whole command's, or its one item's. */
const itemCode = async (cmd: "move" | "copy" | "remove", args: Record<string, unknown>) => {
  const r = await files.cmd(cmd, args as never);
  return r.code === 200 ? ((r.data as { failed: { code: number }[] }).failed[0]?.code ?? 200) : r.code;
};

async function zipListing(url: string) {
  const res = await fetch(t.fileUrl + url);
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  return { listing: await zipNames(body), body };
}

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_PREVIEW: "on" });
  team = path.join(t.dataDir, "storage", "shared", "team");
  await writeTree(team, {
    "plan.txt": "0123456789 team plan",
    "secret/keys.txt": "team secret",
    "docs/readme.md": "readme",
    "pic.png": await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer(),
  });
  // A link inside the target that leads out of it, to the storage root and to the user's home.
  await symlink(path.join(t.dataDir, "storage"), path.join(team, "up-root"));
  await symlink("../../users", path.join(team, "up-rel"));
  // A link inside the target to its forbidden folder: hidden and refused like the folder.
  await symlink("secret", path.join(team, "to-secret"));
  user = await t.createUser("virt", {
    permission: PERMISSION_FULL,
    quota: 1000,
    virtualDirectories: [{ alias: "Team", path: "/shared/team" }],
    forbiddenPaths: ["/Team/secret"],
  });
  home = path.join(t.dataDir, "storage", "users", "virt");
  await writeTree(home, { "mine.txt": "my own file" });
  files = await connectFiles(t.fileUrl, user.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("the administrator's virtual directories", () => {
  it("are stored normalised and read back; a malformed or repeated alias is 1097, a file as target is 4157, and nothing changes", async () => {
    const got = await admin("GET", `/api/admin/users/${user.id}`);
    expect(got.data).toMatchObject({ virtualDirectories: [{ alias: "/Team", path: "/shared/team" }], forbiddenPaths: ["/Team/secret"] });
    for (const alias of ["", "/", "//Team", "Team/", "/a//b", "/a/b", "Te:am", "Te*am", "a<b", "a>b", "a|b", 'a"b', "a\\b", "a?b", "..", "/.ferry-tmp"]) {
      const r = await admin("PATCH", `/api/admin/users/${user.id}`, { virtualDirectories: [{ alias, path: "/shared/other" }] });
      expect(r.code, JSON.stringify(alias)).toBe(1097);
    }
    const twice = await admin("PATCH", `/api/admin/users/${user.id}`, {
      virtualDirectories: [
        { alias: "/Docs", path: "/shared/a" },
        { alias: "/docs", path: "/shared/b" },
      ],
    });
    expect(twice.code).toBe(1097);
    await writeFile(path.join(t.dataDir, "storage", "shared", "afile"), "x");
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { virtualDirectories: [{ alias: "/F", path: "/shared/afile" }] })).code).toBe(4157);
    for (const p of ["/shared/../users", "shared", "/shared/.ferry-tmp"]) {
      expect((await admin("PATCH", `/api/admin/users/${user.id}`, { virtualDirectories: [{ alias: "/F", path: p }] })).code, p).not.toBe(200);
    }
    // A target that holds the home, lies in it or overlaps another would give a file two paths, one
    // of them outside the forbidden paths.
    for (const dirs of [
      [{ alias: "/All", path: "/" }],
      [{ alias: "/Users", path: "/users" }],
      [{ alias: "/Own", path: "/users/virt/private" }],
      [
        { alias: "/A", path: "/shared/x" },
        { alias: "/B", path: "/shared/x/y" },
      ],
    ]) {
      expect((await admin("PATCH", `/api/admin/users/${user.id}`, { virtualDirectories: dirs })).code, JSON.stringify(dirs)).toBe(4157);
    }
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { home: "/shared/team/inside" })).code).toBe(4157);
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { home: "/shared" })).code).toBe(4157);
    const made = await admin("POST", "/api/admin/users", { account: "virtbad", password: "Str0ng#Pass", virtualDirectories: [{ alias: "a/b", path: "/x" }] });
    expect(made.code).toBe(1097);
    expect((await admin("GET", `/api/admin/users/${user.id}`)).data).toMatchObject({ virtualDirectories: [{ alias: "/Team", path: "/shared/team" }] });
    await expect(stat(path.join(t.dataDir, "storage", "users", "virtbad"))).rejects.toThrow();
    await expect(stat(path.join(t.dataDir, "storage", "shared", "other"))).rejects.toThrow();
    await expect(stat(path.join(t.dataDir, "storage", "shared", "x"))).rejects.toThrow();
    await expect(stat(path.join(team, "inside"))).rejects.toThrow();
  });
});

describe("a virtual directory in the user's space", () => {
  it("is listed as a folder at the top and lists its target, without the forbidden path and without links that leave the target", async () => {
    expect((await files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["Team", "mine.txt"]);
    expect((await files.ok("list", { groupId: 0, path: "/Team" })).names).toEqual(["docs", "pic.png", "plan.txt"]);
    expect((await files.ok("list", { groupId: 0, path: "/Team/docs" })).names).toEqual(["readme.md"]);
    expect((await files.ok("tree", { groupId: 0, path: "/" })).folders.map((f) => f.name)).toEqual(["Team"]);
    const found = await files.ok("search", { groupId: 0, path: "/", keyword: "readme" });
    expect(found.entries.map((e) => e.path)).toEqual(["/Team/docs/readme.md"]);
    expect((await files.ok("search", { groupId: 0, path: "/", keyword: "keys" })).entries).toEqual([]);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/Team/docs"] })).toMatchObject({ file_count: 1, file_size: 6 });
  });

  it("refuses the forbidden path inside it on every command, and every way out of the target", async () => {
    for (const p of ["/Team/secret", "/Team/secret/keys.txt", "/Team/to-secret", "/Team/to-secret/keys.txt"]) {
      expect(await code("list", { groupId: 0, path: p }), p).toBe(1008);
      expect(await code("download", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await code("attributes", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await itemCode("copy", { groupId: 0, paths: [p], target: "/" }), p).toBe(1008);
      expect(await itemCode("remove", { groupId: 0, paths: [p] }), p).toBe(1008);
    }
    for (const p of ["/Team/..", "/Team/../..", "/Team/../users", "/Team/up-root", "/Team/up-root/users/virt", "/Team/up-rel", "/Team/up-rel/virt"]) {
      expect(await code("list", { groupId: 0, path: p }), p).toBe(1066);
      expect(await code("download", { groupId: 0, paths: [`${p}/mine.txt`] }), p).toBe(1066);
    }
    const before = await snapshot(path.join(t.dataDir, "storage"));
    expect((await tusClient(t.fileUrl, user.socketToken).create({ groupId: "0", path: "/Team/up-root/planted.txt" }, 4)).body?.code).toBe(1066);
    expect((await tusClient(t.fileUrl, user.socketToken).create({ groupId: "0", path: "/Team/secret/planted.txt" }, 4)).body?.code).toBe(1008);
    expect(await code("mkdir", { groupId: 0, path: "/Team/up-rel", name: "planted" })).toBe(1066);
    expect(await snapshot(path.join(t.dataDir, "storage"))).toEqual(before);
  });

  it("takes tus uploads and folders into its target, outside the user's quota", async () => {
    const data = randomBytes(5000);
    const tus = tusClient(t.fileUrl, user.socketToken);
    const created = await tus.create({ groupId: "0", path: "/Team/new/up.bin" }, data.length, data);
    expect(created.status).toBe(201);
    const hash = await blake3Hex(data);
    expect(await files.ok("commit", { uploadId: created.id!, hash })).toEqual({ path: "/Team/new/up.bin", size: data.length, hash });
    expect(Buffer.compare(await readFile(path.join(team, "new", "up.bin")), data)).toBe(0);
    await expect(stat(path.join(home, "Team"))).rejects.toThrow();
    // The home keeps its quota of 1000 bytes.
    expect((await tus.create({ groupId: "0", path: "/big.bin" }, data.length, data)).body?.code).toBe(4155);
    expect(await files.ok("mkdir", { groupId: 0, path: "/Team", name: "made" })).toEqual({ path: "/Team/made" });
    expect((await stat(path.join(team, "made"))).isDirectory()).toBe(true);
    expect(await code("mkdir", { groupId: 0, path: "/", name: "Team" })).toBe(4158);
  });

  it("serves ranged downloads, a zip with the alias in it and previews from the target", async () => {
    const { url } = await files.ok("download", { groupId: 0, paths: ["/Team/plan.txt"] });
    const ranged = await fetch(t.fileUrl + url, { headers: { range: "bytes=2-5" } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe("2345");
    const zip = await zipListing((await files.ok("download", { groupId: 0, paths: ["/"] })).url);
    expect(zip.listing).toEqual(expect.arrayContaining(["Team/", "Team/plan.txt", "Team/docs/readme.md", "mine.txt"]));
    expect(zip.listing.filter((n) => n.includes("secret") || n.includes("up-r"))).toEqual([]);
    expect(zip.body.includes("team secret")).toBe(false);
    const { url: thumbs } = await files.ok("thumbnails", { groupId: 0, path: "/Team" });
    const thumb = await fetch(t.fileUrl + thumbs + "pic.png");
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(256);
    expect(await code("thumbnails", { groupId: 0, path: "/Team/secret" })).toBe(1008);
    expect(await code("preview", { groupId: 0, path: "/Team/secret/keys.txt" })).toBe(1008);
  });

  it("cannot itself be renamed, moved, copied or removed, but files cross its boundary both ways", async () => {
    // A path holding a forbidden one is refused first (1008); without it, the alias's own rule shows.
    expect(await code("rename", { groupId: 0, path: "/Team", newName: "Other" })).toBe(1008);
    // Without a quota too: a copy of the alias into the home would otherwise be over it first (4155).
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { forbiddenPaths: [], quota: 0 })).code).toBe(200);
    const before = await snapshot(team);
    expect(await code("rename", { groupId: 0, path: "/Team", newName: "Other" })).toBe(4104);
    expect(await itemCode("move", { groupId: 0, paths: ["/Team"], target: "/Team/docs" })).not.toBe(200);
    expect(await files.ok("mkdir", { groupId: 0, path: "/", name: "box" })).toEqual({ path: "/box" });
    expect(await itemCode("move", { groupId: 0, paths: ["/Team"], target: "/box" })).toBe(4104);
    expect(await itemCode("copy", { groupId: 0, paths: ["/Team"], target: "/box" })).toBe(4104);
    expect(await itemCode("remove", { groupId: 0, paths: ["/Team"] })).toBe(4104);
    expect(await snapshot(team)).toEqual(before);
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { forbiddenPaths: ["/Team/secret"], quota: 1000 })).code).toBe(200);

    expect((await files.ok("copy", { groupId: 0, paths: ["/Team/docs"], target: "/box" })).done).toEqual(["/Team/docs"]);
    expect(await readFile(path.join(home, "box", "docs", "readme.md"), "utf8")).toBe("readme");
    expect((await files.ok("move", { groupId: 0, paths: ["/mine.txt"], target: "/Team/docs" })).done).toEqual(["/mine.txt"]);
    expect(await readFile(path.join(team, "docs", "mine.txt"), "utf8")).toBe("my own file");
    await expect(stat(path.join(home, "mine.txt"))).rejects.toThrow();
    expect((await files.ok("move", { groupId: 0, paths: ["/Team/docs/mine.txt"], target: "/" })).done).toEqual(["/Team/docs/mine.txt"]);
    expect(await readFile(path.join(home, "mine.txt"), "utf8")).toBe("my own file");
    expect(await files.ok("rename", { groupId: 0, path: "/Team/made", newName: "renamed" })).toEqual({ path: "/Team/renamed" });
    expect((await stat(path.join(team, "renamed"))).isDirectory()).toBe(true);
  });

  it("can be shared; a share of its forbidden path is refused, and a shared file forbidden later reaches nothing", async () => {
    const refused = await t.call("POST", "/api/share/link/create", { token: user.token, body: { shareBaseUrl: "https://files.example.com", shareUrlType: 1, shareFiles: ["/Team/secret"] } });
    expect(refused.body.code).toBe(1008);
    const token = await shareTokenOf(t, await makeLink(t, user.token, { shareFiles: ["/Team/plan.txt", "/Team/docs"] }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      expect((await visitor.ok("list", { groupId: 0, path: "/" })).names).toEqual(["docs", "plan.txt"]);
      const got = await downloadShared(t, token, ["/plan.txt"]);
      expect(got.code).toBe(200);
      expect(got.body?.toString()).toBe("0123456789 team plan");
      expect((await admin("PATCH", `/api/admin/users/${user.id}`, { forbiddenPaths: ["/Team/secret", "/Team/plan.txt"] })).code).toBe(200);
      expect((await visitor.ok("list", { groupId: 0, path: "/" })).names).toEqual(["docs"]);
      expect((await downloadShared(t, token, ["/plan.txt"])).code).not.toBe(200);
    } finally {
      await visitor.close();
    }
  });

  it("goes when the administrator takes it away, leaving its target's files where they are", async () => {
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { virtualDirectories: [] })).code).toBe(200);
    expect((await files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["box", "mine.txt"]);
    expect(await code("list", { groupId: 0, path: "/Team" })).toBe(1043);
    expect(await readFile(path.join(team, "plan.txt"), "utf8")).toBe("0123456789 team plan");
  });
});
