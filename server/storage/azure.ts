import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { AnonymousCredential, type BlobItem, BlobServiceClient, type BlockBlobClient, type ContainerClient, newPipeline, type RequestPolicyFactory, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { FastifyBaseLogger } from "fastify";
import type { ErrorName } from "../../contract/errors";
import { FerryError } from "../errors";
import { guardedAgent, isForbiddenHost, LINK_LOCAL_REFUSED, type Resolver } from "./endpoint-guard";
import { type ObjectBody, type ObjectHead, type ObjectPage, objectTree, partChecks, partWriter, type StoredObject } from "./object-tree";
import { STAGING_NAME } from "./paths";
import { contentRange, keyPrefix, mapLimit, seconds, usableRest } from "./shared";
import type { OverwriteOption, ResumableState, ResumableUpload, ResumableUploads, StatResult, Storage, StoredPart, WriteOptions, Writer } from "./storage";
import { WALK_DEFAULTS, type WalkLimits } from "./walk";

/**
 * A storage in an Azure Blob Storage container (block blobs). Keys are the configured blob path
 * plus the normalised relative path, as in s3.ts; a folder is a zero-byte marker blob "<key>/" (a
 * prefix that holds blobs but has no marker is a folder too). Uploads stage blocks on a blob of their
 * own in the reserved staging area "<blob path>.ferry-tmp/", commit the block list there and copy the
 * result to the target (Copy Blob) at commit(), so nothing is visible before and two uploads to one
 * name never share a blob's uncommitted blocks. docs/storage.md,
 * "Object storage: Azure Blob", lists the calls it makes and what is and is not atomic.
 */

/** The spec's fields of an Azure Blob storage (admin document section 3, "Storage"). */
export interface AzureStorageConfig {
  /** An account's connection string: account name and key, or a blob endpoint and a shared access signature. */
  connectionString: string;
  /** Container name (3–63 lowercase letters, digits and single hyphens, or "$root"). */
  container: string;
  /** Folder inside the container that is this storage's root ("" or "/": the whole container). */
  path?: string;
}

export interface AzureStorageOptions {
  /** The engine's logger, for what fails where no caller can be told; default: nothing is logged. */
  log?: AzureLog;
  /** Milliseconds since the epoch, for cleanupStale. */
  now?: () => number;
  /** Bounds of usage(), copy() and folder rename() walks when the caller gives none (default WALK_DEFAULTS). */
  walk?: WalkLimits;
  /** Parallel requests of one folder copy, rename or removal (default 16). */
  parallel?: number;
  /** Bytes per staged block, 64 KiB – 4000 MiB (default 8 MiB); a file smaller than one block is one Put Blob. */
  blockSize?: number;
  /** How the endpoint's name is resolved before each connection (endpoint-guard.ts); default: dns.lookup. */
  resolve?: Resolver;
}

export type AzureLog = Pick<FastifyBaseLogger, "warn">;

export const DEFAULT_BLOCK = 8 * 1024 * 1024;
export const MIN_BLOCK = 64 * 1024;
export const MAX_BLOCK = 4000 * 1024 * 1024;
/** A block blob holds at most 50,000 committed blocks. */
export const MAX_BLOCKS = 50_000;
/** Azure blob names are at most 1,024 characters and 254 path segments. */
const MAX_NAME_CHARS = 1024;
const MAX_SEGMENTS = 254;

/** The well-known account of the storage emulator (Azurite), which `UseDevelopmentStorage=true` names. */
const DEV_ACCOUNT = { name: "devstoreaccount1", key: "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==", endpoint: "http://127.0.0.1:10000/devstoreaccount1" };

/** What a connection string says: where the blob service is and how to sign. */
interface AzureAccount {
  url: string;
  accountName?: string;
  accountKey?: string;
  sas?: string;
}

/**
 * Reads a connection string ("Key=value;…", keys in any case). Accepted: `UseDevelopmentStorage=true`;
 * AccountName + AccountKey with BlobEndpoint or DefaultEndpointsProtocol (+ EndpointSuffix, default
 * core.windows.net); BlobEndpoint + SharedAccessSignature. StorageConfigFailed otherwise, never with
 * the string or a part of it in the error.
 */
export function parseConnectionString(connectionString: string): AzureAccount {
  const fail = () => new FerryError("StorageConfigFailed");
  // No control characters: a pasted line break or tab is a mistake, not part of a key.
  if (typeof connectionString !== "string" || connectionString.trim() === "" || [...connectionString].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw fail();
  const parts = new Map<string, string>();
  for (const element of connectionString.split(";")) {
    const item = element.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    if (eq <= 0) throw fail();
    parts.set(item.slice(0, eq).trim().toLowerCase(), item.slice(eq + 1).trim());
  }
  if (parts.get("usedevelopmentstorage")?.toLowerCase() === "true") return { url: DEV_ACCOUNT.endpoint, accountName: DEV_ACCOUNT.name, accountKey: DEV_ACCOUNT.key };
  const endpoint = parts.get("blobendpoint");
  let url: string;
  if (endpoint) {
    let parsed: URL;
    try {
      parsed = new URL(endpoint);
    } catch {
      throw fail();
    }
    if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.search || parsed.hash || parsed.username || parsed.password) throw fail();
    url = endpoint.replace(/\/+$/, "");
  } else {
    const protocol = (parts.get("defaultendpointsprotocol") ?? "https").toLowerCase();
    const name = parts.get("accountname");
    const suffix = parts.get("endpointsuffix") || "core.windows.net";
    if ((protocol !== "http" && protocol !== "https") || !name || !/^[a-z0-9]{3,24}$/.test(name) || !/^[A-Za-z0-9.-]+$/.test(suffix)) throw fail();
    url = `${protocol}://${name}.blob.${suffix}`;
  }
  const accountKey = parts.get("accountkey");
  if (accountKey !== undefined) {
    const accountName = parts.get("accountname");
    if (!accountName || !/^[A-Za-z0-9+/]+={0,2}$/.test(accountKey) || accountKey.length % 4 !== 0) throw fail();
    return { url, accountName, accountKey };
  }
  const sas = parts.get("sharedaccesssignature")?.replace(/^\?/, "");
  // A SAS is signed for the endpoint it names: without BlobEndpoint there is nothing to sign for.
  if (!sas || !endpoint || !/(^|&)sig=/.test(sas)) throw fail();
  return { url, sas };
}

const CONTAINER_NAME = /^(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*$/;

/** Refuses a config that cannot work (StorageConfigFailed, PathFormatError); never echoes a value. */
export function checkAzureConfig(config: AzureStorageConfig): void {
  parseConnectionString(config.connectionString);
  if (typeof config.container !== "string" || !(CONTAINER_NAME.test(config.container) || config.container === "$root")) throw new FerryError("StorageConfigFailed");
  keyPrefix(config.path);
}

const AZURE_NAMES: Record<string, ErrorName> = {
  BlobNotFound: "PathNotFound",
  ContainerNotFound: "StoragePathLost",
  ContainerBeingDeleted: "StoragePathLost",
  // Only writes without overwrite send If-None-Match: * (a file was placed at the path meanwhile).
  BlobAlreadyExists: "PathExists",
  // Only reads send If-Match on the ETag of the opened file: the file was replaced meanwhile.
  ConditionNotMet: "CannotReadFile",
  InvalidRange: "InvalidParameter",
  // A commit naming blocks the service no longer holds: they expired (7 days), or a Put Blob or
  // another block list committed on the same name dropped them (a resumable upload then is gone).
  InvalidBlockList: "UploadNotFound",
  InvalidResourceName: "InvalidPath",
  InvalidUri: "InvalidPath",
  AuthenticationFailed: "StorageConnectionFailed",
  AuthorizationFailure: "StorageConnectionFailed",
  AuthorizationPermissionMismatch: "StorageConnectionFailed",
  AuthorizationProtocolMismatch: "StorageConnectionFailed",
  AuthorizationResourceTypeMismatch: "StorageConnectionFailed",
  AuthorizationServiceMismatch: "StorageConnectionFailed",
  AuthorizationSourceIPMismatch: "StorageConnectionFailed",
  InsufficientAccountPermissions: "StorageConnectionFailed",
  AccountIsDisabled: "StorageConnectionFailed",
  ResourceNotFound: "StoragePathLost",
  OperationTimedOut: "StorageConnectionFailed",
  ServerBusy: "StorageConnectionFailed",
};
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "REQUEST_SEND_ERROR", "ESOCKETTIMEDOUT", LINK_LOCAL_REFUSED]);

