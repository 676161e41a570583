import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The entry names of a zip archive, sorted, as Info-ZIP's `zipinfo -1` reads them (a real reader, not ours). */
export async function zipNames(body: Uint8Array): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "ferry-zip-"));
  try {
    const file = path.join(dir, "archive.zip");
    await writeFile(file, body);
    return (await run("zipinfo", ["-1", file])).stdout.split("\n").filter(Boolean).sort();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One file's bytes from a zip archive, as Info-ZIP's `unzip -p` extracts them (checking its CRC). */
export async function zipFile(body: Uint8Array, name: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), "ferry-zip-"));
  try {
    const file = path.join(dir, "archive.zip");
    await writeFile(file, body);
    return (await run("unzip", ["-p", file, name], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 })).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
