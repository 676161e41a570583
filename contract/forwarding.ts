import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";

/**
 * How the web vouches for a visitor's address to the engine (docs/security.md, section 2): it sends
 * the address with an HMAC-SHA256 under a key only the web and the engine hold (FERRY_FORWARD_SECRET,
 * or `<data dir>/forward-secret`). The engine believes the address only when the MAC verifies, so
 * nobody else (a local process, a browser) can speak for another address. Server-only: the web's
 * `engine.server.ts` and the engine's `server/http/client-address.ts` import it.
 */
export const CLIENT_ADDRESS_HEADER = "x-ferry-client-address";
export const CLIENT_SIGNATURE_HEADER = "x-ferry-client-signature";
/** What the web sends when it cannot know the visitor's address: counted per account only, like a trusted proxy that names nobody. */
export const UNKNOWN_CLIENT = "unknown";
export const FORWARD_SECRET_FILE = "forward-secret";

export function signClientAddress(key: string, address: string): string {
  return createHmac("sha256", key).update(address, "utf8").digest("hex");
}

/** The address the headers vouch for (null for "unknown"), or undefined when they are absent, malformed or not signed with `key`. */
export function verifiedClientAddress(key: string, address: string | undefined, signature: string | undefined): string | null | undefined {
  if (!address || !signature || address.length > 64 || !/^[0-9a-f]{64}$/.test(signature)) return undefined;
  if (address !== UNKNOWN_CLIENT && isIP(address) === 0) return undefined;
  const expected = Buffer.from(signClientAddress(key, address), "hex");
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) return undefined;
  return address === UNKNOWN_CLIENT ? null : address;
}

function readKey(file: string): string {
  // Secrets are the service user's alone, also when an older install left the file readable by others.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim();
}

/**
 * FERRY_FORWARD_SECRET, or the key in `<data dir>/forward-secret`: 32 random bytes (hex), created
 * once with mode 0600 by whichever process starts first. The file is written under a temporary name
 * and linked into place (link fails if the name exists), so the other process never reads it half
 * written; the loser of the race reads the winner's key.
 */
export function loadForwardSecret(dataDir: string, configured: string | null | undefined): string {
  if (configured) return configured;
  const file = path.resolve(dataDir, FORWARD_SECRET_FILE);
  try {
    return readKey(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(temporary, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readKey(file);
}