interface SdkError {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
  details?: { errorCode?: string; requestId?: string; "x-ms-request-id"?: string };
}

const sdk = (err: unknown): SdkError => (typeof err === "object" && err !== null ? (err as SdkError) : {});
/** The service's error code: the body's, or the x-ms-error-code header's (HEAD answers have no body). */
const codeOf = (err: unknown): string => sdk(err).details?.errorCode ?? sdk(err).code ?? "";
const statusOf = (err: unknown): number | undefined => sdk(err).statusCode;
const isMissing = (err: unknown) => codeOf(err) === "BlobNotFound" || (statusOf(err) === 404 && codeOf(err) !== "ContainerNotFound" && codeOf(err) !== "ResourceNotFound");

/**
 * Sends every request through agents of our own whose sockets resolve the endpoint with
 * guardedLookup (endpoint-guard.ts), so a name resolving to a link-local address is refused at each
 * connection. The SDK's node client uses a request's agent when one is set (instead of its own pool);
 * core-http-compat passes a v1 policy's `agent` through to that request. A request that already has
 * one is going through the proxy the environment names (HTTPS_PROXY, HTTP_PROXY, the SDK's proxy
 * policy): it keeps it, since the endpoint is then resolved by the proxy, not here (docs/security.md).
 */
function guardedAgents(resolve: Resolver | undefined): RequestPolicyFactory {
  const agentOptions = { keepAlive: true };
  const agents = {
    http: guardedAgent((lookup) => new http.Agent({ ...agentOptions, lookup }), resolve),
    https: guardedAgent((lookup) => new https.Agent({ ...agentOptions, lookup }), resolve),
  };
  return {
    create: (next) => ({
      sendRequest: (request) => {
        // Through a proxy the name is resolved there, but an address or metadata name written in the
        // endpoint is refused here, whatever carries the request.
        const host = new URL(request.url).hostname;
        if (isForbiddenHost(host)) return Promise.reject(Object.assign(new Error(`${host} is not a place a storage endpoint may reach`), { code: LINK_LOCAL_REFUSED }));
        request.agent ??= request.url.startsWith("https:") ? agents.https : agents.http;
        return next.sendRequest(request);
      },
    }),
  };
}

