import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { tusClient } from "../support/tus-client";

/**
 * Forbidden paths and symbolic links (docs/security.md, "Symbolic links and forbidden paths"): a
 * link inside the user's own home that leads into a forbidden path — absolute or relative, to the
 * forbidden folder, to its parent, to a file inside it, through a chain of links — reaches nothing
 * there, on every command, download, zip, preview, upload and share-visitor access.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const run = promisify(execFile);
let t: TestEngine;
let user: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;
let home: string;
let scratch: string;

/** Links into the forbidden folder /vault, each a different shape. */
const INTO_VAULT = ["/links/abs-vault", "/links/rel-vault", "/links/chain1", "/links/inner-vault"];
const SECRETS = ["vault secret", "vault deep", "private words"];

beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_PREVIEW: "on" });
  user = await t.createUser("linker", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "linker");
  await writeTree(home, {
    "vault/secret.txt": "vault secret",
    "vault/inner/deep.txt": "vault deep",
    "docs/public.txt": "public",
    "docs/private/p.txt": "private words",
    "links/plain.txt": "plain",
  });
  await symlink(path.join(home, "vault"), path.join(home, "links", "abs-vault"));
  await symlink("../vault", path.join(home, "links", "rel-vault"));
  await symlink("chain2", path.join(home, "links", "chain1"));
  await symlink("../links/rel-vault", path.join(home, "links", "chain2"));
  await symlink("../vault/inner", path.join(home, "links", "inner-vault"));
  await symlink("../docs", path.join(home, "links", "docs-parent"));
  await symlink("../vault/secret.txt", path.join(home, "links", "secret-file.png"));
  await symlink("../docs/private/p.txt", path.join(home, "links", "private-file.txt"));
  const patched = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: await t.adminToken(), body: { forbiddenPaths: ["/vault", "/docs/private"] } });
  expect(patched.body.code).toBe(200);
  files = await connectFiles(t.fileUrl, user.socketToken);
  scratch = await mkdtemp(path.join(tmpdir(), "ferry-links-"));
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const code = async (cmd: Parameters<FileClient["cmd"]>[0], args: Record<string, unknown>) => (await files.cmd(cmd, args as never)).code;

/** The entries of a zip served at `url`, and whether any secret's bytes are inside. */
async function zipAt(url: string) {
  const res = await fetch(t.fileUrl + url);
  const body = Buffer.from(await res.arrayBuffer());
  expect(res.status).toBe(200);
  const file = path.join(scratch, `${randomBytes(4).toString("hex")}.zip`);
  await writeFile(file, body);
  const listing = (await run("zipinfo", ["-1", file])).stdout.split("\n").filter(Boolean).sort();
  return { listing, leaks: SECRETS.filter((s) => body.includes(s)) };
}

describe("a link into a forbidden path", () => {
  it("cannot be listed, searched into, measured, downloaded or previewed, whatever its shape", async () => {
    for (const p of [...INTO_VAULT, "/links/docs-parent/private", "/links/chain1/inner"]) {
      expect(await code("list", { groupId: 0, path: p }), p).toBe(1008);
      expect(await code("tree", { groupId: 0, path: p }), p).toBe(1008);
      expect(await code("attributes", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await code("download", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await code("search", { groupId: 0, path: p, keyword: "e" }), p).toBe(1008);
      expect(await code("exists", { groupId: 0, target: p, names: ["secret.txt"] }), p).toBe(1008);
    }
    for (const p of ["/links/secret-file.png", "/links/private-file.txt", "/links/rel-vault/secret.txt", "/links/docs-parent/private/p.txt", "/links/chain1/inner/deep.txt"]) {
      expect(await code("download", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await code("preview", { groupId: 0, path: p }), p).toBe(1008);
      expect(await code("attributes", { groupId: 0, paths: [p] }), p).toBe(1008);
    }
  });

  it("is hidden from its folder's listing, tree and search; a link to the forbidden path's parent shows the rest", async () => {
    expect((await files.ok("list", { groupId: 0, path: "/links" })).names).toEqual(["docs-parent", "plain.txt"]);
    expect((await files.ok("tree", { groupId: 0, path: "/links" })).folders.map((f) => f.name)).toEqual(["docs-parent"]);
    expect((await files.ok("list", { groupId: 0, path: "/links/docs-parent" })).names).toEqual(["public.txt"]);
    expect((await files.ok("tree", { groupId: 0, path: "/links/docs-parent" })).folders).toEqual([]);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/links/docs-parent"] })).toMatchObject({ file_count: 1, folder_count: 0, file_size: 6 });
    expect(await files.ok("exists", { groupId: 0, target: "/links/docs-parent", names: ["private", "public.txt"] })).toEqual({ existing: ["public.txt"] });
    expect(await files.ok("exists", { groupId: 0, target: "/links", names: ["rel-vault", "abs-vault", "chain1", "secret-file.png", "plain.txt", "docs-parent"] })).toEqual({
      existing: ["plain.txt", "docs-parent"],
    });
    const found = await files.ok("search", { groupId: 0, path: "/links/docs-parent", keyword: "p" });
    expect(found.entries.map((e) => e.path)).toEqual(["/links/docs-parent/public.txt"]);
    for (const keyword of ["secret", "deep", "p.txt"]) expect((await files.ok("search", { groupId: 0, path: "/", keyword })).entries, keyword).toEqual([]);
  });

  it("leaves nothing of the forbidden content in a zip of the folder holding the links, or of the parent link", async () => {
    const links = await zipAt((await files.ok("download", { groupId: 0, paths: ["/links"] })).url);
    expect(links.listing).toEqual(["links/", "links/plain.txt"]);
    expect(links.leaks).toEqual([]);
    const parent = await zipAt((await files.ok("download", { groupId: 0, paths: ["/links/docs-parent"] })).url);
    expect(parent.listing).toEqual(["docs-parent/", "docs-parent/public.txt"]);
    expect(parent.leaks).toEqual([]);
  });

  it("cannot be copied, moved, renamed, removed, written into or uploaded through, and nothing changes", async () => {
    await files.ok("mkdir", { groupId: 0, path: "/", name: "out" });
    const before = await snapshot(home);
    for (const p of [...INTO_VAULT, "/links/secret-file.png", "/links/docs-parent/private"]) {
      expect(await code("copy", { groupId: 0, paths: [p], target: "/out" }), p).toBe(1008);
      expect(await code("move", { groupId: 0, paths: [p], target: "/out" }), p).toBe(1008);
      expect(await code("remove", { groupId: 0, paths: [p] }), p).toBe(1008);
      expect(await code("rename", { groupId: 0, path: p, newName: "renamed" }), p).toBe(1008);
    }
    for (const p of [...INTO_VAULT, "/links/docs-parent/private"]) {
      expect(await code("mkdir", { groupId: 0, path: p, name: "planted" }), p).toBe(1008);
      const created = await tusClient(t.fileUrl, user.socketToken).create({ groupId: "0", path: `${p}/planted.txt` }, 4);
      expect(created.body?.code, p).toBe(1008);
      expect(created.id, p).toBeNull();
    }
    // Nothing may be copied or moved onto a link into the forbidden folder either.
    expect(await code("copy", { groupId: 0, paths: ["/links/plain.txt"], target: "/links/rel-vault" })).toBe(1008);
    expect(await snapshot(home)).toEqual(before);
  });

  it("a forbidden path named through a link is forbidden at its real place too", async () => {
    const patched = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: await t.adminToken(), body: { forbiddenPaths: ["/vault", "/docs/private", "/links/docs-parent/public.txt"] } });
    expect(patched.body.code).toBe(200);
    expect(await code("download", { groupId: 0, paths: ["/docs/public.txt"] })).toBe(1008);
    expect((await files.ok("list", { groupId: 0, path: "/docs" })).names).toEqual([]);
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: await t.adminToken(), body: { forbiddenPaths: ["/vault", "/docs/private"] } });
    expect((await files.ok("list", { groupId: 0, path: "/docs" })).names).toEqual(["public.txt"]);
  });
});

