import { mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingEntries, type SocketArgs, type SocketCommand } from "../../contract/files";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient, openSocket } from "../support/file-client";

let t: TestEngine;
let admin: string;
beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

const homeOf = (account: string) => path.join(t.dataDir, "storage", "users", account);

/** Writes files (content given) and folders (content null) below `root`. */
async function layout(root: string, entries: Record<string, string | null>) {
  for (const [rel, content] of Object.entries(entries)) {
    const at = path.join(root, rel);
    if (content === null) await mkdir(at, { recursive: true });
    else {
      await mkdir(path.dirname(at), { recursive: true });
      await writeFile(at, content);
    }
  }
}

const exists = (p: string) => stat(p).then(() => true, () => false);

async function patchUser(id: number, body: Record<string, unknown>) {
  const reply = await t.call("PATCH", `/api/admin/users/${id}`, { token: admin, body });
  expect(reply.body.code).toBe(200);
}

async function setMember(groupId: number, userId: number, groupPermission: number) {
  const reply = await t.call("PUT", `/api/admin/groups/${groupId}/members/${userId}`, { token: admin, body: { groupPermission } });
  expect(reply.body.code).toBe(200);
}

async function createGroup(name: string): Promise<number> {
  const reply = await t.call("POST", "/api/admin/groups", { token: admin, body: { name } });
  expect(reply.body.code).toBe(200);
  return reply.body.data.id as number;
}

/**
 * One row of the permission matrix: the bit a command needs, the files it works on (inside a case
 * folder `/c`), its arguments, and what the disk shows once it was allowed.
 */
interface Case<C extends SocketCommand = SocketCommand> {
  cmd: C;
  bit: number;
  files: Record<string, string | null>;
  args(groupId: number, dir: string): SocketArgs<C>;
  after(root: string, data: unknown): Promise<void>;
}
const matrix: Case[] = [
  { cmd: "list", bit: Permission.List, files: { "a.txt": "a" }, args: (groupId, dir) => ({ groupId, path: dir }), after: async (_r, d) => expect(d).toMatchObject({ names: ["a.txt"], types: [0], sizes: [1] }) },
  { cmd: "tree", bit: Permission.List, files: { sub: null }, args: (groupId, dir) => ({ groupId, path: dir }), after: async (_r, d) => expect(d).toMatchObject({ folders: [{ name: "sub" }] }) },
  { cmd: "search", bit: Permission.List, files: { "Apple.txt": "a" }, args: (groupId, dir) => ({ groupId, path: dir, keyword: "apple" }), after: async (_r, d) => expect(d).toMatchObject({ entries: [{ name: "Apple.txt" }] }) },
  { cmd: "attributes", bit: Permission.List, files: { "a.txt": "abc" }, args: (groupId, dir) => ({ groupId, paths: [`${dir}/a.txt`] }), after: async (_r, d) => expect(d).toMatchObject({ file_size: 3, file_count: 1 }) },
  { cmd: "exists", bit: Permission.List, files: { "a.txt": "a" }, args: (groupId, dir) => ({ groupId, target: dir, names: ["a.txt", "b.txt"] }), after: async (_r, d) => expect(d).toEqual({ existing: ["a.txt"] }) },
  { cmd: "mkdir", bit: Permission.Mkdir, files: {}, args: (groupId, dir) => ({ groupId, path: dir, name: "new" }), after: async (root) => expect((await stat(path.join(root, "new"))).isDirectory()).toBe(true) },
  {
    cmd: "rename",
    bit: Permission.Rename,
    files: { "a.txt": "a" },
    args: (groupId, dir) => ({ groupId, path: `${dir}/a.txt`, newName: "b.txt" }),
    after: async (root) => expect(await readFile(path.join(root, "b.txt"), "utf8")).toBe("a"),
  },
  {
    cmd: "move",
    bit: Permission.Move,
    files: { "a.txt": "a", sub: null },
    args: (groupId, dir) => ({ groupId, paths: [`${dir}/a.txt`], target: `${dir}/sub` }),
    after: async (root) => expect([await exists(path.join(root, "a.txt")), await exists(path.join(root, "sub/a.txt"))]).toEqual([false, true]),
  },
  {
    cmd: "copy",
    bit: Permission.Copy,
    files: { "a.txt": "a", sub: null },
    args: (groupId, dir) => ({ groupId, paths: [`${dir}/a.txt`], target: `${dir}/sub` }),
    after: async (root) => expect([await exists(path.join(root, "a.txt")), await exists(path.join(root, "sub/a.txt"))]).toEqual([true, true]),
  },
  { cmd: "remove", bit: Permission.Delete, files: { "a.txt": "a" }, args: (groupId, dir) => ({ groupId, paths: [`${dir}/a.txt`] }), after: async (root) => expect(await exists(path.join(root, "a.txt"))).toBe(false) },
];

