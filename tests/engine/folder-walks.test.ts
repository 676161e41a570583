import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { walkStats } from "../../server/storage/walk";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";

/**
 * Folder walks (docs/security.md, "Folder walks"): zip downloads, search, size sums, copy and
 * remove end on symbolic-link loops and refuse trees deeper or larger than the limits with 4260,
 * leaving nothing half-done; a walk whose client goes away stops.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const DEPTH = 6;
const ENTRIES = 300;
const ZIP_ENTRIES = 150;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "ferry-walks-"));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Writes files (and their folders) below `home`. */
async function tree(home: string, files: Record<string, string>) {
  for (const [rel, data] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(home, rel)), { recursive: true });
    await writeFile(path.join(home, rel), data);
  }
}

/** A chain of `levels` nested folders below `dir` ("d1/d2/…"), with a file in the deepest; its relative path. */
async function chain(dir: string, levels: number): Promise<string> {
  const rel = Array.from({ length: levels }, (_, i) => `d${i + 1}`).join("/");
  await mkdir(path.join(dir, rel), { recursive: true });
  await writeFile(path.join(dir, rel, "bottom.txt"), "deep");
  return rel;
}

async function fill(dir: string, count: number) {
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(path.join(dir, `x-${String(i).padStart(4, "0")}.txt`), "x");
}

