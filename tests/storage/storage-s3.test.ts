import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { inspect } from "node:util";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { LINK_LOCAL_REFUSED } from "../../server/storage/endpoint-guard";
import { resolving } from "../support/resolver";
import { checkS3Config, createS3Storage, MIN_SLICE, s3Prefix, type S3Log, type S3StorageConfig, type S3StorageOptions } from "../../server/storage/s3";
import type { Storage } from "../../server/storage/storage";
import { freePort } from "../support/ports";
import { S3RVER_KEYS, startS3rver, type S3Server } from "../support/s3";
import { failure, readAll } from "../support/storage-conformance";

// What the conformance suite cannot see through the interface: the S3 driver's keys and markers,
// objects written by other tools, configuration checks and error mapping. Against s3rver.
let server: S3Server;
let raw: S3Client;
let run = 0;
let prefix: string;
let storage: Storage;

const config = (over: Partial<S3StorageConfig> = {}): S3StorageConfig => ({ endpoint: server.endpoint, bucket: server.bucket, ...S3RVER_KEYS, path: prefix, sliceSize: MIN_SLICE, ...over });

const keys = async (under = `${prefix}/`) => {
  const out = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: under }));
  return (out.Contents ?? []).map((o) => o.Key!.slice(under.length)).sort();
};
const rawPut = (key: string, body = "") => raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}/${key}`, Body: body }));
const put = async (rel: string, content: string) => {
  const writer = await storage.beginWrite(rel);
  await writer.write(Buffer.from(content));
  return writer.commit();
};

/**
 * A stand-in store on a loopback port, for what s3rver lacks (ListMultipartUploads, AbortMultipartUpload)
 * or what a test must see or shape request by request. `store` opens a storage on it (bucket "fake",
 * prefix "p"); `close` stops it.
 */
async function standIn(handle: (req: IncomingMessage, res: ServerResponse, url: URL) => void, config: Partial<S3StorageConfig> = {}) {
  const fake = createServer((req, res) => handle(req, res, new URL(req.url ?? "/", "http://x")));
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  const port = (fake.address() as AddressInfo).port;
  return {
    store: (options?: S3StorageOptions) => createS3Storage({ endpoint: `http://127.0.0.1:${port}`, bucket: "fake", ...S3RVER_KEYS, path: "p", ...config }, options),
    close: () => new Promise((resolve) => fake.close(resolve)),
  };
}

const xml = (res: ServerResponse, body: string, status = 200) => {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
};

const secretFree = (err: unknown, ...secrets: string[]) => {
  const seen = [inspect(err, { depth: Infinity, showHidden: true }), JSON.stringify(err), String((err as Error).cause), (err as Error).message].join("\n");
  for (const secret of secrets) expect(seen).not.toContain(secret);
  expect((err as FerryError).message).toBe((err as FerryError).errorName);
  expect((err as FerryError).data).toBeNull();
};

/** A logger that keeps what it is given. */
const keptLog = () => {
  const lines: unknown[][] = [];
  const log: S3Log = { warn: (...args: unknown[]) => void lines.push(args) } as S3Log;
  return { log, lines };
};

beforeAll(async () => {
  server = await startS3rver();
  raw = new S3Client({ endpoint: server.endpoint, region: "us-east-1", forcePathStyle: true, credentials: S3RVER_KEYS, requestChecksumCalculation: "WHEN_REQUIRED" });
});
afterAll(async () => {
  raw?.destroy();
  await server?.stop();
});
beforeEach(() => {
  run++;
  prefix = `s${run}/home`;
  storage = createS3Storage(config());
});

