import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE, tightenMode } from "../data-dir";

/**
 * The engine's key material for secrets it must read back (SMTP passwords): FERRY_SECRET, or a random
 * value kept in `<data dir>/engine-secret` (created once, mode 0600). It is never in the database, so
 * a copy of the database alone does not give the passwords away. Engines sharing one database must
 * share the secret too (same FERRY_SECRET, or the same data directory).
 */
export function loadEngineSecret(dataDir: string, configured: string | null): string {
  if (configured) return configured;
  const file = path.join(dataDir, "engine-secret");
  try {
    const secret = readFileSync(file, "utf8").trim();
    tightenMode(file, PRIVATE_FILE_MODE);
    return secret;
  } catch {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(48).toString("base64url");
    try {
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      return readFileSync(file, "utf8").trim(); // another process wrote it first
    }
  }
}

export interface SecretBox {
  /** AES-256-GCM ciphertext of `plain`, bound to `context` (e.g. the owner) as associated data. */
  seal(plain: string, context: string): string;
  /** The plain text, or null when the value was not sealed with this key for this context. */
  open(sealed: string, context: string): string | null;
}

const VERSION = "v1";

/** A box for one purpose: its key is derived from the engine secret with HKDF, so purposes never share a key. */
export function createSecretBox(secret: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", secret, "ferry-engine-secret", purpose, 32));
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== VERSION || !iv || !tag || body === undefined) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
