import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { createLocalStorage } from "../../server/storage/local";
import { STAGING_NAME } from "../../server/storage/paths";
import { type Storage, storageError } from "../../server/storage/storage";

let dir: string;
let root: string;
let storage: Storage;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ferry-storage-"));
  root = path.join(dir, "u");
  await mkdir(root);
  storage = createLocalStorage(root);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    if (err instanceof FerryError) return err.errorName;
    throw err;
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function put(rel: string, content: string | Buffer, overwrite = false) {
  const writer = await storage.beginWrite(rel, { overwrite });
  await writer.write(Buffer.from(content));
  return writer.commit();
}

const onDisk = (rel: string) => readFile(path.join(root, rel));
const stagingEntries = async () => readdir(path.join(root, STAGING_NAME)).catch(() => [] as string[]);
const names = async (rel = "/") => (await storage.list(rel)).map((e) => e.name);

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
      expect(Math.abs(entry.mtime - now)).toBeLessThan(60);
    }
    expect(await storage.list("/docs")).toEqual([expect.objectContaining({ name: "a.txt", type: "file", size: 5 })]);
  });

  it("stats files, folders and the root; missing paths and files-as-folders fail with catalogue names", async () => {
    await put("/a.txt", "abc");
    expect(await storage.stat("a.txt")).toEqual(expect.objectContaining({ path: "/a.txt", name: "a.txt", type: "file", size: 3 }));
    expect(await storage.stat("/")).toEqual(expect.objectContaining({ path: "/", name: "", type: "folder" }));
    expect(await failure(storage.stat("/missing"))).toBe("PathNotFound");
    expect(await failure(storage.list("/missing"))).toBe("PathNotFound");
    expect(await failure(storage.list("/a.txt"))).toBe("PathIsFile");
    expect(await failure(storage.stat("/a.txt/inner"))).toBe("PathIsFile");
  });

  it("refuses traversal on every method", async () => {
    await writeFile(path.join(dir, "outside.txt"), "secret");
    const bad = "../outside.txt";
    expect(await failure(storage.stat(bad))).toBe("InvalidPath");
    expect(await failure(storage.list(".."))).toBe("InvalidPath");
    expect(await failure(storage.mkdir("../x"))).toBe("InvalidPath");
    expect(await failure(storage.rename(bad, "/x"))).toBe("InvalidPath");
    expect(await failure(storage.copy(bad, "/x"))).toBe("InvalidPath");
    expect(await failure(storage.remove(bad))).toBe("InvalidPath");
    expect(await failure(storage.createReadStream(bad))).toBe("InvalidPath");
    expect(await failure(storage.usage(".."))).toBe("InvalidPath");
    expect(await failure(storage.beginWrite("../x.txt"))).toBe("InvalidPath");
    expect(await readFile(path.join(dir, "outside.txt"), "utf8")).toBe("secret");
    expect(await readdir(dir)).toEqual(["outside.txt", "u"]);
  });

  it("round-trips names with markup, quotes and unicode; NFD input finds the NFC name", async () => {
    // Names Ferry lets a user create (the spec forbids \ / : " * ? < > |) …
    const created = ["&lt;img src=x onerror=alert(1)&gt;", "it's 'quoted' & {{more}}", "名前 📁 ünïcödé", "$(echo x); `y`", "-rf", "file..name"];
    for (const name of created) await put(`/${name}`, name);
    // … and names that reached the disk some other way, which must still read back as plain text.
    const foreign = ['<img src=x onerror="alert(1)">', 'say "hi" | cat'];
    for (const name of foreign) await writeFile(path.join(root, name), name);
    const all = [...created, ...foreign];
    expect(await names()).toEqual([...all].sort());
    for (const name of all) {
      expect((await storage.stat(`/${name}`)).name).toBe(name);
      expect((await readAll(await storage.createReadStream(`/${name}`))).toString()).toBe(name);
    }
    await put("/caf\u00e9.txt", "x");
    expect((await storage.stat("/cafe\u0301.txt")).path).toBe("/caf\u00e9.txt");
  });
});

