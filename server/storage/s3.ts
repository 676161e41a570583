import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListObjectsV2CommandOutput,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import http from "node:http";
import https from "node:https";
import { Socket } from "node:net";
import { Readable, type Duplex } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import type { ErrorName } from "../../contract/errors";
import { FerryError } from "../errors";
import { guardedAgent, LINK_LOCAL_REFUSED, type Resolver } from "./endpoint-guard";
import { baseName, isUnder, joinName, parentOf, resolveUserPath } from "./paths";
import { checkNewName, checkRange, contentRange, guardWith, keyPrefix, mapFailure, mapLimit, rechunk, seconds, streamingReader, streamWriter, usableName, usableRest } from "./shared";
import {
  type Entry,
  type EntryType,
  type ResumableState,
  type ResumableUpload,
  type ResumableUploads,
  type StoredPart,
  type FileReader,
  type OverwriteOption,
  type ReadRange,
  type StagedData,
  type StatResult,
  type Storage,
  STREAM_BUFFER,
  type Usage,
  type WriteOptions,
  type Writer,
} from "./storage";
import { WALK_DEFAULTS, WalkBudget, type WalkLimits, type WalkOptions } from "./walk";

/**
 * A storage in an S3 bucket (Amazon S3 and the stores that speak its API: MinIO, Ceph, Alibaba
 * OSS, R2, Google Cloud Storage's XML API). Keys are the configured prefix plus the normalised
 * relative path; a folder is a zero-byte marker object "<key>/" (a prefix that holds objects but
 * has no marker is a folder too). docs/storage.md, "Object storage: S3", lists the calls it makes
 * and what is and is not atomic.
 */

/** The spec's fields of an OSS / S3 storage (admin document section 3, "Storage"). */
export interface S3StorageConfig {
  /** Service URL ("https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:9000"); empty: Amazon S3 of `region`. */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** Default "us-east-1" (most S3-compatible stores ignore it but sign with it). */
  region?: string;
  /** Folder inside the bucket that is this storage's root ("" or "/": the whole bucket). */
  path?: string;
  /** Virtual-hosted addressing (bucket.endpoint/key) instead of path style (endpoint/bucket/key). Default: true without an endpoint, false with one. */
  virtualAddressing?: boolean;
  /** Bytes per multipart part: 5 MiB to 5 GiB (S3's limits). Default 8 MiB. */
  sliceSize?: number;
}

export interface S3StorageOptions {
  /** Milliseconds since the epoch, for cleanupStale. */
  now?: () => number;
  /** Bounds of usage(), copy() and folder rename() walks when the caller gives none (default WALK_DEFAULTS). */
  walk?: WalkLimits;
  /** Parallel requests of one folder copy, rename or listing (default 16). */
  parallel?: number;
  /** A request whose socket stays idle this long fails (default 120 s). */
  socketTimeoutMs?: number;
  /**
   * Connections to the store at once (default 500). Every open read holds one for as long as it
   * runs, so this bounds the downloads in progress; a request beyond it waits for a free one.
   */
  maxSockets?: number;
  /** A new connection (TCP, and TLS for https) not established after this long fails (default 10 s); the wait for a free connection does not count. */
  connectTimeoutMs?: number;
  /** The engine's logger, for what fails where no caller can be told (an abort's clean-up); default: nothing is logged. */
  log?: S3Log;
  /** How the endpoint's name is resolved before each connection (endpoint-guard.ts); default: dns.lookup. */
  resolve?: Resolver;
}

/** What the driver logs with: the engine's logger (pino, through Fastify). */
export type S3Log = Pick<FastifyBaseLogger, "warn">;

export const DEFAULT_MAX_SOCKETS = 500;
export const DEFAULT_CONNECT_TIMEOUT = 10_000;

export const MIN_SLICE = 5 * 1024 * 1024;
export const MAX_SLICE = 5 * 1024 * 1024 * 1024;
export const DEFAULT_SLICE = 8 * 1024 * 1024;
/** S3 allows 10,000 parts per multipart upload. */
export const MAX_PARTS = 10_000;
/** Largest object one CopyObject may copy (bigger ones need UploadPartCopy, not done yet). */
export const MAX_COPY = 5 * 1024 * 1024 * 1024;
/** Keys per DeleteObjects request (S3's limit). */
const DELETE_BATCH = 1000;
/** S3 keys are at most 1024 UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/** The configured root folder as a key prefix: "" or "a/b/" (shared.ts keyPrefix). PathFormatError for a path that would not stay a folder. */
export const s3Prefix = keyPrefix;

