import Hashids from "hashids";

/**
 * The original product's credential encoding (see docs/credential-encoding.md): UTF-8 bytes → hex →
 * Hashids `encodeHex` with a minimum length of 64. It hides a password from a casual look at a
 * request log; it is not encryption, and TLS is what protects it on the wire.
 */
export const CREDENTIAL_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890";
export const CREDENTIAL_MIN_LENGTH = 64;

export interface CredentialCodec {
  encode(text: string): string;
  /** The text, or null when `encoded` is not a valid encoding under this salt. */
  decode(encoded: string): string | null;
  /** The login `UK` field: encoded account and encoded password joined by "." (never in the alphabet). */
  encodeUK(account: string, password: string): string;
  decodeUK(uk: string): { account: string; password: string } | null;
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

export function createCredentialCodec(salt: string): CredentialCodec {
  const hashids = new Hashids(salt, CREDENTIAL_MIN_LENGTH, CREDENTIAL_ALPHABET);
  const encode = (text: string) => (text === "" ? "" : hashids.encodeHex(toHex(utf8.encode(text))));
  const decode = (encoded: string): string | null => {
    if (!/^[A-Za-z0-9]+$/.test(encoded)) return null;
    const hex = hashids.decodeHex(encoded);
    if (!hex || hex.length % 2 !== 0) return null;
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return null;
    }
  };
  return {
    encode,
    decode,
    encodeUK: (account, password) => `${encode(account)}.${encode(password)}`,
    decodeUK(uk) {
      const parts = uk.split(".");
      if (parts.length !== 2) return null;
      const account = decode(parts[0]!);
      const password = decode(parts[1]!);
      return account === null || password === null ? null : { account, password };
    },
  };
}
