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
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import http from "node:http";
import https from "node:https";
import { Socket } from "node:net";
import type { Duplex, Readable } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import type { ErrorName } from "../../contract/errors";
import { FerryError } from "../errors";
import { guardedAgent, LINK_LOCAL_REFUSED, type Resolver } from "./endpoint-guard";
import { type ObjectHead, type ObjectPage, objectTree, partChecks, partWriter } from "./object-tree";
import { contentRange, keyPrefix, seconds } from "./shared";
import type { OverwriteOption, ResumableState, ResumableUpload, ResumableUploads, StatResult, Storage, StoredPart, WriteOptions, Writer } from "./storage";
import { WALK_DEFAULTS, type WalkLimits } from "./walk";

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

  const head = async (key: string): Promise<ObjectHead | null> => {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: out.ContentLength ?? 0, mtime: seconds(out.LastModified), etag: out.ETag };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  };

  /** One ListObjectsV2 request a page. */
  async function* pages(under: string, opts: { delimiter?: boolean; max?: number } = {}): AsyncGenerator<ObjectPage> {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, Delimiter: opts.delimiter ? "/" : undefined, MaxKeys: opts.max, ContinuationToken: token }));
      yield {
        objects: (page.Contents ?? []).map((o) => ({ key: o.Key ?? "", size: o.Size ?? 0, mtime: seconds(o.LastModified) })),
        prefixes: (page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ""),
      };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  const putObject = async (key: string, body: Uint8Array) => {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length }));
  };

  const tree = objectTree({
    prefix,
    keyFits: (key) => Buffer.byteLength(key, "utf8") <= MAX_KEY_BYTES,
    maxCopy: MAX_COPY,
    parallel,
    walk: walkLimits,
    toError: s3Error,
    isMissing,
    head,
    pages,
    putMarker: (key) => putObject(key, new Uint8Array(0)),
    // S3 has no copy-if-absent: the checks made just before are what holds.
    copyObject: async (from, to) => {
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: copySource(bucket, from) }));
    },
    deleteObject: async (key) => {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    deleteKeys: async (keys) => {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const out = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
        if (out.Errors && out.Errors.length > 0) throw Object.assign(new Error(`DeleteObjects: ${out.Errors.length} keys not deleted (${out.Errors[0]?.Code ?? "?"})`), { name: out.Errors[0]?.Code ?? "DeleteError" });
      }
    },
    read: async (key, range) => {
      const ranged = range.start !== undefined || range.end !== undefined;
      const start = range.start ?? 0;
      let out;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: ranged ? `bytes=${start}-${range.end ?? ""}` : undefined }));
      } catch (err) {
        if (isMissing(err)) throw err;
        // A start at or past the end (any range of an empty file): S3 answers 416; some stores fail
        // otherwise (s3rver drops the connection), so a ranged read that failed looks at the size.
        if (nameOf(err) === "InvalidRange" || statusOf(err) === 416) return null;
        const file = ranged ? await head(key) : null;
        if (file && start >= file.size) return null;
        throw err;
      }
      const body = out.Body as Readable;
      const answered = ranged ? contentRange(out.ContentRange) : null;
      // s3rver answers a range of an empty object with "bytes 0-0/0" and a body it never sends.
      if (answered?.total === 0) {
        body.destroy();
        return null;
      }
      return { body, from: answered?.start ?? 0 };
    },
    readIfMatch: async (key, etag, start, end) => {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${end}`, IfMatch: etag }));
      return { body: out.Body as Readable, from: contentRange(out.ContentRange)?.start ?? 0 };
    },
  });
  const { guard, locate, keyOf, checkFileTarget, fileResult, writeTarget, uploadKey, checkState } = tree;

  /** Aborts a multipart upload; a failure is logged (a store may keep the parts: a lifecycle rule or cleanupStale removes them later). */
  const abortUpload = async (key: string, uploadId: string) => {
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      log?.warn({ err: s3Error(err).cause, bucket, key, uploadId }, "S3 AbortMultipartUpload failed: the upload's parts may stay in the bucket");
    }
  };

  const beginWrite = async (rel: string, opts: WriteOptions = {}): Promise<Writer> => {
    const overwrite = opts.overwrite === true;
    const { target, key } = await writeTarget(rel, overwrite);

    let uploadId: string | null = null;
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
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

    return partWriter({
      path: target,
      toError: s3Error,
      partSize: slice,
      maxBytes: opts.maxBytes ?? Number.POSITIVE_INFINITY,
      send: sendPart,
      place: async (rest, size) => {
        // The checks commit promises, just before the object appears (a writer racing in between can still win: S3 has no rename-if-absent).
        await checkFileTarget(target, overwrite);
        if (!uploadId) await putObject(key, rest);
        else {
          if (rest.length > 0) await sendPart(rest);
          await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
          active.delete(uploadId);
        }
        // No HEAD for the store's time: one round trip less per upload, and the size is known.
        return fileResult(target, { size, mtime: Math.floor(now() / 1000) });
      },
      drop: async () => {
        dropped = true;
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
      const check = partChecks(state);
      return {
        state,
        writePart: guard(async (n: number, bytes: Uint8Array): Promise<StoredPart> => {
          check.part(n, bytes);
          const out = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: state.id, PartNumber: n, Body: bytes, ContentLength: bytes.length }));
          if (!out.ETag) throw new Error("UploadPart gave no ETag");
          return { number: n, etag: out.ETag, size: bytes.length };
        }),
        complete: guard(async (given: readonly StoredPart[], opts: OverwriteOption = {}): Promise<StatResult> => {
          check.all(given);
          // The checks Writer.commit makes, just before the object appears (S3 has no put-if-absent here either).
          await checkFileTarget(target, opts.overwrite === true);
          if (state.id === "") await putObject(key, new Uint8Array(0));
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
        const key = uploadKey(target, size, MAX_PARTS * slice);
        let id = "";
        if (size > 0) {
          const out = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
          if (!out.UploadId) throw new Error("CreateMultipartUpload gave no UploadId");
          id = out.UploadId;
        }
        return open({ id, path: target, size, partSize: slice });
      }),
      resume: (state: ResumableState) => {
        checkState(target, state);
        return open(state);
      },
    };
  };

  return tree.storage({
    beginWrite,
    resumable,
    cleanupStale: async (olderThanMs: number) => {
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
    },
  });
}