/** Polls the engine's walk counters until `done` holds (a state to reach, not a time to wait). */
async function until(done: () => boolean) {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("folder walks within lowered limits", () => {
  let t: TestEngine;
  let user: Awaited<ReturnType<TestEngine["createUser"]>>;
  let files: FileClient;
  let home: string;
  let outside: string;

  beforeAll(async () => {
    t = await startTestEngine({ ...SHARE_ENV, FERRY_WALK_MAX_DEPTH: String(DEPTH), FERRY_WALK_MAX_ENTRIES: String(ENTRIES), FERRY_ZIP_MAX_ENTRIES: String(ZIP_ENTRIES) });
    user = await t.createUser("walker", { permission: PERMISSION_FULL });
    files = await connectFiles(t.fileUrl, user.socketToken);
    home = path.join(t.dataDir, "storage", "users", "walker");
    outside = path.join(scratch, "outside");
    await tree(outside, { "canary.txt": "outside the home" });
    await tree(home, { "loops/a.txt": "a", "loops/sub/b.txt": "bb", "loops/sub/deeper/c.txt": "ccc" });
    // Every shape of loop: the folder itself, its parent, a grandparent from below, an absolute
    // link to the folder, the file system's root, a link ring, and a link out of the home.
    await symlink(".", path.join(home, "loops", "loop"));
    await symlink("..", path.join(home, "loops", "up"));
    await symlink("../..", path.join(home, "loops", "sub", "deeper", "back"));
    await symlink(path.join(home, "loops"), path.join(home, "loops", "sub", "abs-loop"));
    await symlink("/", path.join(home, "loops", "root"));
    await symlink("ring2", path.join(home, "loops", "ring1"));
    await symlink("ring1", path.join(home, "loops", "ring2"));
    await symlink(outside, path.join(home, "loops", "sub", "out"));
  });
  afterAll(async () => {
    await files?.close();
    await t?.stop();
  });

  async function zip(paths: string[], client = files) {
    const { url } = await client.ok("download", { groupId: 0, paths });
    const res = await fetch(t.fileUrl + url);
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) return { status: res.status, text: body.toString("utf8"), listing: [] as string[] };
    const file = path.join(scratch, `${randomBytes(4).toString("hex")}.zip`);
    await writeFile(file, body);
    await run("unzip", ["-tq", file]);
    return { status: res.status, text: "", listing: (await run("zipinfo", ["-1", file])).stdout.split("\n").filter(Boolean).sort() };
  }

  it("a zip of a folder full of link loops ends and holds the real entries only", async () => {
    const result = await zip(["/loops"]);
    expect(result.status).toBe(200);
    expect(result.listing).toEqual(["loops/", "loops/a.txt", "loops/sub/", "loops/sub/b.txt", "loops/sub/deeper/", "loops/sub/deeper/c.txt"]);
    // Several items, one of them inside a loop's reach.
    expect((await zip(["/loops/sub", "/loops/a.txt"])).listing).toEqual(["a.txt", "sub/", "sub/b.txt", "sub/deeper/", "sub/deeper/c.txt"]);
    // A share visitor's zip of the same folder walks it the same way.
    const visitor = await connectVisitor(t.fileUrl, await shareTokenOf(t, await makeLink(t, user.token, { shareFiles: ["/loops"] })));
    try {
      expect((await zip(["/"], visitor)).listing).toEqual(["loops/", "loops/a.txt", "loops/sub/", "loops/sub/b.txt", "loops/sub/deeper/", "loops/sub/deeper/c.txt"]);
      expect(await visitor.ok("attributes", { groupId: 0, paths: ["/loops"] })).toMatchObject({ file_count: 3, folder_count: 2 });
    } finally {
      await visitor.close();
    }
  });

  it("a search through link loops ends, finds each real match once and answers not truncated", async () => {
    expect(await files.ok("search", { groupId: 0, path: "/loops", keyword: ".txt" })).toEqual({
      entries: [
        expect.objectContaining({ path: "/loops/a.txt" }),
        expect.objectContaining({ path: "/loops/sub/b.txt" }),
        expect.objectContaining({ path: "/loops/sub/deeper/c.txt" }),
      ],
      truncated: false,
    });
    // A link is found by its name, but never entered.
    const loops = await files.ok("search", { groupId: 0, path: "/", keyword: "loop" });
    expect(loops.entries.map((e) => e.path).sort()).toEqual(["/loops", "/loops/loop", "/loops/sub/abs-loop"]);
    expect(loops.truncated).toBe(false);
  });

  it("size sums, copy and tree of a folder with link loops count and copy the real entries only", async () => {
    expect(await files.ok("attributes", { groupId: 0, paths: ["/loops"] })).toMatchObject({ file_size: 6, file_count: 3, folder_count: 2 });
    await files.ok("mkdir", { groupId: 0, path: "/", name: "copies" });
    expect(await files.ok("copy", { groupId: 0, paths: ["/loops"], target: "/copies" })).toEqual({ done: ["/loops"], failed: [] });
    expect(await snapshot(path.join(home, "copies"))).toEqual([
      "loops dir 0",
      "loops/a.txt file 1",
      "loops/sub dir 0",
      "loops/sub/b.txt file 2",
      "loops/sub/deeper dir 0",
      "loops/sub/deeper/c.txt file 3",
    ]);
    // Copied again over the first copy (a merge, entry by entry): still no link is followed or copied.
    expect(await files.ok("copy", { groupId: 0, paths: ["/loops"], target: "/copies", overwrite: true })).toEqual({ done: ["/loops"], failed: [] });
    expect(await snapshot(path.join(home, "copies"))).toHaveLength(6);
    expect((await files.ok("tree", { groupId: 0, path: "/loops" })).folders.map((f) => f.name)).toEqual(["loop", "sub", "up"]);
  });

  it("removing a folder with link loops removes the links, never what they point at", async () => {
    await tree(home, { "doomed/keep-nothing.txt": "x" });
    await symlink("..", path.join(home, "doomed", "up"));
    await symlink(".", path.join(home, "doomed", "loop"));
    await symlink(outside, path.join(home, "doomed", "out"));
    await symlink("/", path.join(home, "doomed", "root"));
    expect(await files.ok("remove", { groupId: 0, paths: ["/doomed"] })).toEqual({ done: ["/doomed"], failed: [] });
    expect(await readdir(home)).not.toContain("doomed");
    expect(await readFile(path.join(outside, "canary.txt"), "utf8")).toBe("outside the home");
    expect(await readFile(path.join(home, "loops", "a.txt"), "utf8")).toBe("a");
  });

  it("a tree deeper than FERRY_WALK_MAX_DEPTH is refused with 4260 by zip, size sums and copy, and a search stops there", async () => {
    const rel = await chain(path.join(home, "deep"), DEPTH + 2);
    await chain(path.join(home, "fits"), DEPTH - 1);
    const before = await snapshot(home);

    const refused = await zip(["/deep"]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`${DEPTH} levels`);
    const attributes = await files.cmd("attributes", { groupId: 0, paths: ["/deep"] });
    expect(attributes.code).toBe(4260);
    expect(attributes.message).toContain(`${ENTRIES} items, ${DEPTH} levels`);
    expect(await files.ok("copy", { groupId: 0, paths: ["/deep"], target: "/copies" })).toEqual({ done: [], failed: [{ path: "/deep", code: 4260 }] });
    const search = await files.ok("search", { groupId: 0, path: "/deep", keyword: "d" });
    expect(search.truncated).toBe(true);
    // The folders down to the last level entered are found; the file below them is not.
    expect(search.entries.map((e) => e.path)).toEqual(Array.from({ length: DEPTH + 1 }, (_, i) => `/deep/${rel.split("/").slice(0, i + 1).join("/")}`));
    // Nothing was created by the refused copy (and no staged copy is left behind).
    expect(await snapshot(home)).toEqual(before);
    expect((await readdir(path.join(home, ".ferry-tmp")).catch(() => [])).filter((n) => n.endsWith(".copy"))).toEqual([]);

    // A tree within the depth works everywhere.
    expect((await zip(["/fits"])).status).toBe(200);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/fits"] })).toMatchObject({ file_count: 1, folder_count: DEPTH - 1 });
    expect(await files.ok("copy", { groupId: 0, paths: ["/fits"], target: "/copies" })).toEqual({ done: ["/fits"], failed: [] });
    expect((await files.ok("search", { groupId: 0, path: "/fits", keyword: "bottom" })).entries).toHaveLength(1);
    // Removing is never refused for depth: the tree goes as a whole.
    expect(await files.ok("remove", { groupId: 0, paths: ["/deep"] })).toEqual({ done: ["/deep"], failed: [] });
    expect(await readdir(home)).not.toContain("deep");
  });

  it("a folder with more entries than the limits is refused with 4260 by zip, size sums and copy; a search answers truncated", async () => {
    await fill(path.join(home, "many"), ENTRIES + 20);
    await fill(path.join(home, "zipmany"), ZIP_ENTRIES + 5);
    await fill(path.join(home, "some"), ZIP_ENTRIES - 10);
    const before = await snapshot(home);

    expect((await zip(["/many"])).status).toBe(400);
    expect((await zip(["/zipmany"])).status).toBe(400);
    expect((await files.cmd("attributes", { groupId: 0, paths: ["/many"] })).code).toBe(4260);
    expect(await files.ok("copy", { groupId: 0, paths: ["/many", "/some"], target: "/copies" })).toEqual({ done: ["/some"], failed: [{ path: "/many", code: 4260 }] });
    const search = await files.ok("search", { groupId: 0, path: "/many", keyword: "nothing-matches" });
    expect(search).toEqual({ entries: [], truncated: true });
    expect((await snapshot(home)).filter((line) => !line.startsWith("copies/some"))).toEqual(before);
    expect(await readdir(path.join(home, "copies"))).not.toContain("many");

    // Below the limits everything works.
    expect((await zip(["/some"])).listing).toHaveLength(ZIP_ENTRIES - 10 + 1);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/zipmany"] })).toMatchObject({ file_count: ZIP_ENTRIES + 5 });
  });
});

