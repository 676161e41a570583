import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { lstat, rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { Services } from "../services";
import { FerryError } from "../errors";
import { rulesOf } from "../files/upload-rules";
import { STREAM_BUFFER } from "../storage/storage";
import { checkTargetFree, isOwner, parseTarget, reserveQuota, sizeLimit, storedMetadata, uploadSpace } from "./checks";
import { PARTIAL_KEY, type UploadStore } from "./store";

/**
 * The tus concatenation extension (parallel chunks): the client sends the parts of a file as
 * partial uploads (`Upload-Concat: partial`, at the same time), then creates the final upload with
 * `Upload-Concat: final;<url> <url>…`. @tus/file-store cannot concatenate, so the engine does it
 * here: once every part is complete, their bytes are copied in order into a new, complete upload,
 * which the client commits like any other. The copy costs one extra write of the file; the parts
 * are kept until the copy is durable, so a crash meanwhile loses nothing.
 */

/** The upload ids named by an `Upload-Concat: final;…` header (absolute or relative URLs). */
export function partIds(header: string, prefix: string): string[] | null {
  if (!header.startsWith("final;")) return null;
  const urls = header.slice("final;".length).trim().split(/\s+/).filter(Boolean);
  if (urls.length === 0 || urls.length > 1000) return null;
  const ids: string[] = [];
  for (const u of urls) {
    let pathname: string;
    try {
      pathname = new URL(u, "http://file-server").pathname;
    } catch {
      return null;
    }
    if (!pathname.startsWith(prefix)) return null;
    ids.push(pathname.slice(prefix.length));
  }
  return ids;
}

/** Builds the final upload from complete partial uploads of the same caller; returns its id. */
export async function concatenate(services: Services, store: UploadStore, userId: number, ids: string[], metadata: Record<string, string | null>): Promise<string> {
  const target = parseTarget(metadata);
  const space = await uploadSpace(services, userId, target.groupId);
  let total = 0;
  for (const id of ids) {
    const record = /^[0-9a-f]{32}$/.test(id) ? await store.records.get(id) : undefined;
    if (!record || record.committed) throw new FerryError("UploadNotFound");
    if (!isOwner(record, userId)) throw new FerryError("PermissionDenied");
    if (record.metadata?.[PARTIAL_KEY] !== "1") throw new FerryError("InvalidData", { reason: "not a partial upload", id });
    const stored = await lstat(store.dataPath(id)).catch(() => null);
    if (!stored || stored.size !== record.size) throw new FerryError("UploadIncomplete", { offset: stored?.size ?? 0, size: record.size ?? 0 }, { offset: stored?.size ?? 0, size: record.size ?? 0 });
    total += stored.size;
  }
  const limit = await sizeLimit(services);
  if (total > limit) throw new FerryError("FileTooLarge", { limit }, { limit });
  await checkTargetFree(space, target, await rulesOf(services.db, userId, space), total);
  const id = randomBytes(16).toString("hex");
  // The parts' reservations are left out of the check; they end once the parts are gone.
  await reserveQuota(services, id, userId, space, target, total, { replaces: ids });
  const temp = `${store.dataPath(id)}.assembling`;
  try {
    const out = createWriteStream(temp, { flags: "wx", highWaterMark: STREAM_BUFFER, flush: true });
    await pipeline(async function* () {
      for (const part of ids) yield* createReadStream(store.dataPath(part), { highWaterMark: STREAM_BUFFER });
    }, out);
    await rename(temp, store.dataPath(id));
  } catch (error) {
    await rm(temp, { force: true });
    await services.quota.release([id]);
    throw error;
  }
  await store.records.set(id, { id, size: total, offset: total, metadata: storedMetadata(target, userId, space), creation_date: new Date().toISOString() });
  for (const part of ids) await store.drop(part);
  await services.quota.release(ids);
  return id;
}
