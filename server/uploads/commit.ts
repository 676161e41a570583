import { lstat } from "node:fs/promises";
import type { Locker } from "@tus/server";
import type { SocketResults } from "../../contract/files";
import type { Services } from "../services";
import { FerryError } from "../errors";
import type { Space } from "../files/spaces";
import { rulesOf, type SpaceRules } from "../files/upload-rules";
import type { CommandHandler } from "../fileserver/socket";
import { parentOf } from "../storage/paths";
import { checkTargetFree, isOwner, targetOf, type UploadTarget, uploadSpace } from "./checks";
import { blake3Of } from "./hash";
import { prefixOf } from "./progress";
import type { UploadRecord, UploadStore } from "./store";
import { storedBytes } from "./object-store";
import type { StatResult } from "../storage/storage";

const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * Hashes of finished uploads. The hash grows with the contiguous prefix while the bytes arrive
 * (progress.ts: fed from memory as they land, the rest read back from the page cache when a gap
 * fills), so when the last byte is stored it is ready; it is only kept in memory: after a restart
 * the prefix is hashed again from the file when it is next needed (the next write or the commit),
 * which gives the same answer.
 *
 * When the last byte arrives the file's pages start going to disk (`UploadStore.flush`), so the
 * disk writes while the client commits; the commit's own fsync (storage `adopt`) then finds little
 * or nothing left to write. It still runs: only that fsync makes the commit durable.
 */
export function createHashCache(store: UploadStore) {
  return {
    /** The last byte is stored: start the early fdatasync (and the hash of an upload the engine has not seen bytes of since it started). */
    start(id: string) {
      void store.flush(id);
      void store.progressOf(id).then((p) => p?.digest());
    },
    async get(id: string): Promise<string> {
      const progress = await store.progressOf(id);
      let hash = progress ? await progress.digest() : null;
      if (hash === null && progress?.complete) {
        // Every byte is stored but reading some back failed: start again from the file once.
        store.forgetProgress(id);
        const again = await store.progressOf(id);
        hash = again ? await again.digest() : null;
      }
      if (hash === null) throw new FerryError("UploadNotFound");
      return hash;
    },
    forget(id: string) {
      store.forgetProgress(id);
    },
    /** Drops entries of uploads that are gone (terminated, expired). */
    async prune() {
      await store.pruneProgress();
    },
  };
}
export type HashCache = ReturnType<typeof createHashCache>;

/**
 * What a batch (batch.ts) read once for many files, and what it does itself once per group of
 * files before it answers: the folder fsync (its staged files are already fsynced) and the hash
 * record (it records what placeUpload answers).
 */
export interface BatchPlacing {
  /** The uploader's rules of the space, as the batch last read them. */
  rules: SpaceRules;
  /** The space's quota, as the batch last read it (at most a second ago). */
  limit: number;
  /** Folders ("<space key>:<path>") this request has made sure exist: no mkdir for the next file in them. */
  folders: Set<string>;
}

/**
 * Places an upload's stored bytes (`file`, a local file the storage adopts) at its target: the
 * target checked again (another upload may have taken the path meanwhile), the space's quota
 * checked, missing parent folders created, the file placed atomically and its hash recorded.
 * The commit and the batches (batch.ts) both place through here; a batch passes `batch`: then the
 * staged file is already fsynced, and the folder's fsync and the hash record are the batch's.
 */
export async function placeUpload(services: Services, userId: number, space: Space, target: UploadTarget, size: number, file: string | (() => Promise<StatResult>), hash: string, batch?: BatchPlacing) {
  // A batch passes the rules it read for its request; a commit reads them now.
  await checkTargetFree(space, target, batch?.rules ?? (await rulesOf(services.db, userId, space)), size);
  const parent = parentOf(target.path);
  const folder = `${space.key}:${parent}`;
  // An upload into an object store passes its completion (the resumable upload's complete) instead of a staged file.
  const adopt = typeof file === "function" ? file : () => space.storage.adopt({ kind: "local-file", path: file, synced: batch !== undefined }, target.path, { overwrite: target.overwrite, syncFolder: batch === undefined });
  const placed = await services.quota.placeFile(
    userId,
    space,
    target.path,
    size,
    async () => {
      // Folder uploads keep their tree; a folder removed during the upload comes back.
      if (parent === "/" || batch?.folders.has(folder)) {
        try {
          return await adopt();
        } catch (error) {
          // Removed while the batch ran: made again, once.
          if (!batch || parent === "/" || !(error instanceof FerryError && error.errorName === "PathNotFound")) throw error;
          batch.folders.delete(folder);
        }
      }
      await space.storage.mkdir(parent, { recursive: true });
      batch?.folders.add(folder);
      return adopt();
    },
    batch?.limit,
  );
  if (!batch) await services.hashes.record(space.key, placed.path, placed.size, placed.mtime, hash);
  return placed;
}

