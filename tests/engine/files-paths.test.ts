import { mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorByCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";

/** The path attacks of SECURITY.md ("Paths") over the file server's socket commands. */

let t: TestEngine;
let files: FileClient;
let home: string;
let outside: string;
beforeAll(async () => {
  t = await startTestEngine();
  const user = await t.createUser("pathuser", { permission: PERMISSION_FULL });
  // A sibling whose home shares the prefix: /users/pathuser2 must stay out of reach.
  await t.createUser("pathuser2", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "pathuser");
  outside = path.join(t.dataDir, "outside");
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, "loot.txt"), "not yours");
  await writeFile(path.join(t.dataDir, "storage", "users", "pathuser2", "private.txt"), "sibling");
  files = await connectFiles(t.fileUrl, user.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

/** Everything in the data directory except the user's home: no command may change it. */
async function outsideHome(): Promise<string[]> {
  return (await snapshot(t.dataDir)).filter((line) => !line.startsWith("storage/users/pathuser/") && !/^ferry\.db/.test(line));
}

const listCode = async (p: string) => (await files.cmd("list", { groupId: 0, path: p })).code;

describe("path attacks over the socket", () => {
  it("dot segments, backslashes, NUL and look-alikes answer 1066; encoded forms are plain names inside the home", async () => {
    const before = await outsideHome();
    for (const p of ["..", "/..", "../..", "/a/../../..", "..\\", "..\\..\\etc", "/a\\b", "a\0b", "\0", "/．．/．．", "／etc", "..／x", "C:\\Windows", "/a/./b", "/\u2025/x"]) {
      expect(await listCode(p), JSON.stringify(p)).toBe(1066);
      expect((await files.cmd("mkdir", { groupId: 0, path: p, name: "x" })).code, JSON.stringify(p)).toBe(1066);
    }
    // Nothing is decoded: these are ordinary (missing) names inside the home, then creatable ones.
    for (const name of ["%2e%2e%2f", "%252e%252e%252f", "%5C", "%00", "%"]) {
      expect(await listCode(`/${name}`), name).toBe(1043);
      expect(await files.ok("mkdir", { groupId: 0, path: "/", name })).toEqual({ path: `/${name}` });
      expect((await stat(path.join(home, name))).isDirectory()).toBe(true);
    }
    expect(await outsideHome()).toEqual(before);
  });

  it("absolute paths and repeated slashes stay inside the home; file..name is an ordinary name", async () => {
    expect(await listCode("/etc")).toBe(1043);
    expect(await files.ok("mkdir", { groupId: 0, path: "//", name: "etc" })).toEqual({ path: "/etc" });
    expect((await stat(path.join(home, "etc"))).isDirectory()).toBe(true);
    expect((await files.ok("list", { groupId: 0, path: "///etc//" })).path).toBe("/etc");
    expect(await files.ok("mkdir", { groupId: 0, path: "/etc", name: "file..name" })).toEqual({ path: "/etc/file..name" });
    expect(await files.ok("rename", { groupId: 0, path: "/etc/file..name", newName: "...x.." })).toEqual({ path: "/etc/...x.." });
  });

  it("a sibling home with the same prefix is out of reach", async () => {
    for (const p of ["/../pathuser2", "../pathuser2/private.txt", "/../pathuser2/"]) expect(await listCode(p), p).toBe(1066);
    expect(await listCode("/pathuser2")).toBe(1043);
    expect((await files.cmd("remove", { groupId: 0, paths: ["../pathuser2/private.txt"] })).code).toBe(1066);
    expect((await stat(path.join(t.dataDir, "storage", "users", "pathuser2", "private.txt"))).size).toBe(7);
  });

  it("a symbolic link inside the home that points outside is neither listed nor followed", async () => {
    await symlink(outside, path.join(home, "escape"));
    await symlink(path.join(outside, "loot.txt"), path.join(home, "loot-link"));
    const before = await outsideHome();
    const names = (await files.ok("list", { groupId: 0, path: "/" })).names;
    expect(names).not.toContain("escape");
    expect(names).not.toContain("loot-link");
    expect(await listCode("/escape")).toBe(1066);
    expect((await files.cmd("mkdir", { groupId: 0, path: "/escape", name: "planted" })).code).toBe(1066);
    expect((await files.cmd("attributes", { groupId: 0, paths: ["/loot-link"] })).code).toBe(1066);
    expect((await files.ok("copy", { groupId: 0, paths: ["/loot-link", "/escape"], target: "/etc" })).failed).toEqual([
      { path: "/loot-link", code: 1066 },
      { path: "/escape", code: 1066 },
    ]);
    expect((await files.ok("search", { groupId: 0, path: "/", keyword: "loot" })).entries).toEqual([]);
    expect(await outsideHome()).toEqual(before);
    expect(await readdir(outside)).toEqual(["loot.txt"]);
  });

  it("names with markup are stored and listed verbatim when legal, refused with 4161 when they hold forbidden characters", async () => {
    const markup = "<img src=x onerror=alert(1)>";
    await mkdir(path.join(home, "html"));
    // Created on the server by other means: listed exactly as it is.
    await writeFile(path.join(home, "html", markup), "x");
    expect((await files.ok("list", { groupId: 0, path: "/html" })).names).toEqual([markup]);
    expect((await files.cmd("mkdir", { groupId: 0, path: "/html", name: markup })).code).toBe(4161);
    const legal = "&lt;b&gt; ' onload=alert(1) ${x} `id`";
    expect(await files.ok("mkdir", { groupId: 0, path: "/html", name: legal })).toEqual({ path: `/html/${legal}` });
    expect((await files.ok("list", { groupId: 0, path: "/html" })).names).toEqual([legal, markup]);
  });

  it("names at the length limits: 255 characters and 255 UTF-8 bytes", async () => {
    await mkdir(path.join(home, "long"));
    const mk = (name: string) => files.cmd("mkdir", { groupId: 0, path: "/long", name });
    expect((await mk("a".repeat(255))).code).toBe(200);
    expect((await mk("中".repeat(85))).code).toBe(200); // 255 bytes
    expect((await mk("😀".repeat(63))).code).toBe(200); // 252 bytes
    expect((await mk("中".repeat(86))).code).toBe(4161); // 258 bytes
    expect((await mk("😀".repeat(64))).code).toBe(4161); // 256 bytes
    expect((await mk("a".repeat(256))).code).toBe(400); // the contract's 255-character bound
    expect((await files.cmd("rename", { groupId: 0, path: `/long/${"a".repeat(255)}`, newName: "é".repeat(128) })).code).toBe(4161);
    expect((await readdir(path.join(home, "long"))).sort()).toEqual(["a".repeat(255), "中".repeat(85), "😀".repeat(63)].sort());
  });

  it("each forbidden character, control characters and reserved names answer 4161", async () => {
    for (const bad of ["\\", "/", ":", '"', "*", "?", "<", ">", "|"]) {
      expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: `a${bad}b` })).code, bad).toBe(4161);
      expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: bad })).code, bad).toBe(4161);
    }
    for (const bad of ["a\nb", "a\rb", "a\tb", "\u0000", "..", ".", ".ferry-tmp", ".FERRY-TMP"]) {
      expect((await files.cmd("mkdir", { groupId: 0, path: "/", name: bad })).code, JSON.stringify(bad)).toBe(4161);
    }
    expect(await readdir(home)).not.toContain(".ferry-tmp");
  });
});

