import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { AccountSASPermissions, AccountSASResourceTypes, AccountSASServices, type ContainerClient, generateAccountSASQueryParameters, StorageSharedKeyCredential } from "@azure/storage-blob";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FerryError } from "../../server/errors";
import { LINK_LOCAL_REFUSED } from "../../server/storage/endpoint-guard";
import { resolving } from "../support/resolver";
import { type AzureStorageConfig, type AzureStorageOptions, checkAzureConfig, createAzureStorage, MIN_BLOCK } from "../../server/storage/azure";
import type { Storage, StoredPart } from "../../server/storage/storage";
import { AZURITE_ACCOUNT, type AzuriteServer, startAzurite } from "../support/azurite";
import { freePort } from "../support/ports";
import { failure, readAll } from "../support/storage-conformance";

// What the conformance suite cannot see through the interface: the Azure driver's keys, markers and
// staged blocks, blobs written by other tools, configuration checks and error mapping. Against Azurite.
let server: AzuriteServer;
let raw: ContainerClient;
let run = 0;
let prefix: string;
let storage: Storage;
const BLOCK = 16 * MIN_BLOCK;

const config = (over: Partial<AzureStorageConfig> = {}): AzureStorageConfig => ({ connectionString: server.connectionString, container: server.container, path: prefix, ...over });
const open = (over: Partial<AzureStorageConfig> = {}, options: AzureStorageOptions = {}) => createAzureStorage(config(over), { blockSize: BLOCK, ...options });

/** Committed blobs under the storage's prefix, or with `uncommitted` also names that hold only staged blocks. */
const keys = async (uncommitted = false, under = `${prefix}/`) => {
  const out: string[] = [];
  for await (const item of raw.listBlobsFlat({ prefix: under, includeUncommitedBlobs: uncommitted })) out.push(item.name.slice(under.length));
  return out.sort();
};
const rawPut = (key: string, body = "") => raw.getBlockBlobClient(`${prefix}/${key}`).upload(Buffer.from(body), Buffer.byteLength(body));
const put = async (rel: string, content: string | Buffer, overwrite = false, on: Storage = storage) => {
  const writer = await on.beginWrite(rel, { overwrite });
  await writer.write(Buffer.from(content));
  return writer.commit();
};

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );
const secretFree = (err: unknown, ...secrets: string[]) => {
  const seen = [inspect(err, { depth: Infinity, showHidden: true }), JSON.stringify(err), String((err as Error).cause), (err as Error).message].join("\n");
  for (const secret of secrets) expect(seen).not.toContain(secret);
  expect((err as FerryError).message).toBe((err as FerryError).errorName);
  expect((err as FerryError).data).toBeNull();
};

