/**
 * The Ed25519 public key licences are verified against (docs/licence.md), raw 32 bytes in base64url
 * (a JWK's `x`). Its private half is the vendor's and is not in this repository: whoever builds Ferry
 * for sale replaces this constant with their own key's and signs licences with the private half.
 */
export const BUILD_LICENCE_PUBLIC_KEY = "zNk1DnIXjtc5UXpp6W1bTTQqnsYHxk8QFe_FjBQttZ0";
