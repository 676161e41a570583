import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { MemoryLocker, Server, TUS_RESUMABLE, type Upload } from "@tus/server";
import { langFromHeader, type Lang } from "../../contract/envelope";
import { ErrorCode, errorByCode } from "../../contract/errors";
import { FILE_SERVER_PATHS, UPLOAD_BATCH } from "../../contract/files";
import type { AuthUser } from "../auth/tokens";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import { rulesOf } from "../files/upload-rules";
import { RESERVATION_TTL_MS } from "../files/quota";
import { originAllowed } from "../fileserver/origin";
import type { FileServerPart } from "../fileserver/parts";
import { normaliseUserPath, STAGING_NAME } from "../storage/paths";
import { type ShareAccess, visitorToOwnerPath } from "../shares/access";
import { createVisitorUploads } from "../fileserver/share-uploads";
import { OWNER_KEY } from "./store";
import { checkTargetFree, isOwner, parseTarget, reserveQuota, sizeLimit, storedMetadata, targetOf, uploadSpace } from "./checks";
import { commitCommand, createHashCache } from "./commit";
import { CHUNK_HEADER, CHUNKS_EXTENSION, formatRanges, RANGES_HEADER } from "../../contract/upload-chunks";
import { type ChunkContext, handleChunk, isChunk, UPLOAD_EXPOSED_HEADERS } from "./chunks";
import { createBatchUploads } from "./batch";
import { feedPatchBodiesDirectly } from "./patch-body";
import { carriesBytes, createUploadLimits, fileOf } from "./protocol-limits";
import { OVER_LENGTH, PartBudget } from "./object-store";
import { type UploadRecord, UploadStore } from "./store";
import { sessionHasClient } from "../fileserver/clients";

/**
 * tus 1.0 uploads on the file server (docs/file-server.md, "Uploads") and the `commit` command.
 * Every request but a CORS preflight carries the sign-in's websocket token as a Bearer token; an
 * upload belongs to the user who created it, and only that user may send to it, ask its offset,
 * end it or commit it. Bytes stay in the upload store until commit places them.
 */

/** Unfinished and uncommitted uploads, and records of committed ones, go after a day (with their quota reservations). */
export const UPLOAD_EXPIRY_MS = RESERVATION_TTL_MS;
/** A reservation older than this whose upload is gone (the engine stopped in between) is released by the sweep. */
const ORPHAN_RESERVATION_MS = 10 * 60 * 1000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const UPLOAD_ID = /^[0-9a-f]{32}$/;
/** tus clients do not retry a 410: an upload the administrator stopped is gone for them (server/tasks/). */
const STOPPED_STATUS = 410;
/**
 * How long a user's new upload to the file of a stopped one is refused (4187): tus-js-client answers
 * a refused resume by creating the upload again, which would undo the stop without a word.
 */
const STOPPED_TARGET_MS = 60_000;
const targetKey = (userId: number, groupId: number, path: string) => `create:${userId}:${groupId}:${path}`;
/** The same for a share link's visitors: the owner's path the invitation maps the sent one to. */
const shareTargetKey = (linkId: string, groupId: number, path: string) => `create:share:${linkId}:${groupId}:${path}`;
/** A visitor's sent path as the owner's path inside the invitation folder (as stored in its record), or the sent path when it maps nowhere. */
function ownerPathOf(access: ShareAccess, sentPath: string): string {
  const mapped = visitorToOwnerPath(access, sentPath);
  return mapped && !mapped.root ? mapped.path : sentPath;
}

/** `path` and `groupId` of a creation's Upload-Metadata (a creation with a body is listed before tus stores it). */
function sentTarget(header: string | undefined): { path: string; groupId: number } {
  const pairs = new Map((header ?? "").split(",").map((p) => p.trim().split(" ") as [string, string | undefined]));
  const decode = (key: string) => Buffer.from(pairs.get(key) ?? "", "base64").toString("utf8");
  const sent = decode("path");
  // Normalised as a stored target is (NFC, no empty segments), so a stopped file's block is not evaded by another spelling.
  let path = sent;
  try {
    path = normaliseUserPath(sent);
  } catch {
    // Not a valid path: the creation is refused by its checks anyway.
  }
  return { path, groupId: Number(decode("groupId")) || 0 };
}

