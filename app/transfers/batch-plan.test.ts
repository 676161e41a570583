import { describe, expect, it } from "vitest";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { UPLOAD_BATCH, uploadBatchHeader } from "../../contract/files";
import { batchBody, batchLimits, entryBytes, fileOffsets, fitsBatch, nextBatchSize, retriesBatch, retryMayHelp, sentOf, type BatchEntry } from "./batch-plan";

const MIB = 1024 * 1024;
const entry = (size: number, path = "/photos/2024/a.jpg"): BatchEntry => ({ groupId: 0, path, size, overwrite: false });
const files = (count: number, size: number, path = (i: number) => `/f/${i}.txt`) => Array.from({ length: count }, (_, i) => entry(size, path(i)));

/** Splits a whole queue the way the manager does: batch after batch from the front. */
function drain(queue: BatchEntry[], limits = batchLimits(0), hashed = true): BatchEntry[][] {
  const out: BatchEntry[][] = [];
  for (let rest = queue; rest.length > 0; ) {
    const n = nextBatchSize(rest, limits, hashed, 1);
    out.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  return out;
}

const headerOf = (batch: BatchEntry[]) => new TextEncoder().encode(JSON.stringify({ files: batch.map((e) => ({ ...e, hash: "a".repeat(64) })) })).length;

describe("batch limits", () => {
  it("are the engine's, with the part size as a further cap on the body", () => {
    expect(batchLimits(0)).toEqual({ maxBytes: UPLOAD_BATCH.maxBytes, maxFiles: UPLOAD_BATCH.maxFiles, maxFileBytes: UPLOAD_BATCH.maxFileBytes, maxHeaderBytes: UPLOAD_BATCH.maxHeaderBytes });
    expect(batchLimits(8).maxBytes).toBe(8 * MIB);
    expect(batchLimits(100).maxBytes).toBe(UPLOAD_BATCH.maxBytes);
  });

  it("take files up to 4 MiB, and none that would not fit a part alone", () => {
    expect(fitsBatch(entry(4 * MIB), batchLimits(0), true)).toBe(true);
    expect(fitsBatch(entry(4 * MIB + 1), batchLimits(0), true)).toBe(false);
    expect(fitsBatch(entry(0), batchLimits(0), true)).toBe(true);
    // A 1 MB part: a file of exactly 1 MiB leaves no room for the header.
    expect(fitsBatch(entry(MIB), batchLimits(1), true)).toBe(false);
    expect(fitsBatch(entry(MIB - 1000), batchLimits(1), true)).toBe(true);
  });
});

describe("grouping", () => {
  it("counts each entry's header bytes exactly, with or without the hash", () => {
    const e = entry(10, "/文件夹/ä.txt");
    expect(entryBytes(e, false)).toBe(new TextEncoder().encode(JSON.stringify(e)).length);
    expect(entryBytes(e, true)).toBe(entryBytes(e, false) + ',"hash":""'.length + 64);
  });

  it("puts 5,000 files of 4 KiB into batches within every limit of the engine, in order, none left out", () => {
    const queue = files(5000, 4096, (i) => `/bench/small/${String(i).padStart(5, "0")}.bin`);
    const batches = drain(queue);
    expect(batches.flat()).toEqual(queue);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(UPLOAD_BATCH.maxFiles);
      expect(headerOf(batch)).toBeLessThanOrEqual(UPLOAD_BATCH.maxHeaderBytes);
      expect(4 + headerOf(batch) + batch.reduce((n, e) => n + e.size, 0)).toBeLessThanOrEqual(UPLOAD_BATCH.maxBytes);
      expect(uploadBatchHeader.safeParse({ files: batch.map((e) => ({ ...e, hash: "a".repeat(64) })) }).success).toBe(true);
    }
    // The header (64 KiB) bounds these batches, not the file count: each is as full as it can be.
    expect(batches.length).toBeLessThan(20);
    for (const batch of batches.slice(0, -1)) expect(headerOf(batch) + 200).toBeGreaterThan(UPLOAD_BATCH.maxHeaderBytes);
  });

  it("stops at 1,000 files when the header has room for more (no hashes: the engine's check is off)", () => {
    const queue = files(2500, 0, (i) => `/${i}`);
    expect(drain(queue, batchLimits(0), false).map((b) => b.length)).toEqual([1000, 1000, 500]);
  });

  it("stops before the body would pass 32 MiB, or the administrator's part size", () => {
    const queue = files(20, 4 * MIB);
    const batches = drain(queue);
    expect(batches.map((b) => b.length)).toEqual([7, 7, 6]);
    const parted = drain(files(10, MIB / 2), batchLimits(2));
    expect(parted.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    for (const batch of parted) expect(4 + headerOf(batch) + batch.reduce((n, e) => n + e.size, 0)).toBeLessThanOrEqual(2 * MIB);
  });

  it("shares a short queue between the batches in flight, so a small folder still uses several connections", () => {
    expect(nextBatchSize(files(200, 4096), batchLimits(0), true, 2)).toBe(100);
    expect(nextBatchSize(files(3, 4096), batchLimits(0), true, 2)).toBe(2);
    expect(nextBatchSize(files(1, 4096), batchLimits(0), true, 2)).toBe(1);
    expect(nextBatchSize([], batchLimits(0), true, 2)).toBe(0);
  });
});

describe("a batch's body and progress", () => {
  it("is the header's length (4 bytes, big-endian), the header, then the files back to back", async () => {
    const entries = [entry(3, "/a"), entry(2, "/b")];
    const { body, headerBytes } = batchBody(entries, [new Blob(["abc"]), new Blob(["de"])]);
    const bytes = new Uint8Array(await body.arrayBuffer());
    const length = new DataView(bytes.buffer).getUint32(0, false);
    expect(headerBytes).toBe(4 + length);
    expect(JSON.parse(new TextDecoder().decode(bytes.slice(4, 4 + length)))).toEqual({ files: entries });
    expect(new TextDecoder().decode(bytes.slice(4 + length))).toBe("abcde");
    expect(bytes.length).toBe(4 + length + 5);
  });

  it("maps the bytes sent to each file: none before its first byte, all once past its last", () => {
    const offsets = fileOffsets([3, 0, 5], 10);
    expect(offsets).toEqual([10, 13, 13]);
    expect([3, 0, 5].map((size, i) => sentOf(offsets[i]!, size, 9))).toEqual([0, 0, 0]);
    expect([3, 0, 5].map((size, i) => sentOf(offsets[i]!, size, 12))).toEqual([2, 0, 0]);
    expect([3, 0, 5].map((size, i) => sentOf(offsets[i]!, size, 15))).toEqual([3, 0, 2]);
    expect([3, 0, 5].map((size, i) => sentOf(offsets[i]!, size, 18))).toEqual([3, 0, 5]);
  });

  it("retries a whole batch after the network, a proxy's or the engine's 5xx, or an answer not the engine's; not after a full disk or a refusal", () => {
    expect(retriesBatch(0, null)).toBe(true);
    expect(retriesBatch(502, ErrorCode.ServerError)).toBe(true);
    expect(retriesBatch(504, ErrorCode.ServerError)).toBe(true);
    expect(retriesBatch(500, ErrorCode.DatabaseException)).toBe(true);
    expect(retriesBatch(413, null)).toBe(true);
    expect(retriesBatch(500, ErrorCode.DiskFull)).toBe(false);
    expect(retriesBatch(500, ErrorCode.DiskInsufficient)).toBe(false);
    expect(retriesBatch(401, ErrorCode.InvalidToken)).toBe(false);
    expect(retriesBatch(400, ErrorCode.ParameterError)).toBe(false);
  });

  it("tells the refusals a Retry would meet again from those it may change", () => {
    for (const code of [ErrorCode.PermissionDenied, ErrorCode.FileFormatRefused, ErrorCode.QuotaExceeded, ErrorCode.FileTooLarge, ErrorCode.FileFiltered, ErrorCode.PathExists, ErrorCode.NameFormat]) {
      expect(retryMayHelp(errorMessageKey(code)), `code ${code}`).toBe(false);
    }
    for (const key of [errorMessageKey(ErrorCode.ServerError), "transfers.error.network", "transfers.error.read-failed", null]) expect(retryMayHelp(key), String(key)).toBe(true);
  });
});
