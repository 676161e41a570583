import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { tinyPdf } from "../support/sample-files";

const run = promisify(execFile);
const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
type User = Awaited<ReturnType<TestEngine["createUser"]>>;

/** Writes a file straight into a space's folder on disk, as an administrator's rsync would. */
async function put(t: TestEngine, userId: number, rel: string, data: Uint8Array | string, groupId = 0) {
  const space = await t.engine.services.spaces.open(userId, groupId);
  const file = path.join(t.engine.services.spaces.root, space.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
}

async function get(t: TestEngine, url: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await fetch(t.fileUrl + url, { headers, method });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** The RFC 5987 name of a Content-Disposition header, decoded. */
const extendedName = (header: string) => decodeURIComponent(/filename\*=UTF-8''([^;]*)$/.exec(header)![1]!);

let t: TestEngine;
let alice: User;
let bob: User;
let carol: User;
let groupId: number;
let aliceFiles: FileClient;
let bobFiles: FileClient;
let scratch: string;

const big = randomBytes(3 * 1024 * 1024 + 5);

beforeAll(async () => {
  t = await startTestEngine();
  alice = await t.createUser("alice", { permission: PERMISSION_FULL });
  bob = await t.createUser("bob", { permission: PERMISSION_FULL });
  carol = await t.createUser("carol", { permission: Permission.List });
  const admin = await t.adminToken();
  groupId = (await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "team" } })).body.data.id as number;
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${alice.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
  await t.call("PUT", `/api/admin/groups/${groupId}/members/${bob.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL & ~Permission.Download } });
  aliceFiles = await connectFiles(t.fileUrl, alice.socketToken);
  bobFiles = await connectFiles(t.fileUrl, bob.socketToken);
  await put(t, alice.id, "/big.bin", big);
  scratch = await mkdtemp(path.join(tmpdir(), "ferry-dl-"));
});
afterAll(async () => {
  await aliceFiles?.close();
  await bobFiles?.close();
  await t?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("single-file download", () => {
  it("streams the file byte-identical with attachment, validators and no-sniff headers; HEAD gives the headers alone", async () => {
    const { url, name } = await aliceFiles.ok("download", { groupId: 0, paths: ["/big.bin"] });
    expect(name).toBe("big.bin");
    expect(url).toMatch(/^\/download\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\/big\.bin$/);
    const { res, body } = await get(t, url);
    expect(res.status).toBe(200);
    expect(sha(body)).toBe(sha(big));
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-length")).toBe(String(big.length));
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(new Date(res.headers.get("last-modified")!).getTime()).toBeGreaterThan(0);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="big.bin"; filename*=UTF-8''big.bin`);

    const head = await get(t, url, {}, "HEAD");
    expect(head.res.status).toBe(200);
    expect(head.res.headers.get("content-length")).toBe(String(big.length));
    expect(head.body.length).toBe(0);
    expect((await get(t, url, {}, "DELETE")).res.status).toBe(405);
  });

  it("lets the web app's pages read a ranged download (CORS without credentials), a refusal too; other origins get no CORS", async () => {
    const { url } = await aliceFiles.ok("download", { groupId: 0, paths: ["/big.bin"] });
    const fileHost = new URL(t.fileUrl).hostname;
    // The web app on the same host name, another port: allowed, as for the file server's socket.
    const own = `http://${fileHost}:3999`;
    const ranged = await get(t, url, { origin: own, range: "bytes=1024-2047" });
    expect(ranged.res.status).toBe(206);
    expect(ranged.body.equals(big.subarray(1024, 2048))).toBe(true);
    expect(ranged.res.headers.get("access-control-allow-origin")).toBe(own);
    expect(ranged.res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(ranged.res.headers.get("access-control-expose-headers")).toMatch(/Content-Range/);
    expect(ranged.res.headers.get("access-control-expose-headers")).toMatch(/ETag/);
    expect(ranged.res.headers.get("vary")).toMatch(/Origin/);
    const refused = await get(t, url.replace(/\.[A-Za-z0-9_-]{43}\//, `.${"A".repeat(43)}/`), { origin: own });
    expect(refused.res.status).toBe(403);
    expect(refused.res.headers.get("access-control-allow-origin")).toBe(own);
    const foreign = await get(t, url, { origin: "https://elsewhere.example", range: "bytes=0-9" });
    expect(foreign.res.status).toBe(206);
    expect(foreign.res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("gives a safe Content-Disposition for quotes, markup and CJK names", async () => {
    const names = [`say "hi" it's.txt`, `<img src=x onerror=alert(1)>.txt`, "报告 2024 (终稿).txt", "100% sure; ok=1 & done.txt"];
    for (const fileName of names) {
      await put(t, alice.id, `/names/${fileName}`, fileName);
      const { url, name } = await aliceFiles.ok("download", { groupId: 0, paths: [`/names/${fileName}`] });
      expect(name).toBe(fileName);
      const header = (await get(t, url)).res.headers.get("content-disposition")!;
      const fallback = /^attachment; filename="([^"]*)"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/.exec(header);
      expect(fallback, header).not.toBeNull();
      expect(fallback![1]).toMatch(/^[\x20-\x7e]*$/);
      expect(fallback![1]).not.toMatch(/["\\%]/);
      expect(extendedName(header)).toBe(fileName);
    }
  });

  it("refuses CR/LF, NUL and traversal in paths at ticket creation with InvalidPath", async () => {
    for (const p of ["/a\r\nSet-Cookie: x=1.txt", "/../etc/passwd", "/names/../../x", "C:\\Windows", "/a\u0000b", "/．．/x"]) {
      expect((await aliceFiles.cmd("download", { groupId: 0, paths: [p] })).code, p).toBe(ErrorCode.InvalidPath);
    }
    expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/big.bin", "/../x"] })).code).toBe(ErrorCode.InvalidPath);
    expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/missing.bin"] })).code).toBe(ErrorCode.PathNotFound);
  });
});

describe("Range", () => {
  let url: string;
  let etag: string;
  const size = big.length;
  beforeAll(async () => {
    url = (await aliceFiles.ok("download", { groupId: 0, paths: ["/big.bin"] })).url;
    etag = (await get(t, url, {}, "HEAD")).res.headers.get("etag")!;
  });

  it.each([
    ["first byte", "bytes=0-0", 0, 0],
    ["middle", "bytes=1048576-2097151", 1048576, 2097151],
    ["suffix", "bytes=-500", size - 500, size - 1],
    ["open-ended", `bytes=${size - 10}-`, size - 10, size - 1],
    ["end past the file", `bytes=${size - 3}-${size + 100}`, size - 3, size - 1],
  ])("%s: %s → 206 with exactly those bytes", async (_label, range, start, end) => {
    const { res, body } = await get(t, url, { range });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
    expect(res.headers.get("content-length")).toBe(String(end - start + 1));
    expect(body.equals(big.subarray(start, end + 1))).toBe(true);
  });

  it.each([
    ["start past the end", `bytes=${size}-`],
    ["empty suffix", "bytes=-0"],
    ["reversed", "bytes=5-2"],
  ])("%s (%s) → 416 with the size", async (_label, range) => {
    const { res } = await get(t, url, { range });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe(`bytes */${size}`);
  });

  it.each([
    ["multi-range", "bytes=0-1,5-6"],
    ["overlapping", "bytes=0-100,50-150"],
    ["garbage", "bytes=abc"],
    ["another unit", "items=0-1"],
  ])("%s (%s) is ignored: 200 with the whole file", async (_label, range) => {
    const { res, body } = await get(t, url, { range });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-range")).toBeNull();
    expect(sha(body)).toBe(sha(big));
  });

  it("honours If-Range with the current ETag and sends the whole file for a stale one", async () => {
    expect((await get(t, url, { range: "bytes=0-9", "if-range": etag })).res.status).toBe(206);
    const stale = await get(t, url, { range: "bytes=0-9", "if-range": '"0-0"' });
    expect(stale.res.status).toBe(200);
    expect(stale.body.length).toBe(size);
  });

  it("resumes from 50%: the rest arrives exactly", async () => {
    const half = Math.floor(size / 2);
    const first = await get(t, url, { range: `bytes=0-${half - 1}` });
    const rest = await get(t, url, { range: `bytes=${half}-`, "if-range": etag });
    expect(rest.res.status).toBe(206);
    expect(rest.body.length).toBe(size - half);
    expect(sha(Buffer.concat([first.body, rest.body]))).toBe(sha(big));
  });

  it("serves 20 concurrent ranged downloads of a 64 MiB file correctly", async () => {
    const large = randomBytes(64 * 1024 * 1024);
    await put(t, alice.id, "/large.bin", large);
    const largeUrl = (await aliceFiles.ok("download", { groupId: 0, paths: ["/large.bin"] })).url;
    const spans = Array.from({ length: 20 }, (_, i) => {
      const start = i * 3_000_000 + i;
      return [start, i % 4 === 0 ? large.length - 1 : start + 5_000_000] as const;
    });
    const bodies = await Promise.all(spans.map(([s, e]) => get(t, largeUrl, { range: `bytes=${s}-${e}` })));
    bodies.forEach(({ res, body }, i) => {
      const [s, e] = spans[i]!;
      expect(res.status).toBe(206);
      expect(sha(body)).toBe(sha(large.subarray(s, e + 1)));
    });
    // ~430 MiB moved and hashed: more than the default 30 s on a loaded 2-core runner.
  }, 120_000);

  it("releases every file descriptor when clients go away mid-download, and keeps serving", async () => {
    const large = randomBytes(32 * 1024 * 1024);
    await put(t, alice.id, "/abandoned.bin", large);
    const largeUrl = (await aliceFiles.ok("download", { groupId: 0, paths: ["/abandoned.bin"] })).url;
    // The engine runs in this process: its open descriptors of stored files are ours to see.
    const target = path.join(t.engine.services.spaces.root, (await t.engine.services.spaces.open(alice.id, 0)).home, "abandoned.bin");
    const openFiles = async () => {
      const links = await Promise.all((await readdir("/proc/self/fd")).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => "")));
      return links.filter((link) => link === target);
    };
    // Ten readers take a little, then go away: some while the engine waits on a full socket.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const controller = new AbortController();
        const res = await fetch(t.fileUrl + largeUrl, { signal: controller.signal });
        const reader = res.body!.getReader();
        const first = await reader.read();
        expect(first.value!.length).toBeGreaterThan(0);
        expect(await openFiles()).not.toEqual([]);
        controller.abort();
        await reader.closed.catch(() => undefined);
      }),
    );
    await expect.poll(openFiles, { timeout: 10_000 }).toEqual([]);
    const whole = await get(t, largeUrl);
    expect(sha(whole.body)).toBe(sha(large));
  }, 60_000);
});

