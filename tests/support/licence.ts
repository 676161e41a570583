import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { LicencePayload } from "../../contract/licence";
import { signLicenceFile } from "../../server/licence/sign";

/*
 * Licences signed with a test key (docs/licence.md, "Tests"): the engines of the tests trust its
 * public half through FERRY_LICENSE_PUBLIC_KEY. The key is fixed (from a seed) so the e2e engine,
 * started in another process, trusts the same key the specs sign with. It unlocks nothing anywhere
 * else: a production engine trusts only its built-in key unless its operator sets that variable.
 */

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const keyFromSeed = (seed: string): KeyObject => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(seed, "hex")]), format: "der", type: "pkcs8" });

export const TEST_LICENCE_KEY = keyFromSeed("46657272792074657374206c6963656e6365206b657920666f72207465737473");
/** The public half as FERRY_LICENSE_PUBLIC_KEY takes it: 32 bytes, base64url. */
export const TEST_LICENCE_PUBLIC_KEY = createPublicKey(TEST_LICENCE_KEY).export({ format: "jwk" }).x!;

/** A key nobody trusts. */
export const otherKey = (): KeyObject => generateKeyPairSync("ed25519").privateKey;

export function signLicence(terms: Partial<LicencePayload> = {}, key: KeyObject = TEST_LICENCE_KEY): string {
  const payload: LicencePayload = { id: "test-licence", edition: "enterprise", licensee: "Ferry tests", userLimit: null, issuedAt: 1_700_000_000, expiresAt: null, ...terms };
  // The vendor tool's serialisation (scripts/licence-sign.ts), so the tests sign as the vendor does.
  return signLicenceFile(payload, key);
}