beforeAll(async () => {
  server = await startAzurite();
  raw = server.client.getContainerClient(server.container);
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(() => {
  run++;
  prefix = `s${run}/home`;
  storage = open();
});

describe("keys and folder markers", () => {
  it("stores a path at blob path + path and a folder as a zero-byte marker '<key>/'", async () => {
    await storage.mkdir("/docs");
    await put("/docs/a.txt", "hello");
    await storage.mkdir("/x/y", { recursive: true });
    expect(await keys()).toEqual(["docs/", "docs/a.txt", "x/", "x/y/"]);
    await storage.rename("/docs", "/papers");
    expect(await keys()).toEqual(["papers/", "papers/a.txt", "x/", "x/y/"]);
    await storage.copy("/papers", "/x/y/copy");
    await storage.remove("/papers");
    expect(await keys()).toEqual(["x/", "x/y/", "x/y/copy/", "x/y/copy/a.txt"]);
  });

  it("a whole-container storage sees other storages' blob paths as folders", async () => {
    await put("/f.txt", "x");
    const whole = open({ path: "" });
    expect((await whole.list(`/s${run}`)).map((e) => e.name)).toEqual(["home"]);
    expect(await readAll(await whole.createReadStream(`/${prefix}/f.txt`))).toEqual(Buffer.from("x"));
  });

  it("refuses a path whose name would pass Azure's 1,024 characters or 254 segments, before any request (Azurite takes longer names)", async () => {
    const long = `/${Array.from({ length: 5 }, (_, i) => `${i}`.padEnd(250, "x")).join("/")}`;
    expect(await failure(storage.mkdir(long, { recursive: true }))).toBe("InvalidPath");
    expect(await failure(storage.beginWrite(long))).toBe("InvalidPath");
    const deep = `/${Array.from({ length: 260 }, () => "d").join("/")}`;
    expect(await failure(storage.mkdir(deep, { recursive: true }))).toBe("InvalidPath");
    expect(await keys()).toEqual([]);
  });

  it("keeps names with percent signs, hashes and plus signs literal in the blob name", async () => {
    for (const name of ["%41", "%2e%2e%2fx", "a#b+c", "%"]) await put(`/${name}`, name);
    expect(await keys()).toEqual(["%", "%2e%2e%2fx", "%41", "a#b+c"]);
    expect((await readAll(await storage.createReadStream("/%2e%2e%2fx"))).toString()).toBe("%2e%2e%2fx");
  });
});

describe("blobs written by other tools", () => {
  it("lists a prefix with blobs but no marker as a folder, and keeps it when its last file goes", async () => {
    await rawPut("implicit/f.txt", "abc");
    await rawPut("implicit/sub/g.txt", "de");
    expect(await storage.list("/")).toEqual([{ name: "implicit", type: "folder", size: 0, mtime: 0 }]);
    expect(await storage.stat("/implicit/sub")).toEqual(expect.objectContaining({ type: "folder", path: "/implicit/sub" }));
    expect(await storage.usage("/")).toEqual({ size: 5, files: 2, folders: 2 });
    await storage.remove("/implicit/sub/g.txt");
    expect((await storage.list("/implicit")).map((e) => e.name)).toEqual(["f.txt", "sub"]);
    expect(await storage.list("/implicit/sub")).toEqual([]);
    await storage.rename("/implicit/sub", "/moved");
    await storage.rename("/implicit/f.txt", "/f.txt");
    expect((await storage.list("/")).map((e) => e.name)).toEqual(["f.txt", "implicit", "moved"]);
    expect(await storage.list("/implicit")).toEqual([]);
  });

  it("passes over names Ferry cannot reach: empty segments, the reserved name", async () => {
    // (A "./" or "../" segment cannot be stored through the SDK at all: the blob's URL collapses it.)
    await rawPut("ok.txt", "1");
    await rawPut(".ferry-tmp/y", "333");
    await rawPut("sub/keep.txt", "22");
    await rawPut("sub/.FERRY-TMP/z", "4444");
    await rawPut("sub//empty-segment", "55555");
    expect((await storage.list("/")).map((e) => e.name)).toEqual(["ok.txt", "sub"]);
    expect((await storage.list("/sub")).map((e) => e.name)).toEqual(["keep.txt"]);
    expect(await storage.usage("/")).toEqual({ size: 3, files: 2, folders: 1 });
  });

  it("shows a file and a folder of one name once, as the file (what stat finds)", async () => {
    await rawPut("both", "file");
    await rawPut("both/inner.txt", "inner");
    expect(await storage.list("/")).toEqual([expect.objectContaining({ name: "both", type: "file", size: 4 })]);
    expect((await storage.stat("/both")).type).toBe("file");
  });
});

/** The names in the staging area of the storage's blob path, committed or holding only staged blocks. */
const stagingBlobs = () => keys(true, `${prefix}/.ferry-tmp/`);
const STAGED_WRITE = /^writes\/[0-9a-f]{32}$/;
const STAGED_UPLOAD = /^uploads\/[0-9a-f]{32}$/;

describe("writes: staged blocks", () => {
  it("stages blocks on a blob of its own in the staging area, commits them there and copies the blob to the target at commit(); nothing is a blob before", async () => {
    const writer = await storage.beginWrite("/big.bin");
    const payload = Buffer.alloc(2 * BLOCK + 10);
    for (let i = 0; i < payload.length; i += 1000) payload[i] = i % 251;
    await writer.write(payload);
    expect(await keys()).toEqual([]);
    expect(await storage.list("/")).toEqual([]);
    // The two full blocks are staged on the writer's staging blob (uncommitted); the last 10 bytes wait in memory.
    const [temp, ...more] = await keys(true);
    expect(more).toEqual([]);
    expect(temp).toMatch(/^\.ferry-tmp\/writes\/[0-9a-f]{32}$/);
    const staged = await raw.getBlockBlobClient(`${prefix}/${temp}`).getBlockList("uncommitted");
    expect(staged.uncommittedBlocks?.map((b) => b.size)).toEqual([BLOCK, BLOCK]);
    await writer.commit();
    expect(await keys(true)).toEqual(["big.bin"]);
    expect((await storage.stat("/big.bin")).size).toBe(payload.length);
    expect((await readAll(await storage.createReadStream("/big.bin"))).equals(payload)).toBe(true);
  });

  it("two large writes to one name both commit: the second replaces the first (overwrite), or is refused with PathExists, never UploadNotFound", async () => {
    const first = await storage.beginWrite("/same.bin", { overwrite: true });
    const second = await storage.beginWrite("/same.bin", { overwrite: true });
    const third = await storage.beginWrite("/same.bin");
    await first.write(Buffer.alloc(2 * BLOCK, 1));
    await second.write(Buffer.alloc(2 * BLOCK + 5, 2));
    await third.write(Buffer.alloc(2 * BLOCK, 3));
    expect((await first.commit()).size).toBe(2 * BLOCK);
    expect((await second.commit()).size).toBe(2 * BLOCK + 5);
    expect(await failure(third.commit())).toBe("PathExists");
    expect((await readAll(await storage.createReadStream("/same.bin"))).equals(Buffer.alloc(2 * BLOCK + 5, 2))).toBe(true);
    expect(await keys(true)).toEqual(["same.bin"]);
  });

  it("a small file is one Put Blob: no blocks", async () => {
    await put("/small.txt", "x".repeat(BLOCK - 1));
    const list = await raw.getBlockBlobClient(`${prefix}/small.txt`).getBlockList("all");
    expect(list.committedBlocks ?? []).toEqual([]);
    expect((await storage.stat("/small.txt")).size).toBe(BLOCK - 1);
  });

  it("an aborted write deletes its staging blob; a crashed one's stays, invisible, until cleanupStale of another process drops it past the horizon", async () => {
    const aborted = await storage.beginWrite("/gone.bin");
    await aborted.write(Buffer.alloc(2 * BLOCK, 1));
    await aborted.abort();
    expect(await keys(true)).toEqual([]);
    // A process that dies mid-write: its writer is never aborted.
    const crashed = await open().beginWrite("/gone.bin");
    await crashed.write(Buffer.alloc(2 * BLOCK, 1));
    expect(await keys()).toEqual([]);
    expect(await stagingBlobs()).toEqual([expect.stringMatching(STAGED_WRITE)]);
    expect(await storage.list("/")).toEqual([]);
    // Within the horizon nothing goes; past it (a later clock) the staging blob goes and nothing is left.
    const restarted = open();
    expect(await restarted.cleanupStale(60 * 60 * 1000)).toBe(0);
    const later = open({}, { now: () => Date.now() + 2 * 60 * 60 * 1000 });
    expect(await later.cleanupStale(60 * 60 * 1000)).toBe(1);
    expect(await keys(true)).toEqual([]);
    expect(await later.list("/")).toEqual([]);
  });

  it("cleanupStale drops blocks an older driver left on a target's name, never a committed file", async () => {
    await rawPut("kept.txt", "kept");
    await raw.getBlockBlobClient(`${prefix}/old.bin`).stageBlock(Buffer.from("x-000001").toString("base64"), Buffer.from("old"), 3);
    expect(await keys(true)).toEqual(["kept.txt", "old.bin"]);
    const later = open({}, { now: () => Date.now() + 2 * 60 * 60 * 1000 });
    expect(await later.cleanupStale(60 * 60 * 1000)).toBe(1);
    expect(await keys(true)).toEqual(["kept.txt"]);
  });

  it("cleanupStale never touches committed files, nor blocks another writer of this process is staging", async () => {
    await put("/kept.txt", "kept");
    const live = await storage.beginWrite("/live.bin");
    await live.write(Buffer.alloc(BLOCK, 2));
    expect(await storage.cleanupStale(0)).toBe(0);
    expect(await keys(true)).toEqual([expect.stringMatching(/^\.ferry-tmp\/writes\//), "kept.txt"]);
    await live.write(Buffer.from("end"));
    expect((await live.commit()).size).toBe(BLOCK + 3);
    expect((await storage.stat("/kept.txt")).size).toBe(4);
  });

  it("refuses staged local files (uploads go into the container directly)", async () => {
    expect(await failure(storage.adopt({ kind: "local-file", path: "/tmp/x" }, "/x"))).toBe("UnsupportedOperation");
  });
});

describe("resumable uploads: a staging blob of their own", () => {
  const bytesOf = (size: number, seed: number) => {
    const out = Buffer.alloc(size);
    for (let i = 0; i < size; i++) out[i] = (i * 31 + seed) % 251;
    return out;
  };
  const slices = (bytes: Buffer) => Array.from({ length: Math.ceil(bytes.length / BLOCK) }, (_, i) => bytes.subarray(i * BLOCK, Math.min((i + 1) * BLOCK, bytes.length)));
  const send = async (upload: { writePart(n: number, b: Uint8Array): Promise<StoredPart> }, bytes: Buffer, only?: number[]) => {
    const parts: StoredPart[] = [];
    for (const [i, slice] of slices(bytes).entries()) if (!only || only.includes(i + 1)) parts[i] = await upload.writePart(i + 1, slice);
    return parts;
  };

  it("two uploads to one name: the first completes, the second's parts stay and complete (PathExists first without overwrite, never UploadNotFound)", async () => {
    const a = bytesOf(2 * BLOCK + 100, 1);
    const b = bytesOf(3 * BLOCK + 7, 2);
    const first = await storage.resumable!("/report.pdf")!.begin(a.length);
    const second = await storage.resumable!("/report.pdf")!.begin(b.length);
    // Interleaved, as two group members' browsers would send them.
    const firstParts = await send(first, a, [1]);
    const secondParts = await send(second, b, [1, 2]);
    firstParts.push(...(await send(first, a, [2, 3])).slice(1));
    secondParts.push(...(await send(second, b, [3, 4])).slice(2));
    expect(await storage.list("/")).toEqual([]);
    expect((await first.complete(firstParts)).size).toBe(a.length);
    expect((await readAll(await storage.createReadStream("/report.pdf"))).equals(a)).toBe(true);
    expect(await failure(second.complete(secondParts))).toBe("PathExists");
    expect((await readAll(await storage.createReadStream("/report.pdf"))).equals(a)).toBe(true);
    // The staging blob is not shown anywhere: list, usage, stat of the reserved name, a copy of the root's contents.
    expect((await storage.list("/")).map((e) => e.name)).toEqual(["report.pdf"]);
    expect(await storage.usage("/")).toEqual({ size: a.length, files: 1, folders: 0 });
    expect(await failure(storage.stat("/.ferry-tmp"))).toBe("InvalidPath");
    // Resumed by another process from the state alone, the second upload completes with overwrite.
    const resumed = open().resumable!("/report.pdf")!.resume(JSON.parse(JSON.stringify(second.state)));
    expect((await resumed.complete(secondParts, { overwrite: true })).size).toBe(b.length);
    expect((await readAll(await storage.createReadStream("/report.pdf"))).equals(b)).toBe(true);
    expect(await keys(true)).toEqual(["report.pdf"]);
  });

  it("overwriting, replacing by a large write and deleting the file while an upload to its name is under way leave the upload's parts intact", async () => {
    await put("/f.bin", "old");
    const bytes = bytesOf(3 * BLOCK + 11, 3);
    const upload = await storage.resumable!("/f.bin")!.begin(bytes.length);
    const parts = await send(upload, bytes, [1, 2]);
    await put("/f.bin", "newer", true);
    const big = await storage.beginWrite("/f.bin", { overwrite: true });
    await big.write(Buffer.alloc(2 * BLOCK + 1, 9));
    await big.commit();
    await storage.copy("/f.bin", "/g.bin");
    await storage.rename("/g.bin", "/f.bin", { overwrite: true });
    await storage.remove("/f.bin");
    parts.push(...(await send(upload, bytes, [3, 4])).slice(2));
    expect((await upload.complete(parts)).size).toBe(bytes.length);
    expect((await readAll(await storage.createReadStream("/f.bin"))).equals(bytes)).toBe(true);
    expect(await keys(true)).toEqual(["f.bin"]);
  });

  it("abort deletes the upload's staging blob, also after a refused complete committed it; cleanupStale drops a forgotten one past the horizon", async () => {
    const bytes = bytesOf(2 * BLOCK + 1, 4);
    const upload = await storage.resumable!("/a.bin")!.begin(bytes.length);
    await send(upload, bytes, [1, 2]);
    expect(await stagingBlobs()).toEqual([`uploads/${upload.state.id}`]);
    await upload.abort();
    await upload.abort();
    expect(await keys(true)).toEqual([]);

    await put("/taken", "x");
    const refused = await storage.resumable!("/taken")!.begin(bytes.length);
    const parts = await send(refused, bytes);
    expect(await failure(refused.complete(parts))).toBe("PathExists");
    await refused.abort();
    expect(await keys(true)).toEqual(["taken"]);
    expect(await failure(refused.complete(parts, { overwrite: true }))).toBe("UploadNotFound");

    const forgotten = await storage.resumable!("/f.bin")!.begin(bytes.length);
    await send(forgotten, bytes, [1]);
    expect(await stagingBlobs()).toEqual([expect.stringMatching(STAGED_UPLOAD)]);
    expect(await open().cleanupStale(60 * 60 * 1000)).toBe(0);
    expect(await open({}, { now: () => Date.now() + 2 * 60 * 60 * 1000 }).cleanupStale(60 * 60 * 1000)).toBe(1);
    expect(await keys(true)).toEqual(["taken"]);
  });

  it("copy and rename without overwrite onto a name holding only another writer's staged blocks place the file (Azurite counts that name as existing)", async () => {
    await put("/a.txt", "abc");
    await put("/b.txt", "bcd");
    for (const name of ["c.txt", "d.txt"]) await raw.getBlockBlobClient(`${prefix}/${name}`).stageBlock(Buffer.from("other-000001").toString("base64"), Buffer.from("zz"), 2);
    await storage.copy("/a.txt", "/c.txt");
    await storage.rename("/b.txt", "/d.txt");
    expect((await readAll(await storage.createReadStream("/c.txt"))).toString()).toBe("abc");
    expect((await readAll(await storage.createReadStream("/d.txt"))).toString()).toBe("bcd");
    expect(await failure(storage.copy("/a.txt", "/d.txt"))).toBe("PathExists");
  });
});

describe("reads", () => {
  it("an open reader whose file was replaced never mixes contents: it reads on from the body it holds, and a new request fails with CannotReadFile (If-Match)", async () => {
    await put("/f.bin", Buffer.alloc(4096, 1));
    const reader = await storage.openReader("/f.bin");
    const buffer = new Uint8Array(100);
    expect(await reader.read(buffer, 100, 0)).toBe(100);
    await put("/f.bin", Buffer.alloc(4096, 2), true);
    // The next bytes in order come from the request already open: the old content, whole.
    expect(await reader.read(buffer, 100, 100)).toBe(100);
    expect(buffer.every((b) => b === 1)).toBe(true);
    // A read elsewhere needs a new request, which the replaced blob's ETag refuses.
    expect(await failure(reader.read(buffer, 100, 3000))).toBe("CannotReadFile");
    await reader.close();
  });

  it("a read stream destroyed before its first read gives its connection back", async () => {
    await put("/big.bin", Buffer.alloc(2 * 1024 * 1024, 1));
    for (let i = 0; i < 60; i++) (await storage.createReadStream("/big.bin", { start: i })).destroy();
    expect((await storage.stat("/big.bin")).size).toBe(2 * 1024 * 1024);
  });
});

describe("connection strings with a shared access signature", () => {
  it("works with a blob endpoint and an account SAS: write, read, copy, rename, list", async () => {
    const sas = generateAccountSASQueryParameters(
      { expiresOn: new Date(Date.now() + 60 * 60 * 1000), permissions: AccountSASPermissions.parse("rwdlac"), resourceTypes: AccountSASResourceTypes.parse("sco").toString(), services: AccountSASServices.parse("b").toString() },
      new StorageSharedKeyCredential(AZURITE_ACCOUNT.name, AZURITE_ACCOUNT.key),
    ).toString();
    const viaSas = open({ connectionString: `BlobEndpoint=${server.endpoint};SharedAccessSignature=${sas}` });
    await put("/a.txt", "via sas", false, viaSas);
    await viaSas.copy("/a.txt", "/b.txt");
    await viaSas.rename("/b.txt", "/c.txt");
    expect((await viaSas.list("/")).map((e) => e.name)).toEqual(["a.txt", "c.txt"]);
    expect((await readAll(await viaSas.createReadStream("/c.txt"))).toString()).toBe("via sas");
    // A signature that does not match is refused, and the SAS never reaches the error.
    const badSig = sas.replace(/sig=[^&]+/, "sig=AAAAbadsignature0000000000000000000000000000%3D");
    const err = await caught(open({ connectionString: `BlobEndpoint=${server.endpoint};SharedAccessSignature=${badSig}` }).list("/"));
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    secretFree(err, "AAAAbadsignature0000000000000000000000000000", badSig);
  });
});

describe("configuration and errors", () => {
  const KEY = AZURITE_ACCOUNT.key;
  const code = (c: AzureStorageConfig) => {
    try {
      checkAzureConfig(c);
      return "ok";
    } catch (err) {
      secretFree(err, KEY, "sig=s3cr3t", "s3cr3t");
      return (err as FerryError).errorName;
    }
  };

  it("refuses a config that cannot work, without echoing it", () => {
    const cs = `DefaultEndpointsProtocol=https;AccountName=ferrytest;AccountKey=${KEY};EndpointSuffix=core.windows.net`;
    const base: AzureStorageConfig = { connectionString: cs, container: "files" };
    expect(code(base)).toBe("ok");
    expect(code({ ...base, connectionString: "UseDevelopmentStorage=true" })).toBe("ok");
    expect(code({ ...base, connectionString: `AccountName=ferrytest;AccountKey=${KEY}` })).toBe("ok");
    expect(code({ ...base, connectionString: `BlobEndpoint=https://ferrytest.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=s3cr3t` })).toBe("ok");
    expect(code({ ...base, path: "team/docs" })).toBe("ok");
    expect(code({ ...base, container: "$root" })).toBe("ok");
    expect(code({ ...base, connectionString: "" })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: "just some text" })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: `AccountName=ferrytest;AccountKey=not base64!` })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: `AccountKey=${KEY}` })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: `${cs}\n` .replace("\n", ";\nx") })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: `DefaultEndpointsProtocol=ftp;AccountName=ferrytest;AccountKey=${KEY}` })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: `BlobEndpoint=ftp://x;AccountName=ferrytest;AccountKey=${KEY}` })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: "SharedAccessSignature=sv=2022-11-02&sig=s3cr3t" })).toBe("StorageConfigFailed");
    expect(code({ ...base, connectionString: "BlobEndpoint=https://ferrytest.blob.core.windows.net;SharedAccessSignature=sv=2022-11-02" })).toBe("StorageConfigFailed");
    for (const container of ["", "ab", "Files", "a--b", "-ab", "ab-", "a/b", "x".repeat(64)]) expect(code({ ...base, container })).toBe("StorageConfigFailed");
    expect(code({ ...base, path: "../up" })).toBe("PathFormatError");
    expect(code({ ...base, path: "a/\u0000" })).toBe("PathFormatError");
  });

  it("maps a refused key to StorageConnectionFailed and never shows the key", async () => {
    const wrongKey = Buffer.from("another-secret-key-for-ferry-test-0123456789").toString("base64");
    const refused = open({ connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${wrongKey};BlobEndpoint=${server.endpoint};` });
    for (const attempt of [() => refused.stat("/x"), () => refused.list("/"), () => refused.mkdir("/m"), () => refused.createReadStream("/x")]) {
      const err = await caught(attempt());
      expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
      secretFree(err, wrongKey, AZURITE_ACCOUNT.key);
    }
  });

  it("maps a missing container to StoragePathLost and an unreachable service to StorageConnectionFailed", async () => {
    const noContainer = open({ container: "no-such-container" });
    expect(await failure(noContainer.list("/"))).toBe("StoragePathLost");
    expect(await failure(noContainer.stat("/x"))).toBe("StoragePathLost");
    const closed = await freePort();
    const away = open({ connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${AZURITE_ACCOUNT.key};BlobEndpoint=http://127.0.0.1:${closed}/${AZURITE_ACCOUNT.name};` });
    const err = await caught(away.list("/"));
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    secretFree(err, AZURITE_ACCOUNT.key);
  });
});