export function createAzureStorage(config: AzureStorageConfig, options: AzureStorageOptions = {}): Storage {
  checkAzureConfig(config);
  const account = parseConnectionString(config.connectionString);
  const prefix = keyPrefix(config.path);
  const block = options.blockSize ?? DEFAULT_BLOCK;
  if (!Number.isSafeInteger(block) || block < MIN_BLOCK || block > MAX_BLOCK) throw new FerryError("InvalidSliceSize");
  const now = options.now ?? Date.now;
  const walkLimits = options.walk ?? WALK_DEFAULTS;
  const parallel = options.parallel ?? 16;
  const log = options.log;
  const sasSignature = /(?:^|&)sig=([^&]+)/.exec(account.sas ?? "")?.[1];
  const secrets = [account.accountKey, account.sas, sasSignature, sasSignature && decodeURIComponent(sasSignature)].filter((s): s is string => typeof s === "string" && s.length >= 4);

  const credential = account.accountKey ? new StorageSharedKeyCredential(account.accountName!, account.accountKey) : new AnonymousCredential();
  const pipeline = newPipeline(credential, {
    // The SDK's default waits 4 s, 8 s, 16 s between its 4 tries: an unreachable store held a request for half a minute.
    retryOptions: { maxTries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 5000 },
    userAgentOptions: { userAgentPrefix: "ferry" },
  });
  pipeline.factories.push(guardedAgents(options.resolve));
  const service = new BlobServiceClient(account.accountKey ? account.url : `${account.url}?${account.sas}`, pipeline);
  const container: ContainerClient = service.getContainerClient(config.container);
  const blob = (key: string): BlockBlobClient => container.getBlockBlobClient(key);

  /** Keys of this process's writers with staged blocks (how many per key); cleanupStale leaves them alone. */
  const active = new Map<string, number>();
  const hold = (key: string) => active.set(key, (active.get(key) ?? 0) + 1);
  const release = (key: string) => {
    const n = (active.get(key) ?? 1) - 1;
    if (n <= 0) active.delete(key);
    else active.set(key, n);
  };

  /** Whatever the service or the network said, with the account key and the SAS cut out; the SDK's error (which carries the request, its headers and URL) goes nowhere. */
  const scrub = (text: string) => secrets.reduce((t, s) => t.split(s).join("***"), text);
  const azureError = (err: unknown): FerryError => {
    if (err instanceof FerryError) return err;
    const e = sdk(err);
    const code = codeOf(err);
    const status = e.statusCode;
    // A gateway's answer without the service's error code is the way there failing (a proxy's 502-504).
    const gateway = !code && (status === 502 || status === 503 || status === 504);
    const refused = status === 401 || status === 403 || gateway || (e.code !== undefined && NETWORK_CODES.has(e.code));
    const mapped = new FerryError(AZURE_NAMES[code] ?? (refused ? "StorageConnectionFailed" : "FileSystemError"));
    const requestId = e.details?.requestId ?? e.details?.["x-ms-request-id"];
    const detail = [code || e.name || "Error", status && `HTTP ${status}`, requestId && `request ${requestId}`].filter(Boolean).join(", ");
    // The service's message carries a request id and a time; the first line is the reason.
    const message = (e.message ?? String(err)).split("\n")[0];
    mapped.cause = new Error(scrub(`Azure ${detail}: ${message}`));
    return mapped;
  };

  const head = async (key: string): Promise<ObjectHead | null> => {
    try {
      const out = await blob(key).getProperties();
      return { size: out.contentLength ?? 0, mtime: seconds(out.lastModified), etag: out.etag };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  };

  /** Committed blobs under a prefix, page by page (uncommitted ones only when asked). */
  async function* flatPages(under: string, opts: { maxPageSize?: number; uncommitted?: boolean } = {}): AsyncGenerator<BlobItem[]> {
    const iterator = container.listBlobsFlat({ prefix: under, includeUncommitedBlobs: opts.uncommitted }).byPage({ maxPageSize: opts.maxPageSize });
    for await (const page of iterator) yield page.segment.blobItems;
  }

  const asObject = (item: BlobItem): StoredObject => ({ key: item.name, size: item.properties.contentLength ?? 0, mtime: seconds(item.properties.lastModified) });

  /** One List Blobs request a page: flat, or by hierarchy with a delimiter. */
  async function* pages(under: string, opts: { delimiter?: boolean; max?: number } = {}): AsyncGenerator<ObjectPage> {
    if (!opts.delimiter) {
      for await (const items of flatPages(under, { maxPageSize: opts.max })) yield { objects: items.map(asObject), prefixes: [] };
      return;
    }
    for await (const page of container.listBlobsByHierarchy("/", { prefix: under }).byPage({ maxPageSize: opts.max })) {
      yield { objects: page.segment.blobItems.map(asObject), prefixes: (page.segment.blobPrefixes ?? []).map((p) => p.name) };
    }
  }

  /**
   * Server-side copy (Copy Blob) of one blob; `ifAbsent` makes it fail with PathExists when the
   * target exists. Within one account the service authorises the source with the request's own key
   * (or the SAS in its URL) and usually completes at once; a pending copy is polled.
   */
  const copyKey = async (from: string, to: string, ifAbsent = false) => {
    const copyOnce = async (conditions: { ifNoneMatch: string } | undefined) => {
      const poller = await blob(to).beginCopyFromURL(blob(from).url, { intervalInMs: 250, conditions });
      const out = await poller.pollUntilDone();
      if (out.copyStatus !== "success") throw Object.assign(new Error(`copy ended ${out.copyStatus ?? "without a status"}`), { name: "CopyFailed" });
    };
    if (!ifAbsent) return copyOnce(undefined);
    try {
      await copyOnce({ ifNoneMatch: "*" });
    } catch (err) {
      if (codeOf(err) !== "BlobAlreadyExists" && codeOf(err) !== "ConditionNotMet") throw err;
      // Azurite counts a name holding only uncommitted blocks as existing (as for Put Blob, see putBlob):
      // nothing committed there, so the check made just before holds. A blob there is PathExists.
      if (await head(to)) throw new FerryError("PathExists");
      await copyOnce(undefined);
    }
  };

  /** Downloads (Get Blob) retry a cut body from where it stopped, up to 3 times. */
  const download = async (key: string, start: number, count: number | undefined, ifMatch?: string): Promise<ObjectBody | null> => {
    const out = await blob(key).download(start, count, { conditions: ifMatch === undefined ? undefined : { ifMatch }, maxRetryRequests: 3 });
    if (!out.readableStreamBody) return null;
    return { body: out.readableStreamBody, from: contentRange(out.contentRange)?.start ?? 0 };
  };

  const tree = objectTree({
    prefix,
    // At most 1,024 characters and 254 segments; a marker's trailing "/" adds an empty piece to the split, not a segment.
    keyFits: (key) => key.length <= MAX_NAME_CHARS && key.split("/").length <= MAX_SEGMENTS + 1,
    maxCopy: Number.POSITIVE_INFINITY,
    parallel,
    walk: walkLimits,
    toError: azureError,
    isMissing,
    head,
    pages,
    putMarker: async (key) => {
      await blob(key).upload(Buffer.alloc(0), 0);
    },
    copyObject: copyKey,
    deleteObject: async (key) => {
      await blob(key).delete();
    },
    /** Deletes blobs, `parallel` at once; one already gone is fine. */
    deleteKeys: async (keys) => {
      await mapLimit(keys, parallel, async (key) => {
        try {
          await blob(key).delete();
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
      });
    },
    read: async (key, range) => {
      const start = range.start ?? 0;
      try {
        return await download(key, start, range.end === undefined ? undefined : range.end - start + 1);
      } catch (err) {
        // A start at or past the end (any range of an empty blob): no bytes.
        if (!isMissing(err) && (codeOf(err) === "InvalidRange" || statusOf(err) === 416)) return null;
        throw err;
      }
    },
    readIfMatch: async (key, etag, start, end) => {
      const out = await download(key, start, end + 1 - start, etag);
      if (!out) throw new FerryError("CannotReadFile");
      return out;
    },
  });
  const { guard, locate, keyOf, findFolder, checkParent, fileResult, writeTarget, uploadKey, checkState } = tree;

  /** Block ids of one writer: the same length for every block of a blob, as the service requires. */
  const blockId = (writer: string, n: number) => Buffer.from(`${writer}-${String(n).padStart(6, "0")}`).toString("base64");

  /**
   * The staging area: "<blob path>.ferry-tmp/", a name no user path can reach and every listing,
   * walk and copy passes over (usableName, usableRest). A large write or a resumable upload stages
   * its blocks on a blob of its own there, named by its id, so that no other writer, Put Blob, Copy
   * Blob or Delete Blob on the target's name can drop them.
   */
  const staging = `${prefix}${STAGING_NAME}/`;
  const stagingKey = (kind: "uploads" | "writes", id: string) => `${staging}${kind}/${id}`;

  /**
   * Places staged blocks at `key`: Put Block List on the staging blob `temp`, Copy Blob to `key`
   * (If-None-Match: * unless `overwrite`: a file there is PathExists, and the blocks stay committed
   * on `temp` for a later try), then Delete Blob of `temp`. A commit that names blocks the service no
   * longer holds is UploadNotFound, unless an earlier try committed them already (the same size).
   */
  const placeStaged = async (temp: string, ids: readonly string[], size: number, key: string, overwrite: boolean) => {
    try {
      await blob(temp).commitBlockList([...ids]);
    } catch (err) {
      if (codeOf(err) !== "InvalidBlockList" || (await head(temp))?.size !== size) throw err;
    }
    await copyKey(temp, key, !overwrite);
    await discard(temp);
  };

  /** Drops a staging blob (its committed blob or uncommitted blocks); a failure is logged, cleanupStale goes on from there. */
  const discard = async (temp: string) => {
    try {
      await discardUncommitted(temp);
    } catch (err) {
      log?.warn({ err: azureError(err).cause, container: config.container, key: temp }, "Azure: a staging blob could not be deleted");
    }
  };

  /** One Put Blob of a whole file; with `conditions` (If-None-Match: *) it refuses to replace a committed blob (PathExists). */
  const putBlob = async (key: string, body: Buffer, conditions: { ifNoneMatch: string } | undefined) => {
    try {
      await blob(key).upload(body, body.length, { conditions });
    } catch (err) {
      // Azurite counts a name with only another writer's staged blocks as existing for If-None-Match: *
      // (nothing is committed there, HEAD answers 404): then the check made just before is what holds, as on S3.
      if (!conditions || codeOf(err) !== "BlobAlreadyExists" || (await head(key))) throw err;
      await blob(key).upload(body, body.length);
    }
  };

  /** The checks of a commit just before the blob appears: the folder exists, no folder at the path (a file there is refused by the service unless `overwrite`). */
  const checkPlacingFile = async (target: string, overwrite: boolean) => {
    await checkParent(target);
    if (await findFolder(target)) throw new FerryError(overwrite ? "PathIsNotFile" : "PathExists");
  };

  const beginWrite = async (rel: string, opts: WriteOptions = {}): Promise<Writer> => {
    const overwrite = opts.overwrite === true;
    const { target, key } = await writeTarget(rel, overwrite);

    const writer = randomUUID().replace(/-/g, "");
    const temp = stagingKey("writes", writer);
    const blocks: string[] = [];
    let dropped = false;
    let holding = false;

    const stage = async (body: Buffer) => {
      if (dropped) throw new FerryError("InvalidOperation");
      if (blocks.length >= MAX_BLOCKS) throw new FerryError("FileTooLarge", null, { limit: MAX_BLOCKS * block });
      if (!holding) {
        holding = true;
        hold(temp);
      }
      const id = blockId(writer, blocks.length + 1);
      await blob(temp).stageBlock(id, body, body.length);
      blocks.push(id);
    };
    const letGo = () => {
      if (holding) release(temp);
      holding = false;
    };

    return partWriter({
      path: target,
      toError: azureError,
      partSize: block,
      maxBytes: opts.maxBytes ?? Number.POSITIVE_INFINITY,
      send: stage,
      place: async (rest, size) => {
        // A file placed at the path meanwhile: without overwrite the service itself refuses to replace it
        // (If-None-Match: *, BlobAlreadyExists → PathExists), so only a folder needs a look here.
        await checkPlacingFile(target, overwrite);
        if (blocks.length === 0) await putBlob(key, rest, overwrite ? undefined : { ifNoneMatch: "*" });
        else {
          if (rest.length > 0) await stage(rest);
          await placeStaged(temp, blocks, size, key, overwrite);
          letGo();
        }
        return fileResult(target, { size, mtime: Math.floor(now() / 1000) });
      },
      // The staging blob goes with its blocks (a block staged by a write still on its way stays until cleanupStale).
      drop: async () => {
        dropped = true;
        if (holding) await discard(temp);
        letGo();
      },
    });
  };

  /**
   * Discards the staged blocks of a name that has no committed blob: Delete Blob (Azurite takes it),
   * else a zero-byte Put Blob only if still nothing is committed (which drops the blocks) and its
   * Delete only if it is still that blob. Returns whether something went.
   */
  const discardUncommitted = async (key: string): Promise<boolean> => {
    try {
      await blob(key).delete();
      return true;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    try {
      const placed = await blob(key).upload(Buffer.alloc(0), 0, { conditions: { ifNoneMatch: "*" } });
      await blob(key).delete({ conditions: { ifMatch: placed.etag } });
      return true;
    } catch (err) {
      // Committed meanwhile (a writer of another process finished): its blob stays.
      if (codeOf(err) === "BlobAlreadyExists" || codeOf(err) === "ConditionNotMet" || isMissing(err)) return false;
      throw err;
    }
  };

  /**
   * Resumable uploads (docs/storage.md, "Resumable uploads"): part n is staged as a block of the
   * upload's staging blob "<blob path>.ferry-tmp/uploads/<upload id>" under an id made of the
   * upload's id and n, so a part sent again replaces its block and another process can go on from
   * the state alone; complete commits the block list there and copies the blob to the target
   * (placeStaged). Nothing is visible before, and nothing done on the target's name touches the parts.
   * The service keeps uncommitted blocks 7 days after the last one staged.
   */
  const resumable = (rel: string): ResumableUploads => {
    const target = locate(rel);
    const open = (state: ResumableState): ResumableUpload => {
      const key = keyOf(target);
      const temp = stagingKey("uploads", state.id);
      const check = partChecks(state);
      return {
        state,
        writePart: guard(async (n: number, bytes: Uint8Array): Promise<StoredPart> => {
          check.part(n, bytes);
          const id = blockId(state.id, n);
          await blob(temp).stageBlock(id, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), bytes.length);
          return { number: n, etag: id, size: bytes.length };
        }),
        complete: guard(async (given: readonly StoredPart[], opts: OverwriteOption = {}): Promise<StatResult> => {
          check.all(given, (n) => blockId(state.id, n));
          const overwrite = opts.overwrite === true;
          await checkPlacingFile(target, overwrite);
          // A refusal (PathExists) keeps the blocks on the staging blob for a later complete or abort.
          if (state.id === "") await putBlob(key, Buffer.alloc(0), overwrite ? undefined : { ifNoneMatch: "*" });
          else await placeStaged(temp, given.map((p) => p.etag), state.size, key, overwrite);
          return fileResult(target, { size: state.size, mtime: Math.floor(now() / 1000) });
        }),
        // Delete Blob of the staging blob drops its blocks, committed or not; never throws (discard logs).
        abort: async () => {
          if (state.id !== "") await discard(temp);
        },
      };
    };
    return {
      partSize: block,
      begin: guard(async (size: number) => {
        uploadKey(target, size, MAX_BLOCKS * block);
        return open({ id: size > 0 ? randomUUID().replace(/-/g, "") : "", path: target, size, partSize: block });
      }),
      resume: (state: ResumableState) => {
        checkState(target, state);
        // The id names the staging blob: only what begin() makes (or "" for an empty file).
        if (!/^([0-9a-f]{32})?$/.test(state.id)) throw new FerryError("InvalidOperation");
        return open(state);
      },
    };
  };

  return tree.storage({
    beginWrite,
    resumable,
    /**
     * Staging blobs left by a crash or a lost client, older than the horizon and not used by a writer
     * of this process: every blob of the staging area, committed (a crash between the commit and its
     * copy) or holding only uncommitted blocks; their time is the service's Last-Modified. Also names
     * elsewhere under the blob path with staged blocks but no committed blob (what drivers before the
     * staging area left on a target's name), past any staging area of a storage below this one (its
     * driver's own). Each goes by discardUncommitted.
     */
    cleanupStale: async (olderThanMs: number) => {
      const cutoff = now() - olderThanMs;
      const old = (item: BlobItem) => {
        const at = item.properties.lastModified?.getTime();
        return at !== undefined && at <= cutoff && !active.has(item.name);
      };
      const stale: string[] = [];
      for await (const items of flatPages(staging, { uncommitted: true })) for (const item of items) if (old(item)) stale.push(item.name);
      const committed = new Set<string>();
      for await (const items of flatPages(prefix)) for (const item of items) committed.add(item.name);
      for await (const items of flatPages(prefix, { uncommitted: true })) {
        for (const item of items) {
          if (committed.has(item.name) || !usableRest(item.name.slice(prefix.length)) || !old(item)) continue;
          stale.push(item.name);
        }
      }
      let removed = 0;
      for (const key of stale) {
        if (active.has(key)) continue;
        try {
          if (await discardUncommitted(key)) removed++;
        } catch (err) {
          // One name that cannot go does not stop the rest; the service drops uncommitted blocks after 7 days anyway.
          log?.warn({ err: azureError(err).cause, container: config.container, key }, "Azure: staged blocks could not be discarded");
        }
      }
      return removed;
    },
  });
}
