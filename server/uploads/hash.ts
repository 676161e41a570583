import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import type * as BlakeHash from "@napi-rs/blake-hash";
import { createBLAKE3 } from "hash-wasm";
import { STREAM_BUFFER } from "../storage/storage";

/**
 * BLAKE3-256 (lowercase hex, contract/files.ts HASH_ALGORITHM) of a stream of bytes.
 *
 * Native BLAKE3 (`@napi-rs/blake-hash`, the Rust `blake3` crate with its AVX2/AVX-512/NEON code
 * chosen at run time) where its prebuilt addon exists for the platform: ~7 GiB/s on one core of the
 * development machine against ~780 MiB/s for hash-wasm's portable WebAssembly (docs/bench.md,
 * "Upload path"). hash-wasm stays the fallback, so a platform without the addon still hashes.
 * Each chunk is awaited, so a large file never holds the event loop for more than one chunk's
 * hashing (1 MiB: ~0.15 ms native, ~1.3 ms wasm).
 */

export interface Blake3 {
  update(data: Uint8Array): unknown;
  digest(): string;
}

type NativeModule = typeof BlakeHash;
let native: NativeModule | null | undefined;

/** The native addon, or null when it cannot load here (no prebuilt binary for the platform). */
export function nativeBlake3(): NativeModule | null {
  if (native === undefined) {
    try {
      native = createRequire(import.meta.url)("@napi-rs/blake-hash") as NativeModule;
    } catch {
      native = null;
    }
  }
  return native;
}

/** The portable WebAssembly BLAKE3 (also what the browser's hash worker runs). */
export async function wasmBlake3(): Promise<Blake3> {
  const hasher = await createBLAKE3(256);
  hasher.init();
  return { update: (data) => hasher.update(data), digest: () => hasher.digest("hex") };
}

export async function createHasher(): Promise<Blake3> {
  const addon = nativeBlake3();
  if (!addon) return wasmBlake3();
  const hasher = new addon.Blake3Hasher();
  return { update: (data) => hasher.update(data), digest: () => hasher.digest("hex") };
}

export async function blake3Of(source: AsyncIterable<Uint8Array>): Promise<string> {
  const hasher = await createHasher();
  for await (const chunk of source) hasher.update(chunk);
  return hasher.digest();
}

/**
 * BLAKE3-256 of a local file, read in 1 MiB pieces into one buffer used again for every piece (the
 * hasher keeps nothing of what it was given): ten uploads finishing at once then hold 10 MiB, not
 * a stream's fresh buffer per MiB waiting for the garbage collector (engine RSS, docs/bench.md).
 */
export async function blake3File(file: string): Promise<string> {
  const hasher = await createHasher();
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.allocUnsafeSlow(STREAM_BUFFER);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, STREAM_BUFFER, null);
      if (bytesRead === 0) break;
      hasher.update(bytesRead === STREAM_BUFFER ? buffer : buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hasher.digest();
}
