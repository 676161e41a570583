import { randomBytes } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blake3Of } from "../../server/uploads/hash";
import { RangeWriter, readBack, UploadProgress } from "../../server/uploads/progress";

/**
 * The upload hash is fed while each write runs (progress.ts, hashAhead): a write that then fails
 * must not leave its bytes in the hash. Real files; a write through a read-only handle fails (EBADF).
 */

const MIB = 1024 * 1024;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ferry-progress-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeWith(flags: "r+" | "r", file: string, at: number, bytes: Buffer, progress: UploadProgress) {
  const writer = new RangeWriter(await open(file, flags), at, bytes.length, progress);
  // Several chunks, as a request delivers them.
  const chunks = Array.from({ length: bytes.length / (64 * 1024) }, (_, i) => bytes.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
  await pipeline(Readable.from(chunks), writer);
  return writer.written;
}

describe("upload progress hash", () => {
  it("hashes in-order writes as they go, reading nothing back", async () => {
    const file = path.join(dir, "data");
    await writeFile(file, "");
    const data = randomBytes(3 * MIB);
    const progress = await UploadProgress.create(file, data.length, [], false);
    const before = readBack.bytes;
    for (let at = 0; at < data.length; at += MIB) await writeWith("r+", file, at, data.subarray(at, at + MIB), progress);
    expect(await progress.digest()).toBe(await blake3Of(Readable.from([data])));
    expect(readBack.bytes - before).toBe(0);
  });

  it("drops the bytes of a failed write from the hash and rehashes what the file holds", async () => {
    const file = path.join(dir, "data");
    await writeFile(file, "");
    const data = randomBytes(2 * MIB);
    const progress = await UploadProgress.create(file, data.length, [], false);
    await writeWith("r+", file, 0, data.subarray(0, MIB), progress);
    // Other bytes at the hash's position, through a handle that cannot write: the write fails.
    await expect(writeWith("r", file, MIB, randomBytes(MIB), progress)).rejects.toThrow();
    expect(progress.ranges).toEqual([[0, MIB]]);
    await writeWith("r+", file, MIB, data.subarray(MIB), progress);
    expect(progress.ranges).toEqual([[0, 2 * MIB]]);
    expect(await progress.digest()).toBe(await blake3Of(Readable.from([data])));
  });
});