/**
 * The commit of an upload into an object store (object-store.ts): the stored parts must cover the
 * file; the hash was computed part by part as they were stored (kept in the record with the last
 * one). A mismatch drops the upload (its parts aborted in the store); otherwise the checks of every
 * commit run and the store's completion places the file. A refusal (quota, the path taken) keeps
 * the parts, as a local upload keeps its data file: the user may make room and commit again, and
 * expiry aborts them.
 *
 * Just before the completion is asked for, the record says so (`completing`). The mark alone does
 * not tell whether the store completed: the request may never have reached it (connection refused
 * or reset, a 5xx), and another file may have been placed at the path since. So a commit finding
 * the mark looks at the path first: a file there counts as this upload only when its bytes are the
 * upload's (BLAKE3 of the object against the recorded hash; the size first, which is cheap; stat
 * gives no ETag to compare with the multipart one, and Azure's block ids have none). Another file
 * there is refused as a taken path with the parts kept (unless the commit overwrites), so the user
 * can make room and commit again; nothing at the path, the completion is asked for again. When the
 * store no longer knows the upload (it completed already, or expired), it counts as committed only
 * if the file at the path is exactly these bytes.
 */
async function commitStore(services: Services, store: UploadStore, userId: number, space: Space, target: UploadTarget, uploadId: string, record: UploadRecord, hash: string | undefined): Promise<SocketResults["commit"]> {
  const size = record.size ?? 0;
  const stored = record.store!;
  const offset = (await store.storeProgressOf(uploadId))?.stored ?? storedBytes(stored);
  if (offset < size) throw new FerryError("UploadIncomplete", { offset, size }, { offset, size });
  const actual = record.hash ?? (size === 0 ? await blake3Of((async function* () {})()) : null);
  if (actual === null) throw new FerryError("UploadNotFound");
  if (hash !== undefined && actual !== hash) {
    await store.drop(uploadId);
    await services.quota.release([uploadId]);
    throw new FerryError("HashCheckError");
  }
  const sameBytes = async (existing: StatResult | null) => existing?.type === "file" && existing.size === size && (await blake3Of(await space.storage.createReadStream(existing.path))) === actual;
  // The record without the mark (deleted, not rewritten from a record that may still carry it).
  const { completing, ...unmarked } = record;
  if (completing?.path === target.path) {
    const existing = await space.storage.stat(target.path).catch(() => null);
    if (existing && (await sameBytes(existing))) {
      // These bytes are at the path: the store completed this upload (or holds the same bytes); parts still open go now rather than at expiry.
      await space.storage
        .resumable?.(target.path)
        ?.resume(stored.state)
        .abort()
        .catch(() => undefined);
      await services.hashes.record(space.key, existing.path, size, existing.mtime, actual);
      return { path: existing.path, size, hash: actual };
    }
    if (existing && !target.overwrite) {
      // Not this upload's bytes: the completion never went through (or the file was replaced since). The parts stay.
      await store.records.set(uploadId, { ...unmarked, hash: actual });
      throw new FerryError(existing.type === "file" ? "PathExists" : "PathIsNotFile");
    }
  }
  const upload = space.storage.resumable?.(target.path)?.resume(stored.state);
  if (!upload) throw new FerryError("UploadNotFound");
  const complete = async () => {
    await store.records.set(uploadId, { ...unmarked, hash: actual, completing: { path: target.path, at: new Date().toISOString() } });
    try {
      return await upload.complete(stored.parts, { overwrite: target.overwrite });
    } catch (error) {
      // Refused before the store was asked (the path taken meanwhile, its parent gone): nothing completed.
      if (error instanceof FerryError && NOT_COMPLETED.has(error.errorName)) await store.records.set(uploadId, { ...unmarked, hash: actual });
      throw error;
    }
  };
  try {
    const result = await placeUpload(services, userId, space, target, size, complete, actual);
    return { path: result.path, size: result.size, hash: actual };
  } catch (error) {
    if (!(error instanceof FerryError && error.errorName === "UploadNotFound")) throw error;
    const existing = await space.storage.stat(target.path).catch(() => null);
    if (!existing || !(await sameBytes(existing))) throw error;
    await services.hashes.record(space.key, existing.path, size, existing.mtime, actual);
    return { path: existing.path, size, hash: actual };
  }
}

/** What a resumable upload's complete() refuses with before it asks the store (storage/s3.ts): the upload is still open. */
const NOT_COMPLETED = new Set(["PathExists", "PathIsNotFile", "PathIsFile", "PathNotFound", "InvalidOperation"]);

/**
 * The `commit` socket command (docs/file-server.md, "Uploads"): compares the client's hash with
 * the stored bytes' hash, re-checks the Upload permission and the target, creates missing parent
 * folders and places the file atomically. A repeated commit of the same upload answers the first
 * result while the record lives (24 h), so a client that lost the reply can simply ask again.
 */
