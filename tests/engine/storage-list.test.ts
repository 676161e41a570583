import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, realpath, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingEntries } from "../../contract/files";
import { PERMISSION_FULL } from "../../contract/permissions";
import { createLocalStorage } from "../../server/storage/local";
import { lstatNames, POOL_MIN, STAT_FIELDS } from "../../server/storage/lstat-pool";
import { STAGING_NAME } from "../../server/storage/paths";
import type { Entry } from "../../server/storage/storage";
import { startTestEngine } from "../support/engine";
import { connectFiles } from "../support/file-client";

/**
 * Listings of folders large enough to be stat'ed on the worker threads (server/storage/lstat-pool.ts);
 * smaller folders take the in-thread path, which storage.test.ts covers.
 */

const BIG = POOL_MIN + 2500;

/** Writes `count` files named f-00000.txt… whose sizes (i % 7) and mtimes differ. */
async function fill(dir: string, count: number, prefix = "f-") {
  await mkdir(dir, { recursive: true });
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const i = next++;
      await writeFile(path.join(dir, `${prefix}${String(i).padStart(5, "0")}.txt`), "x".repeat(i % 7));
    }
  };
  await Promise.all(Array.from({ length: 16 }, writer));
}

/** What a listing must say, from the disk itself (links followed, and marked with their target's path below `root`). */
async function expected(dir: string, names: string[], root = dir): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const name of names) {
    const info = await stat(path.join(dir, name));
    const entry: Entry = { name, type: info.isDirectory() ? "folder" : "file", size: info.isDirectory() ? 0 : info.size, mtime: Math.floor(info.mtimeMs / 1000) };
    if ((await lstat(path.join(dir, name))).isSymbolicLink()) entry.link = { target: `/${path.relative(await realpath(root), await realpath(path.join(dir, name)))}` };
    out.push(entry);
  }
  return out;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ferry-list-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("listing a large folder", () => {
  it("lists every entry with its type, size and mtime, by name, and hides what a small listing hides", async () => {
    const root = path.join(dir, "u");
    const big = path.join(root, "big");
    await fill(big, BIG);
    await mkdir(path.join(big, "sub-b"));
    await mkdir(path.join(big, "Sub-A"));
    await utimes(path.join(big, "f-00003.txt"), 1_700_000_000, 1_700_000_000.9);
    await writeFile(path.join(big, "naïve.txt"), "ü");
    await mkdir(path.join(dir, "outside"));
    await writeFile(path.join(dir, "outside", "secret.txt"), "secret");
    await symlink(path.join(big, "f-00001.txt"), path.join(big, "link-inside"));
    await symlink(path.join(root, "big", "sub-b"), path.join(big, "link-folder"));
    await symlink(path.join(dir, "outside", "secret.txt"), path.join(big, "link-escape"));
    await symlink(path.join(big, "gone"), path.join(big, "link-dangling"));
    await mkdir(path.join(big, STAGING_NAME));
    await mkdir(path.join(big, STAGING_NAME.toUpperCase()));
    execFileSync("mkfifo", [path.join(big, "a-fifo")]);

    const storage = createLocalStorage(root);
    const list = await storage.list("/big");
    const shown = [...Array.from({ length: BIG }, (_, i) => `f-${String(i).padStart(5, "0")}.txt`), "Sub-A", "sub-b", "naïve.txt", "link-inside", "link-folder"];
    expect(list).toEqual(await expected(big, shown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), root));
    expect(list.find((e) => e.name === "link-folder")?.link).toEqual({ target: "/big/sub-b" });
    expect(list.find((e) => e.name === "f-00003.txt")).toEqual({ name: "f-00003.txt", type: "file", size: 3, mtime: 1_700_000_000 });
  });

  it("gives each of several listings at once its own folder's entries", async () => {
    const root = path.join(dir, "many");
    await Promise.all(["a", "b", "c"].map((name, n) => fill(path.join(root, name), POOL_MIN + 1000 * n, `${name}-`)));
    const storage = createLocalStorage(root);
    const lists = await Promise.all(["a", "b", "c", "a"].map((name) => storage.list(`/${name}`)));
    expect(lists.map((l) => l.length)).toEqual([POOL_MIN, POOL_MIN + 1000, POOL_MIN + 2000, POOL_MIN]);
    lists.forEach((list, n) => expect(list.every((e) => e.name.startsWith(`${"abca"[n]}-`) && e.size === Number(e.name.slice(2, 7)) % 7)).toBe(true));
  });

  it("reports a name that is gone, or was never there, with mode 0 on both paths", async () => {
    const folder = path.join(dir, "stat");
    await fill(folder, 3);
    const info = await lstat(path.join(folder, "f-00002.txt"));
    for (const count of [4, POOL_MIN + 4]) {
      const names = Array.from({ length: count }, (_, i) => (i < 3 ? `f-0000${i}.txt` : `missing-${i}`));
      const rows = await lstatNames(folder, names);
      expect(rows.length).toBe(count * STAT_FIELDS);
      expect([...rows.subarray(2 * STAT_FIELDS, 4 * STAT_FIELDS)]).toEqual([info.mode, 2, info.mtimeMs, 0, 0, 0]);
    }
  });
});

describe("the list command on a large folder", () => {
  it("puts folders first, each group by name, and hides forbidden entries", async () => {
    const t = await startTestEngine();
    try {
      const user = await t.createUser("lister", { permission: PERMISSION_FULL });
      const big = path.join(t.dataDir, "storage", "users", "lister", "big");
      await fill(big, BIG);
      for (const name of ["zeta", "Alpha", "f-00010.txt.d", "hidden-folder"]) await mkdir(path.join(big, name));
      await writeFile(path.join(big, "hidden.txt"), "h");
      const admin = await t.adminToken();
      const patched = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { forbiddenPaths: ["/big/hidden.txt", "/big/hidden-folder", "/big/f-00000.txt/x"] } });
      expect(patched.body.code).toBe(200);

      const files = await connectFiles(t.fileUrl, user.socketToken);
      const listing = await files.ok("list", { groupId: 0, path: "/big" });
      const entries = listingEntries(listing);
      expect(entries.length).toBe(BIG + 3);
      expect([listing.types.length, listing.sizes.length, listing.times.length]).toEqual([BIG + 3, BIG + 3, BIG + 3]);
      expect(entries.slice(0, 4)).toEqual([
        expect.objectContaining({ name: "Alpha", file_type: "Folder", size: 0 }),
        expect.objectContaining({ name: "f-00010.txt.d", file_type: "Folder" }),
        expect.objectContaining({ name: "zeta", file_type: "Folder" }),
        { name: "f-00000.txt", file_type: "File", size: 0, time: Math.floor((await stat(path.join(big, "f-00000.txt"))).mtimeMs / 1000) },
      ]);
      const fileNames = entries.slice(3).map((e) => e.name);
      expect(fileNames).toEqual([...fileNames].sort());
      expect(entries.slice(3).every((e) => e.file_type === "File" && e.size === Number(e.name.slice(2, 7)) % 7)).toBe(true);
      expect(entries.map((e) => e.name)).not.toContain("hidden.txt");
      expect(entries.map((e) => e.name)).not.toContain("hidden-folder");
      await files.close();
    } finally {
      await t.stop();
    }
  });
});