describe("every command × the permission bit it needs", () => {
  for (const space of ["personal", "group"] as const) {
    it(`${space} space: refused (1008, disk unchanged) without the bit, allowed with only the bit`, async () => {
      const user = await t.createUser(`perm_${space}`);
      let groupId = 0;
      let home = homeOf(user.account);
      if (space === "group") {
        groupId = await createGroup(`PermGroup_${space}`);
        home = path.join(t.dataDir, "storage", "groups", `PermGroup_${space}`);
        // The personal permission must not leak into the group space.
        await patchUser(user.id, { permission: PERMISSION_FULL });
      }
      const setPermission = (mask: number) => (space === "personal" ? patchUser(user.id, { permission: mask }) : setMember(groupId, user.id, mask));
      const files = await connectFiles(t.fileUrl, user.socketToken);
      for (const c of matrix) {
        const dir = `/case-${c.cmd}`;
        const root = path.join(home, dir);
        await mkdir(root, { recursive: true });
        await layout(root, c.files);

        await setPermission(PERMISSION_FULL & ~c.bit);
        const before = await snapshot(home);
        const refused = await files.cmd(c.cmd, c.args(groupId, dir) as never);
        expect(refused.code, `${c.cmd} without its bit`).toBe(1008);
        expect(await snapshot(home), `${c.cmd} changed the disk`).toEqual(before);

        await setPermission(c.bit);
        const allowed = await files.cmd(c.cmd, c.args(groupId, dir) as never);
        expect(allowed.code, `${c.cmd} with its bit: ${allowed.message}`).toBe(200);
        if (["move", "copy", "remove"].includes(c.cmd)) expect(allowed.data).toMatchObject({ failed: [] });
        await c.after(root, allowed.data);
      }
      await files.close();
    });
  }

  it("a user who is not a member of a group, and a group that does not exist, both get 1008", async () => {
    const groupId = await createGroup("Closed");
    await writeFile(path.join(t.dataDir, "storage", "groups", "Closed", "plan.txt"), "secret");
    const outsider = await t.createUser("outsider", { permission: PERMISSION_FULL });
    const files = await connectFiles(t.fileUrl, outsider.socketToken);
    const before = await snapshot(path.join(t.dataDir, "storage", "groups"));
    for (const id of [groupId, 999_999]) {
      expect((await files.cmd("list", { groupId: id, path: "/" })).code).toBe(1008);
      expect((await files.cmd("remove", { groupId: id, paths: ["/plan.txt"] })).code).toBe(1008);
      expect((await files.cmd("mkdir", { groupId: id, path: "/", name: "x" })).code).toBe(1008);
    }
    expect(await snapshot(path.join(t.dataDir, "storage", "groups"))).toEqual(before);
    await files.close();
  });

  it("revoking a bit or a membership takes effect on an open socket at the next command", async () => {
    const user = await t.createUser("revoked", { permission: Permission.List });
    const groupId = await createGroup("Revoked");
    await setMember(groupId, user.id, Permission.List);
    const files = await connectFiles(t.fileUrl, user.socketToken);
    expect((await files.cmd("list", { groupId: 0, path: "/" })).code).toBe(200);
    expect((await files.cmd("list", { groupId, path: "/" })).code).toBe(200);
    await patchUser(user.id, { permission: Permission.Download });
    expect((await files.cmd("list", { groupId: 0, path: "/" })).code).toBe(1008);
    expect((await t.call("DELETE", `/api/admin/groups/${groupId}/members/${user.id}`, { token: admin })).body.code).toBe(200);
    expect((await files.cmd("list", { groupId, path: "/" })).code).toBe(1008);
    await files.close();
  });
});

