import { createReadStream } from "node:fs";
import { createBLAKE3 } from "hash-wasm";
import { STREAM_BUFFER } from "../storage/storage";

/**
 * BLAKE3-256 (lowercase hex, contract/files.ts HASH_ALGORITHM) of a stream of bytes. Each chunk is
 * awaited, so with 1 MiB chunks a large file never holds the event loop for more than one chunk's
 * hashing (~1.3 ms at the measured 780 MiB/s).
 */
export async function blake3Of(source: AsyncIterable<Uint8Array>): Promise<string> {
  const hasher = await createBLAKE3(256);
  hasher.init();
  for await (const chunk of source) hasher.update(chunk);
  return hasher.digest("hex");
}

/** BLAKE3-256 of a local file, read in 1 MiB pieces. */
export const blake3File = (file: string): Promise<string> => blake3Of(createReadStream(file, { highWaterMark: STREAM_BUFFER }));
