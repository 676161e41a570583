import type { Readable } from "node:stream";

/**
 * The whole of a stream as one buffer, never more than `max` bytes in memory: past that it throws
 * `over()` (the file may have grown since its size was looked at). The stream is always destroyed.
 */
export async function readCapped(stream: Readable, max: number, over: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > max) throw over();
      chunks.push(chunk);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}