/** Refuses a config that cannot work (StorageConfigFailed, InvalidSliceSize, PathFormatError); never echoes a credential. */
export function checkS3Config(config: S3StorageConfig): void {
  const text = (v: unknown) => typeof v === "string" && v.length > 0;
  if (!text(config.accessKeyId) || !text(config.secretAccessKey) || !text(config.bucket) || config.bucket.includes("/")) throw new FerryError("StorageConfigFailed");
  if (config.endpoint) {
    let url: URL;
    try {
      url = new URL(config.endpoint);
    } catch {
      throw new FerryError("StorageConfigFailed");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new FerryError("StorageConfigFailed");
  }
  const slice = config.sliceSize ?? DEFAULT_SLICE;
  if (!Number.isSafeInteger(slice) || slice < MIN_SLICE || slice > MAX_SLICE) throw new FerryError("InvalidSliceSize");
  s3Prefix(config.path);
}

const S3_NAMES: Record<string, ErrorName> = {
  NoSuchKey: "PathNotFound",
  NotFound: "PathNotFound",
  NoSuchBucket: "StoragePathLost",
  // A resumable upload the store no longer knows: completed, aborted, or cleared by a lifecycle rule.
  NoSuchUpload: "UploadNotFound",
  KeyTooLongError: "InvalidPath",
  InvalidRange: "InvalidParameter",
  // Only reads send a condition (If-Match on the ETag of the opened file): the file was replaced meanwhile.
  PreconditionFailed: "CannotReadFile",
  AccessDenied: "StorageConnectionFailed",
  AllAccessDisabled: "StorageConnectionFailed",
  InvalidAccessKeyId: "StorageConnectionFailed",
  SignatureDoesNotMatch: "StorageConnectionFailed",
  ExpiredToken: "StorageConnectionFailed",
  InvalidToken: "StorageConnectionFailed",
  AuthorizationHeaderMalformed: "StorageConnectionFailed",
  PermanentRedirect: "StorageConnectionFailed",
  TimeoutError: "StorageConnectionFailed",
  RequestTimeout: "StorageConnectionFailed",
};
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", LINK_LOCAL_REFUSED]);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
}

const nameOf = (err: unknown): string => (typeof err === "object" && err !== null ? ((err as SdkError).name ?? "") : "");
const statusOf = (err: unknown): number | undefined => (typeof err === "object" && err !== null ? (err as SdkError).$metadata?.httpStatusCode : undefined);
const isMissing = (err: unknown) => nameOf(err) === "NoSuchKey" || nameOf(err) === "NotFound" || (statusOf(err) === 404 && nameOf(err) !== "NoSuchBucket");

