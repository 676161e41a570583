import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "./env.server";

/**
 * The key that signs and seals the session cookie: FERRY_SESSION_SECRET, or a random one kept in
 * the data directory (created once, mode 0600), so sessions survive restarts and several web
 * processes on the same data directory agree.
 */
function loadSecret(): string {
  if (env.FERRY_SESSION_SECRET) return env.FERRY_SESSION_SECRET;
  const file = path.resolve(env.FERRY_DATA_DIR, "web-session-secret");
  try {
    const secret = readFileSync(file, "utf8").trim();
    // Readable by the service's user only, also when an older install left it looser (docs/security.md).
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return secret;
  } catch {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const secret = randomBytes(48).toString("base64url");
    try {
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      return readFileSync(file, "utf8").trim(); // another process wrote it first
    }
  }
}

export const sessionSecret = loadSecret();