describe("walks whose client goes away", () => {
  let t: TestEngine;
  let user: Awaited<ReturnType<TestEngine["createUser"]>>;
  let files: FileClient;
  const FOLDERS = 12_000;

  beforeAll(async () => {
    t = await startTestEngine();
    user = await t.createUser("leaver", { permission: PERMISSION_FULL });
    files = await connectFiles(t.fileUrl, user.socketToken);
    const huge = path.join(t.dataDir, "storage", "users", "leaver", "huge");
    await mkdir(huge, { recursive: true });
    for (let i = 0; i < FOLDERS; i += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => mkdir(path.join(huge, `f-${String(i + j).padStart(5, "0")}`))));
    }
  });
  afterAll(async () => {
    await files?.close();
    await t?.stop();
  });

  it("a zip download whose client disconnects during the folder walk stops walking, and the engine keeps serving", async () => {
    const { url } = await files.ok("download", { groupId: 0, paths: ["/huge"] });
    const start = { ...walkStats };
    const client = new AbortController();
    const request = fetch(t.fileUrl + url, { signal: client.signal }).catch((error: unknown) => error);
    // Once the walk is under way, the client gives up.
    await until(() => walkStats.foldersRead > start.foldersRead + 50);
    client.abort();
    await request;
    await until(() => walkStats.running === start.running);
    expect(walkStats.stopped).toBe(start.stopped + 1);
    expect(walkStats.foldersRead - start.foldersRead).toBeLessThan(FOLDERS + 1);
    // The engine answers at once, and a whole walk of the same folder still works.
    expect((await files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["huge"]);
    expect(await files.ok("attributes", { groupId: 0, paths: ["/huge"] })).toMatchObject({ folder_count: FOLDERS });
  });

  it("a search whose socket closes stops walking", async () => {
    const other = await connectFiles(t.fileUrl, (await t.login("leaver", "Str0ng#Pass")).body.data.websocket_token as string);
    const start = { ...walkStats };
    void other.cmd("search", { groupId: 0, path: "/huge", keyword: "no-such-name" }).catch(() => undefined);
    await until(() => walkStats.foldersRead > start.foldersRead + 50);
    await other.close();
    await until(() => walkStats.running === start.running);
    expect(walkStats.stopped).toBe(start.stopped + 1);
    expect(walkStats.foldersRead - start.foldersRead).toBeLessThan(FOLDERS + 1);
    expect((await files.ok("search", { groupId: 0, path: "/huge", keyword: "f-11999" })).entries.map((e) => e.path)).toEqual(["/huge/f-11999"]);
  });
});
