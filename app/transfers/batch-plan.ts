import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { UPLOAD_BATCH } from "../../contract/files";

/**
 * Small files in batches (docs/web.md, "Small files in batches"; the engine's side in
 * docs/file-server.md, "Small files in batches (Ferry extension)"): which files of a pick go by
 * `POST /uploads/batch`, how they are grouped into requests, and how one request's bytes sent
 * map to each of its files. Pure, so the grouping is unit-tested (batch-plan.test.ts).
 */

const MIB = 1024 * 1024;

/** Batches of one pick sent at once (each is one of the sign-in's `parallelUploads`). */
export const BATCHES_IN_FLIGHT = 2;

/** What the engine takes in one batch; `maxBytes` is the whole body (the 4 bytes and the header included). */
export interface BatchLimits {
  maxBytes: number;
  maxFiles: number;
  maxFileBytes: number;
  maxHeaderBytes: number;
}

/** The engine's limits, with the Transfer protocol's part size (MB; 0: none) as a further cap on the body. */
export function batchLimits(partMB: number): BatchLimits {
  const maxBytes = partMB > 0 ? Math.min(UPLOAD_BATCH.maxBytes, partMB * MIB) : UPLOAD_BATCH.maxBytes;
  return { maxBytes, maxFiles: UPLOAD_BATCH.maxFiles, maxFileBytes: UPLOAD_BATCH.maxFileBytes, maxHeaderBytes: UPLOAD_BATCH.maxHeaderBytes };
}

/** One file's entry in a batch's header (contract/files.ts, `uploadBatchHeader`). */
export interface BatchEntry {
  groupId: number;
  path: string;
  size: number;
  overwrite: boolean;
  hash?: string;
}

const encoder = new TextEncoder();
const HASH_PLACEHOLDER = "0".repeat(64);
/** `{"files":[` and `]}`. */
const HEADER_FRAME = encoder.encode('{"files":[]}').length;

/** Bytes of the entry in the header's JSON; `hashed`: with a 64-hex hash (counted before the hash is known). */
export function entryBytes(entry: BatchEntry, hashed: boolean): number {
  return encoder.encode(JSON.stringify(hashed ? { ...entry, hash: HASH_PLACEHOLDER } : { ...entry, hash: undefined })).length;
}

/** Whether a file may go in a batch at all: at most `maxFileBytes`, and alone in a batch within the body limit. */
export function fitsBatch(entry: BatchEntry, limits: BatchLimits, hashed: boolean): boolean {
  if (entry.size > limits.maxFileBytes) return false;
  const header = HEADER_FRAME + entryBytes(entry, hashed);
  return header <= limits.maxHeaderBytes && 4 + header + entry.size <= limits.maxBytes;
}

/**
 * How many of `queue`'s first files make the next batch: as many as fit the engine's limits (files,
 * header bytes, body bytes), and, while fewer files wait than would fill every batch in flight,
 * about an equal share of them (`share` batches), so that short picks still use several
 * connections. At least one when the queue is not empty (every queued file fits alone: fitsBatch).
 */
export function nextBatchSize(queue: readonly BatchEntry[], limits: BatchLimits, hashed: boolean, share = BATCHES_IN_FLIGHT): number {
  if (queue.length === 0) return 0;
  const wanted = Math.min(limits.maxFiles, Math.max(1, Math.ceil(queue.length / Math.max(1, share))));
  let header = HEADER_FRAME;
  let body = 4;
  let count = 0;
  for (const entry of queue) {
    if (count >= wanted) break;
    const entryHeader = entryBytes(entry, hashed) + (count > 0 ? 1 : 0);
    if (count > 0 && (header + entryHeader > limits.maxHeaderBytes || body + header + entryHeader + entry.size > limits.maxBytes)) break;
    header += entryHeader;
    body += entry.size;
    count += 1;
  }
  return Math.max(1, count);
}

/** The body of a batch: 4-byte big-endian header length, the header, the files back to back; `headerBytes` = 4 + the header's. */
export function batchBody(entries: readonly BatchEntry[], files: readonly Blob[]): { body: Blob; headerBytes: number } {
  const header = encoder.encode(JSON.stringify({ files: entries }));
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, header.length, false);
  return { body: new Blob([length, header, ...files], { type: "application/octet-stream" }), headerBytes: 4 + header.length };
}

/**
 * Where each file's bytes lie in a batch's body whose header takes `headerBytes` (the 4 bytes
 * included): the first byte of each file.
 */
export function fileOffsets(sizes: readonly number[], headerBytes: number): number[] {
  const offsets: number[] = [];
  let at = headerBytes;
  for (const size of sizes) {
    offsets.push(at);
    at += size;
  }
  return offsets;
}

/** Bytes of file `i` sent when `loaded` bytes of the body are: 0 before its first byte, its size once past its last. */
export function sentOf(offset: number, size: number, loaded: number): number {
  return Math.min(size, Math.max(0, loaded - offset));
}

/**
 * Whether a batch that failed as a whole (`status`: its HTTP status, 0 when the network broke it
 * off; `code`: the engine's, null without its envelope) is sent again by itself after a back-off: the
 * network, a proxy's 5xx page (502, 503, 504), an engine's 5xx (a server or database error), and an
 * answer that is not the engine's at all. Not a full disk (it would fail again) nor any other
 * refusal of the engine (the token, a header it would not take): each file says why at once.
 */
export function retriesBatch(status: number, code: number | null): boolean {
  if (status === 0 || code === null) return true;
  if (code === ErrorCode.DiskFull || code === ErrorCode.DiskInsufficient) return false;
  return status >= 500;
}

/**
 * The engine's refusals of one file that a Retry would only meet again, unless someone changes the
 * space, the account or the file first: too large, skipped by the file filter, a name or a type the
 * space does not take, no permission, no room, the name taken. The summary row of a batch offers
 * Retry only when some refusal is not one of these (a file's own row still offers it, but for size
 * and filter).
 */
const FINAL_REFUSALS = new Set(
  [ErrorCode.FileTooLarge, ErrorCode.FileFiltered, ErrorCode.NameFormat, ErrorCode.FileFormatRefused, ErrorCode.PermissionDenied, ErrorCode.QuotaExceeded, ErrorCode.PathExists, ErrorCode.UploadNewOnly, ErrorCode.InvalidPath].map((code) => errorMessageKey(code)),
);

export const retryMayHelp = (errorMsgKey: string | null | undefined) => !errorMsgKey || !FINAL_REFUSALS.has(errorMsgKey);