describe("mkdir", () => {
  it("creates a folder, refuses an existing one and a missing parent", async () => {
    await storage.mkdir("/docs");
    expect((await storage.stat("/docs")).type).toBe("folder");
    expect(await failure(storage.mkdir("/docs"))).toBe("PathExists");
    expect(await failure(storage.mkdir("/nope/child"))).toBe("PathNotFound");
    expect(await failure(storage.mkdir("/"))).toBe("PathExists");
  });

  it("creates parents when recursive, and refuses a file in the way", async () => {
    await storage.mkdir("/a/b/c", { recursive: true });
    await storage.mkdir("/a/b/c", { recursive: true });
    expect((await storage.stat("/a/b/c")).type).toBe("folder");
    await put("/f", "x");
    expect(await failure(storage.mkdir("/f", { recursive: true }))).toBe("PathIsFile");
    expect(await failure(storage.mkdir("/f/g", { recursive: true }))).toBe("PathIsFile");
  });

  it("refuses names the spec forbids", async () => {
    await storage.mkdir("/d");
    for (const bad of ["/d/a:b", "/d/a*b", "/d/a?b", '/d/a"b', "/d/a<b", "/d/a>b", "/d/a|b"]) expect(await failure(storage.mkdir(bad))).toBe("NameFormat");
    expect(await failure(storage.mkdir("/ok/a|b", { recursive: true }))).toBe("NameFormat");
    // A leading "X:" reads as a Windows drive prefix and is refused as a path already.
    expect(await failure(storage.mkdir("/a:b"))).toBe("InvalidPath");
    expect(await names()).toEqual(["d"]);
    expect(await names("/d")).toEqual([]);
  });
});

describe("rename", () => {
  it("moves a file and a folder", async () => {
    await storage.mkdir("/docs");
    await put("/docs/a.txt", "A");
    await storage.rename("/docs/a.txt", "/b.txt");
    expect((await onDisk("/b.txt")).toString()).toBe("A");
    await storage.rename("/docs", "/papers");
    expect(await names()).toEqual(["b.txt", "papers"]);
  });

  it("never overwrites unless asked, and then replaces same-type targets only", async () => {
    await put("/a.txt", "A");
    await put("/b.txt", "B");
    expect(await failure(storage.rename("/a.txt", "/b.txt"))).toBe("PathExists");
    expect((await onDisk("/a.txt")).toString()).toBe("A");
    expect((await onDisk("/b.txt")).toString()).toBe("B");
    await storage.rename("/a.txt", "/b.txt", { overwrite: true });
    expect(await names()).toEqual(["b.txt"]);
    expect((await onDisk("/b.txt")).toString()).toBe("A");

    await storage.mkdir("/dir");
    expect(await failure(storage.rename("/b.txt", "/dir", { overwrite: true }))).toBe("PathIsNotFile");
    expect(await failure(storage.rename("/dir", "/b.txt", { overwrite: true }))).toBe("PathIsFile");
  });

  it("replaces a folder as a whole when asked", async () => {
    await storage.mkdir("/x");
    await put("/x/new.txt", "new");
    await storage.mkdir("/y");
    await put("/y/old.txt", "old");
    expect(await failure(storage.rename("/x", "/y"))).toBe("PathExists");
    await storage.rename("/x", "/y", { overwrite: true });
    expect(await names("/y")).toEqual(["new.txt"]);
    expect(await names()).toEqual(["y"]);
    expect(await stagingEntries()).toEqual([]);
  });

  it("refuses a missing source, a missing target folder, the root and a move into itself", async () => {
    await storage.mkdir("/a");
    expect(await failure(storage.rename("/missing", "/b"))).toBe("PathNotFound");
    expect(await failure(storage.rename("/a", "/nope/b"))).toBe("PathNotFound");
    expect(await failure(storage.rename("/", "/b"))).toBe("InvalidOperation");
    expect(await failure(storage.rename("/a", "/a/b"))).toBe("InvalidOperation");
    expect(await failure(storage.rename("/a", "/a/.."))).toBe("InvalidPath");
    expect(await failure(storage.rename("/a", "/x*y"))).toBe("NameFormat");
    expect(await names()).toEqual(["a"]);
  });
});

