import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { createLocalStorage } from "../../server/storage/local";
import { STAGING_NAME } from "../../server/storage/paths";
import { type Storage, storageError } from "../../server/storage/storage";
import { failure, readAll } from "../support/storage-conformance";

// What is particular to the local driver (staging, links, files put on the disk by other means,
// errno mapping). The behaviour every driver shares is in the conformance suite,
// tests/support/storage-conformance.ts, run on this driver by storage-conformance-local.test.ts.
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

async function put(rel: string, content: string | Buffer, overwrite = false) {
  const writer = await storage.beginWrite(rel, { overwrite });
  await writer.write(Buffer.from(content));
  return writer.commit();
}

const onDisk = (rel: string) => readFile(path.join(root, rel));
const stagingEntries = async () => readdir(path.join(root, STAGING_NAME)).catch(() => [] as string[]);
const names = async (rel = "/") => (await storage.list(rel)).map((e) => e.name);

describe("browsing", () => {
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