/** Encodes a key for the x-amz-copy-source header (each segment percent-encoded, slashes kept). */
const copySource = (bucket: string, key: string) => `${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;

/**
 * Bounds the connection phase of a new socket (TCP, then TLS when `event` is "secureConnect") from
 * the socket's creation. The SDK's own connectionTimeout starts with the request, so a request that
 * waited for a free socket of the pool failed as if the store were unreachable.
 */
function connectWithin(socket: Duplex | null | undefined, event: "connect" | "secureConnect", ms: number): Duplex | null | undefined {
  if (!(socket instanceof Socket) || !socket.connecting || ms <= 0) return socket;
  const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`no connection to the store within ${ms} ms`), { code: "ETIMEDOUT" })), ms);
  const clear = () => clearTimeout(timer);
  socket.once(event, clear);
  socket.once("close", clear);
  return socket;
}

/** A pool agent (http or https) whose new sockets must connect within `ms` (connectWithin). */
function storeAgent<T extends http.Agent>(agent: T, event: "connect" | "secureConnect", ms: number): T {
  const create = agent.createConnection.bind(agent);
  (agent as http.Agent).createConnection = (options, callback) => connectWithin(create(options, callback), event, ms);
  return agent;
}

type Found = { type: "file"; size: number; mtime: number; etag?: string } | { type: "folder"; mtime: number };

interface Item {
  /** The full key. */
  key: string;
  /** The key below the walked folder ("a/b.txt", or "a/" for a marker). */
  rest: string;
  size: number;
}

export function createS3Storage(config: S3StorageConfig, options: S3StorageOptions = {}): Storage {
  checkS3Config(config);
  const bucket = config.bucket;
  const prefix = s3Prefix(config.path);
  const slice = config.sliceSize ?? DEFAULT_SLICE;
  const now = options.now ?? Date.now;
  const walkLimits = options.walk ?? WALK_DEFAULTS;
  const parallel = options.parallel ?? 16;
  const secrets = [config.secretAccessKey, config.accessKeyId].filter((s) => s.length >= 4);
  const log = options.log;
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS };
  const connectMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT;
  const client = new S3Client({
    endpoint: config.endpoint || undefined,
    region: config.region || "us-east-1",
    forcePathStyle: !(config.virtualAddressing ?? !config.endpoint),
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // Newer SDKs add CRC32 trailers to every upload by default; many S3-compatible stores refuse them.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: {
      // A store that stops answering mid-request fails the request instead of holding it forever.
      socketTimeout: options.socketTimeoutMs ?? 120_000,
      // The connect timeout is the agents' (connectWithin): the SDK's would count the wait for a free socket.
      connectionTimeout: 0,
      // Each connection resolves the endpoint again and refuses a link-local address (endpoint-guard.ts).
      httpAgent: storeAgent(guardedAgent((lookup) => new http.Agent({ ...agentOptions, lookup }), options.resolve), "connect", connectMs),
      httpsAgent: storeAgent(guardedAgent((lookup) => new https.Agent({ ...agentOptions, lookup }), options.resolve), "secureConnect", connectMs),
      // The SDK's warning that every socket is taken and requests queue up goes to the engine's log.
      logger: { debug: () => undefined, info: () => undefined, warn: (message: unknown) => log?.warn({ message: String(message) }, "S3 client"), error: (message: unknown) => log?.warn({ message: String(message) }, "S3 client") },
    },
  });
  /** Multipart uploads of this process's writers in progress; cleanupStale leaves them alone. */
  const active = new Set<string>();

  /** Whatever the store or the network said, with credentials cut out; the SDK's error object (which may carry the key id, the string to sign) goes nowhere. */
  const scrub = (text: string) => secrets.reduce((t, s) => t.split(s).join("***"), text);
  const s3Error = (err: unknown): FerryError => {
    if (err instanceof FerryError) return err;
    const e = (typeof err === "object" && err !== null ? err : {}) as SdkError;
    const name = nameOf(err);
    const status = e.$metadata?.httpStatusCode;
    // A HEAD answer has no body, so no error code: 401/403 alone says the credentials were refused.
    const refused = status === 401 || status === 403 || (e.code !== undefined && NETWORK_CODES.has(e.code));
    const mappedName: ErrorName = S3_NAMES[name] ?? (refused ? "StorageConnectionFailed" : "FileSystemError");
    const mapped = new FerryError(mappedName);
    const detail = [name || "Error", e.code, status && `HTTP ${status}`, e.$metadata?.requestId && `request ${e.$metadata.requestId}`].filter(Boolean).join(", ");
    mapped.cause = new Error(scrub(`S3 ${detail}: ${e.message ?? String(err)}`));
    return mapped;
  };

  const guard = guardWith(s3Error);

  /** The normalised relative path of a user path; the same confinement as every local path (a virtual root, no disk). */
  const locate = (rel: string): string => resolveUserPath("/", rel).relative;
  const keyOf = (relative: string) => {
    const key = prefix + relative.slice(1);
    if (Buffer.byteLength(key, "utf8") + 1 > MAX_KEY_BYTES) throw new FerryError("InvalidPath");
    return key;
  };
  /** The key prefix of a folder's content, which is also its marker's key. */
  const dirKey = (relative: string) => (relative === "/" ? prefix : `${keyOf(relative)}/`);

  const head = async (key: string): Promise<{ size: number; mtime: number; etag?: string } | null> => {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: out.ContentLength ?? 0, mtime: seconds(out.LastModified), etag: out.ETag };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  };

  async function* pages(input: { Prefix: string; Delimiter?: string; MaxKeys?: number }): AsyncGenerator<ListObjectsV2CommandOutput> {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ...input, ContinuationToken: token }));
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** What is at a path: a file (an object), a folder (a marker, or objects below it), or nothing. */
  const find = async (relative: string): Promise<Found | null> => {
    if (relative === "/") return { type: "folder", mtime: 0 };
    const file = await head(keyOf(relative));
    if (file) return { type: "file", ...file };
    return findFolder(relative);
  };

  /** A folder: its marker, or any object below it (one request: the marker is the first key of its prefix, so its time is the folder's). */
  const findFolder = async (relative: string): Promise<Found | null> => {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: dirKey(relative), MaxKeys: 1 }));
    const first = page.Contents?.[0];
    if (!first) return null;
    return { type: "folder", mtime: first.Key === dirKey(relative) ? seconds(first.LastModified) : 0 };
  };

  /** The failure for a path that is not there: PathIsFile when a file stands where a folder above it should be (as ENOTDIR locally), else PathNotFound. */
  const missing = async (relative: string): Promise<never> => {
    for (let p = parentOf(relative); p !== "/"; p = parentOf(p)) {
      const found = await find(p);
      if (found?.type === "file") throw new FerryError("PathIsFile");
      if (found) break;
    }
    throw new FerryError("PathNotFound");
  };

  const mustFind = async (relative: string): Promise<Found> => (await find(relative)) ?? missing(relative);

  /** The folder a new entry goes into must exist and be a folder. */
  const checkParent = async (relative: string) => {
    const parent = parentOf(relative);
    if (parent === "/") return;
    // Folder first: the usual answer, in one request.
    if (await findFolder(parent)) return;
    if ((await mustFind(parent)).type !== "folder") throw new FerryError("PathIsFile");
  };

  const checkTypes = (source: EntryType, target: EntryType) => {
    if (source === "folder" && target !== "folder") throw new FerryError("PathIsFile");
    if (source !== "folder" && target === "folder") throw new FerryError("PathIsNotFile");
  };

  const putMarker = (relative: string) => client.send(new PutObjectCommand({ Bucket: bucket, Key: dirKey(relative), Body: new Uint8Array(0), ContentLength: 0 }));

  /** Keeps a folder that held only what was just taken out of it (it had objects but no marker). */
  const keepFolder = async (relative: string) => {
    if (relative === "/" || (await head(dirKey(relative)))) return;
    await putMarker(relative);
  };

  const deleteKeys = async (keys: readonly string[]) => {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const out = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      if (out.Errors && out.Errors.length > 0) throw Object.assign(new Error(`DeleteObjects: ${out.Errors.length} keys not deleted (${out.Errors[0]?.Code ?? "?"})`), { name: out.Errors[0]?.Code ?? "DeleteError" });
    }
  };

  const copyKey = (from: string, to: string) => client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: copySource(bucket, from) }));

  /**
   * Every key below a folder (its own marker left out), within the walk's budget: entries counted
   * per key, the depth of the deepest folder checked, the signal looked at per page. Keys Ferry
   * could not name (empty or dot segments, the reserved name) are passed over, as local walks skip
   * what they cannot use.
   */
  const walk = async (relative: string, budget: WalkBudget, onItem: (item: Item) => void): Promise<void> => {
    const base = dirKey(relative);
    budget.folder(0);
    const seen = new Set<string>();
    for await (const page of pages({ Prefix: base })) {
      budget.check();
      const contents = page.Contents ?? [];
      budget.entries(contents.length);
      for (const obj of contents) {
        const key = obj.Key ?? "";
        const rest = key.slice(base.length);
        if (rest === "" || !usableRest(rest)) continue;
        const folder = rest.slice(0, rest.lastIndexOf("/") + 1);
        if (folder && !seen.has(folder)) {
          seen.add(folder);
          budget.folder(folder.split("/").length - 1);
        }
        onItem({ key, rest, size: obj.Size ?? 0 });
      }
    }
  };

  const collect = async (relative: string, budget: WalkBudget): Promise<Item[]> => {
    const items: Item[] = [];
    await walk(relative, budget, (item) => items.push(item));
    return items;
  };

  /**
   * Copies a folder's objects to another folder, marker first. With `replace`, objects of the old
   * target that the copy did not overwrite go afterwards (a folder is replaced as a whole, not
   * merged). A failure while copying into a new target removes what was copied; into a replaced
   * target it leaves a mix of old and new objects (S3 cannot swap a folder). Returns the source's keys.
   */
  const copyFolder = async (from: string, to: string, replace: boolean, budget: WalkBudget): Promise<string[]> => {
    const items = await collect(from, budget);
    const old = replace ? await collect(to, budget) : [];
    if (items.some((i) => i.size > MAX_COPY)) throw new FerryError("UnsupportedOperation");
    const toBase = dirKey(to);
    const written: string[] = [];
    try {
      await putMarker(to);
      written.push(toBase);
      await mapLimit(items, parallel, async (item) => {
        budget.check();
        const target = toBase + item.rest;
        if (Buffer.byteLength(target, "utf8") > MAX_KEY_BYTES) throw new FerryError("InvalidPath");
        await copyKey(item.key, target);
        written.push(target);
      });
    } catch (err) {
      if (!replace) await deleteKeys(written).catch(() => undefined);
      throw err;
    }
    const copied = new Set(items.map((i) => i.rest));
    await deleteKeys(old.filter((o) => !copied.has(o.rest)).map((o) => o.key));
    return [...items.map((i) => i.key), dirKey(from)];
  };

  /** The checks of a rename or copy from `from` to `to`: not into itself, a source, a parent folder, an existing target only with overwrite and of the same type. */
  const checkPlacing = async (from: string, to: string, opts: OverwriteOption): Promise<{ source: Found; existing: Found | null }> => {
    if (isUnder(to, from)) throw new FerryError("InvalidOperation");
    const source = await mustFind(from);
    await checkParent(to);
    const existing = await find(to);
    if (existing && !opts.overwrite) throw new FerryError("PathExists");
    if (existing) checkTypes(source.type, existing.type);
    return { source, existing };
  };

  const copyFile = async (from: string, to: string, size: number) => {
    if (size > MAX_COPY) throw new FerryError("UnsupportedOperation");
    await copyKey(keyOf(from), keyOf(to));
  };

  const fileResult = (relative: string, found: { size: number; mtime: number }): StatResult => ({ path: relative, name: baseName(relative), type: "file", size: found.size, mtime: found.mtime });

  /** Aborts a multipart upload; a failure is logged (a store may keep the parts: a lifecycle rule or cleanupStale removes them later). */
  const abortUpload = async (key: string, uploadId: string) => {
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      log?.warn({ err: s3Error(err).cause, bucket, key, uploadId }, "S3 AbortMultipartUpload failed: the upload's parts may stay in the bucket");
    }
  };

  const beginWrite = async (rel: string, opts: WriteOptions = {}): Promise<Writer> => {
    const target = locate(rel);
    checkNewName(target);
    const key = keyOf(target);
    const overwrite = opts.overwrite === true;
    const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    // Early refusals save an upload that could never be committed; commit checks again.
    await checkParent(target);
    const existing = await find(target);
    if (existing && !overwrite) throw new FerryError("PathExists");
    if (existing?.type === "folder") throw new FerryError("PathIsNotFile");

    let uploadId: string | null = null;
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    /** Copies of the bytes not yet sent (less than a slice): a caller may reuse its buffers once a write returned. */
    let pending: Buffer[] = [];
    let held = 0;
    let written = 0;
    /** Set by abort: no part starts after it. */
    let dropped = false;
    /** The UploadPart under way, if any: a part that lands after an abort may be kept by S3, so abort goes again once it settled. */
    let inFlight: Promise<unknown> | null = null;

    const sendPart = async (body: Buffer) => {
      if (dropped) throw new FerryError("InvalidOperation");
      if (parts.length >= MAX_PARTS) throw new FerryError("FileTooLarge", null, { limit: MAX_PARTS * slice });
      if (!uploadId) {
        const out = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
        if (!out.UploadId) throw new Error("CreateMultipartUpload gave no UploadId");
        if (dropped) {
          // Aborted while the upload was being created: abort() could not see its id, so it goes here.
          await abortUpload(key, out.UploadId);
          throw new FerryError("InvalidOperation");
        }
        uploadId = out.UploadId;
        active.add(uploadId);
      }
      const PartNumber = parts.length + 1;
      const sending = client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.length }));
      inFlight = sending;
      try {
        const out = await sending;
        parts.push({ ETag: out.ETag, PartNumber });
      } finally {
        inFlight = null;
      }
    };

    return streamWriter({
      path: target,
      toError: s3Error,
      bytesWritten: () => written,
      write: async (chunks) => {
        const size = chunks.reduce((n, c) => n + c.length, 0);
        if (written + size > maxBytes) throw new FerryError("QuotaExceeded");
        for (const c of chunks) pending.push(Buffer.from(c));
        held += size;
        written += size;
        while (held >= slice) {
          const all = Buffer.concat(pending, held);
          pending = held > slice ? [all.subarray(slice)] : [];
          held -= slice;
          await sendPart(all.subarray(0, slice));
        }
      },
      place: async () => {
        // The checks commit promises, just before the object appears (a writer racing in between can still win: S3 has no rename-if-absent).
        await checkParent(target);
        const current = await find(target);
        if (current && !overwrite) throw new FerryError("PathExists");
        if (current?.type === "folder") throw new FerryError("PathIsNotFile");
        if (!uploadId) {
          const body = Buffer.concat(pending, held);
          await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length }));
        } else {
          if (held > 0) await sendPart(Buffer.concat(pending, held));
          await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
          active.delete(uploadId);
        }
        pending = [];
        held = 0;
        // No HEAD for the store's time: one round trip less per upload, and the size is known.
        return fileResult(target, { size: written, mtime: Math.floor(now() / 1000) });
      },
      drop: async () => {
        dropped = true;
        pending = [];
        held = 0;
        const id = uploadId;
        if (!id) return;
        const part = inFlight;
        await abortUpload(key, id);
        if (part) {
          await part.catch(() => undefined);
          await abortUpload(key, id);
        }
        active.delete(id);
      },
    });
  };

  /**
   * Resumable uploads (docs/storage.md, "Resumable uploads"): one multipart upload created at the
   * target's key, so nothing is visible until CompleteMultipartUpload; the caller keeps the parts'
   * ETags (s3rver and some stores have no ListParts) and the state, and may go on from another
   * process. Part n is the bytes from (n-1)·slice.
   */
  const resumable = (rel: string): ResumableUploads => {
    const target = locate(rel);
    const open = (state: ResumableState): ResumableUpload => {
      const key = keyOf(target);
      const parts = state.size === 0 ? 0 : Math.ceil(state.size / state.partSize);
      const sizeOf = (n: number) => (n < parts ? state.partSize : state.size - (parts - 1) * state.partSize);
      return {
        state,
        writePart: guard(async (n: number, bytes: Uint8Array): Promise<StoredPart> => {
          if (!Number.isSafeInteger(n) || n < 1 || n > parts || bytes.length !== sizeOf(n)) throw new FerryError("InvalidOperation");
          const out = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: state.id, PartNumber: n, Body: bytes, ContentLength: bytes.length }));
          if (!out.ETag) throw new Error("UploadPart gave no ETag");
          return { number: n, etag: out.ETag, size: bytes.length };
        }),
        complete: guard(async (given: readonly StoredPart[], opts: OverwriteOption = {}): Promise<StatResult> => {
          if (given.length !== parts || given.some((p, i) => p.number !== i + 1 || p.size !== sizeOf(p.number))) throw new FerryError("InvalidOperation");
          // The checks Writer.commit makes, just before the object appears (S3 has no put-if-absent here either).
          await checkParent(target);
          const current = await find(target);
          if (current && !opts.overwrite) throw new FerryError("PathExists");
          if (current?.type === "folder") throw new FerryError("PathIsNotFile");
          if (state.id === "") await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: new Uint8Array(0), ContentLength: 0 }));
          else {
            await client.send(
              new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: state.id, MultipartUpload: { Parts: given.map((p) => ({ PartNumber: p.number, ETag: p.etag })) } }),
            );
          }
          return fileResult(target, { size: state.size, mtime: Math.floor(now() / 1000) });
        }),
        abort: async () => {
          if (state.id !== "") await abortUpload(key, state.id);
        },
      };
    };
    return {
      partSize: slice,
      begin: guard(async (size: number) => {
        checkNewName(target);
        const key = keyOf(target);
        if (!Number.isSafeInteger(size) || size < 0) throw new FerryError("InvalidOperation");
        if (size > MAX_PARTS * slice) throw new FerryError("FileTooLarge", null, { limit: MAX_PARTS * slice });
        let id = "";
        if (size > 0) {
          const out = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
          if (!out.UploadId) throw new Error("CreateMultipartUpload gave no UploadId");
          id = out.UploadId;
        }
        return open({ id, path: target, size, partSize: slice });
      }),
      resume: (state: ResumableState) => {
        if (state.path !== target || !Number.isSafeInteger(state.partSize) || state.partSize < 1 || typeof state.id !== "string") throw new FerryError("InvalidOperation");
        return open(state);
      },
    };
  };

  const storage = {
    stat: guard(async (rel: string): Promise<StatResult> => {
      const target = locate(rel);
      const found = await mustFind(target);
      return { path: target, name: baseName(target), type: found.type, size: found.type === "file" ? found.size : 0, mtime: found.mtime };
    }),

    // No links in a bucket: the canonical path is the normalised one.
    resolve: guard(async (rel: string) => locate(rel)),

    list: guard(async (dirRel: string): Promise<Entry[]> => {
      const dir = locate(dirRel);
      if ((await mustFind(dir)).type !== "folder") throw new FerryError("PathIsFile");
      const base = dirKey(dir);
      const files = new Map<string, Entry>();
      /** Sub-folders and their times: one LIST request a page, none per entry. */
      const folders = new Map<string, number>();
      for await (const page of pages({ Prefix: base, Delimiter: "/" })) {
        for (const obj of page.Contents ?? []) {
          const rest = (obj.Key ?? "").slice(base.length);
          // A marker "name/" among the objects (a store that lists it there) gives the folder its time.
          if (rest.endsWith("/") && usableName(rest.slice(0, -1))) folders.set(rest.slice(0, -1), seconds(obj.LastModified));
          else if (usableName(rest)) files.set(rest, { name: rest, type: "file", size: obj.Size ?? 0, mtime: seconds(obj.LastModified) });
        }
        for (const common of page.CommonPrefixes ?? []) {
          const name = (common.Prefix ?? "").slice(base.length, -1);
          // S3 rolls a marker into its common prefix, so a folder's time is not in the listing: 0, as for a folder without a marker (stat gives the marker's).
          if (usableName(name) && !folders.has(name)) folders.set(name, 0);
        }
      }
      const entries = [...files.values()];
      // A file and a folder of one name can both exist in a bucket (not made by Ferry): the file is shown, as stat() finds it first.
      for (const [name, mtime] of folders) if (!files.has(name)) entries.push({ name, type: "folder", size: 0, mtime });
      return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }),

    mkdir: guard(async (rel: string, opts: { recursive?: boolean } = {}) => {
      const target = locate(rel);
      if (target === "/") {
        if (opts.recursive) return;
        throw new FerryError("PathExists");
      }
      if (!opts.recursive) {
        checkNewName(target);
        keyOf(target);
        await checkParent(target);
        if (await find(target)) throw new FerryError("PathExists");
        await putMarker(target);
        return;
      }
      // Every folder this may create must carry a valid name.
      let partial = "/";
      const chain: string[] = [];
      for (const segment of target.split("/").filter(Boolean)) {
        partial = joinName(partial, segment);
        chain.push(partial);
      }
      keyOf(target);
      for (const folder of chain) {
        const found = await find(folder);
        if (found?.type === "file") throw new FerryError("PathIsFile");
        if (!found) await putMarker(folder);
      }
    }),

    rename: guard(async (fromRel: string, toRel: string, opts: OverwriteOption = {}) => {
      const from = locate(fromRel);
      const to = locate(toRel);
      if (from === "/") throw new FerryError("InvalidOperation");
      checkNewName(to);
      if (from === to) {
        await mustFind(from);
        return;
      }
      const { source, existing } = await checkPlacing(from, to, opts);
      if (source.type === "file") {
        await copyFile(from, to, source.size);
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(from) }));
      } else {
        // Copy everything, then delete the source: a failure halfway leaves the source whole.
        const budget = new WalkBudget(walkLimits);
        const sourceKeys = await budget.run(() => copyFolder(from, to, existing !== null, budget));
        await deleteKeys(sourceKeys);
      }
      await keepFolder(parentOf(from));
    }),

    copy: guard(async (fromRel: string, toRel: string, opts: OverwriteOption & WalkOptions = {}) => {
      const from = locate(fromRel);
      const to = locate(toRel);
      if (from === "/") throw new FerryError("InvalidOperation");
      checkNewName(to);
      const { source, existing } = await checkPlacing(from, to, opts);
      if (source.type === "file") {
        await copyFile(from, to, source.size);
        return;
      }
      const budget = new WalkBudget(walkLimits, opts);
      await budget.run(() => copyFolder(from, to, existing !== null, budget));
    }),

    remove: guard(async (rel: string) => {
      const target = locate(rel);
      if (target === "/") throw new FerryError("InvalidOperation");
      const found = await mustFind(target);
      if (found.type === "file") await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(target) }));
      else {
        // Everything below goes page by page (whatever its names), the marker last: a failure halfway leaves a smaller folder, still listed.
        const base = dirKey(target);
        for await (const page of pages({ Prefix: base })) {
          await deleteKeys((page.Contents ?? []).map((o) => o.Key ?? "").filter((k) => k !== "" && k !== base));
        }
        await deleteKeys([base]);
      }
      await keepFolder(parentOf(target));
    }),

    createReadStream: guard(async (rel: string, range: ReadRange = {}): Promise<Readable> => {
      checkRange(range);
      const target = locate(rel);
      if (target === "/") throw new FerryError("PathIsNotFile");
      const size = range.bufferSize ?? STREAM_BUFFER;
      const ranged = range.start !== undefined || range.end !== undefined;
      const start = range.start ?? 0;
      const wanted = ranged ? `bytes=${start}-${range.end ?? ""}` : undefined;
      const empty = () => Readable.from([], { objectMode: false, highWaterMark: size });
      let out;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(target), Range: wanted }));
      } catch (err) {
        if (isMissing(err)) {
          if ((await find(target))?.type === "folder") throw new FerryError("PathIsNotFile");
          return missing(target);
        }
        // A start at or past the end (any range of an empty file): no bytes, as a local read gives. S3 answers 416;
        // some stores fail otherwise (s3rver drops the connection), so a ranged read that failed looks at the size.
        if (nameOf(err) === "InvalidRange" || statusOf(err) === 416) return empty();
        const file = ranged ? await head(keyOf(target)) : null;
        if (file && start >= file.size) return empty();
        throw err;
      }
      const body = out.Body as Readable;
      // Exactly the range asked for, whatever the store sent: a whole object (200) is skipped into, a longer range cut.
      const answered = ranged ? contentRange(out.ContentRange) : null;
      const from = answered?.start ?? 0;
      // s3rver answers a range of an empty object with "bytes 0-0/0" and a body it never sends.
      if (answered?.total === 0) {
        body.destroy();
        return empty();
      }
      if (from > start) {
        body.destroy();
        throw new FerryError("CannotReadFile");
      }
      const limit = range.end === undefined ? Number.POSITIVE_INFINITY : range.end - start + 1;
      const stream = Readable.from(mapFailure(rechunk(body, size, start - from, limit), s3Error), { objectMode: false, highWaterMark: size });
      // A stream destroyed before its first read never starts rechunk (whose finally frees the body): the SDK's socket goes here.
      stream.once("close", () => body.destroy());
      return stream;
    }),

    openReader: guard(async (rel: string): Promise<FileReader> => {
      const target = locate(rel);
      if (target === "/") throw new FerryError("PathIsNotFile");
      const key = keyOf(target);
      const file = await head(key);
      if (!file) {
        if ((await find(target))?.type === "folder") throw new FerryError("PathIsNotFile");
        return missing(target);
      }
      // IfMatch: a file replaced since it was opened fails the read instead of mixing two contents.
      const reader = streamingReader(file.size, async (start, end) => {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${end}`, IfMatch: file.etag }));
        return { body: out.Body as Readable, from: contentRange(out.ContentRange)?.start ?? 0 };
      });
      return { size: file.size, read: guard(reader.read), close: reader.close };
    }),

    usage: guard(async (dirRel: string, opts: WalkOptions = {}): Promise<Usage> => {
      const target = locate(dirRel);
      const found = await mustFind(target);
      if (found.type === "file") return { size: found.size, files: 1, folders: 0 };
      const totals: Usage = { size: 0, files: 0, folders: 0 };
      const folders = new Set<string>();
      const budget = new WalkBudget(walkLimits, opts);
      await budget.run(() =>
        walk(target, budget, (item) => {
          // Every folder on the way counts once, with a marker or without.
          const segments = item.rest.split("/");
          for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join("/"));
          if (!item.rest.endsWith("/")) {
            totals.files++;
            totals.size += item.size;
          }
        }),
      );
      totals.folders = folders.size;
      return totals;
    }),

    beginWrite: guard(beginWrite),

    adopt: guard(async (staged: StagedData, _rel: string, _opts?: OverwriteOption): Promise<StatResult> => {
      // Data staged on the local disk is not copied up here; uploads will stream into the bucket directly.
      void staged;
      throw new FerryError("UnsupportedOperation");
    }),

    resumable,

    // An object is durable once its PUT or CompleteMultipartUpload answered; there is no folder entry to sync.
    syncFolder: guard(async (rel: string) => {
      locate(rel);
    }),

    cleanupStale: guard(async (olderThanMs: number) => {
      const cutoff = now() - olderThanMs;
      let removed = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      for (;;) {
        let page;
        try {
          page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix || undefined, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }));
        } catch (err) {
          // Stores without the call (s3rver): nothing can be listed, so nothing is cleaned; a bucket lifecycle rule
          // (AbortIncompleteMultipartUpload) is the way there.
          if (nameOf(err) === "NotImplemented" || statusOf(err) === 501) return removed;
          throw err;
        }
        for (const upload of page.Uploads ?? []) {
          if (!upload.UploadId || !upload.Key || active.has(upload.UploadId)) continue;
          if (!upload.Initiated || upload.Initiated.getTime() > cutoff) continue;
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
          removed++;
        }
        // A truncated page without a marker to go on from (a store that omits it) would be asked for again forever.
        if (!page.IsTruncated || !page.NextKeyMarker) return removed;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
    }),
  };
  const driver: Storage = Object.assign(storage, { cached: () => driver });
  return driver;
}
