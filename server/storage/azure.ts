import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import http from "node:http";
import https from "node:https";
import { AnonymousCredential, type BlobItem, BlobServiceClient, type BlockBlobClient, type ContainerClient, newPipeline, type RequestPolicyFactory, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { FastifyBaseLogger } from "fastify";
import type { ErrorName } from "../../contract/errors";
import { FerryError } from "../errors";
import { guardedAgent, LINK_LOCAL_REFUSED, type Resolver } from "./endpoint-guard";
import { baseName, isUnder, joinName, parentOf, resolveUserPath, STAGING_NAME } from "./paths";
import { checkNewName, checkRange, contentRange, guardWith, keyPrefix, mapFailure, mapLimit, rechunk, seconds, streamingReader, streamWriter, usableName, usableRest } from "./shared";
import {
  type Entry,
  type EntryType,
  type FileReader,
  type OverwriteOption,
  type ReadRange,
  type ResumableState,
  type ResumableUpload,
  type ResumableUploads,
  type StoredPart,
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

type Found = { type: "file"; size: number; mtime: number; etag?: string } | { type: "folder"; mtime: number };

interface Item {
  /** The full key. */
  key: string;
  /** The key below the walked folder ("a/b.txt", or "a/" for a marker). */
  rest: string;
  size: number;
}

/**
 * Sends every request through agents of our own whose sockets resolve the endpoint with
 * guardedLookup (endpoint-guard.ts), so a name resolving to a link-local address is refused at each
 * connection. The SDK's node client uses a request's agent when one is set (instead of its own pool);
 * core-http-compat passes a v1 policy's `agent` through to that request.
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
        request.agent = request.url.startsWith("https:") ? agents.https : agents.http;
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
    const refused = status === 401 || status === 403 || (e.code !== undefined && NETWORK_CODES.has(e.code));
    const mapped = new FerryError(AZURE_NAMES[code] ?? (refused ? "StorageConnectionFailed" : "FileSystemError"));
    const requestId = e.details?.requestId ?? e.details?.["x-ms-request-id"];
    const detail = [code || e.name || "Error", status && `HTTP ${status}`, requestId && `request ${requestId}`].filter(Boolean).join(", ");
    // The service's message carries a request id and a time; the first line is the reason.
    const message = (e.message ?? String(err)).split("\n")[0];
    mapped.cause = new Error(scrub(`Azure ${detail}: ${message}`));
    return mapped;
  };
  const guard = guardWith(azureError);

  const locate = (rel: string): string => resolveUserPath("/", rel).relative;
  const keyOf = (relative: string) => {
    const key = prefix + relative.slice(1);
    // The marker of a folder is one character longer; a segment count over 254 is refused by the service.
    if (key.length + 1 > MAX_NAME_CHARS || key.split("/").length > MAX_SEGMENTS) throw new FerryError("InvalidPath");
    return key;
  };
  const dirKey = (relative: string) => (relative === "/" ? prefix : `${keyOf(relative)}/`);

  const head = async (key: string): Promise<{ size: number; mtime: number; etag?: string } | null> => {
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

  const find = async (relative: string): Promise<Found | null> => {
    if (relative === "/") return { type: "folder", mtime: 0 };
    const file = await head(keyOf(relative));
    if (file) return { type: "file", ...file };
    return findFolder(relative);
  };

  /** A folder: its marker, or any blob below it (one request: the marker is the first name of its prefix). */
  const findFolder = async (relative: string): Promise<Found | null> => {
    for await (const items of flatPages(dirKey(relative), { maxPageSize: 1 })) {
      const first = items[0];
      if (!first) return null;
      return { type: "folder", mtime: first.name === dirKey(relative) ? seconds(first.properties.lastModified) : 0 };
    }
    return null;
  };

  const missing = async (relative: string): Promise<never> => {
    for (let p = parentOf(relative); p !== "/"; p = parentOf(p)) {
      const found = await find(p);
      if (found?.type === "file") throw new FerryError("PathIsFile");
      if (found) break;
    }
    throw new FerryError("PathNotFound");
  };

  const mustFind = async (relative: string): Promise<Found> => (await find(relative)) ?? missing(relative);

  const checkParent = async (relative: string) => {
    const parent = parentOf(relative);
    if (parent === "/") return;
    if (await findFolder(parent)) return;
    if ((await mustFind(parent)).type !== "folder") throw new FerryError("PathIsFile");
  };

  const checkTypes = (source: EntryType, target: EntryType) => {
    if (source === "folder" && target !== "folder") throw new FerryError("PathIsFile");
    if (source !== "folder" && target === "folder") throw new FerryError("PathIsNotFile");
  };

  const putMarker = async (relative: string) => {
    await blob(dirKey(relative)).upload(Buffer.alloc(0), 0);
  };

  const keepFolder = async (relative: string) => {
    if (relative === "/" || (await head(dirKey(relative)))) return;
    await putMarker(relative);
  };

  /** Deletes blobs, `parallel` at once; one already gone is fine. */
  const deleteKeys = async (keys: readonly string[]) => {
    await mapLimit(keys, parallel, async (key) => {
      try {
        await blob(key).delete();
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    });
  };

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

  const walk = async (relative: string, budget: WalkBudget, onItem: (item: Item) => void): Promise<void> => {
    const base = dirKey(relative);
    budget.folder(0);
    const seen = new Set<string>();
    for await (const items of flatPages(base)) {
      budget.check();
      budget.entries(items.length);
      for (const obj of items) {
        const rest = obj.name.slice(base.length);
        if (rest === "" || !usableRest(rest)) continue;
        const folder = rest.slice(0, rest.lastIndexOf("/") + 1);
        if (folder && !seen.has(folder)) {
          seen.add(folder);
          budget.folder(folder.split("/").length - 1);
        }
        onItem({ key: obj.name, rest, size: obj.properties.contentLength ?? 0 });
      }
    }
  };

  const collect = async (relative: string, budget: WalkBudget): Promise<Item[]> => {
    const items: Item[] = [];
    await walk(relative, budget, (item) => items.push(item));
    return items;
  };

  /** As s3.ts: marker first, every blob copied, the replaced target's leftovers deleted; returns the source's keys. */
  const copyFolder = async (from: string, to: string, replace: boolean, budget: WalkBudget): Promise<string[]> => {
    const items = await collect(from, budget);
    const old = replace ? await collect(to, budget) : [];
    const toBase = dirKey(to);
    const written: string[] = [];
    try {
      await putMarker(to);
      written.push(toBase);
      await mapLimit(items, parallel, async (item) => {
        budget.check();
        const target = toBase + item.rest;
        if (target.length > MAX_NAME_CHARS || target.split("/").length > MAX_SEGMENTS + 1) throw new FerryError("InvalidPath");
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

  const checkPlacing = async (from: string, to: string, opts: OverwriteOption): Promise<{ source: Found; existing: Found | null }> => {
    if (isUnder(to, from)) throw new FerryError("InvalidOperation");
    const source = await mustFind(from);
    await checkParent(to);
    const existing = await find(to);
    if (existing && !opts.overwrite) throw new FerryError("PathExists");
    if (existing) checkTypes(source.type, existing.type);
    return { source, existing };
  };

  const fileResult = (relative: string, found: { size: number; mtime: number }): StatResult => ({ path: relative, name: baseName(relative), type: "file", size: found.size, mtime: found.mtime });

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
    const target = locate(rel);
    checkNewName(target);
    const key = keyOf(target);
    const overwrite = opts.overwrite === true;
    const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    await checkParent(target);
    const existing = await find(target);
    if (existing && !overwrite) throw new FerryError("PathExists");
    if (existing?.type === "folder") throw new FerryError("PathIsNotFile");

    const writer = randomUUID().replace(/-/g, "");
    const temp = stagingKey("writes", writer);
    const blocks: string[] = [];
    let pending: Buffer[] = [];
    let held = 0;
    let written = 0;
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

    return streamWriter({
      path: target,
      toError: azureError,
      bytesWritten: () => written,
      write: async (chunks) => {
        const size = chunks.reduce((n, c) => n + c.length, 0);
        if (written + size > maxBytes) throw new FerryError("QuotaExceeded");
        for (const c of chunks) pending.push(Buffer.from(c));
        held += size;
        written += size;
        while (held >= block) {
          const all = Buffer.concat(pending, held);
          pending = held > block ? [all.subarray(block)] : [];
          held -= block;
          await stage(all.subarray(0, block));
        }
      },
      place: async () => {
        // A file placed at the path meanwhile: without overwrite the service itself refuses to replace it
        // (If-None-Match: *, BlobAlreadyExists → PathExists), so only a folder needs a look here.
        await checkPlacingFile(target, overwrite);
        if (blocks.length === 0) {
          const body = Buffer.concat(pending, held);
          await putBlob(key, body, overwrite ? undefined : { ifNoneMatch: "*" });
        } else {
          if (held > 0) await stage(Buffer.concat(pending, held));
          await placeStaged(temp, blocks, written, key, overwrite);
          letGo();
        }
        pending = [];
        held = 0;
        return fileResult(target, { size: written, mtime: Math.floor(now() / 1000) });
      },
      // The staging blob goes with its blocks (a block staged by a write still on its way stays until cleanupStale).
      drop: async () => {
        dropped = true;
        pending = [];
        held = 0;
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
      const parts = state.size === 0 ? 0 : Math.ceil(state.size / state.partSize);
      const sizeOf = (n: number) => (n < parts ? state.partSize : state.size - (parts - 1) * state.partSize);
      return {
        state,
        writePart: guard(async (n: number, bytes: Uint8Array): Promise<StoredPart> => {
          if (!Number.isSafeInteger(n) || n < 1 || n > parts || bytes.length !== sizeOf(n)) throw new FerryError("InvalidOperation");
          const id = blockId(state.id, n);
          await blob(temp).stageBlock(id, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), bytes.length);
          return { number: n, etag: id, size: bytes.length };
        }),
        complete: guard(async (given: readonly StoredPart[], opts: OverwriteOption = {}): Promise<StatResult> => {
          if (given.length !== parts || given.some((p, i) => p.number !== i + 1 || p.size !== sizeOf(p.number) || p.etag !== blockId(state.id, p.number))) throw new FerryError("InvalidOperation");
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
        checkNewName(target);
        keyOf(target);
        if (!Number.isSafeInteger(size) || size < 0) throw new FerryError("InvalidOperation");
        if (size > MAX_BLOCKS * block) throw new FerryError("FileTooLarge", null, { limit: MAX_BLOCKS * block });
        return open({ id: size > 0 ? randomUUID().replace(/-/g, "") : "", path: target, size, partSize: block });
      }),
      resume: (state: ResumableState) => {
        if (state.path !== target || !Number.isSafeInteger(state.partSize) || state.partSize < 1 || typeof state.id !== "string" || !/^([0-9a-f]{32})?$/.test(state.id)) {
          throw new FerryError("InvalidOperation");
        }
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

    resolve: guard(async (rel: string) => locate(rel)),

    list: guard(async (dirRel: string): Promise<Entry[]> => {
      const dir = locate(dirRel);
      if ((await mustFind(dir)).type !== "folder") throw new FerryError("PathIsFile");
      const base = dirKey(dir);
      const files = new Map<string, Entry>();
      const folders = new Map<string, number>();
      for await (const page of container.listBlobsByHierarchy("/", { prefix: base }).byPage()) {
        for (const obj of page.segment.blobItems) {
          const rest = obj.name.slice(base.length);
          if (rest.endsWith("/") && usableName(rest.slice(0, -1))) folders.set(rest.slice(0, -1), seconds(obj.properties.lastModified));
          else if (usableName(rest)) files.set(rest, { name: rest, type: "file", size: obj.properties.contentLength ?? 0, mtime: seconds(obj.properties.lastModified) });
        }
        for (const common of page.segment.blobPrefixes ?? []) {
          const name = common.name.slice(base.length, -1);
          // The service rolls a marker into its prefix, so a listing has no time for it: 0, as in s3.ts (stat gives the marker's).
          if (usableName(name) && !folders.has(name)) folders.set(name, 0);
        }
      }
      const entries = [...files.values()];
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
        await copyKey(keyOf(from), keyOf(to), !existing);
        await blob(keyOf(from)).delete();
      } else {
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
        await copyKey(keyOf(from), keyOf(to), !existing);
        return;
      }
      const budget = new WalkBudget(walkLimits, opts);
      await budget.run(() => copyFolder(from, to, existing !== null, budget));
    }),

    remove: guard(async (rel: string) => {
      const target = locate(rel);
      if (target === "/") throw new FerryError("InvalidOperation");
      const found = await mustFind(target);
      if (found.type === "file") await blob(keyOf(target)).delete();
      else {
        // Page by page, the marker last: a failure halfway leaves a smaller folder, still listed.
        const base = dirKey(target);
        for await (const items of flatPages(base)) await deleteKeys(items.map((o) => o.name).filter((k) => k !== base));
        await deleteKeys([base]);
      }
      await keepFolder(parentOf(target));
    }),

    createReadStream: guard(async (rel: string, range: ReadRange = {}): Promise<Readable> => {
      checkRange(range);
      const target = locate(rel);
      if (target === "/") throw new FerryError("PathIsNotFile");
      const size = range.bufferSize ?? STREAM_BUFFER;
      const start = range.start ?? 0;
      const count = range.end === undefined ? undefined : range.end - start + 1;
      const empty = () => Readable.from([], { objectMode: false, highWaterMark: size });
      let out;
      try {
        out = await blob(keyOf(target)).download(start, count, { maxRetryRequests: 3 });
      } catch (err) {
        if (isMissing(err)) {
          if ((await find(target))?.type === "folder") throw new FerryError("PathIsNotFile");
          return missing(target);
        }
        // A start at or past the end (any range of an empty blob): no bytes, as a local read gives.
        if (codeOf(err) === "InvalidRange" || statusOf(err) === 416) return empty();
        throw err;
      }
      const body = out.readableStreamBody;
      if (!body) return empty();
      const answered = contentRange(out.contentRange);
      const from = answered?.start ?? 0;
      if (from > start) {
        (body as Readable).destroy?.();
        throw new FerryError("CannotReadFile");
      }
      const limit = count ?? Number.POSITIVE_INFINITY;
      const stream = Readable.from(mapFailure(rechunk(body, size, start - from, limit), azureError), { objectMode: false, highWaterMark: size });
      // A stream destroyed before its first read never starts rechunk (whose finally frees the body).
      stream.once("close", () => (body as Readable).destroy?.());
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
      // If-Match: a file replaced since it was opened fails the read instead of mixing two contents.
      const reader = streamingReader(file.size, async (start, end) => {
        const out = await blob(key).download(start, end + 1 - start, { conditions: { ifMatch: file.etag }, maxRetryRequests: 3 });
        if (!out.readableStreamBody) throw new FerryError("CannotReadFile");
        return { body: out.readableStreamBody, from: contentRange(out.contentRange)?.start ?? 0 };
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

    resumable,

    adopt: guard(async (staged: StagedData, _rel: string, _opts?: OverwriteOption): Promise<StatResult> => {
      // Data staged on the local disk is not copied up here; uploads go into the container directly.
      void staged;
      throw new FerryError("UnsupportedOperation");
    }),

    // A blob is durable once its Put Blob or Put Block List answered; there is no folder entry to sync.
    syncFolder: guard(async (rel: string) => {
      locate(rel);
    }),

    /**
     * Staging blobs left by a crash or a lost client, older than the horizon and not used by a writer
     * of this process: every blob of the staging area, committed (a crash between the commit and its
     * copy) or holding only uncommitted blocks; their time is the service's Last-Modified. Also names
     * elsewhere under the blob path with staged blocks but no committed blob (what drivers before the
     * staging area left on a target's name), past any staging area of a storage below this one (its
     * driver's own). Each goes by discardUncommitted.
     */
    cleanupStale: guard(async (olderThanMs: number) => {
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
    }),
  };
  const driver: Storage = Object.assign(storage, { cached: () => driver });
  return driver;
}
