import * as z from "zod";
import { usesChunks } from "./chunk-plan";

/**
 * Unfinished uploads kept in localStorage, one list per account, so a reload (or a browser restart)
 * shows them again and they resume from what the server holds (the tus URL answers HEAD with its
 * offset). Only what is needed to find the upload and recognise the same file again is kept.
 */
export const savedUpload = z.object({
  id: z.string().min(1).max(100),
  groupId: z.number().int().min(0),
  /** Final path of the file in its space. */
  path: z.string().min(1).max(4096),
  name: z.string().max(255),
  size: z.number().int().min(0),
  lastModified: z.number(),
  type: z.string().max(255),
  uploadUrl: z.string().max(2048).nullable(),
  /** Bytes the server had confirmed when last saved (shown until the upload runs again). */
  offset: z.number().int().min(0),
  createTime: z.number().int(),
  /** Created with overwrite (the user chose to replace the file at the target); absent: never replaces. */
  overwrite: z.boolean().optional(),
  /**
   * Created by Ferry's parallel chunks (chunked-upload.client.ts): what the engine holds may have
   * gaps (Ferry-Ranges), which one PATCH from the offset cannot fill, so it resumes in chunks
   * whatever the part size is by then. Absent: one stream (tus), or not created yet.
   */
  chunked: z.boolean().optional(),
  /**
   * Failed in the tab that ran it, with the reason: another tab showing it as running there shows
   * the failure instead (that tab offers Retry). Cleared when it runs again.
   */
  failed: z.object({ errorMsgKey: z.string().max(200), errorVars: z.record(z.string(), z.union([z.string(), z.number()])).optional() }).optional(),
});
export type SavedUpload = z.infer<typeof savedUpload>;

const storageKey = (account: string) => `ferry.transfers.${account}`;

export function loadUploads(storage: Storage, account: string): SavedUpload[] {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(storageKey(account)) ?? "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  // One damaged entry must not hide the others.
  return raw.flatMap((entry) => {
    const parsed = savedUpload.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

export function saveUploads(storage: Storage, account: string, uploads: SavedUpload[]) {
  try {
    if (uploads.length === 0) storage.removeItem(storageKey(account));
    else storage.setItem(storageKey(account), JSON.stringify(uploads));
  } catch {
    // A full or disabled storage costs the reload survival, not the upload itself.
  }
}

/** Read-modify-write of one account's list. */
export function updateUploads(storage: Storage, account: string, change: (uploads: SavedUpload[]) => SavedUpload[]) {
  saveUploads(storage, account, change(loadUploads(storage, account)));
}

/**
 * Whether an upload goes as parallel chunks: one created in chunks resumes in chunks (its stored
 * ranges may have gaps; the engine refuses a single PATCH over them with 409), even when the part
 * size changed since and the plan alone (`usesChunks`) would send the file in one stream.
 */
export const resumesInChunks = (saved: Pick<SavedUpload, "chunked" | "uploadUrl">, size: number, chunk: number) => (saved.chunked === true && saved.uploadUrl !== null) || usesChunks(size, chunk);

/** Whether `file` is the one an unfinished upload was reading (name, size and modification time agree). */
export function sameFile(saved: Pick<SavedUpload, "name" | "size" | "lastModified">, file: Pick<File, "name" | "size" | "lastModified">): boolean {
  return saved.name === file.name && saved.size === file.size && saved.lastModified === file.lastModified;
}
