import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { collectEntries, zipStream } from "../../server/fileserver/zip";
import { STAGING_NAME } from "../../server/storage/paths";
import type { ResumableState, Storage, StoredPart } from "../../server/storage/storage";
import { walkStats } from "../../server/storage/walk";
import { zipFile, zipNames } from "./zip-listing";

/**
 * One storage conformance suite for every driver (local, S3, and Azure next): the behaviour the
 * file server relies on, seen only through the Storage interface. A driver's test file calls
 * storageConformance with a harness; what the suite cannot see through the interface (staging
 * folders, keys and markers) is checked in the driver's own tests.
 */

export interface ConformanceTarget {
  /** A fresh, empty storage for one test. */
  storage: Storage;
  /** A storage whose root is a sibling of this one's with a longer name (root "u" → "u2", prefix "p/u/" → "p/u2/"). */
  sibling: Storage;
  /** The same root as a freshly started process sees it (after a crash). */
  restarted(): Storage;
  /**
   * What the driver left behind that the storage does not show, when it can be seen (local: staging
   * entries; S3: objects under the prefix that are no listed file or folder marker).
   */
  leftovers?(): Promise<string[]>;
  /**
   * How another process makes this same storage: a module (path from the repository root), its
   * exported factory and the factory's arguments (JSON). Given by drivers with Storage.resumable,
   * whose uploads the suite sends from a child process it kills mid-way (SIGKILL) and then resumes.
   */
  child?(): { module: string; factory: string; args: unknown[] };
}

export interface ConformanceHarness {
  /** Once per file (start a server). */
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** Per test. */
  create(): Promise<ConformanceTarget>;
  destroy?(): Promise<void>;
  /**
   * Bytes that make a write span several upload parts of the driver (S3: a little over two
   * slices), so commit, abort and maxBytes are tried with parts already stored.
   */
  largeWrite: number;
  /**
   * UTF-8 bytes of the longest name the store behind the driver holds, when it is less than
   * Ferry's 255 (s3rver keeps an object as the file "<name>._S3rver_object", 22 bytes more).
   */
  longestName?: number;
  /**
   * False when list() gives folders time 0 (S3: a folder's marker is rolled into its common prefix,
   * so a listing has no time for it without a request per folder; stat() gives the marker's).
   */
  listsFolderTimes?: boolean;
}