describe("user B and user A's files", () => {
  it("B has no path to A's files: list, rename and remove stay in B's home", async () => {
    const a = await t.createUser("owner_a", { permission: PERMISSION_FULL });
    const b = await t.createUser("owner_b", { permission: PERMISSION_FULL });
    await writeFile(path.join(homeOf(a.account), "secret.txt"), "A's");
    const before = await snapshot(homeOf(a.account));
    const files = await connectFiles(t.fileUrl, b.socketToken);
    for (const p of ["/../owner_a", "../owner_a/secret.txt", "/../../users/owner_a", "/..", "..\\owner_a"]) {
      expect((await files.cmd("list", { groupId: 0, path: p })).code, p).toBe(1066);
      expect((await files.cmd("rename", { groupId: 0, path: p, newName: "mine.txt" })).code, p).toBe(1066);
      expect((await files.cmd("remove", { groupId: 0, paths: [p] })).code, p).toBe(1066);
    }
    // Absolute-looking paths are inside B's own home.
    expect((await files.cmd("list", { groupId: 0, path: "/users/owner_a" })).code).toBe(1043);
    expect((await files.cmd("remove", { groupId: 0, paths: ["/users/owner_a/secret.txt"] })).data).toEqual({ done: [], failed: [{ path: "/users/owner_a/secret.txt", code: 1043 }] });
    expect(await snapshot(homeOf(a.account))).toEqual(before);
    await files.close();
  });
});