interface Caller {
  user: AuthUser;
  lang: Lang;
}

/** HTTP status of a refusal: the catalogue's 400/500, made precise where tus clients act on it. */
const STATUS: Partial<Record<number, number>> = {
  [ErrorCode.InvalidToken]: 401,
  [ErrorCode.PermissionDenied]: 403,
  [ErrorCode.UploadNotFound]: 404,
  [ErrorCode.FileTooLarge]: 413,
  [ErrorCode.UploadPartTooLarge]: 413,
  [ErrorCode.UploadsBusy]: 429,
  // The engine's memory for uploads into object storage is full (object-store.ts): 503, which tus
  // clients retry by themselves (a 429 they do not).
  [ErrorCode.UploadMemoryFull]: 503,
};
const statusOf = (error: FerryError) => STATUS[error.code] ?? errorByCode(error.code)?.status ?? 500;
/** Answers a client asks again after a second: the sign-in's places are taken, or the engine's upload memory is. */
const RETRY_SOON = new Set([429, 503]);

const errorBody = (error: FerryError, lang: Lang) => JSON.stringify(envelope(error.code, lang, error.data, error.vars));

/** A refusal in the shape tus turns into an error response (status_code, body). */
class Refusal {
  readonly status_code: number;
  readonly body: string;
  constructor(error: FerryError, lang: Lang) {
    this.status_code = statusOf(error);
    this.body = errorBody(error, lang);
  }
}
const refusal = (error: FerryError, lang: Lang) => new Refusal(error, lang);

/**
 * A creation with `Upload-Concat` (tus concatenation, not offered): 501 as tus servers answer an
 * extension they lack, with code 4175 and what to use instead (docs/file-server.md, "No tus concatenation").
 */
const concatenationRefused = () =>
  new FerryError("UnsupportedOperation", { reason: `tus concatenation (Upload-Concat) is not offered: send parallel chunks with ${CHUNK_HEADER}: 1 (Tus-Extension ${CHUNKS_EXTENSION})` });

/** tus's own protocol errors, in catalogue terms, so every refusal a client sees is an envelope. */
function fromTus(status: number): FerryError | null {
  if (status === 404 || status === 410) return new FerryError("UploadNotFound");
  if (status === 409) return new FerryError("InvalidData", { reason: "Upload-Offset is not the stored offset" });
  if (status === 413) return new FerryError("InvalidData", { reason: "more bytes than the declared Upload-Length" });
  if (status === 400 || status === 412 || status === 415) return new FerryError("ParameterError", { reason: "not a valid tus request" });
  return null;
}

/** The node:http request under tus's web Request (the key of the caller checked in `handle`). */
const nodeRequest = (req: { runtime?: { node?: { req: object } } }) => req.runtime?.node?.req;