describe("a share visitor meeting a link into the owner's forbidden path", () => {
  it("does not see it, list it or download it in a shared folder, and a zip of the share leaves it out", async () => {
    const token = await shareTokenOf(t, await makeLink(t, user.token, { shareFiles: ["/links"] }));
    const visitor = await connectVisitor(t.fileUrl, token);
    try {
      expect((await visitor.ok("list", { groupId: 0, path: "/links" })).names).toEqual(["docs-parent", "plain.txt"]);
      expect((await visitor.ok("list", { groupId: 0, path: "/links/docs-parent" })).names).toEqual(["public.txt"]);
      for (const p of ["/links/rel-vault", "/links/abs-vault", "/links/chain1", "/links/docs-parent/private"]) {
        expect((await visitor.cmd("list", { groupId: 0, path: p })).code, p).not.toBe(200);
        expect((await visitor.cmd("attributes", { groupId: 0, paths: [p] })).code, p).not.toBe(200);
        expect((await visitor.cmd("download", { groupId: 0, paths: [p] })).code, p).not.toBe(200);
      }
      expect((await visitor.cmd("download", { groupId: 0, paths: ["/links/secret-file.png"] })).code).not.toBe(200);
      const zip = await zipAt((await visitor.ok("download", { groupId: 0, paths: ["/"] })).url);
      expect(zip.listing).toEqual(["links/", "links/plain.txt"]);
      expect(zip.leaks).toEqual([]);
    } finally {
      await visitor.close();
    }
  });

  it("a share of a link into the forbidden folder is refused at creation", async () => {
    for (const shared of ["/links/rel-vault", "/links/secret-file.png"]) {
      const made = await t.call("POST", "/api/share/link/create", { token: user.token, body: { shareBaseUrl: "https://files.example.com", shareUrlType: 1, shareFiles: [shared] } });
      expect(made.body.code, shared).toBe(1008);
    }
    const invite = await t.call("POST", "/api/share/link/create", {
      token: user.token,
      body: { shareBaseUrl: "https://files.example.com", shareUrlType: 0, shareServerPath: "/links/rel-vault", needPassword: true, shareUrlPasswd: "abcd" },
    });
    expect(invite.body.code).toBe(1008);
  });

  it("an invitation's visitor cannot upload or make folders through a link into the forbidden folder", async () => {
    const token = await shareTokenOf(t, await makeLink(t, user.token, { shareUrlType: 0, shareServerPath: "/links", needPassword: true, shareUrlPasswd: "in" }));
    const visitor = await connectVisitor(t.fileUrl, token);
    const before = await snapshot(home);
    try {
      for (const p of ["/rel-vault", "/abs-vault", "/chain1", "/docs-parent/private"]) {
        expect((await visitor.cmd("mkdir", { groupId: 0, path: p, name: "planted" })).code, p).not.toBe(200);
        const created = await tusClient(t.fileUrl, token).create({ groupId: "0", path: `${p}/planted.txt` }, 4);
        expect(created.id, p).toBeNull();
        expect([1008, 1043], p).toContain(created.body?.code);
      }
      expect(await snapshot(home)).toEqual(before);
    } finally {
      await visitor.close();
    }
  });
});
