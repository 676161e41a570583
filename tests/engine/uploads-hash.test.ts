import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { blake3 } from "hash-wasm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blake3File, blake3Of, nativeBlake3, wasmBlake3 } from "../../server/uploads/hash";

/**
 * The engine's BLAKE3 (server/uploads/hash.ts): the native addon where it loads, hash-wasm
 * elsewhere. Both must give the browser's answer (the hash worker runs hash-wasm), or every commit
 * would fail its hash check. The official test vector pins the algorithm itself.
 */

const MIB = 1024 * 1024;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-uploads-hash-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Uneven chunks, as a socket or a file stream delivers them. */
function chunked(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0, n = 1; at < bytes.length; n++) {
    const size = Math.min(bytes.length - at, 1 + ((n * 7919) % 300_000));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

describe("the engine's BLAKE3", () => {
  it("loads the native addon on this machine (the fast path the bench measures)", () => {
    expect(nativeBlake3()).not.toBeNull();
  });

  it("gives the BLAKE3 test vector for no input", async () => {
    expect(await blake3Of(Readable.from([]))).toBe("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
  });

  it("agrees with hash-wasm (the browser's implementation) on streams and files of many sizes", async () => {
    for (const size of [1, 1023, 1024, 1025, 64 * 1024 + 7, 5 * MIB + 3]) {
      const bytes = randomBytes(size);
      const expected = await blake3(bytes);
      expect(await blake3Of(chunked(bytes))).toBe(expected);
      const wasm = await wasmBlake3();
      wasm.update(bytes);
      expect(wasm.digest()).toBe(expected);
      const file = path.join(dir, `f-${size}`);
      await writeFile(file, bytes);
      expect(await blake3File(file)).toBe(expected);
    }
  });
});