export const uploadParts: FileServerPart = async (services, log, clientAddress) => {
  const store = await UploadStore.open(path.join(services.spaces.root, STAGING_NAME, "tus"), UPLOAD_EXPIRY_MS);
  store.partBudget = new PartBudget(services.config.uploadBuffers.maxBytes);
  store.bufferIdleMs = services.config.uploadBuffers.idleMs;
  const overBudget = new Set<string>();
  // The owner's upload limit, and the group space's, on every byte stored (server/speed/).
  store.throttle = (userId, groupId) => services.speed.throttle(userId, groupId, "upload");
  // A target on an object store takes the upload's bytes as parts straight away (object-store.ts); its owner's space says which storage.
  store.uploadsOf = async (metadata) => {
    const owner = Number(metadata?.[OWNER_KEY]);
    if (!Number.isSafeInteger(owner)) return null;
    const target = parseTarget(metadata ?? undefined);
    const space = await services.spaces.open(owner, target.groupId);
    const uploads = space.storage.resumable?.(target.path) ?? null;
    // Uploads into it are refused at creation (UploadPartOverMemory): the administrator hears why, once per space.
    if (uploads && uploads.partSize > store.partBudget.limit && !overBudget.has(space.key)) {
      overBudget.add(space.key);
      log.warn({ space: space.key, partSize: uploads.partSize, budget: store.partBudget.limit }, "the storage's slice size is larger than FERRY_UPLOAD_BUFFER_BYTES: uploads into it are refused; lower the slice size or raise the budget");
    }
    return uploads;
  };
  const locker = new MemoryLocker();
  const hashes = createHashCache(store);
  const visitorUploads = createVisitorUploads(services, store);
  // The Transfer protocol settings' part size and parallel uploads, on every request with bytes.
  const limits = createUploadLimits(services);
  const batch = createBatchUploads(services, store, limits, clientAddress);
  const callers = new WeakMap<object, Caller>();
  /** The response of each request tus handles: a refusal mapped in onResponseError may need a header (Retry-After). */
  const responses = new WeakMap<object, ServerResponse>();
  /** The upload a creation with a body made, by its request: a stop drops it (server/tasks/). */
  const createdBy = new WeakMap<object, string>();
  const callerOf = (req: Parameters<typeof nodeRequest>[0]): Caller => {
    const caller = callers.get(nodeRequest(req)!);
    if (!caller) throw new Error("tus request without a checked caller");
    return caller;
  };

  const tus = new Server({
    path: FILE_SERVER_PATHS.uploads.replace(/\/$/, ""),
    datastore: store,
    locker,
    relativeLocation: true,
    // The origin was checked before tus saw the request (originAllowed): echo it.
    allowedOrigins: () => true,
    allowedHeaders: ["Authorization", "Accept-Language", CHUNK_HEADER],
    exposedHeaders: [RANGES_HEADER],
    async onUploadCreate(req, upload: Upload) {
      createdBy.set(nodeRequest(req)!, upload.id);
      const visitor = visitorUploads.callerOf(nodeRequest(req)!);
      if (visitor) {
        try {
          return { metadata: await visitorUploads.metadata(visitor.access, upload) };
        } catch (error) {
          if (error instanceof FerryError) throw refusal(error, visitor.lang);
          throw error;
        }
      }
      const { user, lang } = callerOf(req);
      try {
        const target = parseTarget(upload.metadata);
        const space = await uploadSpace(services, user.id, target.groupId);
        const limit = await sizeLimit(services);
        if ((upload.size ?? 0) > limit) throw new FerryError("FileTooLarge", { limit }, { limit });
        await checkTargetFree(space, target, await rulesOf(services.db, user.id, space), upload.size);
        await reserveQuota(services, upload.id, user.id, space, target, upload.size ?? 0);
        return { metadata: storedMetadata(target, user.id, space) };
      } catch (error) {
        if (error instanceof FerryError) throw refusal(error, lang);
        throw error;
      }
    },
    async onUploadFinish(_req, upload: Upload) {
      hashes.start(upload.id);
      return {};
    },
    async onResponseError(req, error) {
      const node = nodeRequest(req)!;
      // A creation that failed after its reservation (the store refused the upload, the record
      // could not be written): the room goes back now, not in a day, and a client's retry reserves anew.
      const created = req.method === "POST" ? createdBy.get(node) : undefined;
      if (created && !(await store.records.get(created))) {
        await services.quota.release([created]).catch((err: unknown) => log.warn({ err }, "releasing a failed upload's reservation failed"));
      }
      if (error instanceof Refusal) return undefined;
      const lang = callers.get(node)?.lang ?? visitorUploads.callerOf(node)?.lang ?? "en";
      if (error instanceof FerryError) {
        // The store's and the local disk's failures (object-store.ts) in catalogue terms, as every other refusal.
        // An offset the store does not take (a body stopped after it stalled, object-store.ts) is tus's 409: the client asks HEAD and resends.
        // More bytes than Upload-Length (a body without Content-Length) is 413: a 409 would have the client send them again.
        const status_code = error.errorName === "InvalidData" ? ((error.data as { reason?: string } | null)?.reason === OVER_LENGTH ? 413 : 409) : statusOf(error);
        if (RETRY_SOON.has(status_code)) responses.get(node)?.setHeader("retry-after", "1");
        else if (status_code >= 500) log.error({ err: error.cause ?? error, code: error.code }, "tus upload request failed");
        return { status_code, body: errorBody(error, lang) };
      }
      const status = "status_code" in error ? error.status_code : 500;
      const mapped = fromTus(status);
      if (!mapped) {
        if (status >= 500) log.error({ err: error }, "tus upload request failed");
        return undefined;
      }
      // Keep tus's status (409, 410, 413…): tus clients act on it.
      return { status_code: status, body: errorBody(mapped, lang) };
    },
  });

  feedPatchBodiesDirectly(tus);
  /**
   * A DELETE (by the upload's owner or its invitation's visitor, checked before this) forgets the
   * upload's hash and ends its quota reservation before tus answers, so the client's next creation
   * already has the room (tus's POST_TERMINATE event fires only after the answer). Should tus then
   * refuse the termination, the upload lives on unreserved: its commit still checks the quota.
   */
  async function terminating(id: string) {
    hashes.forget(id);
    await services.quota.release([id]);
  }

  /** An upload the administrator stopped: its staging and its quota reservation go, as a DELETE would (docs/file-server.md, "Transfers in progress"). */
  async function dropStopped(id: string) {
    await terminating(id);
    await store.drop(id);
  }

  /**
   * A request carrying an upload's bytes joins its transfer in the list of transfers in progress
   * (server/tasks/registry.ts; parallel chunks of one upload are one transfer). False when the
   * administrator stopped that upload: the caller refuses the request.
   */
  async function listed(req: IncomingMessage, res: ServerResponse, who: { userId: number | null; ownerId: number; shareId: string | null; sessionId: string | null; access?: ShareAccess }, id: string | null, record: UploadRecord | null | undefined): Promise<boolean> {
    let base = 0;
    if (id) base = ((await store.rangesOf(id)) ?? []).reduce((sum, [s, e]) => sum + (e - s), 0);
    const sent = id ? null : sentTarget(String(req.headers["upload-metadata"] ?? ""));
    const key = id ? `upload:${id}` : `create:${randomUUID()}`;
    const sessionId = who.sessionId;
    const task = services.tasks.attach(
      {
        key,
        direction: "upload",
        userId: who.userId,
        ownerId: who.ownerId,
        shareId: who.shareId,
        groupId: sent ? sent.groupId : Number(record?.metadata?.groupId ?? 0) || 0,
        path: sent ? sent.path : String(record?.metadata?.path ?? ""),
        total: sent ? Number(req.headers["upload-length"]) || null : (record?.size ?? null),
        base,
        address: clientAddress?.(req) ?? null,
        via: who.shareId ? "share" : undefined,
        resolveVia: sessionId ? async () => ((await sessionHasClient(services.db, sessionId, services.clock.now())) ? "client" : "web") : undefined,
        onStop: async () => {
          // A new upload to the same file is refused for a while (a user's, or any visitor's of the same link).
          const target = sent ?? { groupId: Number(record?.metadata?.groupId ?? 0) || 0, path: String(record?.metadata?.path ?? "") };
          if (who.userId !== null) services.tasks.block(targetKey(who.userId, target.groupId, target.path), STOPPED_TARGET_MS);
          else if (who.access) services.tasks.block(shareTargetKey(who.access.linkId, target.groupId, sent ? ownerPathOf(who.access, sent.path) : target.path), STOPPED_TARGET_MS);
          const uploadId = id ?? createdBy.get(req);
          if (!uploadId) return;
          services.tasks.block(`upload:${uploadId}`);
          await dropStopped(uploadId);
        },
      },
      req,
      res,
    );
    return task !== null;
  }
  const stoppedRefusal = () => new FerryError("StoppedByServer");

  /** A refusal before tus sees the request, with the CORS headers a browser needs to read it. */
  function refuse(req: IncomingMessage, res: ServerResponse, error: FerryError, lang: Lang, status?: number) {
    const { body, status_code: statusOf } = refusal(error, lang);
    const status_code = status ?? statusOf;
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "tus-resumable": TUS_RESUMABLE,
      "access-control-expose-headers": UPLOAD_EXPOSED_HEADERS,
    };
    if (req.headers.origin) headers["access-control-allow-origin"] = req.headers.origin;
    // A busy refusal is for now only: the client tries again (tus-js-client's retries, the web's queue).
    if (RETRY_SOON.has(status_code)) headers["retry-after"] = "1";
    res.writeHead(status_code, headers);
    res.end(body);
  }

  const chunkContext = (req: IncomingMessage, res: ServerResponse, lang: Lang): ChunkContext => ({
    store,
    expirationMs: UPLOAD_EXPIRY_MS,
    now: () => services.clock.now(),
    refuse: (error, status) => refuse(req, res, error, lang, status),
    finished: (id) => hashes.start(id),
    failed: (error) => log.error({ err: error instanceof FerryError ? (error.cause ?? error) : error, code: error instanceof FerryError ? error.code : undefined }, "upload chunk failed"),
  });

  /**
   * After the checks every request to an upload passes: a Ferry chunk goes to chunks.ts, a plain
   * tus PATCH on an upload with chunks stored past its prefix is refused (it would write over
   * them; the client sends the gaps as chunks), a HEAD also answers the stored ranges; the rest is tus's.
   */
  async function toUpload(req: IncomingMessage, res: ServerResponse, id: string, lang: Lang) {
    if (isChunk(req)) return handleChunk(req, res, id, lang, chunkContext(req, res, lang));
    if (req.method === "PATCH" || req.method === "HEAD") {
      const ranges = await store.rangesOf(id);
      if (ranges && req.method === "HEAD") res.setHeader(RANGES_HEADER, formatRanges(ranges));
      if (ranges && req.method === "PATCH" && (ranges.length > 1 || (ranges.length === 1 && ranges[0]![0] !== 0))) {
        return refuse(req, res, new FerryError("InvalidData", { reason: "chunks are stored past Upload-Offset: send the gaps with Ferry-Chunk", ranges: formatRanges(ranges) }), lang, 409);
      }
    }
    return tus.handle(req, res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL) {
    const lang = langFromHeader(req.headers["accept-language"]);
    responses.set(req, res);
    if (!originAllowed(req.headers.origin, req.headers.host, services.config.webOrigins)) {
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
      res.end("origin not allowed");
      return;
    }
    if (req.method === "OPTIONS") return tus.handle(req, res);
    // tus has no GET; the bytes of an upload are not readable before commit.
    if (!["POST", "PATCH", "HEAD", "DELETE"].includes(req.method ?? "")) return refuse(req, res, new FerryError("UnsupportedOperation"), lang);
    // tus concatenation is not offered (its final step copied the whole file): Ferry's chunks replace it.
    if (req.method === "POST" && req.headers["upload-concat"] !== undefined) return refuse(req, res, concatenationRefused(), lang, 501);

    const header = req.headers.authorization ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    const auth = token ? await services.tokens.authenticateSocket(token) : null;
    if (!auth && token) {
      // Batches are for signed-in users: a share visitor's token (or any other) is no token here; visitors send by tus.
      if (url.pathname === UPLOAD_BATCH.path) return refuse(req, res, new FerryError("InvalidToken"), lang);
      // A share link's visitor (fileserver/share-uploads.ts): its invitation folder only, the link checked at every request.
      const uploadId = url.pathname.slice(FILE_SERVER_PATHS.uploads.length);
      const refused = await visitorUploads.admit(req, uploadId, token, lang);
      if (refused) return refuse(req, res, refused, lang);
      if (UPLOAD_ID.test(uploadId) && services.tasks.stopped(`upload:${uploadId}`)) return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
      const visitor = visitorUploads.callerOf(req)?.access;
      if (req.method === "POST" && visitor) {
        // A new upload to the file of one the administrator just stopped (tus-js-client's answer to the refused resume).
        const sent = sentTarget(String(req.headers["upload-metadata"] ?? ""));
        if (services.tasks.stopped(shareTargetKey(visitor.linkId, sent.groupId, ownerPathOf(visitor, sent.path)))) return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
      }
      if (carriesBytes(req)) {
        const file = req.method === "PATCH" ? fileOf(uploadId, (await store.records.get(uploadId))?.metadata) : null;
        const limited = await limits.admit(req, res, `share:${createHash("sha256").update(token).digest("hex")}`, file);
        if (limited) return refuse(req, res, limited, lang);
        const record = req.method === "PATCH" ? await store.records.get(uploadId) : null;
        if (visitor && !(await listed(req, res, { userId: null, ownerId: visitor.ownerId, shareId: visitor.linkId, sessionId: null, access: visitor }, req.method === "PATCH" ? uploadId : null, record))) {
          return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
        }
      }
      if (req.method === "DELETE") await terminating(uploadId);
      return toUpload(req, res, uploadId, lang);
    }
    if (!auth) return refuse(req, res, new FerryError("InvalidToken"), lang);
    callers.set(req, { user: auth.user, lang });
    // Small files in batches (batch.ts): signed-in users only for now.
    if (url.pathname === UPLOAD_BATCH.path) {
      // A batch is one transfer while its body arrives (its path is named once its header is read).
      if (req.method === "POST") services.tasks.attach({ key: `batch:${randomUUID()}`, direction: "upload", userId: auth.user.id, ownerId: auth.user.id, shareId: null, groupId: 0, path: "", total: Number(req.headers["content-length"]) || null, address: clientAddress?.(req) ?? null, via: undefined, resolveVia: async () => ((await sessionHasClient(services.db, auth.sessionId, services.clock.now())) ? "client" : "web") }, req, res);
      return batch(req, res, auth, lang, (error, status) => refuse(req, res, error, lang, status));
    }

    const id = url.pathname.slice(FILE_SERVER_PATHS.uploads.length);
    if (req.method === "POST") {
      if (id !== "") return refuse(req, res, new FerryError("UnsupportedOperation"), lang);
      const sent = sentTarget(String(req.headers["upload-metadata"] ?? ""));
      if (services.tasks.stopped(targetKey(auth.user.id, sent.groupId, sent.path))) return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
      if (req.headers["upload-defer-length"] !== undefined) return refuse(req, res, new FerryError("UnsupportedOperation"), lang);
      if (carriesBytes(req)) {
        const limited = await limits.admit(req, res, `session:${auth.sessionId}`, null);
        if (limited) return refuse(req, res, limited, lang);
        await listed(req, res, { userId: auth.user.id, ownerId: auth.user.id, shareId: null, sessionId: auth.sessionId }, null, null);
      }
      return tus.handle(req, res);
    }
    if (!UPLOAD_ID.test(id)) return refuse(req, res, new FerryError("UploadNotFound"), lang);
    // Stopped by the administrator (server/tasks/): every request to it says so, a resume's HEAD too.
    if (services.tasks.stopped(`upload:${id}`)) return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
    const record = await store.records.get(id);
    if (!record) return refuse(req, res, new FerryError("UploadNotFound"), lang);
    if (!isOwner(record, auth.user.id)) return refuse(req, res, new FerryError("PermissionDenied"), lang);
    if (req.method === "PATCH") {
      // A revoked Upload permission or membership stops the bytes at once, not only at commit.
      try {
        await uploadSpace(services, auth.user.id, targetOf(record).groupId);
      } catch (error) {
        if (error instanceof FerryError) return refuse(req, res, error, lang);
        throw error;
      }
      const limited = await limits.admit(req, res, `session:${auth.sessionId}`, fileOf(id, record.metadata));
      if (limited) return refuse(req, res, limited, lang);
      if (!(await listed(req, res, { userId: auth.user.id, ownerId: auth.user.id, shareId: null, sessionId: auth.sessionId }, id, record))) return refuse(req, res, stoppedRefusal(), lang, STOPPED_STATUS);
    }
    if (req.method === "DELETE") await terminating(id);
    return toUpload(req, res, id, lang);
  }

  /** Reservations whose upload is gone: the engine stopped between dropping an upload and releasing it, or before tus stored a new one. */
  async function releaseOrphans() {
    const gone: string[] = [];
    for (const id of await services.quota.reservationsBefore(services.clock.now() - ORPHAN_RESERVATION_MS)) if (!(await store.records.get(id))) gone.push(id);
    await services.quota.release(gone);
  }
  const sweep = () =>
    store
      .sweep()
      .then(() => hashes.prune())
      .then(() => services.quota.purgeExpired())
      .then(releaseOrphans)
      .catch((error: unknown) => log.warn({ err: error }, "sweeping expired uploads failed"));
  await sweep();
  const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  timer.unref();
  // Idle uploads' bytes in memory go after FERRY_UPLOAD_BUFFER_IDLE, looked for a few times within it.
  const idleTimer = setInterval(() => void store.dropIdleBuffers().catch(() => undefined), Math.max(1000, Math.min(60_000, store.bufferIdleMs / 4)));
  idleTimer.unref();

  return {
    handlers: [{ prefix: FILE_SERVER_PATHS.uploads, handle }],
    commands: { commit: commitCommand(services, store, locker, hashes) },
    async close() {
      clearInterval(timer);
      clearInterval(idleTimer);
    },
  };
};
