import { randomBytes } from "node:crypto";
import { open, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Lang } from "../../contract/envelope";
import { UPLOAD_BATCH, uploadBatchHeader, type UploadBatchHeader, type UploadBatchResult } from "../../contract/files";
import type { AuthContext } from "../auth/tokens";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import type { Space } from "../files/spaces";
import { rulesOf, type SpaceRules } from "../files/upload-rules";
import type { Services } from "../services";
import { sessionHasClient } from "../fileserver/clients";
import { checkTargetFree, parseTarget, sizeLimit, type UploadTarget, uploadSpace } from "./checks";
import { placeUpload } from "./commit";
import { createHasher } from "./hash";
import type { createUploadLimits } from "./protocol-limits";
import type { Throttle } from "../speed/throttle";
import type { UploadStore } from "./store";
import { type StatResult, storageError, type Storage } from "../storage/storage";
import { parentOf } from "../storage/paths";

/**
 * Small files in batches (docs/file-server.md, "Small files in batches (Ferry extension)"):
 * `POST /uploads/batch` carries many small files in one body, each checked, hashed, quota-reserved
 * and placed on its own exactly as a tus creation + commit would, each refused on its own.
 *
 * Body: uint32 big-endian H, H bytes of JSON (`uploadBatchHeader`), then the files' bytes back to
 * back in the header's order. Caps before reading: Content-Length required, at most
 * `UPLOAD_BATCH.maxBytes` (and the part size when set); H at most `maxHeaderBytes`; then, before a
 * file byte is read, at most `maxFiles` files of at most `maxFileBytes` each, and Content-Length
 * exactly 4 + H + the sizes. The files go in groups of GROUP: each file of a group is checked
 * (target, rules, filter) before its bytes are read, the group's quota reservations are one
 * transaction (each file reserved or refused on its own), then each file is held in memory
 * (≤ 4 MiB), hashed as it arrives, written to a staging file with its fsync and placed by the
 * storage's adopt (link or rename) as soon as its last byte is in, after the place-time checks
 * (permission, target, quota). After the group: one fsync per folder it placed into, its hash
 * records in one transaction and its reservations ended in one statement — so when the reply says
 * a file is stored, it and its folder entry are durable. A dropped connection leaves the files
 * fully received before it placed (and made durable and recorded) and nothing of the file in flight.
 */

const MIB = 1024 * 1024;
/**
 * Files checked, reserved (one transaction) and then made durable and recorded together: after
 * each group the folders' fsync, the hash records and the end of the reservations (one statement
 * each), so the reply never says stored of a file that is not durable.
 */
const GROUP = 64;
/** A group's bytes at most (a 4 MiB file may make a group of its own): they may all be in memory at once. */
const GROUP_BYTES = 16 * MIB;

/** A file of a batch on its way: its checks' outcome, then its hash. */
interface Entry {
  file: UploadBatchHeader["files"][number];
  reservation: string;
  refused: FerryError | null;
  target: UploadTarget | null;
  space: Space | null;
  hash: string | null;
  started: number;
}

/**
 * A batch file's staging copy, written and fsynced through one open (adopt is told it is synced).
 * A failure (a full disk, an I/O error) is that file's refusal (DiskFull, FileSystemError) and
 * leaves nothing of it behind.
 */