export function commitCommand(services: Services, store: UploadStore, locker: Locker, hashes: HashCache): CommandHandler<"commit"> {
  return async (session, { uploadId, hash }) => {
    if (!UPLOAD_ID.test(uploadId)) throw new FerryError("UploadNotFound");
    const first = await store.records.get(uploadId);
    if (!first) throw new FerryError("UploadNotFound");
    if (!isOwner(first, session.user.id, session.shareLinkId)) throw new FerryError("PermissionDenied");
    // The hash check (transfer settings cHashVerifySwitch, the Transfer protocol page): while it is on,
    // the client's hash of its file is required and compared; off, the client may leave it out and
    // the engine keeps the hash of the bytes it stored without a comparison.
    const verify = hash !== undefined;
    if (!verify && (await services.settings.get("transfer")).cHashVerifySwitch) throw new FerryError("BadRequired", { issues: [{ path: "hash", message: "the server's hash check is on" }] });

    // The tus lock keeps a PATCH, a DELETE or a second commit of this upload out meanwhile.
    const lock = locker.newLock(uploadId);
    await lock.lock(new AbortController().signal, () => undefined);
    // Set once the upload's target is known: a refusal from there on is its "upload failed" event.
    let failing: UploadTarget | null = null;
    try {
      const record = await store.records.get(uploadId);
      if (!record) throw new FerryError("UploadNotFound");
      if (record.committed) {
        if (verify && record.committed.hash !== hash) throw new FerryError("HashCheckError");
        return record.committed;
      }
      const target = targetOf(record);
      failing = target;
      const size = record.size ?? 0;
      const data = store.dataPath(uploadId);
      const stored = await lstat(data).catch(() => null);

      const space = await uploadSpace(services, session.user.id, target.groupId);
      let placed: SocketResults["commit"];
      if (record.store) placed = await commitStore(services, store, session.user.id, space, target, uploadId, record, verify ? hash : undefined);
      else if (!stored) {
        // The bytes left the store but the commit was not recorded: the engine stopped right after
        // placing the file. It counts as committed if the file at the path is exactly these bytes.
        if (!record.hash || (verify && record.hash !== hash)) throw new FerryError("UploadNotFound");
        const existing = await space.storage.stat(target.path).catch(() => null);
        if (!existing || existing.type !== "file" || existing.size !== size) throw new FerryError("UploadNotFound");
        if ((await blake3Of(await space.storage.createReadStream(target.path))) !== record.hash) throw new FerryError("UploadNotFound");
        placed = { path: existing.path, size, hash: record.hash };
        await services.hashes.record(space.key, existing.path, size, existing.mtime, record.hash);
      } else {
        // With Ferry chunks the file may have its full size with gaps: the stored prefix counts.
        const offset = Math.min(stored.size, prefixOf((await store.rangesOf(uploadId)) ?? []));
        if (offset < size) throw new FerryError("UploadIncomplete", { offset, size }, { offset, size });
        const actual = record.hash ?? (await hashes.get(uploadId));
        if (verify && actual !== hash) {
          // A mismatch means the bytes are not the client's file: they are of no use to anyone.
          await store.drop(uploadId);
          await services.quota.release([uploadId]);
          hashes.forget(uploadId);
          throw new FerryError("HashCheckError");
        }
        if (!record.hash) await store.records.set(uploadId, { ...record, hash: actual });
        // Past the quota the bytes stay in the store: the user may make room and commit again.
        const result = await placeUpload(services, session.user.id, space, target, size, data, actual);
        placed = { path: result.path, size: result.size, hash: actual };
      }
      await store.records.set(uploadId, { ...record, hash: placed.hash, committed: placed });
      // Its bytes are stored now: they count as used, no longer as reserved.
      await services.quota.release([uploadId]);
      hashes.forget(uploadId);
      // A signed-in user's upload (not a visitor's through an invitation), for the administrator's transfer notice (docs/mail.md).
      if (!session.shareLinkId) void services.transferNotices.record(session.user.id, { kind: "upload", groupId: target.groupId, paths: [placed.path] });
      // The transfer log (server/logs/): a visitor's upload is the link's, on its owner's space.
      const started = record.creation_date ? Date.parse(record.creation_date) : NaN;
      services.recorder.recordTransfer({
        userId: session.shareLinkId ? null : session.user.id,
        account: session.shareLinkId ? "" : session.user.account,
        groupId: target.groupId,
        direction: "upload",
        bytes: placed.size,
        files: 1,
        durationMs: Number.isFinite(started) ? Date.now() - started : 0,
        result: "ok",
        via: session.shareLinkId ? "share" : session.client ? "client" : "web",
        path: placed.path,
        address: session.address,
        shareId: session.shareLinkId ?? null,
      });
      // Once per upload: a repeated commit answered above, before this.
      services.events.fire({ type: "uploaded", userId: session.user.id, account: session.user.account, groupId: target.groupId, path: placed.path, size: placed.size });
      return placed;
    } catch (error) {
      // Not a commit sent before the last byte (the client sends the rest and commits again).
      if (failing && !(error instanceof FerryError && error.errorName === "UploadIncomplete")) {
        services.events.fire({ type: "upload_failed", userId: session.user.id, account: session.user.account, groupId: failing.groupId, path: failing.path, size: first.size ?? null });
      }
      throw error;
    } finally {
      await lock.unlock();
    }
  };
}
