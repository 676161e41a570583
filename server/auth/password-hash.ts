import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

// scrypt is memory-hard and ships with Node: N=2^15, r=8 uses 32 MiB per hash (~60 ms here).
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 96 * 1024 * 1024;
/** Longer inputs are refused before hashing, so nobody can make the server hash megabytes. */
export const MAX_PASSWORD_INPUT = 128;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, length, { N: 2 ** logN, r, p, maxmem: MAX_MEM }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG_N, R, P, KEY_LENGTH);
  return `scrypt$${LOG_N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Constant-time check of `password` against a stored `scrypt$…` hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_INPUT) return false;
  const [scheme, logN, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), Number(logN), Number(r), Number(p), expected.length);
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;
/** A hash to verify against when the account does not exist, so unknown accounts cost the same time. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