async function stage(file: string, data: Buffer): Promise<void> {
  let handle;
  try {
    handle = await open(file, "wx", 0o600);
  } catch (error) {
    throw storageError(error);
  }
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true }).catch(() => undefined);
    throw storageError(error);
  }
  await handle.close();
}
/** A batch file into an object store: its bytes (in memory) written and placed in one go (Writer.commit's checks). */
async function writeWhole(storage: Storage, target: UploadTarget, data: Buffer): Promise<StatResult> {
  const writer = await storage.beginWrite(target.path, { overwrite: target.overwrite });
  try {
    await writer.write(data);
    return await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** How long a batch reuses a space, its Upload permission and the uploader's rules it read (ms). */
const FRESH_MS = 1000;

/** Reads a request body in exact amounts, never more than asked beyond one network chunk. */
class BodyReader {
  private readonly source: AsyncIterator<Buffer>;
  private rest: Buffer | null = null;
  constructor(req: IncomingMessage) {
    this.source = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Up to `max` bytes (at least one); throws when the body ends or breaks first. */
  async some(max: number): Promise<Buffer> {
    if (!this.rest || this.rest.length === 0) {
      let next: IteratorResult<Buffer>;
      try {
        next = await this.source.next();
      } catch {
        throw new Truncated();
      }
      if (next.done) throw new Truncated();
      this.rest = next.value;
    }
    const rest = this.rest!;
    if (rest.length <= max) {
      this.rest = null;
      return rest;
    }
    this.rest = rest.subarray(max);
    return rest.subarray(0, max);
  }

  async exactly(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const piece = await this.some(n - got);
      parts.push(piece);
      got += piece.length;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  }
}

/** The body stopped before its announced end (the client went away). */
class Truncated extends Error {}

type Refuse = (error: FerryError, status?: number) => void;
type Limits = ReturnType<typeof createUploadLimits>;

export function createBatchUploads(services: Services, store: UploadStore, limits: Limits, clientAddress?: (req: IncomingMessage) => string | null) {
  const refusalOf = (path: string, error: FerryError, lang: Lang): UploadBatchResult => {
    const { code, message } = envelope(error.code, lang, error.data, error.vars);
    return { path, ok: false, code, message, data: error.data ?? null };
  };

  return async function handleBatch(req: IncomingMessage, res: ServerResponse, auth: AuthContext, lang: Lang, refuse: Refuse): Promise<void> {
    if (req.method !== "POST") return refuse(new FerryError("UnsupportedOperation"));
    const length = req.headers["content-length"];
    if (length === undefined || !/^\d+$/.test(length)) return refuse(new FerryError("InvalidData", { reason: "Content-Length is required" }), 411);
    const declared = Number(length);
    const { uploadPartMB } = await services.settings.get("protocol");
    const limit = Math.min(UPLOAD_BATCH.maxBytes, uploadPartMB > 0 ? uploadPartMB * MIB : Number.POSITIVE_INFINITY);
    if (declared > limit) return refuse(new FerryError("UploadPartTooLarge", { limit }, { limit }));
    if (declared < 4) return refuse(new FerryError("InvalidData", { reason: "no batch header" }));
    // One batch is one "file" of the caller's parallel uploads while it runs.
    const busy = await limits.admit(req, res, `session:${auth.sessionId}`, null);
    if (busy) return refuse(busy);

    const reader = new BodyReader(req);
    const reservations = new Set<string>();
    let header: UploadBatchHeader;
    try {
      const headerLength = (await reader.exactly(4)).readUInt32BE(0);
      if (headerLength === 0 || headerLength > UPLOAD_BATCH.maxHeaderBytes) {
        return refuse(new FerryError("InvalidData", { reason: "batch header too large", maxHeaderBytes: UPLOAD_BATCH.maxHeaderBytes }), 413);
      }
      if (4 + headerLength > declared) return refuse(new FerryError("InvalidData", { reason: "Content-Length is shorter than the batch header" }));
      let raw: unknown;
      try {
        raw = JSON.parse((await reader.exactly(headerLength)).toString("utf8"));
      } catch (error) {
        if (error instanceof Truncated) throw error;
        return refuse(new FerryError("ParameterError", { reason: "the batch header is not JSON" }));
      }
      const files = (raw as { files?: unknown })?.files;
      if (Array.isArray(files) && files.length > UPLOAD_BATCH.maxFiles) {
        return refuse(new FerryError("InvalidData", { reason: "too many files in one batch", maxFiles: UPLOAD_BATCH.maxFiles }), 413);
      }
      if (Array.isArray(files) && files.some((f) => typeof (f as { size?: unknown })?.size === "number" && (f as { size: number }).size > UPLOAD_BATCH.maxFileBytes)) {
        return refuse(new FerryError("InvalidData", { reason: "a file too large for a batch: send it by tus", maxFileBytes: UPLOAD_BATCH.maxFileBytes }), 413);
      }
      const parsed = uploadBatchHeader.safeParse(raw);
      if (!parsed.success) {
        return refuse(new FerryError("ParameterError", { issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })) }));
      }
      header = parsed.data;
      // The transfers in progress (server/tasks/) name a batch by its first file and how many follow.
      services.tasks.describe(req, { path: header.files.length > 1 ? `${header.files[0]!.path} (+${header.files.length - 1})` : header.files[0]!.path, groupId: header.files[0]!.groupId });
      const total = header.files.reduce((n, f) => n + f.size, 4 + headerLength);
      if (total !== declared) return refuse(new FerryError("InvalidData", { reason: "Content-Length is not 4 + the header's length + the files' sizes", expected: total }));
    } catch (error) {
      if (error instanceof Truncated) return void res.destroy();
      throw error;
    }

    const { user } = auth;
    const verify = (await services.settings.get("transfer")).cHashVerifySwitch;
    // A desktop client's batch is logged as the client's, as its socket's commits are.
    const via = (await sessionHasClient(services.db, auth.sessionId, services.clock.now())) ? "client" : "web";
    const maxSize = await sizeLimit(services);
    const results: UploadBatchResult[] = [];
    const placedPaths = new Map<number, string[]>();
    // Read once per space and reused for at most FRESH_MS (the engine clock), not for the whole
    // request (a throttled 32 MiB body may run for minutes): the space and the Upload permission
    // (an error too, so a refused space refuses each of its files alike) and the uploader's rules,
    // so a permission or rule an administrator changes applies from the next file within a second.
    // The speed throttle is one per space (one batch is one transfer; it re-reads its limits while
    // it runs; while there is none, it is asked again after FRESH_MS). Each file's own checks (target, filter,
    // quota, hash) still run per file.
    const fresh = <T>(read: (groupId: number) => Promise<T>) => {
      const known = new Map<number, { at: number; value: Promise<T> }>();
      return (groupId: number) => {
        const now = services.clock.now();
        let entry = known.get(groupId);
        if (!entry || now - entry.at >= FRESH_MS) {
          entry = { at: now, value: read(groupId) };
          entry.value.catch(() => undefined);
          known.set(groupId, entry);
        }
        return entry.value;
      };
    };
    // Each space's storage through one cached view per request (Storage.cached): a folder found
    // plain (no symbolic link on its path) is not walked again for every file's checks; placing a
    // file still walks its whole path just before.
    const views = new Map<Storage, Storage>();
    const viewed = (space: Space): Space => {
      let view = views.get(space.storage);
      if (!view) {
        view = space.storage.cached();
        views.set(space.storage, view);
      }
      return { ...space, storage: view };
    };
    const spaceOf = fresh(async (groupId) => viewed(await uploadSpace(services, user.id, groupId)));
    const rulesOfGroup = fresh(async (groupId) => rulesOf(services.db, user.id, await spaceOf(groupId)));
    const rulesFor = (space: Space): Promise<SpaceRules> => rulesOfGroup(space.groupId);
    const limitOfGroup = fresh(async (groupId) => services.quota.limitOf(user.id, await spaceOf(groupId)));
    const throttles = new Map<number, Promise<Throttle | null>>();
    /** When a space's throttle was found to be none: after FRESH_MS (the engine clock) the next file asks again. */
    const noneSince = new Map<number, number>();
    const throttleOf = (groupId: number) => {
      const since = noneSince.get(groupId);
      if (since !== undefined && services.clock.now() - since >= FRESH_MS) {
        throttles.delete(groupId);
        noneSince.delete(groupId);
      }
      let t = throttles.get(groupId);
      if (!t) {
        const asked = services.clock.now();
        const asking = services.speed.throttle(user.id, groupId, "upload");
        t = asking;
        throttles.set(groupId, asking);
        // No limit now: asked again within a second, so a limit set while the batch runs applies from then on.
        void asking.then((throttle) => void (throttle === null && throttles.get(groupId) === asking && noneSince.set(groupId, asked)), () => undefined);
      }
      return t;
    };

    // Placed but not yet durable in their folder nor recorded: done once per group (flush), before the reply.
    const folders = new Set<string>();
    let unsynced = new Map<string, { storage: Storage; folder: string }>();
    let unrecorded: { spaceKey: string; path: string; size: number; mtime: number; hash: string }[] = [];
    let placedReservations: string[] = [];
    const flush = async () => {
      const syncing = [...unsynced.values()];
      unsynced = new Map();
      await Promise.all(syncing.map(({ storage, folder }) => storage.syncFolder(folder).catch(() => undefined)));
      const rows = unrecorded;
      unrecorded = [];
      await services.hashes.recordMany(rows);
      const done = placedReservations;
      placedReservations = [];
      await services.quota.release(done);
      for (const id of done) reservations.delete(id);
    };

    // Files are placed one after the other in the header's order, each as soon as its staging copy is
    // down, while the next files' bytes are read and staged (their fsyncs overlap).
    let placing: Promise<void> = Promise.resolve();
    const fatal: unknown[] = [];
    const placeOne = async (entry: Entry, index: number, staging: Promise<string | (() => Promise<StatResult>)>) => {
      const { file, reservation, target } = entry;
      let adopted = false;
      let staged: string | (() => Promise<StatResult>) | null = null;
      try {
        staged = await staging;
        // As a commit places: the Upload permission (here) and the target (placeUpload) checked again
        // (a permission may have been revoked, or another upload may have taken the path, while the bytes came).
        const space = await spaceOf(target!.groupId);
        const placed = await placeUpload(services, user.id, space, target!, file.size, staged, entry.hash!, {
          rules: await rulesFor(space),
          limit: await limitOfGroup(target!.groupId),
          folders,
        });
        adopted = true;
        const folder = parentOf(placed.path);
        unsynced.set(`${space.key}:${folder}`, { storage: space.storage, folder });
        unrecorded.push({ spaceKey: space.key, path: placed.path, size: placed.size, mtime: placed.mtime, hash: entry.hash! });
        results[index] = { path: placed.path, ok: true, size: placed.size, hash: entry.hash! };
        placedPaths.set(target!.groupId, [...(placedPaths.get(target!.groupId) ?? []), placed.path]);
        services.recorder.recordTransfer({
          userId: user.id,
          account: user.account,
          groupId: target!.groupId,
          direction: "upload",
          bytes: placed.size,
          files: 1,
          durationMs: Date.now() - entry.started,
          result: "ok",
          via,
          path: placed.path,
          address: clientAddress?.(req) ?? null,
          shareId: null,
        });
        services.events.fire({ type: "uploaded", userId: user.id, account: user.account, groupId: target!.groupId, path: placed.path, size: placed.size });
      } catch (error) {
        if (error instanceof FerryError) {
          results[index] = refusalOf(file.path, error, lang);
          services.events.fire({ type: "upload_failed", userId: user.id, account: user.account, groupId: file.groupId, path: file.path, size: file.size });
        }
        else fatal.push(error);
      } finally {
        // Placed, the staged name is gone (adopt consumed it); otherwise it goes now.
        if (!adopted && typeof staged === "string") await rm(staged, { force: true });
        // A placed file's reservation ends with its group (flush); a refused one's now.
        if (adopted) placedReservations.push(reservation);
        // A database failure here fails the request (fatal), never the chain that places the next files.
        else if (reservations.delete(reservation)) await services.quota.release([reservation]).catch((error: unknown) => void fatal.push(error));
      }
    };

    try {
      for (let first = 0; first < header.files.length; ) {
        // A group: at most GROUP files and GROUP_BYTES of them (they may all be in memory at once), at least one.
        let last = first + 1;
        for (let bytes = header.files[first]!.size; last < header.files.length && last - first < GROUP && bytes + header.files[last]!.size <= GROUP_BYTES; last++) bytes += header.files[last]!.size;
        const group: Entry[] = header.files.slice(first, last).map((file) => ({
          file,
          reservation: randomBytes(16).toString("hex"),
          refused: null,
          target: null,
          space: null,
          hash: null,
          started: 0,
        }));
        const offset = first;
        first = last;
        // The checks of a tus creation, in its order, for each file of the group before a byte of it is read.
        for (const entry of group) {
          const { file } = entry;
          try {
            entry.target = parseTarget({ groupId: String(file.groupId), path: file.path, overwrite: file.overwrite ? "1" : "0" });
            entry.space = await spaceOf(entry.target.groupId);
            if (verify && file.hash === undefined) throw new FerryError("BadRequired", { issues: [{ path: "hash", message: "the server's hash check is on" }] });
            if (file.size > maxSize) throw new FerryError("FileTooLarge", { limit: maxSize }, { limit: maxSize });
            await checkTargetFree(entry.space, entry.target, await rulesFor(entry.space), file.size);
          } catch (error) {
            if (!(error instanceof FerryError)) throw error;
            entry.refused = error;
          }
        }
        // Their quota reservations: one transaction for the group, each file reserved or refused on its own.
        const wanted = group.filter((entry) => !entry.refused);
        const answers = await services.quota.reserveUploads(
          wanted.map((entry) => ({ uploadId: entry.reservation, userId: user.id, space: entry.space!, rel: entry.target!.path, size: entry.file.size, overwrite: entry.target!.overwrite })),
        );
        wanted.forEach((entry, i) => {
          entry.refused = answers[i] ?? null;
          if (!entry.refused) reservations.add(entry.reservation);
        });

        for (const [i, entry] of group.entries()) {
          const { file, reservation } = entry;
          entry.started = Date.now();
          // Its bytes: hashed as they arrive, through the owner's upload limit. A refused file's bytes are
          // dropped but still pass the limit (of the personal space: its group may be the reason it was
          // refused), so refusals are no way around a speed limit.
          const hasher = await createHasher();
          const chunks: Buffer[] = [];
          const throttle = await throttleOf(entry.refused ? 0 : file.groupId);
          for (let got = 0; got < file.size; ) {
            const piece = await reader.some(file.size - got);
            got += piece.length;
            const wait = throttle?.take(piece.length);
            if (wait) await wait;
            if (entry.refused) continue;
            hasher.update(piece);
            chunks.push(piece);
          }
          if (!entry.refused) {
            entry.hash = hasher.digest();
            if (file.hash !== undefined && file.hash !== entry.hash) entry.refused = new FerryError("HashCheckError");
          }
          if (entry.refused || !entry.target) {
            results[offset + i] = refusalOf(file.path, entry.refused ?? new FerryError("ParameterError"), lang);
            services.events.fire({ type: "upload_failed", userId: user.id, account: user.account, groupId: file.groupId, path: file.path, size: file.size });
            if (reservations.delete(reservation)) await services.quota.release([reservation]);
            continue;
          }
          const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, file.size);
          const staged = path.join(store.directory, `batch-${reservation}.tmp`);
          // Into an object store a file goes from memory as one write (a PutObject), never through the local disk.
          const staging = entry.space?.storage.resumable?.(entry.target.path) ? Promise.resolve(() => writeWhole(entry.space!.storage, entry.target!, data)) : stage(staged, data).then(() => staged);
          staging.catch(() => undefined);
          placing = placing.then(() => placeOne(entry, offset + i, staging));
        }
        await placing;
        if (fatal.length > 0) throw fatal[0];
        // Before the next group and before the reply: the folders' entries durable, the hashes recorded, the reservations ended.
        await flush();
      }
    } catch (error) {
      // The client went away mid-batch: the files fully received before stay (placed, durable and recorded), the one in flight is dropped.
      await placing.catch(() => undefined);
      await flush().catch(() => undefined);
      await services.quota.release([...reservations]);
      if (error instanceof Truncated) {
        res.destroy();
        return;
      }
      throw error;
    } finally {
      for (const t of throttles.values()) void t.then((throttle) => throttle?.release(), () => undefined);
      for (const [groupId, paths] of placedPaths) void services.transferNotices.record(user.id, { kind: "upload", groupId, paths });
    }
    const body = JSON.stringify(envelope(200, lang, { files: results }));
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    };
    if (req.headers.origin) headers["access-control-allow-origin"] = req.headers.origin;
    res.writeHead(200, headers);
    res.end(body);
  };
}