describe("endpoints resolving to link-local addresses", () => {
  // A name without a dot: Azurite reads the account from the path for it (a dotted name would be a production-style account host).
  const NAME = "blobstore";
  const named = () => ({ connectionString: server.connectionString.replace("//127.0.0.1:", `//${NAME}:`) });

  it("refuses to connect when the blob endpoint's name resolves to 169.254.169.254 (StorageConnectionFailed, no socket to it)", async () => {
    const { asked, resolve } = resolving(NAME, "169.254.169.254");
    const err = await caught(open(named(), { resolve }).list("/"));
    expect(asked).toContain(NAME);
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    // The refusal itself, not a connection that was tried and failed.
    expect(String((err as FerryError).cause)).toContain(LINK_LOCAL_REFUSED);
    secretFree(err, AZURITE_ACCOUNT.key);
  });

  it("uses the guarded resolver for every connection: a name resolving to loopback reaches Azurite", async () => {
    const { asked, resolve } = resolving(NAME, "127.0.0.1");
    const store = open(named(), { resolve });
    await put("/via-name.txt", "abc", false, store);
    expect((await readAll(await store.createReadStream("/via-name.txt"))).toString()).toBe("abc");
    expect(await keys()).toContain("via-name.txt");
    expect(asked).toContain(NAME);
  });

  it("goes through the proxy the environment names (HTTP_PROXY), as the SDK does, instead of around it; a link-local address in the endpoint never reaches the proxy", async () => {
    // A forward proxy for plain HTTP: absolute-URI requests, passed on to Azurite.
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(req.url ?? "");
      const target = new URL(req.url ?? "");
      const out = request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on("error", () => res.destroy());
      req.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    delete process.env.NO_PROXY;
    try {
      const store = open();
      await put("/via-proxy.txt", "through the proxy", false, store);
      expect((await readAll(await store.createReadStream("/via-proxy.txt"))).toString()).toBe("through the proxy");
      expect(seen.some((url) => url.includes("via-proxy.txt"))).toBe(true);
      // A link-local address written in the endpoint is refused before the proxy hears of it.
      const before = seen.length;
      const metadata = open({ connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${AZURITE_ACCOUNT.key};BlobEndpoint=http://169.254.169.254/${AZURITE_ACCOUNT.name};` });
      const err = await caught(metadata.list("/"));
      expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
      expect(String((err as FerryError).cause)).toContain(LINK_LOCAL_REFUSED);
      expect(seen.length).toBe(before);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("refuses a link-local address written in the blob endpoint before any socket is made", async () => {
    const store = open({ connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${AZURITE_ACCOUNT.key};BlobEndpoint=http://169.254.169.254/${AZURITE_ACCOUNT.name};` });
    const err = await caught(store.list("/"));
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    expect(String((err as FerryError).cause)).toContain(LINK_LOCAL_REFUSED);
  });
});
