/**
 * The Ed25519 public keys licences are verified against (docs/licence.md, "Keeping and rotating the
 * signing key"), each the raw 32 bytes in base64url (a JWK's `x`, what `scripts/licence-sign.ts
 * --keygen` prints). Their private halves are the vendor's and are not in this repository. Normally
 * one key; during a rotation the new key first and the old one after it, until every licence in use
 * is re-signed with the new key.
 */
export const BUILD_LICENCE_PUBLIC_KEYS: readonly string[] = ["zNk1DnIXjtc5UXpp6W1bTTQqnsYHxk8QFe_FjBQttZ0"];