describe("copy", () => {
  it("copies a file and a folder tree", async () => {
    await storage.mkdir("/src/sub", { recursive: true });
    await put("/src/a.txt", "A");
    await put("/src/sub/b.txt", "BB");
    await storage.copy("/src/a.txt", "/a-copy.txt");
    await storage.copy("/src", "/dst");
    expect((await onDisk("/a-copy.txt")).toString()).toBe("A");
    expect((await onDisk("/dst/sub/b.txt")).toString()).toBe("BB");
    expect(await storage.usage("/dst")).toEqual({ size: 3, files: 2, folders: 1 });
    expect(await storage.usage("/src")).toEqual({ size: 3, files: 2, folders: 1 });
    expect(await stagingEntries()).toEqual([]);
  });

  it("never overwrites unless asked", async () => {
    await put("/a.txt", "A");
    await put("/b.txt", "B");
    expect(await failure(storage.copy("/a.txt", "/b.txt"))).toBe("PathExists");
    expect((await onDisk("/b.txt")).toString()).toBe("B");
    await storage.copy("/a.txt", "/b.txt", { overwrite: true });
    expect((await onDisk("/b.txt")).toString()).toBe("A");
    expect((await onDisk("/a.txt")).toString()).toBe("A");

    await storage.mkdir("/d1");
    await put("/d1/one.txt", "1");
    await storage.mkdir("/d2");
    await put("/d2/two.txt", "2");
    expect(await failure(storage.copy("/d1", "/d2"))).toBe("PathExists");
    await storage.copy("/d1", "/d2", { overwrite: true });
    expect(await names("/d2")).toEqual(["one.txt"]);
    expect(await failure(storage.copy("/d1", "/a.txt", { overwrite: true }))).toBe("PathIsFile");
  });

  it("refuses copying a folder into itself, the root, or a missing source", async () => {
    await storage.mkdir("/a");
    expect(await failure(storage.copy("/a", "/a/inner"))).toBe("InvalidOperation");
    expect(await failure(storage.copy("/", "/x"))).toBe("InvalidOperation");
    expect(await failure(storage.copy("/missing", "/x"))).toBe("PathNotFound");
    expect(await names()).toEqual(["a"]);
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
    expect(await failure(storage.remove("/"))).toBe("InvalidOperation");
    expect(await stagingEntries()).toEqual([]);
  });

  it("adds up bytes, files and folders, without the staging area", async () => {
    await storage.mkdir("/a/b", { recursive: true });
    await put("/a/one", Buffer.alloc(100));
    await put("/a/b/two", Buffer.alloc(23));
    const pending = await storage.beginWrite("/a/pending");
    await pending.write(Buffer.alloc(1000));
    expect(await storage.usage("/")).toEqual({ size: 123, files: 2, folders: 2 });
    expect(await storage.usage("/a/one")).toEqual({ size: 100, files: 1, folders: 0 });
    await pending.abort();
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
      [100, undefined],
      [undefined, 99],
      [undefined, undefined],
    ];
    for (const [start, end] of ranges) {
      const got = await readAll(await storage.createReadStream("/big.bin", { start, end }));
      expect(got.equals(content.subarray(start ?? 0, end === undefined ? undefined : end + 1))).toBe(true);
    }
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

  it("refuses malformed ranges, folders and missing files", async () => {
    expect(await failure(storage.createReadStream("/big.bin", { start: 10, end: 5 }))).toBe("InvalidParameter");
    expect(await failure(storage.createReadStream("/big.bin", { start: -1 }))).toBe("InvalidParameter");
    expect(await failure(storage.createReadStream("/big.bin", { start: 1.5 }))).toBe("InvalidParameter");
    await storage.mkdir("/d");
    expect(await failure(storage.createReadStream("/d"))).toBe("PathIsNotFile");
    expect(await failure(storage.createReadStream("/nope"))).toBe("PathNotFound");
  });
});

describe("uploads: staging and commit", () => {
  it("keeps bytes out of the visible tree until commit, then shows the whole file at once", async () => {
    const writer = await storage.beginWrite("/up.bin");
    await writer.write(Buffer.alloc(1000, 1));
    expect(await names()).toEqual([]);
    expect(await failure(storage.stat("/up.bin"))).toBe("PathNotFound");
    expect(await stagingEntries()).toHaveLength(1);
    await writer.write(Buffer.alloc(500, 2));
    expect(writer.bytesWritten).toBe(1500);
    const result = await writer.commit();
    expect(result).toEqual(expect.objectContaining({ path: "/up.bin", type: "file", size: 1500 }));
    const bytes = await onDisk("/up.bin");
    expect(bytes.equals(Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(500, 2)]))).toBe(true);
    expect(await stagingEntries()).toEqual([]);
  });

  it("accepts a piped stream", async () => {
    const writer = await storage.beginWrite("/piped.bin");
    const payload = Buffer.alloc(2 * 1024 * 1024 + 3, 9);
    await pipeline(Readable.from([payload.subarray(0, 1000), payload.subarray(1000)]), writer.stream);
    expect(await names()).toEqual([]);
    await writer.commit();
    expect((await onDisk("/piped.bin")).equals(payload)).toBe(true);
  });

  it("an aborted write leaves nothing at the final path, in the listing or in staging", async () => {
    const writer = await storage.beginWrite("/gone.bin");
    await writer.write(Buffer.alloc(4096));
    await writer.abort();
    await writer.abort();
    expect(await names()).toEqual([]);
    expect(await failure(storage.stat("/gone.bin"))).toBe("PathNotFound");
    expect(await stagingEntries()).toEqual([]);
    expect(await failure(writer.commit())).toBe("InvalidOperation");
  });

  it("a write never committed (a crash) leaves only staging data, which cleanupStale removes", async () => {
    const writer = await storage.beginWrite("/crash.bin");
    await writer.write(Buffer.alloc(2048));
    // The process "dies": a fresh storage (as after a restart) sees only the staged bytes.
    const restarted = createLocalStorage(root);
    expect(await restarted.list("/")).toEqual([]);
    expect(await failure(restarted.stat("/crash.bin"))).toBe("PathNotFound");
    const [staged] = await stagingEntries();
    expect(staged).toBeDefined();
    // Fresh temp data survives a cleanup with a long horizon; old data goes.
    expect(await restarted.cleanupStale(60 * 60 * 1000)).toBe(0);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(root, STAGING_NAME, staged!), old, old);
    expect(await restarted.cleanupStale(60 * 60 * 1000)).toBe(1);
    expect(await stagingEntries()).toEqual([]);
    await writer.abort();
  });

  it("cleanupStale leaves this process's uploads in progress alone", async () => {
    const writer = await storage.beginWrite("/live.bin");
    await writer.write(Buffer.from("live"));
    expect(await storage.cleanupStale(0)).toBe(0);
    await writer.commit();
    expect((await onDisk("/live.bin")).toString()).toBe("live");
  });

  it("refuses an existing target unless asked, at begin and again at commit", async () => {
    await put("/a.txt", "first");
    expect(await failure(storage.beginWrite("/a.txt"))).toBe("PathExists");

    const racer = await storage.beginWrite("/b.txt");
    await racer.write(Buffer.from("late"));
    await put("/b.txt", "early");
    expect(await failure(racer.commit())).toBe("PathExists");
    expect((await onDisk("/b.txt")).toString()).toBe("early");
    expect(await stagingEntries()).toEqual([]);

    await put("/a.txt", "second", true);
    expect((await onDisk("/a.txt")).toString()).toBe("second");
  });

  it("refuses a folder target, a missing folder, forbidden names and the staging area", async () => {
    await storage.mkdir("/d");
    expect(await failure(storage.beginWrite("/d", { overwrite: true }))).toBe("PathIsNotFile");
    expect(await failure(storage.beginWrite("/nope/a.txt"))).toBe("PathNotFound");
    expect(await failure(storage.beginWrite("/a?.txt"))).toBe("NameFormat");
    expect(await failure(storage.beginWrite(`/${STAGING_NAME}/x`))).toBe("InvalidPath");
    expect(await failure(storage.list(`/${STAGING_NAME}`))).toBe("InvalidPath");
  });

  it("fails at commit with PathNotFound when the target folder went away during the upload", async () => {
    await storage.mkdir("/d");
    const writer = await storage.beginWrite("/d/a.txt");
    await writer.write(Buffer.from("x"));
    await storage.remove("/d");
    expect(await failure(writer.commit())).toBe("PathNotFound");
    expect(await stagingEntries()).toEqual([]);
  });

  it("stops at maxBytes with QuotaExceeded and drops the temporary data", async () => {
    const writer = await storage.beginWrite("/q.bin", { maxBytes: 10 });
    await writer.write(Buffer.alloc(8));
    expect(await failure(writer.write(Buffer.alloc(8)))).toBe("QuotaExceeded");
    expect(await failure(writer.commit())).toBe("QuotaExceeded");
    expect(await names()).toEqual([]);
    await writer.abort();
    expect(await stagingEntries()).toEqual([]);
  });

  it("never lists the staging area, even in a listing of a parent root", async () => {
    await storage.mkdir("/inner");
    const innerStorage = createLocalStorage(path.join(root, "inner"));
    const writer = await innerStorage.beginWrite("/x.bin");
    await writer.write(Buffer.from("x"));
    expect(await names("/inner")).toEqual([]);
    expect(await storage.usage("/")).toEqual({ size: 0, files: 0, folders: 1 });
    await writer.abort();
  });
});