describe("file commands", () => {
  let user: Awaited<ReturnType<TestEngine["createUser"]>>;
  let files: FileClient;
  let home: string;
  beforeAll(async () => {
    user = await t.createUser("worker", { permission: PERMISSION_FULL });
    home = homeOf(user.account);
    files = await connectFiles(t.fileUrl, user.socketToken);
  });
  afterAll(() => files?.close());

  it("list: folders first, then files, each by name; a file answers 4159, a missing path 1043", async () => {
    await layout(home, { "l/b.txt": "bb", "l/A.txt": "a", "l/zeta": null, "l/alpha": null, "l/Beta": null, "l/é.txt": "e" });
    const listed = await files.ok("list", { groupId: 0, path: "/l/" });
    expect(listed.path).toBe("/l");
    const entries = listingEntries(listed);
    expect(entries.map((e) => `${e.file_type}:${e.name}`)).toEqual(["Folder:Beta", "Folder:alpha", "Folder:zeta", "File:A.txt", "File:b.txt", "File:é.txt"]);
    const b = await stat(path.join(home, "l/b.txt"));
    expect(entries.find((e) => e.name === "b.txt")).toEqual({ name: "b.txt", file_type: "File", size: 2, time: Math.floor(b.mtimeMs / 1000) });
    expect(entries.find((e) => e.name === "zeta")).toMatchObject({ size: 0 });
    // One value per entry in every column.
    expect([listed.types.length, listed.sizes.length, listed.times.length]).toEqual([6, 6, 6]);
    expect((await files.cmd("list", { groupId: 0, path: "/l/b.txt" })).code).toBe(4159);
    expect((await files.cmd("list", { groupId: 0, path: "/l/none" })).code).toBe(1043);
  });

  it("mkdir and rename: an existing name answers 4158, a bad name 4161, and nothing changes", async () => {
    expect(await files.ok("mkdir", { groupId: 0, path: "/", name: "m" })).toEqual({ path: "/m" });
    expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: "m" })).code).toBe(4158);
    expect((await files.cmd("mkdir", { groupId: 0, path: "/none", name: "m" })).code).toBe(1043);
    expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: "a:b" })).code).toBe(4161);
    await layout(home, { "m/one.txt": "1", "m/two.txt": "2" });
    const before = await snapshot(home);
    expect((await files.cmd("rename", { groupId: 0, path: "/m/one.txt", newName: "two.txt" })).code).toBe(4158);
    expect((await files.cmd("rename", { groupId: 0, path: "/m/one.txt", newName: "x|y" })).code).toBe(4161);
    expect((await files.cmd("rename", { groupId: 0, path: "/m/missing", newName: "z" })).code).toBe(1043);
    expect((await files.cmd("rename", { groupId: 0, path: "/", newName: "root" })).code).toBe(4104);
    expect(await snapshot(home)).toEqual(before);
    expect(await files.ok("rename", { groupId: 0, path: "/m/one.txt", newName: "uno.txt" })).toEqual({ path: "/m/uno.txt" });
  });

  it("move and copy never overwrite unless asked: 4163 with the existing names, and nothing changed", async () => {
    await layout(home, { "mv/a.txt": "new a", "mv/b.txt": "new b", "mv/c.txt": "c", "mv/dest/a.txt": "old a", "mv/dest/b.txt": "old b" });
    expect((await files.ok("exists", { groupId: 0, target: "/mv/dest", names: ["a.txt", "b.txt", "c.txt"] })).existing).toEqual(["a.txt", "b.txt"]);
    const before = await snapshot(home);
    for (const cmd of ["move", "copy"] as const) {
      const reply = await files.cmd(cmd, { groupId: 0, paths: ["/mv/a.txt", "/mv/b.txt", "/mv/c.txt"], target: "/mv/dest" });
      expect(reply.code).toBe(4163);
      expect(reply.data).toEqual({ existing: ["a.txt", "b.txt"] });
    }
    expect(await snapshot(home)).toEqual(before);

    expect(await files.ok("copy", { groupId: 0, paths: ["/mv/a.txt"], target: "/mv/dest", overwrite: true })).toEqual({ done: ["/mv/a.txt"], failed: [] });
    expect(await readFile(path.join(home, "mv/dest/a.txt"), "utf8")).toBe("new a");
    expect(await readFile(path.join(home, "mv/a.txt"), "utf8")).toBe("new a");
    expect(await files.ok("move", { groupId: 0, paths: ["/mv/b.txt", "/mv/c.txt"], target: "/mv/dest", overwrite: true })).toEqual({ done: ["/mv/b.txt", "/mv/c.txt"], failed: [] });
    expect(await readFile(path.join(home, "mv/dest/b.txt"), "utf8")).toBe("new b");
    expect([await exists(path.join(home, "mv/b.txt")), await exists(path.join(home, "mv/c.txt"))]).toEqual([false, false]);
  });

  it("overwrite takes the Delete bit as well: without it an existing name answers 1008 and nothing changes", async () => {
    const user = await t.createUser("no_delete");
    await patchUser(user.id, { permission: PERMISSION_FULL & ~Permission.Delete });
    const own = homeOf(user.account);
    await layout(own, { "a.txt": "new a", "b.txt": "b", "dest/a.txt": "old a" });
    const files = await connectFiles(t.fileUrl, user.socketToken);
    const before = await snapshot(own);
    for (const cmd of ["move", "copy"] as const) {
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/a.txt"], target: "/dest", overwrite: true })).code, cmd).toBe(1008);
      // Without overwrite the answer is still the list of existing names, so the page can ask.
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/a.txt"], target: "/dest" })).data).toEqual({ existing: ["a.txt"] });
    }
    expect(await snapshot(own)).toEqual(before);
    // Where nothing would be replaced, overwrite asks for nothing more.
    expect(await files.ok("copy", { groupId: 0, paths: ["/b.txt"], target: "/dest", overwrite: true })).toEqual({ done: ["/b.txt"], failed: [] });
    expect(await readFile(path.join(own, "dest/a.txt"), "utf8")).toBe("old a");
    await files.close();
  });

  it("overwriting a folder merges it: what only the target held stays", async () => {
    await layout(home, { "mg/src/f/same.txt": "src", "mg/src/f/only-src.txt": "s", "mg/dst/f/same.txt": "dst", "mg/dst/f/only-dst.txt": "d" });
    expect(await files.ok("copy", { groupId: 0, paths: ["/mg/src/f"], target: "/mg/dst", overwrite: true })).toEqual({ done: ["/mg/src/f"], failed: [] });
    expect((await snapshot(path.join(home, "mg/dst"))).map((l) => l.split(" ")[0])).toEqual(["f", "f/only-dst.txt", "f/only-src.txt", "f/same.txt"]);
    expect(await readFile(path.join(home, "mg/dst/f/same.txt"), "utf8")).toBe("src");
    await writeFile(path.join(home, "mg/src/f/same.txt"), "moved");
    expect(await files.ok("move", { groupId: 0, paths: ["/mg/src/f"], target: "/mg/dst", overwrite: true })).toEqual({ done: ["/mg/src/f"], failed: [] });
    expect(await exists(path.join(home, "mg/src/f"))).toBe(false);
    expect(await readFile(path.join(home, "mg/dst/f/same.txt"), "utf8")).toBe("moved");
    expect(await readFile(path.join(home, "mg/dst/f/only-dst.txt"), "utf8")).toBe("d");
    // A type clash is a per-item failure, and both sides stay.
    await layout(home, { "mg/clash/f": "a file named f" });
    expect(await files.ok("copy", { groupId: 0, paths: ["/mg/clash/f"], target: "/mg/dst", overwrite: true })).toEqual({ done: [], failed: [{ path: "/mg/clash/f", code: 4160 }] });
  });

  it("a folder into itself or its own descendant answers 4320 (saying so), the root 4104; partial failures are reported per item", async () => {
    await layout(home, { "self/f/inner": null, "self/g.txt": "g", "self/h.txt": "h" });
    const before = await snapshot(home);
    for (const cmd of ["move", "copy"] as const) {
      const intoItself = await files.cmd(cmd, { groupId: 0, paths: ["/self/f"], target: "/self/f" });
      expect([intoItself.code, intoItself.message]).toEqual([4320, "A folder cannot be moved or copied into itself or into one of its own folders"]);
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/self/g.txt", "/self/f"], target: "/self/f/inner" })).code).toBe(4320);
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/"], target: "/self" })).code).toBe(4104);
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/self/g.txt"], target: "/self/missing" })).code).toBe(1043);
      expect((await files.cmd(cmd, { groupId: 0, paths: ["/self/g.txt"], target: "/self/h.txt" })).code).toBe(4159);
    }
    expect(await snapshot(home)).toEqual(before);
    expect(await files.ok("copy", { groupId: 0, paths: ["/self/g.txt", "/self/nope.txt"], target: "/self/f" })).toEqual({ done: ["/self/g.txt"], failed: [{ path: "/self/nope.txt", code: 1043 }] });
  });

  it("remove: per-item results; the root is refused with 4104", async () => {
    await layout(home, { "rm/a.txt": "a", "rm/f/b.txt": "b" });
    expect((await files.cmd("remove", { groupId: 0, paths: ["/"] })).code).toBe(4104);
    expect((await files.cmd("remove", { groupId: 0, paths: [""] })).code).toBe(4104);
    expect(await files.ok("remove", { groupId: 0, paths: ["/rm/f", "/rm/f/b.txt", "/rm/ghost"] })).toEqual({ done: ["/rm/f", "/rm/f/b.txt"], failed: [{ path: "/rm/ghost", code: 1043 }] });
    expect(await snapshot(path.join(home, "rm"))).toEqual(["a.txt file 1"]);
  });

  it("attributes: one file with its recorded hash, a folder's totals, and the sums of several items", async () => {
    await layout(home, { "at/one.bin": "12345", "at/f/x.txt": "xx", "at/f/g/y.txt": "yyy" });
    const info = await stat(path.join(home, "at/one.bin"));
    const hash = "a".repeat(64);
    const space = `user:${user.id}`;
    await t.engine.services.hashes.record(space, "/at/one.bin", 5, Math.floor(info.mtimeMs / 1000), hash);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/at/one.bin"] })).toEqual({ file_size: 5, file_count: 1, folder_count: 0, write_time: Math.floor(info.mtimeMs / 1000), path: "/at/one.bin", hash });
    expect(await files.ok("attributes", { groupId: 0, paths: ["/at/f"] })).toMatchObject({ file_size: 5, file_count: 2, folder_count: 1, path: "/at/f", hash: null });
    const several = await files.ok("attributes", { groupId: 0, paths: ["/at/one.bin", "/at/f"] });
    expect(several).toMatchObject({ file_size: 10, file_count: 3, folder_count: 2, path: "/at", hash: null });

    // The hash follows a rename, goes with a removal, and is not shown once the file changed.
    await files.ok("rename", { groupId: 0, path: "/at", newName: "at2" });
    expect((await files.ok("attributes", { groupId: 0, paths: ["/at2/one.bin"] })).hash).toBe(hash);
    await files.ok("move", { groupId: 0, paths: ["/at2/one.bin"], target: "/at2/f" });
    expect((await files.ok("attributes", { groupId: 0, paths: ["/at2/f/one.bin"] })).hash).toBe(hash);
    await utimes(path.join(home, "at2/f/one.bin"), new Date(), new Date(Date.now() + 10_000));
    expect((await files.ok("attributes", { groupId: 0, paths: ["/at2/f/one.bin"] })).hash).toBeNull();
    await files.ok("remove", { groupId: 0, paths: ["/at2"] });
    const rows = await t.engine.services.db.kysely.selectFrom("file_hashes").select("path").where("space_key", "=", space).execute();
    expect(rows).toEqual([]);
  });

  it("tree lists sub-folders; search matches names case-insensitively, breadth-first, up to the limit", async () => {
    await layout(home, { "tr/b": null, "tr/a": null, "tr/file.txt": "f", "tr/a/deep/REPORT-2.txt": "r", "tr/Report-1.txt": "r", "tr/b/report-3.md": "r", "tr/b/other": null });
    expect(await files.ok("tree", { groupId: 0, path: "/tr" })).toEqual({ path: "/tr", folders: [{ name: "a", path: "/tr/a" }, { name: "b", path: "/tr/b" }] });
    const found = await files.ok("search", { groupId: 0, path: "/tr", keyword: "rePort" });
    expect(found).toEqual({ truncated: false, entries: [expect.objectContaining({ path: "/tr/Report-1.txt", file_type: "File" }), expect.objectContaining({ path: "/tr/b/report-3.md" }), expect.objectContaining({ path: "/tr/a/deep/REPORT-2.txt" })] });
    const limited = await files.ok("search", { groupId: 0, path: "/tr", keyword: "report", limit: 2 });
    expect(limited.truncated).toBe(true);
    expect(limited.entries.map((e) => e.name)).toEqual(["Report-1.txt", "report-3.md"]);
    expect((await files.cmd("search", { groupId: 0, path: "/tr/none", keyword: "x" })).code).toBe(1043);
  });

  it("forbidden paths are hidden and every command on or below them answers 1008; /a does not block /ab", async () => {
    await layout(home, { "fb/a/in.txt": "secret", "fb/ab/ok.txt": "fine", "fb/secret/s.txt": "12345678", "fb/open.txt": "o", "dest": null });
    await patchUser(user.id, { forbiddenPaths: ["/fb/a", "/fb/secret"] });
    const before = await snapshot(home);
    expect((await files.ok("list", { groupId: 0, path: "/fb" })).names).toEqual(["ab", "open.txt"]);
    expect((await files.ok("tree", { groupId: 0, path: "/fb" })).folders.map((f) => f.name)).toEqual(["ab"]);
    expect((await files.ok("search", { groupId: 0, path: "/", keyword: "s" })).entries.map((e) => e.path)).not.toContain("/fb/secret/s.txt");
    expect((await files.ok("exists", { groupId: 0, target: "/fb", names: ["a", "ab"] })).existing).toEqual(["ab"]);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/fb"] })).toMatchObject({ file_size: 5, file_count: 2, folder_count: 1 });
    expect((await files.ok("list", { groupId: 0, path: "/fb/ab/" })).names).toEqual(["ok.txt"]);
    const refused: [SocketCommand, unknown][] = [
      ["list", { groupId: 0, path: "/fb/a" }],
      ["list", { groupId: 0, path: "/fb/a/" }],
      ["list", { groupId: 0, path: "//fb//secret" }],
      ["attributes", { groupId: 0, paths: ["/fb/a/in.txt"] }],
      ["tree", { groupId: 0, path: "/fb/secret" }],
      ["search", { groupId: 0, path: "/fb/secret", keyword: "s" }],
      ["exists", { groupId: 0, target: "/fb/a", names: ["in.txt"] }],
      ["mkdir", { groupId: 0, path: "/fb/a", name: "x" }],
      ["mkdir", { groupId: 0, path: "/fb", name: "secret" }],
      ["rename", { groupId: 0, path: "/fb/secret", newName: "public" }],
      ["rename", { groupId: 0, path: "/fb/open.txt", newName: "a" }],
      ["rename", { groupId: 0, path: "/fb", newName: "fb2" }],
      ["move", { groupId: 0, paths: ["/fb/open.txt"], target: "/fb/a" }],
      ["move", { groupId: 0, paths: ["/fb/secret"], target: "/dest" }],
      ["copy", { groupId: 0, paths: ["/fb"], target: "/dest" }],
      ["remove", { groupId: 0, paths: ["/fb/a/in.txt"] }],
      ["remove", { groupId: 0, paths: ["/fb"] }],
    ];
    for (const [cmd, args] of refused) expect((await files.cmd(cmd, args as never)).code, `${cmd} ${JSON.stringify(args)}`).toBe(1008);
    expect(await snapshot(home)).toEqual(before);
    await patchUser(user.id, { forbiddenPaths: [] });
    expect((await files.ok("list", { groupId: 0, path: "/fb" })).names).toEqual(["a", "ab", "secret", "open.txt"]);
  });
});

