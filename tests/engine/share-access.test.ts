import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { errorByCode } from "../../contract/errors";
import { listingEntries } from "../../contract/files";
import { PERMISSION_FULL } from "../../contract/permissions";
import { snapshot } from "../support/disk";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { connectVisitor, makeLink, type MadeLink, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { tusClient } from "../support/tus-client";

/**
 * Download links on the file server, as a visitor uses them (docs/file-server.md, "Share
 * visitors"): socket login with the share token, the virtual root, list/tree/attributes/download
 * inside the shared items only, zips, shareAllowDownload 0, the path attacks of SECURITY.md on
 * share paths, every other command refused, and user and share tokens kept apart.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const run = promisify(execFile);
type User = Awaited<ReturnType<TestEngine["createUser"]>>;

let t: TestEngine;
let owner: User;
let home: string;
let scratch: string;
const big = randomBytes(2 * 1024 * 1024 + 3);

let folderLink: MadeLink;
let folderToken: string;
let folder: FileClient;
let filesLink: MadeLink;
let filesToken: string;
let filesVisitor: FileClient;
let noDownloadToken: string;

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  owner = await t.createUser("sa_owner", { permission: PERMISSION_FULL });
  // A home whose name starts like the owner's: never reachable.
  await t.createUser("sa_owner2", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "sa_owner");
  await writeTree(home, {
    "shared/a.txt": "alpha",
    "shared/sub/b.txt": "bravo",
    "shared/file..name": "dots",
    "shared/hidden/h.txt": "forbidden to the owner",
    "shared2/x.txt": "prefix sibling",
    "sibling.txt": "sibling",
    "docs/r.txt": "report",
    "big.bin": big,
  });
  await writeFile(path.join(t.dataDir, "storage", "users", "sa_owner2", "theirs.txt"), "theirs");
  const patched = await t.call("PATCH", `/api/admin/users/${owner.id}`, { token: await t.adminToken(), body: { forbiddenPaths: ["/shared/hidden"] } });
  expect(patched.body.code).toBe(200);

  folderLink = await makeLink(t, owner.token, { shareFiles: ["/shared"], needPassword: true, shareUrlPasswd: "k3y" });
  folderToken = await shareTokenOf(t, folderLink);
  folder = await connectVisitor(t.fileUrl, folderToken);
  filesLink = await makeLink(t, owner.token, { shareFiles: ["/docs/r.txt", "/big.bin"], fileAlias: [{ file: "/docs/r.txt", alias: "report.txt" }] });
  filesToken = await shareTokenOf(t, filesLink);
  filesVisitor = await connectVisitor(t.fileUrl, filesToken);
  noDownloadToken = await shareTokenOf(t, await makeLink(t, owner.token, { shareFiles: ["/shared"], shareAllowDownload: 0 }));
  scratch = await mkdtemp(path.join(tmpdir(), "ferry-share-"));
});
afterAll(async () => {
  await folder?.close();
  await filesVisitor?.close();
  await t?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const names = async (client: FileClient, p: string) => (await client.ok("list", { groupId: 0, path: p })).names;
async function fetchUrl(url: string) {
  const res = await fetch(t.fileUrl + url);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}
/** The entry names `unzip -l` prints for a downloaded zip. */
async function unzipList(data: Buffer): Promise<string[]> {
  const file = path.join(scratch, `${randomBytes(6).toString("hex")}.zip`);
  await writeFile(file, data);
  const { stdout } = await run("unzip", ["-l", file]);
  // Rows: "  length  date time   name"; the header and footer rows are dashes and totals.
  return stdout
    .split("\n")
    .map((line) => /^\s*\d+\s+\S+\s+\S+\s+(.+)$/.exec(line)?.[1])
    .filter((name): name is string => !!name)
    .sort();
}

describe("login and the virtual root", () => {
  it("logs a visitor in with { shareToken } and tells the link's kind", async () => {
    const client = await connectFiles(t.fileUrl, null);
    const login = await client.cmd("login", { shareToken: folderToken });
    expect(login).toMatchObject({ code: 200, data: { account: "sa_owner", shareId: folderLink.shareId, shareUrlType: 1, shareAllowDownload: 1 } });
    // Before a login nothing works; the share form takes the share token alone.
    const fresh = await connectFiles(t.fileUrl, null);
    expect((await fresh.cmd("list", { groupId: 0, path: "/" })).code).toBe(4115);
    expect((await fresh.cmd("login", { shareToken: folderToken, token: owner.socketToken })).code).toBe(400);
    expect((await fresh.cmd("login", { shareToken: folderToken, client: { version: "1.0" } })).code).toBe(400);
    expect((await fresh.raw(JSON.stringify({ id: 9, cmd: "login", args: {} }), 9)).code).toBe(401);
    await Promise.all([client.close(), fresh.close()]);
  });

  it("shows the shared items at the root by their visible names, and nothing else", async () => {
    const root = await folder.ok("list", { groupId: 0, path: "/" });
    expect(listingEntries(root)).toEqual([{ name: "shared", file_type: "Folder", size: 0, time: expect.any(Number) }]);
    expect(root.path).toBe("/");
    const files = await filesVisitor.ok("list", { groupId: 0, path: "/" });
    expect(listingEntries(files).map((e) => [e.name, e.file_type, e.size])).toEqual([
      ["big.bin", "File", big.length],
      ["report.txt", "File", 6],
    ]);
  });

  it("lists inside a shared folder, hiding the owner's forbidden paths", async () => {
    expect(await names(folder, "/shared")).toEqual(["sub", "a.txt", "file..name"]);
    expect(await names(folder, "//shared//sub/")).toEqual(["b.txt"]);
    expect((await folder.ok("list", { groupId: 0, path: "//shared//sub/" })).path).toBe("/shared/sub");
    expect(await folder.ok("tree", { groupId: 0, path: "/" })).toEqual({ path: "/", folders: [{ name: "shared", path: "/shared" }] });
    expect(await folder.ok("tree", { groupId: 0, path: "/shared" })).toEqual({ path: "/shared", folders: [{ name: "sub", path: "/shared/sub" }] });
    const attributes = await folder.ok("attributes", { groupId: 0, paths: ["/shared"] });
    expect(attributes).toMatchObject({ path: "/shared", file_count: 3, folder_count: 1, file_size: 5 + 5 + 4 });
    expect(await filesVisitor.ok("attributes", { groupId: 0, paths: ["/report.txt"] })).toMatchObject({ path: "/report.txt", file_count: 1, file_size: 6 });
    expect(await filesVisitor.ok("attributes", { groupId: 0, paths: ["/"] })).toMatchObject({ path: "/", file_count: 2, file_size: 6 + big.length });
  });

  it("never reaches a sibling of a shared folder, a forbidden path or another home", async () => {
    for (const p of ["/shared2", "/shared2/x.txt", "/sibling.txt", "/docs", "/shared/hidden", "/shared/hidden/h.txt", "/sa_owner2", "/shared/missing"]) {
      expect((await folder.cmd("list", { groupId: 0, path: p })).code, p).toBe(1043);
      expect((await folder.cmd("attributes", { groupId: 0, paths: [p] })).code, p).toBe(1043);
      expect((await folder.cmd("download", { groupId: 0, paths: [p] })).code, p).toBe(1043);
    }
    for (const p of ["/shared/../shared2", "/shared/../sibling.txt", "/../sa_owner2/theirs.txt", "/shared/..", "/shared/hidden/../a.txt"]) {
      expect((await folder.cmd("list", { groupId: 0, path: p })).code, p).toBe(1066);
      expect((await folder.cmd("download", { groupId: 0, paths: ["/shared/a.txt", p] })).code, p).toBe(1066);
    }
    // A file item has nothing below it.
    expect((await filesVisitor.cmd("list", { groupId: 0, path: "/report.txt/x" })).code).toBe(1043);
    expect((await filesVisitor.cmd("list", { groupId: 0, path: "/r.txt" })).code).toBe(1043);
    // A folder's zip leaves the forbidden folder out.
    const { url } = await folder.ok("download", { groupId: 0, paths: ["/shared"] });
    expect(await unzipList((await fetchUrl(url)).body)).not.toContain("shared/hidden/");
  });
});

describe("downloads", () => {
  it("downloads one file byte for byte, under its alias", async () => {
    const ticket = await filesVisitor.ok("download", { groupId: 0, paths: ["/big.bin"] });
    expect(ticket.name).toBe("big.bin");
    const { res, body } = await fetchUrl(ticket.url);
    expect(res.status).toBe(200);
    expect(body.equals(big)).toBe(true);
    expect(res.headers.get("content-disposition")).toContain("attachment");
    const aliased = await filesVisitor.ok("download", { groupId: 0, paths: ["/report.txt"] });
    expect(aliased.name).toBe("report.txt");
    const got = await fetchUrl(aliased.url);
    expect(got.body.toString()).toBe("report");
    expect(got.res.headers.get("content-disposition")).toContain('filename="report.txt"');
    // A range works as for signed-in users.
    const ranged = await fetch(t.fileUrl + ticket.url, { headers: { range: "bytes=10-19" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(big.subarray(10, 20))).toBe(true);
  });

  it("zips a shared folder, checked with unzip -l", async () => {
    const { url, name } = await folder.ok("download", { groupId: 0, paths: ["/shared"] });
    expect(name).toBe("shared.zip");
    const { res, body } = await fetchUrl(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(await unzipList(body)).toEqual(["shared/", "shared/a.txt", "shared/file..name", "shared/sub/", "shared/sub/b.txt"].sort());
    // A selection inside the folder: names relative to it.
    const part = await folder.ok("download", { groupId: 0, paths: ["/shared/sub", "/shared/a.txt", "/shared/sub/b.txt"] });
    expect(part.name).toBe("download.zip");
    expect(await unzipList((await fetchUrl(part.url)).body)).toEqual(["a.txt", "sub/", "sub/b.txt"]);
  });

  it("zips the whole share by visible names, never by the owner's folders", async () => {
    const { url, name } = await filesVisitor.ok("download", { groupId: 0, paths: ["/"] });
    expect(name).toBe("download.zip");
    const { body } = await fetchUrl(url);
    expect(await unzipList(body)).toEqual(["big.bin", "report.txt"]);
    const file = path.join(scratch, "whole.zip");
    await writeFile(file, body);
    expect((await run("unzip", ["-p", file, "report.txt"])).stdout).toBe("report");
  });

  it("refuses downloads when the link does not allow them (4177), on the socket and over REST", async () => {
    const visitor = await connectVisitor(t.fileUrl, noDownloadToken);
    expect((await visitor.cmd("login", { shareToken: noDownloadToken })).data).toMatchObject({ shareAllowDownload: 0 });
    expect(await names(visitor, "/shared")).toEqual(["sub", "a.txt", "file..name"]);
    expect((await visitor.cmd("download", { groupId: 0, paths: ["/shared/a.txt"] })).code).toBe(4177);
    expect((await visitor.cmd("download", { groupId: 0, paths: ["/"] })).code).toBe(4177);
    expect((await t.call("POST", "/api/share/files/download", { token: noDownloadToken, body: { paths: ["/shared/a.txt"] } })).body.code).toBe(4177);
    await visitor.close();
  });
});

describe("everything else is refused", () => {
  it("answers 1008 to every other command and to any group space, and changes nothing", async () => {
    const before = await snapshot(path.join(t.dataDir, "storage"));
    const refused: [string, Record<string, unknown>][] = [
      ["mkdir", { groupId: 0, path: "/shared", name: "new" }],
      ["rename", { groupId: 0, path: "/shared/a.txt", newName: "z.txt" }],
      ["exists", { groupId: 0, target: "/shared", names: ["a.txt"] }],
      ["move", { groupId: 0, paths: ["/shared/a.txt"], target: "/shared/sub" }],
      ["copy", { groupId: 0, paths: ["/shared/a.txt"], target: "/shared/sub" }],
      ["remove", { groupId: 0, paths: ["/shared/a.txt"] }],
      ["search", { groupId: 0, path: "/", keyword: "a" }],
      ["preview", { groupId: 0, path: "/shared/a.txt" }],
      ["commit", { uploadId: "0".repeat(32), hash: "0".repeat(64) }],
      ["list", { groupId: 1, path: "/" }],
      ["download", { groupId: 1, paths: ["/shared/a.txt"] }],
    ];
    for (const [cmd, args] of refused) {
      const id = 100 + refused.findIndex(([c, a]) => c === cmd && a === args);
      expect((await folder.raw(JSON.stringify({ id, cmd, args }), id)).code, cmd).toBe(1008);
    }
    // An unknown command is still 4103, malformed arguments still 400/401.
    expect((await folder.raw(JSON.stringify({ id: 200, cmd: "format", args: {} }), 200)).code).toBe(4103);
    expect((await folder.raw(JSON.stringify({ id: 201, cmd: "list", args: { groupId: 0 } }), 201)).code).toBe(401);
    // A download link's token cannot upload.
    const tus = tusClient(t.fileUrl, folderToken);
    const created = await tus.create({ groupId: "0", path: "/shared/new.txt" }, 3);
    expect(created.status).toBe(403);
    expect(created.body?.code).toBe(1008);
    expect(await snapshot(path.join(t.dataDir, "storage"))).toEqual(before);
  });
});

describe("share tokens and user tokens stay apart", () => {
  it("a user's token is no share token and a share token is no user token", async () => {
    const anon = await connectFiles(t.fileUrl, null);
    expect((await anon.cmd("login", { shareToken: owner.socketToken })).code).toBe(1009);
    expect((await anon.cmd("login", { shareToken: owner.token })).code).toBe(1009);
    expect((await anon.cmd("login", { token: folderToken })).code).toBe(1009);
    expect((await anon.cmd("list", { groupId: 0, path: "/" })).code).toBe(4115);
    await anon.close();
    // REST: the visitor calls refuse user tokens, the user calls refuse share tokens.
    expect((await t.call("GET", "/api/share/files/list?path=/", { token: owner.token })).body.code).toBe(1009);
    expect((await t.call("GET", "/api/share/files/list?path=/")).body.code).toBe(1009);
    expect((await t.call("GET", "/api/user/info", { token: folderToken })).body.code).toBe(1009);
    // The file server's address is for both; a visitor is not told the server's mail account.
    const asVisitor = await t.call("GET", "/api/service/info", { token: folderToken });
    expect(asVisitor.body.code).toBe(200);
    expect(asVisitor.body.data.server.no_ssl_port).toBeGreaterThan(0);
    expect(asVisitor.body.data.server.emailAccount).toBe("");
    expect((await t.call("GET", "/api/service/info", { token: owner.token })).body.code).toBe(200);
    expect((await t.call("GET", "/api/service/info", { token: owner.socketToken })).body.code).toBe(1009);
    expect((await t.call("GET", "/api/service/info", { token: "x".repeat(43) })).body.code).toBe(1009);
    // tus: a share token is not a sign-in, and an owner's signed download URL is not a visitor's.
    const ownerFiles = await connectFiles(t.fileUrl, owner.socketToken);
    const own = await ownerFiles.ok("download", { groupId: 0, paths: ["/sibling.txt"] });
    expect((await fetchUrl(own.url)).res.status).toBe(200);
    await ownerFiles.close();
    // A visitor socket that logs in as a user becomes that user's socket (and the reverse).
    const switching = await connectVisitor(t.fileUrl, folderToken);
    expect((await switching.cmd("login", { token: owner.socketToken })).code).toBe(200);
    expect(await names(switching, "/")).toContain("sibling.txt");
    expect((await switching.cmd("login", { shareToken: folderToken })).code).toBe(200);
    expect(await names(switching, "/")).toEqual(["shared"]);
    await switching.close();
  });
});

describe("REST calls for pages without JavaScript", () => {
  it("lists like the socket and hands out a working download URL", async () => {
    const listed = await t.call("GET", `/api/share/files/list?${new URLSearchParams({ path: "/shared" })}`, { token: folderToken });
    expect(listed.body.code).toBe(200);
    expect(listed.body.data).toEqual(await folder.ok("list", { groupId: 0, path: "/shared" }));
    expect((await t.call("GET", "/api/share/files/list", { token: filesToken })).body.data.names).toEqual(["big.bin", "report.txt"]);
    expect((await t.call("GET", "/api/share/files/list?path=/shared2", { token: folderToken })).body.code).toBe(1043);
    expect((await t.call("GET", `/api/share/files/list?path=${encodeURIComponent("/shared/../shared2")}`, { token: folderToken })).body.code).toBe(1066);
    const ticket = await t.call("POST", "/api/share/files/download", { token: filesToken, body: { paths: ["/report.txt"] } });
    expect(ticket.body).toMatchObject({ code: 200, data: { name: "report.txt", url: expect.stringMatching(/^\/download\/.+\/report\.txt$/) } });
    expect((await fetchUrl(ticket.body.data.url)).body.toString()).toBe("report");
    const zip = await t.call("POST", "/api/share/files/download", { token: folderToken, body: { paths: ["/shared"] } });
    expect(await unzipList((await fetchUrl(zip.body.data.url)).body)).toContain("shared/sub/b.txt");
    expect((await t.call("POST", "/api/share/files/download", { token: folderToken, body: { paths: ["/sibling.txt"] } })).body.code).toBe(1043);
    expect((await t.call("POST", "/api/share/files/download", { token: folderToken, body: { paths: [] } })).body.code).toBe(400);
  });
});

describe("path attacks of SECURITY.md on share paths", () => {
  it("dot segments, backslashes, NUL and look-alikes answer 1066; encoded forms are plain (missing) names", async () => {
    for (const p of ["..", "/..", "../..", "/shared/../..", "..\\", "/shared\\..\\..", "/shared/a\0b", "\0", "/．．/．．", "／shared", "/shared/..／x", "C:\\Windows", "/shared/./sub", "/\u2025/x"]) {
      expect((await folder.cmd("list", { groupId: 0, path: p })).code, JSON.stringify(p)).toBe(1066);
      expect((await folder.cmd("download", { groupId: 0, paths: [p] })).code, JSON.stringify(p)).toBe(1066);
      expect((await t.call("GET", `/api/share/files/list?${new URLSearchParams({ path: p })}`, { token: folderToken })).body.code, JSON.stringify(p)).toBe(1066);
    }
    for (const name of ["%2e%2e%2f", "%252e%252e%252f", "%5C", "%00", "%", "etc", "shared%2f..%2fshared2"]) {
      expect((await folder.cmd("list", { groupId: 0, path: `/${name}` })).code, name).toBe(1043);
      expect((await folder.cmd("list", { groupId: 0, path: `/shared/${name}` })).code, name).toBe(1043);
    }
    // Absolute paths are inside the share; file..name is an ordinary name.
    expect((await folder.cmd("list", { groupId: 0, path: "/etc/passwd" })).code).toBe(1043);
    expect((await folder.cmd("attributes", { groupId: 0, paths: ["/shared/file..name"] })).data).toMatchObject({ file_size: 4 });
  });

  it("property: whatever path is sent, a reply either fails with a catalogue client error or stays inside the share", async () => {
    const pieces = ["..", ".", "/", "//", "\\", "%2e", "%2f", "．", "／", "＼", "\0", "\n", "shared", "shared2", "sub", "hidden", "a.txt", "x.txt", "sibling.txt", "sa_owner2", "é", "C:", ".ferry-tmp", " "];
    const pathArb = fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.constantFrom(...pieces), { maxLength: 10 }).map((parts) => parts.join("")), fc.string({ unit: "binary", maxLength: 20 }));
    const inside = new Set(["/", "/shared", "/shared/sub", "/shared/a.txt", "/shared/file..name", "/shared/sub/b.txt"]);
    const outsideNames = ["x.txt", "sibling.txt", "hidden", "h.txt", "theirs.txt", "shared2", "docs"];
    const expectClientError = (code: number) => {
      expect(errorByCode(code), `code ${code}`).toBeDefined();
      expect(errorByCode(code)!.status, `code ${code} is a server fault`).toBe(400);
    };
    const before = await snapshot(path.join(t.dataDir, "storage"));
    await fc.assert(
      fc.asyncProperty(pathArb, async (p) => {
        const listed = await folder.cmd("list", { groupId: 0, path: p });
        if (listed.code !== 200) expectClientError(listed.code);
        else {
          expect(inside.has(listed.data.path), listed.data.path).toBe(true);
          for (const n of outsideNames) expect(listed.data.names).not.toContain(n);
        }
        const attributes = await folder.cmd("attributes", { groupId: 0, paths: [p] });
        if (attributes.code !== 200) expectClientError(attributes.code);
        else expect(inside.has(attributes.data.path), attributes.data.path).toBe(true);
        const ticket = await folder.cmd("download", { groupId: 0, paths: [p] });
        if (ticket.code !== 200) expectClientError(ticket.code);
        else {
          const { res, body } = await fetchUrl(ticket.data.url);
          expect(res.status).toBe(200);
          for (const secret of ["prefix sibling", "forbidden to the owner", "theirs", "sibling"]) expect(body.includes(secret)).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
    expect(await snapshot(path.join(t.dataDir, "storage"))).toEqual(before);
  });
});