describe("property: any path sent to list or mkdir", () => {
  const pieces = ["..", ".", "/", "//", "\\", "%2e", "%2f", "．", "／", "＼", "\0", "\n", "a", "etc", "é", "e\u0301", "C:", ".ferry-tmp", "中", "😀", " ", "~", "*"];
  const pathArb = fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join("")), fc.string({ unit: "binary", maxLength: 20 }));

  /** A reply that is not a success must carry a client-error code of the catalogue, never a server fault. */
  function expectCatalogueError(code: number) {
    const def = errorByCode(code);
    expect(def, `code ${code}`).toBeDefined();
    expect(def!.status, `code ${code} is a server fault`).toBe(400);
  }

  it("answers a catalogue error or succeeds with an effect inside the home", async () => {
    const before = await outsideHome();
    await fc.assert(
      fc.asyncProperty(pathArb, pathArb, async (p, name) => {
        const listed = await files.cmd("list", { groupId: 0, path: p });
        if (listed.code !== 200) expectCatalogueError(listed.code);
        else expect(listed.data.path.startsWith("/")).toBe(true);

        if (name.length === 0 || name.length > 255) return;
        const made = await files.cmd("mkdir", { groupId: 0, path: p, name });
        if (made.code !== 200) {
          expectCatalogueError(made.code);
          return;
        }
        const created = path.join(home, made.data.path);
        expect(created.startsWith(home + path.sep)).toBe(true);
        expect((await stat(created)).isDirectory()).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(await outsideHome()).toEqual(before);
  });
});
