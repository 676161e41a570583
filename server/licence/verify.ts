import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { type LicencePayload, licenceFile, licencePayload } from "../../contract/licence";

/** An Ed25519 public key from its raw 32 bytes in base64 or base64url (a JWK's `x`). */
export function ed25519PublicKey(raw: string): KeyObject {
  const bytes = Buffer.from(raw.trim().replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (bytes.length !== 32) throw new Error("an Ed25519 public key is 32 bytes (base64 or base64url)");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: bytes.toString("base64url") }, format: "jwk" });
}

export type Verified = { ok: true; payload: LicencePayload } | { ok: false; code: 1092 | 1093; reason: string; payload: LicencePayload | null };

/**
 * Checks a licence file's text: JSON of the right shape, a signature by one of `keys` over the
 * payload's exact bytes, a payload of the right shape, and not expired at `nowSeconds`. An expired
 * licence still returns its (verified) payload, so the administrator sees what expired.
 */
export function verifyLicence(text: string, keys: readonly KeyObject[], nowSeconds: number): Verified {
  let file;
  try {
    file = licenceFile.parse(JSON.parse(text));
  } catch {
    return { ok: false, code: 1093, reason: "not a licence file", payload: null };
  }
  const bytes = Buffer.from(file.payload, "base64");
  const signature = Buffer.from(file.signature, "base64");
  // Base64 that does not round-trip is not what was signed: refuse rather than guess.
  if (bytes.toString("base64") !== file.payload.replace(/\s/g, "") || signature.length !== 64) return { ok: false, code: 1093, reason: "not a licence file", payload: null };
  if (!keys.some((key) => verify(null, bytes, key, signature))) return { ok: false, code: 1093, reason: "signature does not verify", payload: null };
  let payload: LicencePayload;
  try {
    payload = licencePayload.parse(JSON.parse(bytes.toString("utf8")));
  } catch {
    return { ok: false, code: 1093, reason: "signed payload is not a licence", payload: null };
  }
  if (payload.expiresAt !== null && payload.expiresAt <= nowSeconds) return { ok: false, code: 1092, reason: "expired", payload };
  return { ok: true, payload };
}
