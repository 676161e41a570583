import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { ERRORS } from "@tus/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UploadStore } from "../../server/uploads/store";

/**
 * How the upload store writes a PATCH's bytes (UploadStore.write, 1 MiB write batches). The store is the real one on a real directory; tus calls `write` like
 * this, one call per PATCH, with the stored size as offset (tests/engine/uploads.test.ts covers the
 * same path over HTTP, uploads-crash.test.ts a kill -9 in the middle).
 */

const MIB = 1024 * 1024;
let dir: string;
let store: UploadStore;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-uploads-store-"));
  store = await UploadStore.open(dir, 60_000);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function create(): Promise<string> {
  const id = randomBytes(16).toString("hex");
  await writeFile(store.dataPath(id), "");
  return id;
}

/** A request body in network-sized chunks of uneven length, as sockets deliver them. */
function body(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0, n = 1; at < bytes.length; n++) {
    const size = Math.min(bytes.length - at, 1 + ((n * 7919) % 70_000));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

describe("the upload store's writes", () => {
  it("stores exactly the bytes of several PATCHes, each at its offset", async () => {
    const file = randomBytes(5 * MIB + 123);
    const id = await create();
    let offset = 0;
    for (const end of [1, 777_777, 3 * MIB, file.length]) {
      offset = await store.write(body(file.subarray(offset, end)), id, offset);
      expect(offset).toBe(end);
    }
    expect(Buffer.compare(await readFile(store.dataPath(id)), file)).toBe(0);
  });

  it("keeps a large PATCH whole, written in many batches", async () => {
    const file = randomBytes(130 * MIB);
    const id = await create();
    expect(await store.write(body(file), id, 0)).toBe(file.length);
    expect(Buffer.compare(await readFile(store.dataPath(id)), file)).toBe(0);
  });

  it("after a PATCH that fails, the stored size is a true offset to resume from", async () => {
    const file = randomBytes(3 * MIB);
    const id = await create();
    const sent = MIB + 5;
    const failing = Readable.from(
      (async function* () {
        yield file.subarray(0, sent);
        throw new Error("connection reset");
      })(),
    );
    await expect(store.write(failing, id, 0)).rejects.toBe(ERRORS.FILE_WRITE_ERROR);
    // Bytes still buffered when the error struck are not stored; what is stored is the file's start.
    const stored = (await stat(store.dataPath(id))).size;
    expect(stored).toBeLessThanOrEqual(sent);
    expect(await store.write(body(file.subarray(stored)), id, stored)).toBe(file.length);
    expect(Buffer.compare(await readFile(store.dataPath(id)), file)).toBe(0);
  });

  it("refuses to write to an upload whose data file is gone", async () => {
    const id = randomBytes(16).toString("hex");
    await expect(store.write(body(randomBytes(1000)), id, 0)).rejects.toBe(ERRORS.FILE_WRITE_ERROR);
  });
});