describe("symbolic links", () => {
  beforeEach(async () => {
    await mkdir(path.join(dir, "u2"));
    await writeFile(path.join(dir, "u2", "secret.txt"), "secret");
    await symlink(path.join(dir, "u2"), path.join(root, "escape"));
    await symlink(path.join(dir, "u2", "secret.txt"), path.join(root, "secret-link"));
    await mkdir(path.join(root, "real"));
    await writeFile(path.join(root, "real", "ok.txt"), "ok");
    await symlink(path.join(root, "real"), path.join(root, "alias"));
  });

  it("refuses links that lead out of the root on every method and hides them in listings", async () => {
    expect(await failure(storage.list("/escape"))).toBe("InvalidPath");
    expect(await failure(storage.stat("/escape/secret.txt"))).toBe("InvalidPath");
    expect(await failure(storage.createReadStream("/secret-link"))).toBe("InvalidPath");
    expect(await failure(storage.createReadStream("/escape/secret.txt"))).toBe("InvalidPath");
    expect(await failure(storage.beginWrite("/escape/new.txt"))).toBe("InvalidPath");
    expect(await failure(storage.mkdir("/escape/new"))).toBe("InvalidPath");
    expect(await failure(storage.copy("/escape/secret.txt", "/stolen.txt"))).toBe("InvalidPath");
    expect(await failure(storage.rename("/real/ok.txt", "/escape/ok.txt"))).toBe("InvalidPath");
    expect(await failure(storage.remove("/escape/secret.txt"))).toBe("InvalidPath");
    expect(await names()).toEqual(["alias", "real"]);
    expect(await readdir(path.join(dir, "u2"))).toEqual(["secret.txt"]);
  });

  it("follows links that stay inside the root", async () => {
    expect((await readAll(await storage.createReadStream("/alias/ok.txt"))).toString()).toBe("ok");
  });

  it("does not follow links when copying or measuring a tree", async () => {
    await symlink(path.join(dir, "u2"), path.join(root, "real", "inner-escape"));
    await storage.copy("/real", "/copied");
    expect(await names("/copied")).toEqual(["ok.txt"]);
    expect(await storage.usage("/real")).toEqual({ size: 2, files: 1, folders: 0 });
  });

  it("removing a link inside a folder removes the link, not its target", async () => {
    await symlink(path.join(dir, "u2"), path.join(root, "real", "inner-escape"));
    await storage.remove("/real");
    expect(await readFile(path.join(dir, "u2", "secret.txt"), "utf8")).toBe("secret");
  });
});