export async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    if (err instanceof FerryError) return err.errorName;
    throw err;
  }
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function storageConformance(harness: ConformanceHarness): void {
  let target: ConformanceTarget;
  let storage: Storage;

  beforeAll(async () => harness.start?.());
  afterAll(async () => harness.stop?.());
  beforeEach(async () => {
    target = await harness.create();
    storage = target.storage;
  });
  afterEach(async () => harness.destroy?.());

  const put = async (rel: string, content: string | Buffer, overwrite = false, on: Storage = storage) => {
    const writer = await on.beginWrite(rel, { overwrite });
    await writer.write(Buffer.from(content));
    return writer.commit();
  };
  const text = async (rel: string, on: Storage = storage) => (await readAll(await on.createReadStream(rel))).toString();
  const names = async (rel = "/", on: Storage = storage) => (await on.list(rel)).map((e) => e.name);
  const leftovers = async () => (target.leftovers ? target.leftovers() : []);

  describe("browsing", () => {
    it("lists files and folders with type, size and mtime in seconds", async () => {
      await storage.mkdir("/docs");
      await put("/docs/a.txt", "hello");
      await put("/b.bin", Buffer.alloc(10));
      const list = await storage.list("/");
      expect(list.map((e) => [e.name, e.type, e.size])).toEqual([
        ["b.bin", "file", 10],
        ["docs", "folder", 0],
      ]);
      const now = Date.now() / 1000;
      for (const entry of list) {
        expect(Number.isInteger(entry.mtime)).toBe(true);
        if (entry.type === "folder" && harness.listsFolderTimes === false) expect(entry.mtime).toBe(0);
        else expect(Math.abs(entry.mtime - now)).toBeLessThan(60);
      }
      expect(Math.abs((await storage.stat("/docs")).mtime - now)).toBeLessThan(60);
      expect(await storage.list("/docs")).toEqual([expect.objectContaining({ name: "a.txt", type: "file", size: 5 })]);
    });

    it("stats files, folders and the root; missing paths and files-as-folders fail with catalogue names", async () => {
      await put("/a.txt", "abc");
      await storage.mkdir("/d");
      expect(await storage.stat("a.txt")).toEqual(expect.objectContaining({ path: "/a.txt", name: "a.txt", type: "file", size: 3 }));
      expect(await storage.stat("/d/")).toEqual(expect.objectContaining({ path: "/d", name: "d", type: "folder", size: 0 }));
      expect(await storage.stat("/")).toEqual(expect.objectContaining({ path: "/", name: "", type: "folder" }));
      expect(await failure(storage.stat("/missing"))).toBe("PathNotFound");
      expect(await failure(storage.stat("/missing/deeper/still"))).toBe("PathNotFound");
      expect(await failure(storage.list("/missing"))).toBe("PathNotFound");
      expect(await failure(storage.list("/a.txt"))).toBe("PathIsFile");
      expect(await failure(storage.stat("/a.txt/inner"))).toBe("PathIsFile");
      expect(await storage.resolve("/d//x/")).toBe("/d/x");
    });

    it("lists an empty folder as empty, and an empty root", async () => {
      expect(await storage.list("/")).toEqual([]);
      await storage.mkdir("/e");
      expect(await storage.list("/e")).toEqual([]);
    });

    it("round-trips names with markup, quotes and unicode; NFD input finds the NFC name", async () => {
      const created = ["&lt;img src=x onerror=alert(1)&gt;", "it's 'quoted' & {{more}}", "名前 📁 ünïcödé", "$(echo x); `y`", "-rf", "file..name", "%2e%2e%2fescape", "a+b=c #1", "emoji 🧪 \u00a0nbsp"];
      for (const name of created) await put(`/${name}`, name);
      await storage.mkdir("/文件夹 ✓");
      await put("/文件夹 ✓/ж.txt", "ж");
      expect(await names()).toEqual([...created, "文件夹 ✓"].sort());
      for (const name of created) {
        expect((await storage.stat(`/${name}`)).name).toBe(name);
        expect(await text(`/${name}`)).toBe(name);
      }
      expect(await names("/文件夹 ✓")).toEqual(["ж.txt"]);
      await put("/caf\u00e9.txt", "x");
      expect((await storage.stat("/cafe\u0301.txt")).path).toBe("/caf\u00e9.txt");
      expect(await names()).not.toContain("cafe\u0301.txt");
    });

    it("accepts names at the byte limit of a segment", async () => {
      const long = "é".repeat(Math.floor(Math.min(harness.longestName ?? 254, 254) / 2)); // 254 UTF-8 bytes unless the store holds less
      await put(`/${long}`, "x");
      expect(await names()).toEqual([long]);
      expect(await failure(put(`/${"é".repeat(128)}`, "x"))).toBe("InvalidPath");
    });
  });

  describe("confinement", () => {
    it("refuses traversal on every method and never touches a sibling root", async () => {
      await put("/secret.txt", "secret", false, target.sibling);
      const bad = "../u2/secret.txt";
      expect(await failure(storage.stat(bad))).toBe("InvalidPath");
      expect(await failure(storage.list(".."))).toBe("InvalidPath");
      expect(await failure(storage.list("/../u2"))).toBe("InvalidPath");
      expect(await failure(storage.mkdir("../x"))).toBe("InvalidPath");
      expect(await failure(storage.rename(bad, "/x"))).toBe("InvalidPath");
      expect(await failure(storage.rename("/x", "../u2/x"))).toBe("InvalidPath");
      expect(await failure(storage.copy(bad, "/x"))).toBe("InvalidPath");
      expect(await failure(storage.remove(bad))).toBe("InvalidPath");
      expect(await failure(storage.createReadStream(bad))).toBe("InvalidPath");
      expect(await failure(storage.openReader(bad))).toBe("InvalidPath");
      expect(await failure(storage.usage(".."))).toBe("InvalidPath");
      expect(await failure(storage.beginWrite("../u2/x.txt"))).toBe("InvalidPath");
      expect(await failure(storage.resolve(bad))).toBe("InvalidPath");
      for (const odd of ["..\\u2\\secret.txt", "/a/\u0000", "\uff0e\uff0e/u2/secret.txt", "C:/x", "/a/./b", `/${STAGING_NAME}/x`, "/x\r\ny"]) {
        expect(await failure(storage.stat(odd))).toBe("InvalidPath");
        expect(await failure(storage.beginWrite(odd))).toBe("InvalidPath");
      }
      expect(await names("/", target.sibling)).toEqual(["secret.txt"]);
      expect(await text("/secret.txt", target.sibling)).toBe("secret");
      expect(await names()).toEqual([]);
    });

    it("keeps percent-encoded traversal a plain name inside the root", async () => {
      for (const name of ["%2e%2e%2fsecret.txt", "%252e%252e%252f", "%00", "%"]) await put(`/${name}`, name);
      expect((await names()).sort()).toEqual(["%", "%00", "%252e%252e%252f", "%2e%2e%2fsecret.txt"]);
      expect(await names("/", target.sibling)).toEqual([]);
    });

    it("keeps a root apart from a sibling root whose name extends it", async () => {
      await put("/mine.txt", "mine");
      await put("/theirs.txt", "theirs", false, target.sibling);
      expect(await names()).toEqual(["mine.txt"]);
      expect(await names("/", target.sibling)).toEqual(["theirs.txt"]);
      expect(await storage.usage("/")).toEqual({ size: 4, files: 1, folders: 0 });
      await storage.mkdir("/sub");
      await storage.remove("/mine.txt");
      expect(await text("/theirs.txt", target.sibling)).toBe("theirs");
    });

    it("never lets a folder reach a sibling whose name extends it (\"a\" vs \"ab\", \"a.txt\")", async () => {
      await storage.mkdir("/a");
      await storage.mkdir("/ab");
      await put("/a/in-a.txt", "1");
      await put("/ab/in-ab.txt", "22");
      await put("/a.txt", "333");
      await put("/a b", "4444");
      expect(await names("/a")).toEqual(["in-a.txt"]);
      expect(await storage.usage("/a")).toEqual({ size: 1, files: 1, folders: 0 });
      await storage.copy("/a", "/c");
      expect(await names("/c")).toEqual(["in-a.txt"]);
      await storage.rename("/a", "/d");
      expect(await names()).toEqual(["a b", "a.txt", "ab", "c", "d"]);
      await storage.remove("/d");
      expect(await names()).toEqual(["a b", "a.txt", "ab", "c"]);
      expect(await text("/ab/in-ab.txt")).toBe("22");
      expect(await text("/a.txt")).toBe("333");
      expect(await failure(storage.stat("/a"))).toBe("PathNotFound");
    });
  });

  describe("mkdir", () => {
    it("creates a folder, refuses an existing one, a file's name and a missing parent", async () => {
      await storage.mkdir("/docs");
      expect((await storage.stat("/docs")).type).toBe("folder");
      expect(await failure(storage.mkdir("/docs"))).toBe("PathExists");
      expect(await failure(storage.mkdir("/nope/child"))).toBe("PathNotFound");
      expect(await failure(storage.mkdir("/"))).toBe("PathExists");
      await put("/f", "x");
      expect(await failure(storage.mkdir("/f"))).toBe("PathExists");
      expect(await failure(storage.mkdir("/f/g"))).toBe("PathIsFile");
      await storage.mkdir("/", { recursive: true });
    });

    it("creates parents when recursive, and refuses a file in the way", async () => {
      await storage.mkdir("/a/b/c", { recursive: true });
      await storage.mkdir("/a/b/c", { recursive: true });
      expect((await storage.stat("/a/b/c")).type).toBe("folder");
      expect(await names("/a")).toEqual(["b"]);
      await put("/f", "x");
      expect(await failure(storage.mkdir("/f", { recursive: true }))).toBe("PathIsFile");
      expect(await failure(storage.mkdir("/f/g", { recursive: true }))).toBe("PathIsFile");
    });

    it("refuses names the spec forbids", async () => {
      await storage.mkdir("/d");
      for (const bad of ["/d/a:b", "/d/a*b", "/d/a?b", '/d/a"b', "/d/a<b", "/d/a>b", "/d/a|b"]) expect(await failure(storage.mkdir(bad))).toBe("NameFormat");
      expect(await failure(storage.mkdir("/ok/a|b", { recursive: true }))).toBe("NameFormat");
      expect(await failure(storage.mkdir("/a:b"))).toBe("InvalidPath");
      expect(await names()).toEqual(["d"]);
      expect(await names("/d")).toEqual([]);
    });
  });

  describe("rename", () => {
    it("moves a file and a folder tree", async () => {
      await storage.mkdir("/docs/deep/er", { recursive: true });
      await put("/docs/a.txt", "A");
      await put("/docs/deep/er/z.txt", "Z");
      await storage.rename("/docs/a.txt", "/b.txt");
      expect(await text("/b.txt")).toBe("A");
      expect(await names("/docs")).toEqual(["deep"]);
      await storage.rename("/docs", "/papers");
      expect(await names()).toEqual(["b.txt", "papers"]);
      expect(await text("/papers/deep/er/z.txt")).toBe("Z");
      expect(await failure(storage.stat("/docs"))).toBe("PathNotFound");
      expect(await storage.usage("/")).toEqual({ size: 2, files: 2, folders: 3 });
    });

    it("keeps the folder a file was moved out of, and moves an empty folder", async () => {
      await storage.mkdir("/from");
      await storage.mkdir("/empty");
      await put("/from/only.txt", "o");
      await storage.rename("/from/only.txt", "/only.txt");
      expect(await names()).toEqual(["empty", "from", "only.txt"]);
      expect(await names("/from")).toEqual([]);
      await storage.rename("/empty", "/from/empty");
      expect(await names("/from")).toEqual(["empty"]);
      expect((await storage.stat("/from/empty")).type).toBe("folder");
    });

    it("never overwrites unless asked, and then replaces same-type targets only", async () => {
      await put("/a.txt", "A");
      await put("/b.txt", "B");
      expect(await failure(storage.rename("/a.txt", "/b.txt"))).toBe("PathExists");
      expect(await text("/a.txt")).toBe("A");
      expect(await text("/b.txt")).toBe("B");
      await storage.rename("/a.txt", "/b.txt", { overwrite: true });
      expect(await names()).toEqual(["b.txt"]);
      expect(await text("/b.txt")).toBe("A");
      await storage.rename("/b.txt", "/b.txt");
      expect(await text("/b.txt")).toBe("A");

      await storage.mkdir("/dir");
      expect(await failure(storage.rename("/b.txt", "/dir", { overwrite: true }))).toBe("PathIsNotFile");
      expect(await failure(storage.rename("/dir", "/b.txt", { overwrite: true }))).toBe("PathIsFile");
    });

    it("replaces a folder as a whole when asked", async () => {
      await storage.mkdir("/x");
      await put("/x/new.txt", "new");
      await put("/x/same.txt", "new same");
      await storage.mkdir("/y/old-sub", { recursive: true });
      await put("/y/old.txt", "old");
      await put("/y/same.txt", "old same");
      expect(await failure(storage.rename("/x", "/y"))).toBe("PathExists");
      await storage.rename("/x", "/y", { overwrite: true });
      expect(await names("/y")).toEqual(["new.txt", "same.txt"]);
      expect(await text("/y/same.txt")).toBe("new same");
      expect(await names()).toEqual(["y"]);
      expect(await leftovers()).toEqual([]);
    });

    it("refuses a missing source, a missing target folder, the root and a move into itself", async () => {
      await storage.mkdir("/a");
      await put("/f", "x");
      expect(await failure(storage.rename("/missing", "/b"))).toBe("PathNotFound");
      expect(await failure(storage.rename("/a", "/nope/b"))).toBe("PathNotFound");
      expect(await failure(storage.rename("/a", "/f/b"))).toBe("PathIsFile");
      expect(await failure(storage.rename("/", "/b"))).toBe("InvalidOperation");
      expect(await failure(storage.rename("/a", "/a/b"))).toBe("InvalidOperation");
      expect(await failure(storage.rename("/a", "/a/.."))).toBe("InvalidPath");
      expect(await failure(storage.rename("/a", "/x*y"))).toBe("NameFormat");
      expect(await names()).toEqual(["a", "f"]);
    });
  });

  describe("copy", () => {
    it("copies a file and a folder tree, empty folders included", async () => {
      await storage.mkdir("/src/sub/empty", { recursive: true });
      await put("/src/a.txt", "A");
      await put("/src/sub/b.txt", "BB");
      await storage.copy("/src/a.txt", "/a-copy.txt");
      await storage.copy("/src", "/dst");
      expect(await text("/a-copy.txt")).toBe("A");
      expect(await text("/dst/sub/b.txt")).toBe("BB");
      expect(await names("/dst/sub")).toEqual(["b.txt", "empty"]);
      expect(await storage.usage("/dst")).toEqual({ size: 3, files: 2, folders: 2 });
      expect(await storage.usage("/src")).toEqual({ size: 3, files: 2, folders: 2 });
      expect(await leftovers()).toEqual([]);
    });

    it("never overwrites unless asked", async () => {
      await put("/a.txt", "A");
      await put("/b.txt", "B");
      expect(await failure(storage.copy("/a.txt", "/b.txt"))).toBe("PathExists");
      expect(await text("/b.txt")).toBe("B");
      await storage.copy("/a.txt", "/b.txt", { overwrite: true });
      expect(await text("/b.txt")).toBe("A");
      expect(await text("/a.txt")).toBe("A");

      await storage.mkdir("/d1");
      await put("/d1/one.txt", "1");
      await storage.mkdir("/d2");
      await put("/d2/two.txt", "2");
      expect(await failure(storage.copy("/d1", "/d2"))).toBe("PathExists");
      await storage.copy("/d1", "/d2", { overwrite: true });
      expect(await names("/d2")).toEqual(["one.txt"]);
      expect(await failure(storage.copy("/d1", "/a.txt", { overwrite: true }))).toBe("PathIsFile");
      expect(await failure(storage.copy("/a.txt", "/d1", { overwrite: true }))).toBe("PathIsNotFile");
    });

    it("refuses copying a folder into itself, the root, or a missing source", async () => {
      await storage.mkdir("/a");
      expect(await failure(storage.copy("/a", "/a/inner"))).toBe("InvalidOperation");
      expect(await failure(storage.copy("/", "/x"))).toBe("InvalidOperation");
      expect(await failure(storage.copy("/missing", "/x"))).toBe("PathNotFound");
      expect(await failure(storage.copy("/a", "/missing/x"))).toBe("PathNotFound");
      expect(await names()).toEqual(["a"]);
    });

    it("stops at the walk limits and when the client is gone, leaving no target", async () => {
      await storage.mkdir("/t/l1/l2/l3", { recursive: true });
      for (let i = 0; i < 5; i++) await put(`/t/f${i}.txt`, String(i));
      await put("/t/l1/l2/l3/deep.txt", "deep");
      expect(await failure(storage.copy("/t", "/c1", { maxDepth: 2 }))).toBe("WalkLimit");
      expect(await failure(storage.copy("/t", "/c2", { maxEntries: 3 }))).toBe("WalkLimit");
      const stopped = new AbortController();
      stopped.abort();
      const before = walkStats.stopped;
      expect(await failure(storage.copy("/t", "/c3", { signal: stopped.signal }))).toBe("StoppedByClient");
      expect(walkStats.stopped).toBe(before + 1);
      expect(await names()).toEqual(["t"]);
      await storage.copy("/t", "/c4", { maxDepth: 3 });
      expect(await text("/c4/l1/l2/l3/deep.txt")).toBe("deep");
      expect(await failure(storage.usage("/t", { maxDepth: 2 }))).toBe("WalkLimit");
      expect(await failure(storage.usage("/t", { maxEntries: 3 }))).toBe("WalkLimit");
      expect(await storage.usage("/t")).toEqual({ size: 9, files: 6, folders: 3 });
    });
  });

  describe("remove and usage", () => {
    it("removes files and folder trees; the root cannot be removed", async () => {
      await storage.mkdir("/d/e", { recursive: true });
      await put("/d/e/f.txt", "x");
      await put("/g.txt", "y");
      await storage.remove("/d");
      await storage.remove("/g.txt");
      expect(await names()).toEqual([]);
      expect(await failure(storage.remove("/d"))).toBe("PathNotFound");
      expect(await failure(storage.remove("/g.txt/x"))).toBe("PathNotFound");
      expect(await failure(storage.remove("/"))).toBe("InvalidOperation");
      expect(await leftovers()).toEqual([]);
    });

    it("removing a folder's last file keeps the folder", async () => {
      await storage.mkdir("/keep");
      await put("/keep/x.txt", "x");
      await storage.remove("/keep/x.txt");
      expect(await names()).toEqual(["keep"]);
      expect(await names("/keep")).toEqual([]);
    });

    it("removes a folder of more entries than one request takes", async () => {
      await storage.mkdir("/many");
      const count = 1030;
      for (let i = 0; i < count; i += 50) {
        await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => put(`/many/f${i + j}`, "")));
      }
      expect((await storage.list("/many")).length).toBe(count);
      expect(await storage.usage("/many")).toEqual({ size: 0, files: count, folders: 0 });
      await storage.remove("/many");
      expect(await names()).toEqual([]);
    }, 90_000); // s3rver takes ~20 s for the 1,030 uploads

    it("adds up bytes, files and folders, without uploads in progress", async () => {
      await storage.mkdir("/a/b", { recursive: true });
      await put("/a/one", Buffer.alloc(100));
      await put("/a/b/two", Buffer.alloc(23));
      const pending = await storage.beginWrite("/a/pending");
      await pending.write(Buffer.alloc(1000));
      expect(await storage.usage("/")).toEqual({ size: 123, files: 2, folders: 2 });
      expect(await storage.usage("/a")).toEqual({ size: 123, files: 2, folders: 1 });
      expect(await storage.usage("/a/one")).toEqual({ size: 100, files: 1, folders: 0 });
      expect(await failure(storage.usage("/nope"))).toBe("PathNotFound");
      await pending.abort();
    });
  });

  describe("zip", () => {
    it("streams a folder's zip from the storage: every file byte-identical, empty folders kept, the names relative to the selection", async () => {
      const big = randomBytes(3 * 1024 * 1024 + 5);
      await storage.mkdir("/album/sub/empty", { recursive: true });
      await put("/album/a.txt", "first");
      await put("/album/sub/b.bin", big);
      await put("/other.txt", "not selected");
      const zip = await readAll(await zipStream(storage, await collectEntries(storage, ["/album"])));
      expect(await zipNames(zip)).toEqual(["album/", "album/a.txt", "album/sub/", "album/sub/b.bin", "album/sub/empty/"]);
      expect((await zipFile(zip, "album/a.txt")).toString()).toBe("first");
      expect((await zipFile(zip, "album/sub/b.bin")).equals(big)).toBe(true);
    });

    it("zips a selection of files and folders side by side, and refuses a missing one before any byte", async () => {
      await storage.mkdir("/docs");
      await put("/docs/x.txt", "x");
      await put("/y.txt", "y");
      const zip = await readAll(await zipStream(storage, await collectEntries(storage, ["/docs", "/y.txt"])));
      expect(await zipNames(zip)).toEqual(["docs/", "docs/x.txt", "y.txt"]);
      expect((await zipFile(zip, "y.txt")).toString()).toBe("y");
      await expect(collectEntries(storage, ["/docs", "/missing.txt"])).rejects.toMatchObject({ errorName: "PathNotFound" });
    });
  });

  describe("range reads", () => {
    const content = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 7) % 251));
    beforeEach(async () => {
      await put("/big.bin", content);
    });

    it("returns exactly the bytes asked for (inclusive end)", async () => {
      const ranges: Array<[number | undefined, number | undefined]> = [
        [0, 0],
        [0, 9],
        [5, 5],
        [1024 * 1024 - 1, 1024 * 1024 + 1],
        [content.length - 10, content.length - 1],
        [content.length - 10, content.length + 100],
        [100, undefined],
        [undefined, 99],
        [undefined, undefined],
      ];
      for (const [start, end] of ranges) {
        const got = await readAll(await storage.createReadStream("/big.bin", { start, end }));
        expect(got.equals(content.subarray(start ?? 0, end === undefined ? undefined : end + 1))).toBe(true);
      }
      expect((await readAll(await storage.createReadStream("/big.bin", { start: content.length }))).length).toBe(0);
    });

    it("reads an empty file, with and without a range", async () => {
      await put("/empty", "");
      expect((await storage.stat("/empty")).size).toBe(0);
      expect((await readAll(await storage.createReadStream("/empty"))).length).toBe(0);
      expect((await readAll(await storage.createReadStream("/empty", { start: 0, end: 0 }))).length).toBe(0);
    });

    it("reads in 1 MiB chunks", async () => {
      const stream = await storage.createReadStream("/big.bin");
      expect(stream.readableHighWaterMark).toBe(1024 * 1024);
      const sizes: number[] = [];
      for await (const chunk of stream) sizes.push((chunk as Buffer).length);
      expect(sizes[0]).toBe(1024 * 1024);
    });

    it("reads in chunks of bufferSize when one is given, the same bytes", async () => {
      const stream = await storage.createReadStream("/big.bin", { start: 3, bufferSize: 64 * 1024 });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      expect(chunks[0]!.length).toBe(64 * 1024);
      expect(Buffer.concat(chunks).equals(content.subarray(3))).toBe(true);
      expect(await failure(storage.createReadStream("/big.bin", { bufferSize: 0 }))).toBe("InvalidParameter");
      expect(await failure(storage.createReadStream("/big.bin", { bufferSize: 1.5 }))).toBe("InvalidParameter");
    });

    it("can be stopped early without reading the rest", async () => {
      const stream = await storage.createReadStream("/big.bin");
      for await (const chunk of stream) {
        expect((chunk as Buffer).length).toBe(1024 * 1024);
        break;
      }
      expect(stream.destroyed).toBe(true);
    });

    it("refuses malformed ranges, folders and missing files", async () => {
      expect(await failure(storage.createReadStream("/big.bin", { start: 10, end: 5 }))).toBe("InvalidParameter");
      expect(await failure(storage.createReadStream("/big.bin", { start: -1 }))).toBe("InvalidParameter");
      expect(await failure(storage.createReadStream("/big.bin", { start: 1.5 }))).toBe("InvalidParameter");
      await storage.mkdir("/d");
      expect(await failure(storage.createReadStream("/d"))).toBe("PathIsNotFile");
      expect(await failure(storage.createReadStream("/"))).toBe("PathIsNotFile");
      expect(await failure(storage.createReadStream("/nope"))).toBe("PathNotFound");
      expect(await failure(storage.openReader("/d"))).toBe("PathIsNotFile");
      expect(await failure(storage.openReader("/nope"))).toBe("PathNotFound");
    });

    it("reads positionally into the caller's buffer", async () => {
      const reader = await storage.openReader("/big.bin");
      expect(reader.size).toBe(content.length);
      const buffer = new Uint8Array(1024 * 1024 + 5);
      expect(await reader.read(buffer, 10, 1000)).toBe(10);
      expect(Buffer.from(buffer.subarray(0, 10)).equals(content.subarray(1000, 1010))).toBe(true);
      expect(await reader.read(buffer, buffer.length, 2 * 1024 * 1024)).toBe(buffer.length);
      expect(Buffer.from(buffer).equals(content.subarray(2 * 1024 * 1024, 2 * 1024 * 1024 + buffer.length))).toBe(true);
      expect(await reader.read(buffer, 100, content.length - 7)).toBe(7);
      expect(Buffer.from(buffer.subarray(0, 7)).equals(content.subarray(content.length - 7))).toBe(true);
      expect(await reader.read(buffer, 100, content.length)).toBe(0);
      await reader.close();
    });
  });

  describe("uploads: commit and abort", () => {
    it("keeps bytes out of the visible tree until commit, then shows the whole file at once", async () => {
      const writer = await storage.beginWrite("/up.bin");
      expect(writer.path).toBe("/up.bin");
      await writer.write(Buffer.alloc(1000, 1));
      expect(await names()).toEqual([]);
      expect(await failure(storage.stat("/up.bin"))).toBe("PathNotFound");
      await writer.write(Buffer.alloc(500, 2));
      expect(writer.bytesWritten).toBe(1500);
      const result = await writer.commit();
      expect(result).toEqual(expect.objectContaining({ path: "/up.bin", name: "up.bin", type: "file", size: 1500 }));
      const bytes = await readAll(await storage.createReadStream("/up.bin"));
      expect(bytes.equals(Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(500, 2)]))).toBe(true);
      expect(await leftovers()).toEqual([]);
    });

    it("commits an empty file", async () => {
      const writer = await storage.beginWrite("/zero");
      expect(await writer.commit()).toEqual(expect.objectContaining({ path: "/zero", type: "file", size: 0 }));
      expect(await storage.list("/")).toEqual([expect.objectContaining({ name: "zero", type: "file", size: 0 })]);
    });

    it("accepts a piped stream spanning several upload parts", async () => {
      const writer = await storage.beginWrite("/piped.bin");
      const payload = Buffer.alloc(harness.largeWrite);
      for (let i = 0; i < payload.length; i += 4096) payload[i] = (i / 4096) % 256;
      const chunks: Buffer[] = [];
      for (let at = 0; at < payload.length; at += 300 * 1024) chunks.push(payload.subarray(at, at + 300 * 1024));
      await pipeline(Readable.from(chunks), writer.stream);
      expect(await names()).toEqual([]);
      expect(writer.bytesWritten).toBe(payload.length);
      expect((await writer.commit()).size).toBe(payload.length);
      expect((await readAll(await storage.createReadStream("/piped.bin"))).equals(payload)).toBe(true);
      expect(await leftovers()).toEqual([]);
    });

    it("lets the caller reuse its buffer once write() resolved", async () => {
      const writer = await storage.beginWrite("/reused.bin");
      const scratch = Buffer.alloc(256 * 1024);
      const expected: Buffer[] = [];
      for (let i = 0, at = 0; at < harness.largeWrite; i++, at += scratch.length) {
        const chunk = scratch.subarray(0, Math.min(scratch.length, harness.largeWrite - at));
        chunk.fill(i % 251);
        expected.push(Buffer.from(chunk));
        await writer.write(chunk);
      }
      await writer.commit();
      expect((await readAll(await storage.createReadStream("/reused.bin"))).equals(Buffer.concat(expected))).toBe(true);
    });

    it("an aborted write leaves nothing at the final path or in the listing, also after parts were stored", async () => {
      for (const size of [4096, harness.largeWrite]) {
        const writer = await storage.beginWrite("/gone.bin");
        await writer.write(Buffer.alloc(size));
        await writer.abort();
        await writer.abort();
        expect(await names()).toEqual([]);
        expect(await failure(storage.stat("/gone.bin"))).toBe("PathNotFound");
        expect(await failure(writer.commit())).toBe("InvalidOperation");
        expect(await failure(writer.write(Buffer.alloc(1)))).toBe("InvalidOperation");
      }
      expect(await leftovers()).toEqual([]);
    });

    it("a write never committed (a crash) shows nothing to a restarted process", async () => {
      const writer = await storage.beginWrite("/crash.bin");
      await writer.write(Buffer.alloc(harness.largeWrite));
      const restarted = target.restarted();
      expect(await restarted.list("/")).toEqual([]);
      expect(await failure(restarted.stat("/crash.bin"))).toBe("PathNotFound");
      expect(await restarted.cleanupStale(60 * 60 * 1000)).toBe(0);
      await writer.abort();
    });

    it("cleanupStale leaves this process's uploads in progress alone", async () => {
      const writer = await storage.beginWrite("/live.bin");
      await writer.write(Buffer.alloc(harness.largeWrite, 5));
      expect(await storage.cleanupStale(0)).toBe(0);
      await writer.write(Buffer.from("live"));
      await writer.commit();
      expect((await storage.stat("/live.bin")).size).toBe(harness.largeWrite + 4);
    });

    it("refuses an existing target unless asked, at begin and again at commit", async () => {
      await put("/a.txt", "first");
      expect(await failure(storage.beginWrite("/a.txt"))).toBe("PathExists");

      const racer = await storage.beginWrite("/b.txt");
      await racer.write(Buffer.from("late"));
      await put("/b.txt", "early");
      expect(await failure(racer.commit())).toBe("PathExists");
      expect(await text("/b.txt")).toBe("early");

      const bigRacer = await storage.beginWrite("/c.bin");
      await bigRacer.write(Buffer.alloc(harness.largeWrite));
      await put("/c.bin", "early");
      expect(await failure(bigRacer.commit())).toBe("PathExists");
      expect(await text("/c.bin")).toBe("early");
      expect(await leftovers()).toEqual([]);

      await put("/a.txt", "second", true);
      expect(await text("/a.txt")).toBe("second");
      const replacing = await storage.beginWrite("/c.bin", { overwrite: true });
      await replacing.write(Buffer.alloc(harness.largeWrite, 3));
      await replacing.commit();
      expect((await storage.stat("/c.bin")).size).toBe(harness.largeWrite);
    });

    it("refuses a folder target, a missing folder, forbidden names and the reserved name", async () => {
      await storage.mkdir("/d");
      await put("/f", "x");
      expect(await failure(storage.beginWrite("/d", { overwrite: true }))).toBe("PathIsNotFile");
      expect(await failure(storage.beginWrite("/d"))).toBe("PathExists");
      expect(await failure(storage.beginWrite("/nope/a.txt"))).toBe("PathNotFound");
      expect(await failure(storage.beginWrite("/f/a.txt"))).toBe("PathIsFile");
      expect(await failure(storage.beginWrite("/a?.txt"))).toBe("NameFormat");
      expect(await failure(storage.beginWrite("/"))).toBe("InvalidOperation");
      expect(await failure(storage.beginWrite(`/${STAGING_NAME}/x`))).toBe("InvalidPath");
      expect(await failure(storage.list(`/${STAGING_NAME}`))).toBe("InvalidPath");
    });

    it("fails at commit with PathNotFound when the target folder went away during the upload", async () => {
      await storage.mkdir("/d");
      const writer = await storage.beginWrite("/d/a.txt");
      await writer.write(Buffer.from("x"));
      await storage.remove("/d");
      expect(await failure(writer.commit())).toBe("PathNotFound");
      expect(await names()).toEqual([]);
      expect(await leftovers()).toEqual([]);
    });

    it("stops at maxBytes with QuotaExceeded and drops the data, also after parts were stored", async () => {
      const writer = await storage.beginWrite("/q.bin", { maxBytes: 10 });
      await writer.write(Buffer.alloc(8));
      expect(await failure(writer.write(Buffer.alloc(8)))).toBe("QuotaExceeded");
      expect(await failure(writer.commit())).toBe("QuotaExceeded");
      expect(await names()).toEqual([]);
      await writer.abort();

      const big = await storage.beginWrite("/q2.bin", { maxBytes: harness.largeWrite });
      await big.write(Buffer.alloc(harness.largeWrite - 1));
      await big.write(Buffer.alloc(1));
      expect(await failure(big.write(Buffer.alloc(1)))).toBe("QuotaExceeded");
      expect(await failure(big.commit())).toBe("QuotaExceeded");
      expect(await names()).toEqual([]);
      expect(await leftovers()).toEqual([]);
    });

    it("a writer at exactly maxBytes commits", async () => {
      const writer = await storage.beginWrite("/exact.bin", { maxBytes: 5 });
      await writer.write(Buffer.from("12345"));
      expect((await writer.commit()).size).toBe(5);
    });
  });

  // Storage.resumable (docs/storage.md, "Resumable uploads"): the drivers that stream uploads into the store.
  describe("resumable uploads", () => {
    const uploadsOf = (rel: string) => {
      const uploads = storage.resumable?.(rel);
      if (!uploads) throw new Error("this driver has no resumable uploads");
      return uploads;
    };
    const partsOf = (bytes: Buffer, partSize: number) => {
      const parts: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += partSize) parts.push(bytes.subarray(at, Math.min(at + partSize, bytes.length)));
      return parts;
    };
    const payload = () => randomBytes(harness.largeWrite);

    it("keeps parts out of sight until complete, in any order and sent again, then shows the whole file", async () => {
      if (!target.child) return expect(storage.resumable?.("/r.bin") ?? null).toBeNull();
      const bytes = payload();
      const uploads = uploadsOf("/r.bin");
      const upload = await uploads.begin(bytes.length);
      expect(upload.state).toEqual(expect.objectContaining({ path: "/r.bin", size: bytes.length, partSize: uploads.partSize }));
      const slices = partsOf(bytes, uploads.partSize);
      expect(slices.length).toBeGreaterThan(2);
      const stored: StoredPart[] = [];
      // The last first, then the others backwards; part 1 once with wrong bytes, then again with the right ones.
      for (let n = slices.length; n >= 1; n--) stored[n - 1] = await upload.writePart(n, slices[n - 1]!);
      await upload.writePart(1, Buffer.alloc(uploads.partSize, 7));
      stored[0] = await upload.writePart(1, slices[0]!);
      expect(await names()).toEqual([]);
      expect(await failure(storage.stat("/r.bin"))).toBe("PathNotFound");
      const placed = await upload.complete(stored);
      expect(placed).toEqual(expect.objectContaining({ path: "/r.bin", name: "r.bin", type: "file", size: bytes.length }));
      expect((await readAll(await storage.createReadStream("/r.bin"))).equals(bytes)).toBe(true);
      expect(await leftovers()).toEqual([]);
    });

    it("goes on after the uploading process was killed (SIGKILL) mid-way, from the parts it recorded", async () => {
      if (!target.child) return expect(storage.resumable?.("/k.bin") ?? null).toBeNull();
      const dir = await mkdtemp(path.join(os.tmpdir(), "ferry-resumable-"));
      try {
        const partSize = uploadsOf("/k.bin").partSize;
        const bytes = randomBytes(4 * partSize + 4321);
        const file = path.join(dir, "source");
        await writeFile(file, bytes);
        const child = spawn(process.execPath, ["--import", "tsx", "tests/support/resumable-child.ts"], {
          env: { ...process.env, FERRY_CHILD: JSON.stringify({ ...target.child(), path: "/k.bin", file }) },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let state: ResumableState | null = null;
        const recorded: StoredPart[] = [];
        const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
        for await (const line of createInterface({ input: child.stdout! })) {
          const message = JSON.parse(line) as { state?: ResumableState; part?: StoredPart; done?: boolean };
          if (message.state) state = message.state;
          if (message.part) recorded.push(message.part);
          // Two parts stored, the third on its way: the process dies as a crashed engine would.
          if (recorded.length === 2 || message.done) {
            child.kill("SIGKILL");
            break;
          }
        }
        expect(await exited).toBe("SIGKILL");
        expect(state).not.toBeNull();
        expect(recorded.map((p) => p.number)).toEqual([1, 2]);
        expect(await names()).toEqual([]);

        // A fresh process: the storage made again, the upload resumed from the recorded state and parts.
        const restarted = target.restarted();
        const upload = restarted.resumable!("/k.bin")!.resume(state!);
        const slices = partsOf(bytes, partSize);
        const parts = [...recorded];
        for (let n = recorded.length + 1; n <= slices.length; n++) parts.push(await upload.writePart(n, slices[n - 1]!));
        expect((await upload.complete(parts)).size).toBe(bytes.length);
        expect((await readAll(await restarted.createReadStream("/k.bin"))).equals(bytes)).toBe(true);
        expect(await leftovers()).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }, 60_000);

    it("complete refuses an existing target unless asked and keeps the parts; replaces it when asked", async () => {
      if (!target.child) return expect(storage.resumable?.("/taken") ?? null).toBeNull();
      await put("/taken", "old");
      await storage.mkdir("/folder");
      const bytes = payload();
      const upload = await uploadsOf("/taken").begin(bytes.length);
      const parts: StoredPart[] = [];
      for (const [i, slice] of partsOf(bytes, upload.state.partSize).entries()) parts.push(await upload.writePart(i + 1, slice));
      expect(await failure(upload.complete(parts))).toBe("PathExists");
      expect(await text("/taken")).toBe("old");
      expect((await upload.complete(parts, { overwrite: true })).size).toBe(bytes.length);
      expect((await readAll(await storage.createReadStream("/taken"))).equals(bytes)).toBe(true);

      const onFolder = await uploadsOf("/folder").begin(3);
      const one = await onFolder.writePart(1, Buffer.from("abc"));
      expect(await failure(onFolder.complete([one], { overwrite: true }))).toBe("PathIsNotFile");
      await onFolder.abort();
      const orphan = await uploadsOf("/gone/x").begin(3);
      const part = await orphan.writePart(1, Buffer.from("abc"));
      expect(await failure(orphan.complete([part]))).toBe("PathNotFound");
      await orphan.abort();
    });

    it("refuses parts of a wrong size or number, an incomplete list, a state of another path and bad names", async () => {
      if (!target.child) return expect(storage.resumable?.("/p.bin") ?? null).toBeNull();
      const uploads = uploadsOf("/p.bin");
      const upload = await uploads.begin(uploads.partSize + 10);
      expect(await failure(upload.writePart(1, Buffer.alloc(10)))).toBe("InvalidOperation");
      expect(await failure(upload.writePart(3, Buffer.alloc(10)))).toBe("InvalidOperation");
      expect(await failure(upload.writePart(0, Buffer.alloc(10)))).toBe("InvalidOperation");
      const last = await upload.writePart(2, Buffer.alloc(10, 1));
      expect(await failure(upload.complete([last]))).toBe("InvalidOperation");
      expect(() => uploadsOf("/other.bin").resume(upload.state)).toThrow(FerryError);
      await upload.abort();
      expect(await failure(uploadsOf("/a|b").begin(1))).toBe("NameFormat");
      expect(await names()).toEqual([]);
    });

    it("places an empty file, and abort leaves nothing at the path or behind", async () => {
      if (!target.child) return expect(storage.resumable?.("/e") ?? null).toBeNull();
      const empty = await uploadsOf("/e").begin(0);
      expect((await empty.complete([])).size).toBe(0);
      expect(await text("/e")).toBe("");
      const bytes = payload();
      const upload = await uploadsOf("/dropped.bin").begin(bytes.length);
      await upload.writePart(1, partsOf(bytes, upload.state.partSize)[0]!);
      await upload.abort();
      await upload.abort();
      expect(await names()).toEqual(["e"]);
      expect(await leftovers()).toEqual([]);
    });
  });

  describe("errors", () => {
    it("carry the catalogue name only: no root, key or path in what a client sees", async () => {
      try {
        await storage.stat("/missing");
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(FerryError);
        expect((err as FerryError).message).toBe("PathNotFound");
        expect((err as FerryError).data).toBeNull();
      }
    });
  });
}
