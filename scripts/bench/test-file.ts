import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { once } from "node:events";
import path from "node:path";

const MIB = 1024 * 1024;

/** A file of random bytes (nothing on the path can compress it), written once and shared by every server. */
export async function writeTestFile(file: string, size: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(file, { highWaterMark: MIB });
  for (let written = 0; written < size; written += MIB) {
    if (!out.write(randomBytes(Math.min(MIB, size - written)))) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
