import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { type LicencePayload, licencePayload } from "../../contract/licence";
import { ed25519PublicKey, verifyLicence } from "./verify";

/*
 * The vendor's side of a licence (docs/licence.md, "Signing licences"): the one serialisation of a
 * licence file, used by scripts/licence-sign.ts and the tests. What it writes is checked here with
 * the engine's own verifier (verify.ts) before it is handed out, so the tool cannot make a file the
 * engine reads differently.
 */

/** The payload's exact bytes, the ones the signature covers: its JSON, fields in the schema's order. */
export function licencePayloadBytes(payload: LicencePayload): Buffer {
  return Buffer.from(JSON.stringify(licencePayload.parse(payload)));
}

/** The licence file's text for `payload`, signed with the Ed25519 private key `key`. */
export function signLicenceFile(payload: LicencePayload, key: KeyObject): string {
  if (key.type !== "private" || key.asymmetricKeyType !== "ed25519") throw new Error("a licence is signed with an Ed25519 private key");
  const bytes = licencePayloadBytes(payload);
  const text = JSON.stringify({ payload: bytes.toString("base64"), signature: sign(null, bytes, key).toString("base64") });
  // The engine's check, against the key's public half: shape, round-trip and signature (the expiry is the buyer's clock's).
  const checked = verifyLicence(text, [ed25519PublicKey(publicKeyText(key))], Number.NEGATIVE_INFINITY);
  if (!checked.ok) throw new Error(`the signed licence does not verify: ${checked.reason}`);
  return text;
}

/** The public half of an Ed25519 key as the engine takes it (BUILD_LICENCE_PUBLIC_KEYS, FERRY_LICENSE_PUBLIC_KEY): 32 bytes, base64url. */
export function publicKeyText(key: KeyObject): string {
  const x = createPublicKey(key).export({ format: "jwk" }).x;
  if (!x || key.asymmetricKeyType !== "ed25519") throw new Error("not an Ed25519 key");
  return x;
}

/** An Ed25519 private key from PEM (PKCS#8) text, as `generateLicenceKeys` writes it. */
export function privateKeyFromPem(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") throw new Error("the licence signing key must be an Ed25519 private key");
  return key;
}

/** A new key pair: the private key as PKCS#8 PEM (the vendor's secret), the public one as the engine takes it. */
export function generateLicenceKeys(): { privatePem: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privatePem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(), publicKey: publicKeyText(privateKey) };
}
