import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { PRIVATE_DIR_MODE } from "../data-dir";

/** `<data dir>/tls`: the uploaded certificate, its key, the client CA bundle and the non-TLS switch. */
export const tlsDir = (dataDir: string) => path.join(dataDir, "tls");

/**
 * Writes `file` whole or not at all: a temporary file beside it (created with `mode`, never wider),
 * flushed to disk, then renamed over the old one, so a crash never leaves half a key.
 */
export async function writeAtomic(file: string, text: string, mode: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(text, "utf8");
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
}

/** A file's text, or null when it does not exist. */
export async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