describe("file hashes", () => {
  it("move and remove a prefix exactly: LIKE wildcards in names are literal, and /a does not cover /ab", async () => {
    const hashes = t.engine.services.hashes;
    const h = (c: string) => c.repeat(64);
    const space = "user:hash-test";
    const paths = ["/p_1/x", "/p%1/y", "/pa1/z", "/p_10/w", "/p!1/v", "/P_1/u", "/p_1"];
    for (const [i, p] of paths.entries()) await hashes.record(space, p, i, 100, h(String(i)));
    await hashes.record("user:other", "/p_1/x", 0, 100, h("9"));
    await hashes.removePrefix(space, "/p_1");
    const left = async () => (await t.engine.services.db.kysely.selectFrom("file_hashes").select("path").where("space_key", "=", space).execute()).map((r) => r.path).sort();
    expect(await left()).toEqual(["/P_1/u", "/p!1/v", "/p%1/y", "/p_10/w", "/pa1/z"]);
    await hashes.movePrefix(space, "/p%1", "/moved");
    await hashes.movePrefix(space, "/p!1", "/p_10/in");
    expect(await left()).toEqual(["/P_1/u", "/moved/y", "/p_10/in/v", "/p_10/w", "/pa1/z"]);
    expect(await hashes.lookup(space, "/moved/y", 1, 100)).toBe(h("1"));
    expect(await hashes.lookup(space, "/moved/y", 2, 100)).toBeNull();
    expect(await hashes.lookup(space, "/moved/y", 1, 101)).toBeNull();
    expect(await hashes.lookup("user:other", "/p_1/x", 0, 100)).toBe(h("9"));
    // Recording again replaces the row.
    await hashes.record(space, "/moved/y", 7, 200, h("b"));
    expect(await hashes.lookup(space, "/moved/y", 7, 200)).toBe(h("b"));
  });
});