describe("zip downloads", () => {
  const files: Record<string, Buffer> = {
    "tree/a.txt": Buffer.from("alpha\n"),
    "tree/sub/deep/b.bin": randomBytes(2 * 1024 * 1024 + 3),
    "tree/日本語/ünïcödé 文件.txt": Buffer.from("unicode\n"),
    "tree/sub/zero.txt": Buffer.alloc(0),
  };
  beforeAll(async () => {
    for (const [rel, data] of Object.entries(files)) await put(t, alice.id, `/${rel}`, data);
    await mkdir(path.join(t.engine.services.spaces.root, "users", "alice", "tree", "empty"), { recursive: true });
  });

  async function fetchZip(paths: string[]) {
    const { url, name } = await aliceFiles.ok("download", { groupId: 0, paths });
    const { res, body } = await get(t, url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-length")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const file = path.join(scratch, `${randomBytes(4).toString("hex")}.zip`);
    await writeFile(file, body);
    await run("unzip", ["-tq", file]); // every CRC checks out
    const listing = (await run("zipinfo", ["-1", file])).stdout.split("\n").filter(Boolean).sort();
    const read = async (entry: string) => (await run("unzip", ["-p", file, entry.replace(/[[\]*?]/g, "\\$&")], { encoding: "buffer", maxBuffer: 1 << 26 })).stdout;
    return { name, listing, read, header: res.headers.get("content-disposition")! };
  }

  it("zips a folder tree (nested, empty, unicode) named <folder>.zip, every byte intact", async () => {
    const zip = await fetchZip(["/tree"]);
    expect(zip.name).toBe("tree.zip");
    expect(extendedName(zip.header)).toBe("tree.zip");
    expect(zip.listing).toEqual(
      ["tree/", "tree/a.txt", "tree/empty/", "tree/sub/", "tree/sub/deep/", "tree/sub/deep/b.bin", "tree/sub/zero.txt", "tree/日本語/", "tree/日本語/ünïcödé 文件.txt"].sort(),
    );
    for (const [rel, data] of Object.entries(files)) expect(sha(await zip.read(rel)), rel).toBe(sha(data));
  });

  it("zips several items as download.zip with names relative to their folder, a nested pick only once", async () => {
    const zip = await fetchZip(["/tree/a.txt", "/tree/sub", "/tree/sub/deep/b.bin"]);
    expect(zip.name).toBe("download.zip");
    expect(zip.listing).toEqual(["a.txt", "sub/", "sub/deep/", "sub/deep/b.bin", "sub/zero.txt"]);
    expect(sha(await zip.read("sub/deep/b.bin"))).toBe(sha(files["tree/sub/deep/b.bin"]!));
  });

  it("refuses a selection too large to fit in a URL with a clear error, and zips its folder instead", async () => {
    const names = Array.from({ length: 1000 }, () => `${randomBytes(8).toString("hex")}.txt`);
    const folder = path.join(t.engine.services.spaces.root, "users", "alice", "many");
    await mkdir(folder);
    await Promise.all(names.map((n) => writeFile(path.join(folder, n), n)));
    const reply = await aliceFiles.cmd("download", { groupId: 0, paths: names.map((n) => `/many/${n}`) });
    expect(reply.code).toBe(ErrorCode.DownloadSelectionTooLarge);
    const zip = await fetchZip(["/many"]);
    expect(zip.listing.length).toBe(1001);
    expect((await zip.read(`many/${names[42]}`)).toString()).toBe(names[42]);
  }, 60_000);

  it("keeps the user's forbidden paths out: refused alone, left out of a folder's zip, refused once forbidden later", async () => {
    const admin = await t.adminToken();
    await put(t, alice.id, "/mixed/open.txt", "open");
    await put(t, alice.id, "/mixed/secret/hidden.txt", "hidden");
    const { url: laterUrl } = await aliceFiles.ok("download", { groupId: 0, paths: ["/mixed/secret/hidden.txt"] });
    await t.call("PATCH", `/api/admin/users/${alice.id}`, { token: admin, body: { forbiddenPaths: ["/mixed/secret"] } });
    try {
      expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/mixed/secret/hidden.txt"] })).code).toBe(ErrorCode.PermissionDenied);
      expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/mixed/secret"] })).code).toBe(ErrorCode.PermissionDenied);
      expect((await get(t, laterUrl)).res.status).toBe(403);
      const zip = await fetchZip(["/mixed"]);
      expect(zip.listing).toEqual(["mixed/", "mixed/open.txt"]);
    } finally {
      await t.call("PATCH", `/api/admin/users/${alice.id}`, { token: admin, body: { forbiddenPaths: [] } });
    }
  });

  it("answers 404 when a selected path went away after the ticket was issued", async () => {
    await put(t, alice.id, "/gone/x.txt", "x");
    const { url } = await aliceFiles.ok("download", { groupId: 0, paths: ["/gone", "/tree/a.txt"] });
    await rm(path.join(t.engine.services.spaces.root, "users", "alice", "gone"), { recursive: true });
    expect((await get(t, url)).res.status).toBe(404);
  });
});

describe("refusals", () => {
  it("refuses without the Download bit: personal space, and group space by its groupPermission", async () => {
    await put(t, carol.id, "/c.txt", "c");
    const carolFiles = await connectFiles(t.fileUrl, carol.socketToken);
    expect((await carolFiles.cmd("download", { groupId: 0, paths: ["/c.txt"] })).code).toBe(ErrorCode.PermissionDenied);
    await carolFiles.close();

    await put(t, alice.id, "/shared.txt", "team file", groupId);
    expect((await bobFiles.cmd("download", { groupId, paths: ["/shared.txt"] })).code).toBe(ErrorCode.PermissionDenied);
    const { url } = await aliceFiles.ok("download", { groupId, paths: ["/shared.txt"] });
    expect((await get(t, url)).body.toString()).toBe("team file");
    // Not a member at all looks the same as no permission.
    expect((await aliceFiles.cmd("download", { groupId: groupId + 100, paths: ["/shared.txt"] })).code).toBe(ErrorCode.PermissionDenied);
  });

  it("refuses a tampered ticket (payload or signature) with 403", async () => {
    const { url } = await aliceFiles.ok("download", { groupId: 0, paths: ["/big.bin"] });
    const [, , ticket, name] = url.split("/");
    const [body, sig] = ticket!.split(".");
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    for (const forged of [`${flip(body!, 5)}.${sig}`, `${body}.${flip(sig!, 10)}`, `${body}.${sig!.slice(1)}`, "x.y", ""]) {
      const { res, body: text } = await get(t, `/download/${forged}/${name}`);
      expect(res.status, forged).toBe(403);
      expect(text.toString()).not.toContain("big");
    }
  });

  it("a preview ticket is not a download ticket", async () => {
    // Tickets say what they are for; the preview below is refused on this free-edition engine anyway.
    expect((await aliceFiles.cmd("preview", { groupId: 0, path: "/big.bin" })).code).toBe(ErrorCode.FeatureNotSupported);
  });

  it("a ticket reaches only its holder's files: user B's file at the same path is never served to A", async () => {
    await put(t, alice.id, "/same.txt", "alice's");
    await put(t, bob.id, "/same.txt", "bob's");
    await put(t, bob.id, "/only-bob.txt", "secret");
    const { url } = await aliceFiles.ok("download", { groupId: 0, paths: ["/same.txt"] });
    expect((await get(t, url)).body.toString()).toBe("alice's");
    // The user id is inside the signed payload; a path names a file in the holder's own space only.
    expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/only-bob.txt"] })).code).toBe(ErrorCode.PathNotFound);
    expect((await aliceFiles.cmd("download", { groupId: 0, paths: ["/../bob/only-bob.txt"] })).code).toBe(ErrorCode.InvalidPath);
  });

  it("stops working after logout (the session is revoked)", async () => {
    const signedIn = await t.login("alice", alice.password);
    const files = await connectFiles(t.fileUrl, signedIn.body.data.websocket_token as string);
    const { url } = await files.ok("download", { groupId: 0, paths: ["/same.txt"] });
    expect((await get(t, url)).res.status).toBe(200);
    expect((await t.call("POST", "/api/user/logout", { token: signedIn.body.data.token as string })).body.code).toBe(200);
    const after = await get(t, url);
    expect(after.res.status).toBe(403);
    expect(after.body.toString()).not.toContain("alice's");
    await files.close();
  });

  it("stops working once the admin revokes the Download bit, personal and group", async () => {
    const dave = await t.createUser("dave", { permission: PERMISSION_FULL });
    const admin = await t.adminToken();
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${dave.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
    await put(t, dave.id, "/d.txt", "dave");
    const files = await connectFiles(t.fileUrl, dave.socketToken);
    const personal = (await files.ok("download", { groupId: 0, paths: ["/d.txt"] })).url;
    const group = (await files.ok("download", { groupId, paths: ["/shared.txt"] })).url;
    expect((await get(t, personal)).res.status).toBe(200);
    expect((await get(t, group)).res.status).toBe(200);

    expect((await t.call("PATCH", `/api/admin/users/${dave.id}`, { token: admin, body: { permission: Permission.List } })).body.code).toBe(200);
    expect((await get(t, personal)).res.status).toBe(403);
    expect((await get(t, group)).res.status).toBe(200);
    await t.call("PUT", `/api/admin/groups/${groupId}/members/${dave.id}`, { token: admin, body: { groupPermission: Permission.List } });
    expect((await get(t, group)).res.status).toBe(403);
    await t.call("DELETE", `/api/admin/groups/${groupId}/members/${dave.id}`, { token: admin });
    expect((await get(t, group)).res.status).toBe(403);
    await files.close();
  });

  it("expires after the ticket lifetime (engine clock) with 410", async () => {
    const { url } = await aliceFiles.ok("download", { groupId: 0, paths: ["/same.txt"] });
    t.clock.advance(299_000);
    expect((await get(t, url)).res.status).toBe(200);
    t.clock.advance(2_000);
    const { res, body } = await get(t, url, { "accept-language": "zh-CN" });
    expect(res.status).toBe(410);
    expect(body.toString()).toContain("链接已过期");
  });
});

describe("preview and X-Accel-Redirect (FERRY_PREVIEW=on, FERRY_ACCEL_REDIRECT)", () => {
  let e: TestEngine;
  let erin: User;
  let files: FileClient;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>window.ran = document.domain</script><rect width="10" height="10"/></svg>`;
  beforeAll(async () => {
    e = await startTestEngine({ FERRY_PREVIEW: "on", FERRY_ACCEL_REDIRECT: "/ferry-storage" });
    erin = await e.createUser("erin", { permission: PERMISSION_FULL });
    files = await connectFiles(e.fileUrl, erin.socketToken);
    await put(e, erin.id, "/pics/evil pic.svg", svg);
    await put(e, erin.id, "/doc.pdf", tinyPdf());
    await put(e, erin.id, "/notes.txt", "plain");
    await put(e, erin.id, "/dir/日本 #1.bin", randomBytes(1000));
  });
  afterAll(async () => {
    await files?.close();
    await e?.stop();
  });

  it("serves an SVG inline under a sandboxing CSP with nosniff", async () => {
    const { url, mediaType } = await files.ok("preview", { groupId: 0, path: "/pics/evil pic.svg" });
    expect(mediaType).toBe("image/svg+xml");
    expect(url.startsWith("/preview/")).toBe(true);
    const { res, body } = await get(e, url);
    expect(res.status).toBe(200);
    expect(body.toString()).toBe(svg);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("content-disposition")).toMatch(/^inline; /);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp.split(";").map((s) => s.trim())).toEqual(expect.arrayContaining(["sandbox", "default-src 'none'"]));
    expect(csp).not.toContain("script-src");
    // A preview ticket does not open /download/, nor the other way round.
    expect((await get(e, url.replace("/preview/", "/download/"))).res.status).toBe(403);
    const dl = (await files.ok("download", { groupId: 0, paths: ["/pics/evil pic.svg"] })).url;
    expect((await get(e, dl.replace("/download/", "/preview/"))).res.status).toBe(403);
  });

  it("serves a PDF inline with a script-free CSP, and refuses what is not previewable", async () => {
    const { url, mediaType } = await files.ok("preview", { groupId: 0, path: "/doc.pdf" });
    expect(mediaType).toBe("application/pdf");
    const { res } = await get(e, url);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect((await files.cmd("preview", { groupId: 0, path: "/notes.txt" })).code).toBe(ErrorCode.PreviewUnsupported);
    expect((await files.cmd("preview", { groupId: 0, path: "/pics" })).code).toBe(ErrorCode.PreviewUnsupported);
    expect((await files.cmd("preview", { groupId: 0, path: "/missing.png" })).code).toBe(ErrorCode.PathNotFound);
    expect((await files.cmd("preview", { groupId: 0, path: "/../x.png" })).code).toBe(ErrorCode.InvalidPath);
  });

  it("in Chromium: the SVG's script does not run, and the PDF renders in the viewer, directly and in a cross-origin frame", async () => {
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
    try {
      const page = await browser.newPage();
      await page.goto(e.fileUrl + (await files.ok("preview", { groupId: 0, path: "/pics/evil pic.svg" })).url);
      expect(await page.evaluate(() => (window as unknown as { ran?: string }).ran)).toBeUndefined();
      expect(await page.locator("rect").count()).toBe(1);

      const pdfUrl = e.fileUrl + (await files.ok("preview", { groupId: 0, path: "/doc.pdf" })).url;
      // Chromium's PDF viewer is an extension frame inside the document; a blocked PDF has none.
      const viewerShown = (p: typeof page) => expect.poll(() => p.frames().some((f) => f.url().startsWith("chrome-extension://")), { timeout: 15_000 }).toBe(true);
      await page.goto(pdfUrl);
      await viewerShown(page);
      // The web client shows previews from another origin (its own port).
      const framed = await browser.newPage();
      await framed.setContent(`<iframe title="preview" style="width:600px;height:400px" src="${pdfUrl.replace("127.0.0.1", "localhost")}"></iframe>`);
      await viewerShown(framed);
    } finally {
      await browser.close();
    }
  });

  it("needs the Download bit for a preview", async () => {
    const frank = await e.createUser("frank", { permission: Permission.List });
    await put(e, frank.id, "/f.png", "png");
    const frankFiles = await connectFiles(e.fileUrl, frank.socketToken);
    expect((await frankFiles.cmd("preview", { groupId: 0, path: "/f.png" })).code).toBe(ErrorCode.PermissionDenied);
    await frankFiles.close();
  });

  it("hands a single file to nginx with X-Accel-Redirect and no body; zips stay in the engine", async () => {
    const { url } = await files.ok("download", { groupId: 0, paths: ["/dir/日本 #1.bin"] });
    const { res, body } = await get(e, url, { range: "bytes=0-9" });
    expect(res.status).toBe(200);
    expect(body.length).toBe(0);
    expect(res.headers.get("x-accel-redirect")).toBe(`/ferry-storage/users/erin/dir/${encodeURIComponent("日本 #1.bin")}`);
    expect(extendedName(res.headers.get("content-disposition")!)).toBe("日本 #1.bin");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");

    const zip = await files.ok("download", { groupId: 0, paths: ["/dir"] });
    const zipped = await get(e, zip.url);
    expect(zipped.res.headers.get("x-accel-redirect")).toBeNull();
    expect(zipped.body.subarray(0, 4).toString("hex")).toBe("504b0304");
  });
});