describe("keys and folder markers", () => {
  it("stores a path at prefix + path and a folder as a zero-byte marker '<key>/'", async () => {
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

  it("takes the prefix in any spelling, and the whole bucket without one", () => {
    expect(s3Prefix("")).toBe("");
    expect(s3Prefix("/")).toBe("");
    expect(s3Prefix("//a//b/")).toBe("a/b/");
    expect(s3Prefix("caf\u0065\u0301")).toBe("caf\u00e9/");
    expect(() => s3Prefix("../x")).toThrow(FerryError);
    expect(() => s3Prefix("a/../../x")).toThrow(FerryError);
  });

  it("a whole-bucket storage sees other storages' prefixes as folders", async () => {
    await put("/f.txt", "x");
    const whole = createS3Storage(config({ path: "" }));
    expect((await whole.list(`/s${run}`)).map((e) => e.name)).toEqual(["home"]);
    expect(await readAll(await whole.createReadStream(`/${prefix}/f.txt`))).toEqual(Buffer.from("x"));
  });

  it("refuses a path whose key would pass S3's 1024 bytes", async () => {
    const deep = `/${Array.from({ length: 5 }, (_, i) => `${i}`.padEnd(250, "x")).join("/")}`;
    expect(await failure(storage.mkdir(deep, { recursive: true }))).toBe("InvalidPath");
    expect(await failure(storage.beginWrite(deep))).toBe("InvalidPath");
    expect(await keys()).toEqual([]);
  });
});

describe("objects written by other tools", () => {
  it("lists a prefix with objects but no marker as a folder, and keeps it when its last file goes", async () => {
    // (s3rver lists a common prefix only when an object sits directly below it, hence implicit/f.txt.)
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

  it("passes over keys in the reserved name", async () => {
    // (s3rver keeps keys as file paths, so "a//b", "./c" or "d/../e" cannot even be stored there.)
    await rawPut("ok.txt", "1");
    await rawPut(".ferry-tmp/y", "333");
    await rawPut("sub/keep.txt", "22");
    await rawPut("sub/.FERRY-TMP/z", "4444");
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

describe("writes", () => {
  it("stores nothing under the key until commit, also with parts uploaded", async () => {
    const writer = await storage.beginWrite("/big.bin");
    const payload = Buffer.alloc(2 * MIN_SLICE + 10, 7);
    await writer.write(payload);
    expect(await keys()).toEqual([]);
    await writer.commit();
    expect(await keys()).toEqual(["big.bin"]);
    expect((await readAll(await storage.createReadStream("/big.bin"))).equals(payload)).toBe(true);
  });

  it("refuses staged local files (uploads go straight into the store later)", async () => {
    expect(await failure(storage.adopt({ kind: "local-file", path: "/tmp/x" }, "/x"))).toBe("UnsupportedOperation");
  });

  it("cleanupStale answers 0 on a store without ListMultipartUploads (s3rver)", async () => {
    expect(await storage.cleanupStale(0)).toBe(0);
  });

  it("cleanupStale aborts the multipart uploads under its prefix older than the horizon, page by page", async () => {
    // s3rver has no ListMultipartUploads: a stand-in answers it (and AbortMultipartUpload) as S3 documents them.
    const now = Date.parse("2026-11-27T12:00:00Z");
    const upload = (key: string, id: string, at: string) => `<Upload><Key>${key}</Key><UploadId>${id}</UploadId><Initiated>${at}</Initiated></Upload>`;
    const pagesOf = [
      `<IsTruncated>true</IsTruncated><NextKeyMarker>p/b.bin</NextKeyMarker><NextUploadIdMarker>id-2</NextUploadIdMarker>${upload("p/a.bin", "id-1", "2026-11-27T09:00:00Z")}${upload("p/b.bin", "id-2", "2026-11-27T11:30:00Z")}`,
      `<IsTruncated>false</IsTruncated>${upload("p/dir/c.bin", "id-3", "2026-11-20T00:00:00Z")}`,
    ];
    const seen: string[] = [];
    const fake = await standIn((req, res, url) => {
      const q = (name: string) => (url.searchParams.has(name) ? ` ${name}=${url.searchParams.get(name)}` : "");
      seen.push(`${req.method} ${url.pathname.replace(/\/$/, "")}${q("prefix")}${q("key-marker")}${q("upload-id-marker")}${q("uploadId")}`);
      if (req.method === "GET" && url.searchParams.has("uploads")) {
        const page = url.searchParams.get("key-marker") ? pagesOf[1] : pagesOf[0];
        xml(res, `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>fake</Bucket><MaxUploads>1000</MaxUploads>${page}</ListMultipartUploadsResult>`);
        return;
      }
      res.writeHead(req.method === "DELETE" ? 204 : 400);
      res.end();
    });
    try {
      const store = fake.store({ now: () => now });
      expect(await store.cleanupStale(60 * 60 * 1000)).toBe(2);
      expect(seen).toEqual([
        "GET /fake prefix=p/",
        "DELETE /fake/p/a.bin uploadId=id-1",
        "GET /fake prefix=p/ key-marker=p/b.bin upload-id-marker=id-2",
        "DELETE /fake/p/dir/c.bin uploadId=id-3",
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe("reads", () => {
  it("a read stream destroyed before its first read gives its connection back", async () => {
    // The SDK keeps 50 sockets per client; a leaked body holds one until the socket timeout, set long here.
    const store = createS3Storage(config(), { socketTimeoutMs: 600_000 });
    const writer = await store.beginWrite("/big.bin");
    await writer.write(Buffer.alloc(2 * 1024 * 1024, 1));
    await writer.commit();
    for (let i = 0; i < 60; i++) (await store.createReadStream("/big.bin", { start: i })).destroy();
    expect((await store.stat("/big.bin")).size).toBe(2 * 1024 * 1024);
  });

  it("keeps more reads open at once than the SDK's 50 sockets, and stat still answers meanwhile", async () => {
    // Every open read holds a connection until it is read or destroyed. With the SDK's default pool of 50, the
    // 51st request waited for one and the 10 s connect timeout, which counted that wait, failed it (StorageConnectionFailed).
    await put("/f.bin", "x".repeat(64 * 1024));
    const streams = await Promise.all(Array.from({ length: 80 }, () => storage.createReadStream("/f.bin")));
    try {
      expect((await storage.stat("/f.bin")).size).toBe(64 * 1024);
      expect((await readAll(streams[79]!)).length).toBe(64 * 1024);
    } finally {
      for (const stream of streams) stream.destroy();
    }
  });

  it("a request waiting for a free connection is not failed by the connect timeout", async () => {
    const store = createS3Storage(config(), { maxSockets: 2, connectTimeoutMs: 200 });
    await put("/f.txt", "abc");
    const held = [await store.createReadStream("/f.txt"), await store.createReadStream("/f.txt")];
    const stat = store.stat("/f.txt");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    held[0]!.destroy();
    expect((await stat).size).toBe(3);
    held[1]!.destroy();
  });

  it("a store that takes the connection but never completes the TLS handshake fails within the connect timeout", async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const store = createS3Storage(config({ endpoint: `https://127.0.0.1:${(silent.address() as AddressInfo).port}` }), { connectTimeoutMs: 200 });
      const started = Date.now();
      expect(await failure(store.stat("/x"))).toBe("StorageConnectionFailed");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a read cut off mid-body fails with a catalogue error, without credentials", async () => {
    const fake = await standIn(
      (_req, res) => {
        res.writeHead(200, { "content-length": String(3 * 1024 * 1024), etag: '"e"' });
        res.write(Buffer.alloc(1024 * 1024, 1), () => res.destroy());
      },
      { accessKeyId: "AKIAFERRYTESTKEY123", secretAccessKey: "midstream-secret-9" },
    );
    try {
      const err = await readAll(await fake.store().createReadStream("/f.bin")).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FerryError);
      expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
      secretFree(err, "AKIAFERRYTESTKEY123", "midstream-secret-9");
    } finally {
      await fake.close();
    }
  });
});

describe("listing", () => {
  it("lists a folder with one LIST request a page and none per entry; a folder's time only where the listing gives it", async () => {
    const seen: string[] = [];
    const at = (iso: string) => Date.parse(iso) / 1000;
    const fake = await standIn((req, res, url) => {
      seen.push(`${req.method} ${url.searchParams.get("continuation-token") ?? "first"}`);
      const object = (key: string, iso: string, size: number) => `<Contents><Key>${key}</Key><LastModified>${iso}</LastModified><Size>${size}</Size></Contents>`;
      const page = url.searchParams.has("continuation-token")
        ? `${object("p/b.txt", "2026-11-27T10:00:00.000Z", 2)}<CommonPrefixes><Prefix>p/dir2/</Prefix></CommonPrefixes><IsTruncated>false</IsTruncated>`
        : // A store that lists the marker "marked/" among the objects gives that folder its time.
          `${object("p/", "2026-11-27T07:00:00.000Z", 0)}${object("p/a.txt", "2026-11-27T09:00:00.000Z", 1)}${object("p/marked/", "2026-11-27T08:00:00.000Z", 0)}<CommonPrefixes><Prefix>p/dir1/</Prefix></CommonPrefixes><IsTruncated>true</IsTruncated><NextContinuationToken>page2</NextContinuationToken>`;
      xml(res, `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>fake</Name><Prefix>p/</Prefix><Delimiter>/</Delimiter>${page}</ListBucketResult>`);
    });
    try {
      expect(await fake.store().list("/")).toEqual([
        { name: "a.txt", type: "file", size: 1, mtime: at("2026-11-27T09:00:00Z") },
        { name: "b.txt", type: "file", size: 2, mtime: at("2026-11-27T10:00:00Z") },
        { name: "dir1", type: "folder", size: 0, mtime: 0 },
        { name: "dir2", type: "folder", size: 0, mtime: 0 },
        { name: "marked", type: "folder", size: 0, mtime: at("2026-11-27T08:00:00Z") },
      ]);
      expect(seen).toEqual(["GET first", "GET page2"]);
    } finally {
      await fake.close();
    }
  });
});

describe("aborting a multipart upload", () => {
  it("aborts again once the part in flight settled, and logs a failed abort without credentials", async () => {
    const seen: string[] = [];
    let releasePart = () => undefined as void;
    let partArrived = () => undefined as void;
    const partHere = new Promise<void>((resolve) => (partArrived = resolve));
    let aborts = 0;
    const ns = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
    const fake = await standIn(
      (req, res, url) => {
        req.resume();
        const q = url.searchParams;
        const what = q.has("uploads") ? "create" : q.has("partNumber") ? `part ${q.get("partNumber")}` : q.has("uploadId") ? `abort ${q.get("uploadId")}` : q.has("list-type") ? "list" : "object";
        seen.push(`${req.method} ${what}`);
        if (req.method === "HEAD") {
          res.writeHead(404);
          res.end();
        } else if (what === "list") {
          xml(res, `<ListBucketResult ${ns}><Name>fake</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>`);
        } else if (what === "create") {
          xml(res, `<InitiateMultipartUploadResult ${ns}><Bucket>fake</Bucket><Key>p/big.bin</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>`);
        } else if (what === "part 1") {
          // The part is held until the first abort has been answered: it lands after that abort, as S3 allows.
          req.on("end", () => {
            releasePart = () => {
              res.writeHead(200, { etag: '"e1"' });
              res.end();
            };
            partArrived();
          });
        } else if (req.method === "DELETE" && ++aborts === 1) {
          // Refused, with the key id in the message as some stores write it.
          xml(res, `<Error><Code>AccessDenied</Code><Message>Access denied for AKIAFERRYTESTKEY123</Message><RequestId>r1</RequestId></Error>`, 403);
          setTimeout(() => releasePart(), 50);
        } else {
          res.writeHead(req.method === "DELETE" ? 204 : 400);
          res.end();
        }
      },
      { accessKeyId: "AKIAFERRYTESTKEY123", secretAccessKey: "abort-secret-5512", sliceSize: MIN_SLICE },
    );
    try {
      const { log, lines } = keptLog();
      const writer = await fake.store({ log }).beginWrite("/big.bin");
      const writing = writer.write(Buffer.alloc(MIN_SLICE, 1)).catch(() => undefined);
      await partHere;
      await writer.abort();
      await writing;
      expect(seen).toEqual(["HEAD object", "GET list", "POST create", "PUT part 1", "DELETE abort up-1", "DELETE abort up-1"]);
      expect(lines).toHaveLength(1);
      const logged = inspect(lines, { depth: Infinity });
      expect(logged).toContain("AccessDenied");
      expect(logged).not.toContain("AKIAFERRYTESTKEY123");
      expect(logged).not.toContain("abort-secret-5512");
    } finally {
      await fake.close();
    }
  });
});

describe("cleanupStale on a store that omits the markers", () => {
  it("stops after a truncated page with no NextKeyMarker instead of asking for it again", async () => {
    // Stand-in as above (s3rver has no ListMultipartUploads); it answers every request with the same truncated page.
    let lists = 0;
    const fake = await standIn((req, res) => {
      if (req.method === "GET") lists++;
      if (lists > 5) req.socket.destroy();
      xml(res, `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>fake</Bucket><IsTruncated>true</IsTruncated></ListMultipartUploadsResult>`);
    });
    try {
      expect(await fake.store().cleanupStale(0)).toBe(0);
      expect(lists).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

describe("configuration and errors", () => {
  it("refuses a config that cannot work, without echoing it", () => {
    const code = (c: S3StorageConfig) => {
      try {
        checkS3Config(c);
        return "ok";
      } catch (err) {
        return (err as FerryError).errorName;
      }
    };
    const base: S3StorageConfig = { bucket: "b", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "very-secret" };
    expect(code(base)).toBe("ok");
    expect(code({ ...base, bucket: "" })).toBe("StorageConfigFailed");
    expect(code({ ...base, bucket: "a/b" })).toBe("StorageConfigFailed");
    expect(code({ ...base, secretAccessKey: "" })).toBe("StorageConfigFailed");
    expect(code({ ...base, endpoint: "ftp://x" })).toBe("StorageConfigFailed");
    expect(code({ ...base, endpoint: "not a url" })).toBe("StorageConfigFailed");
    expect(code({ ...base, sliceSize: MIN_SLICE - 1 })).toBe("InvalidSliceSize");
    expect(code({ ...base, sliceSize: MIN_SLICE + 0.5 })).toBe("InvalidSliceSize");
    expect(code({ ...base, sliceSize: 6 * 1024 ** 3 })).toBe("InvalidSliceSize");
    expect(code({ ...base, path: "../up" })).toBe("PathFormatError");
  });

  it("maps refused credentials to StorageConnectionFailed and never shows them", async () => {
    // s3rver checks the key id only (it accepts any secret for its key), so an unknown key id it is;
    // its answer carries the key id back (AWSAccessKeyId), which must not reach the error either.
    const wrongKey = createS3Storage(config({ accessKeyId: "AKIAFERRYTESTKEY123", secretAccessKey: "another-secret-77e1" }));
    for (const attempt of [() => wrongKey.stat("/x"), () => wrongKey.list("/"), () => wrongKey.mkdir("/m"), () => wrongKey.createReadStream("/x")]) {
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FerryError);
      expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
      secretFree(err, "AKIAFERRYTESTKEY123", "another-secret-77e1");
    }
  });

  it("maps a missing bucket to StoragePathLost and an unreachable store to StorageConnectionFailed", async () => {
    const noBucket = createS3Storage(config({ bucket: "no-such-bucket" }));
    expect(await failure(noBucket.list("/"))).toBe("StoragePathLost");
    const closed = await freePort();
    const away = createS3Storage(config({ endpoint: `http://127.0.0.1:${closed}`, secretAccessKey: "unreachable-secret-1" }));
    const err = await away.list("/").then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    secretFree(err, "unreachable-secret-1");
  });
});

describe("endpoints resolving to link-local addresses", () => {
  // A name s3rver takes for path-style requests (any other name it reads as a bucket's virtual host).
  const NAME = "s3.amazonaws.com";
  const endpoint = () => `http://${NAME}:${new URL(server.endpoint).port}`;

  it("refuses to connect when the endpoint's name resolves to 169.254.169.254 (StorageConnectionFailed, no socket to it)", async () => {
    const { asked, resolve } = resolving(NAME, "169.254.169.254");
    const store = createS3Storage(config({ endpoint: endpoint() }), { resolve, connectTimeoutMs: 200 });
    const err = await store.list("/").then(
      () => null,
      (e: unknown) => e,
    );
    expect(asked).toContain(NAME);
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    // The refusal itself, not a connection that was tried and failed.
    expect(String((err as FerryError).cause)).toContain(LINK_LOCAL_REFUSED);
  });

  it("uses the guarded resolver for every connection: a name resolving to loopback reaches s3rver", async () => {
    const { asked, resolve } = resolving(NAME, "127.0.0.1");
    const store = createS3Storage(config({ endpoint: endpoint() }), { resolve });
    const writer = await store.beginWrite("/via-name.txt");
    await writer.write(Buffer.from("abc"));
    await writer.commit();
    expect((await readAll(await store.createReadStream("/via-name.txt"))).toString()).toBe("abc");
    expect((await storage.stat("/via-name.txt")).size).toBe(3);
    expect(asked).toContain(NAME);
  });

  it("refuses a link-local address written in the endpoint before any socket is made", async () => {
    const store = createS3Storage(config({ endpoint: "http://169.254.169.254" }), { connectTimeoutMs: 200 });
    const err = await store.list("/").then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as FerryError).errorName).toBe("StorageConnectionFailed");
    expect(String((err as FerryError).cause)).toContain(LINK_LOCAL_REFUSED);
  });
});