describe("socket frames, origins and sessions", () => {
  it("answers malformed frames with catalogue codes and keeps the socket usable", async () => {
    const user = await t.createUser("framer", { permission: PERMISSION_FULL });
    const anon = await connectFiles(t.fileUrl, null);
    expect((await anon.cmd("list", { groupId: 0, path: "/" })).code).toBe(4115);
    expect((await anon.cmd("login", { token: "x".repeat(128) })).code).toBe(1009);
    expect((await anon.cmd("list", { groupId: 0, path: "/" })).code).toBe(4115);
    await anon.close();

    const files = await connectFiles(t.fileUrl, user.socketToken);
    expect((await files.raw("not json", 0)).code).toBe(400);
    expect((await files.raw(JSON.stringify({ id: 5, cmd: "format-disk", args: {} }), 5)).code).toBe(4103);
    expect((await files.raw(JSON.stringify({ id: 6, cmd: "list", args: { groupId: 0 } }), 6)).code).toBe(401);
    expect((await files.raw(JSON.stringify({ id: 7, cmd: "move", args: { groupId: 0, paths: [], target: "/" } }), 7)).code).toBe(400);
    expect((await files.raw(JSON.stringify({ id: 8, cmd: "list", args: { groupId: "0", path: "/" } }), 8)).code).toBe(400);
    expect((await files.cmd("list", { groupId: 0, path: "/" })).code).toBe(200);
    await files.close();
  });

  it("refuses a foreign Origin at upgrade and accepts the same host", async () => {
    await expect(openSocket(t.fileUrl, { origin: "https://evil.example" })).rejects.toThrow(/403/);
    const host = new URL(t.fileUrl).hostname;
    const socket = await openSocket(t.fileUrl, { origin: `http://${host}:3000` });
    socket.close();
  });

  it("after logout the open socket's next command answers 1009", async () => {
    const user = await t.createUser("leaver", { permission: PERMISSION_FULL });
    const files = await connectFiles(t.fileUrl, user.socketToken);
    expect((await files.cmd("list", { groupId: 0, path: "/" })).code).toBe(200);
    expect((await t.call("POST", "/api/user/logout", { token: user.token })).body.code).toBe(200);
    expect((await files.cmd("list", { groupId: 0, path: "/" })).code).toBe(1009);
    await files.close();
  });
});

describe("GET /api/user/group/list", () => {
  it("returns the caller's groups with permission, home size and create time", async () => {
    const user = await t.createUser("grouper");
    const groupId = await createGroup("Listed");
    await setMember(groupId, user.id, Permission.List | Permission.Upload);
    await writeFile(path.join(t.dataDir, "storage", "groups", "Listed", "doc.txt"), "x".repeat(321));
    const reply = await t.call("GET", "/api/user/group/list", { token: user.token });
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.groupList).toEqual([
      expect.objectContaining({ groupId, groupName: "Listed", groupPermission: Permission.List | Permission.Upload | 1 | 8, userHomeSize: 321, create_time: expect.any(Number) }),
    ]);
    expect((await t.call("GET", "/api/user/group/list")).body.code).not.toBe(200);
  });
});