describe("error mapping", () => {
  it("maps errno codes to catalogue names", () => {
    const errno = (code: string) => Object.assign(new Error(code), { code });
    expect(storageError(errno("ENOENT")).errorName).toBe("PathNotFound");
    expect(storageError(errno("EEXIST")).errorName).toBe("PathExists");
    expect(storageError(errno("ENOTDIR")).errorName).toBe("PathIsFile");
    expect(storageError(errno("EISDIR")).errorName).toBe("PathIsNotFile");
    expect(storageError(errno("ENOSPC")).errorName).toBe("DiskFull");
    expect(storageError(errno("EDQUOT")).errorName).toBe("DiskFull");
    expect(storageError(errno("EWHATEVER")).errorName).toBe("FileSystemError");
    const original = new FerryError("QuotaExceeded");
    expect(storageError(original)).toBe(original);
  });

  it("keeps absolute paths out of the error a client sees", async () => {
    try {
      await storage.stat("/missing");
      expect.unreachable();
    } catch (err) {
      expect((err as FerryError).message).not.toContain(root);
      expect((err as FerryError).data).toBeNull();
    }
  });
});

describe("durability details", () => {
  it("the staging folder is private to the engine", async () => {
    const writer = await storage.beginWrite("/p.bin");
    expect((await stat(path.join(root, STAGING_NAME))).mode & 0o077).toBe(0);
    await writer.abort();
  });
});
