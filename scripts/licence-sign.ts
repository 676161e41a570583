/**
 * The vendor's licence tool (docs/licence.md, "Signing licences"). Run with tsx:
 *
 *   npx tsx scripts/licence-sign.ts --keygen --key <private.pem>
 *   npx tsx scripts/licence-sign.ts --key <private.pem> --edition enterprise --licensee "Acme Ltd" \
 *     --users 50 --expires 2027-12-31 [--id <id>] [--out licence.json]
 *
 * `--keygen` writes a new Ed25519 private key (PKCS#8 PEM, mode 0600, never over an existing file)
 * and its public half to `<key>.pub` (also printed): an entry of BUILD_LICENCE_PUBLIC_KEYS or
 * FERRY_LICENSE_PUBLIC_KEY.
 * Signing writes the licence file (or prints it) through server/licence/sign.ts, the same
 * serialisation and verifier the engine uses.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { EDITION_NAMES, type LicencePayload } from "../contract/licence";
import { BUILD_LICENCE_PUBLIC_KEYS } from "../server/licence/public-key";
import { generateLicenceKeys, privateKeyFromPem, publicKeyText, signLicenceFile } from "../server/licence/sign";

export interface SignOptions {
  edition: string;
  licensee: string;
  /** Accounts allowed, or "unlimited". */
  users: string;
  /** "never", a date (YYYY-MM-DD, the licence runs through that day, UTC) or an ISO date-time. */
  expires: string;
  id?: string;
  /** Unix seconds of issue; default now. */
  issuedAt?: number;
}

/** The payload the options describe; throws a message naming the bad option. */
export function payloadOf(o: SignOptions): LicencePayload {
  if (!(EDITION_NAMES as readonly string[]).includes(o.edition)) throw new Error(`--edition must be one of ${EDITION_NAMES.join(", ")}`);
  if (!o.licensee?.trim()) throw new Error("--licensee is required");
  let userLimit: number | null = null;
  if (o.users !== "unlimited") {
    userLimit = Number(o.users);
    if (!/^\d+$/.test(o.users) || userLimit < 1) throw new Error("--users must be a whole number of at least 1, or unlimited");
  }
  let expiresAt: number | null = null;
  if (o.expires !== "never") {
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(o.expires) ? Date.parse(`${o.expires}T00:00:00Z`) + 86_400_000 : Date.parse(o.expires);
    if (!Number.isFinite(ms)) throw new Error("--expires must be never, a date (YYYY-MM-DD) or an ISO date-time");
    expiresAt = Math.floor(ms / 1000);
  }
  return { id: o.id ?? randomUUID(), edition: o.edition as LicencePayload["edition"], licensee: o.licensee.trim(), userLimit, issuedAt: o.issuedAt ?? Math.floor(Date.now() / 1000), expiresAt };
}

/** Signs the licence the options describe with the PEM private key at `keyFile`: the file's text. */
export function signLicenceWithKeyFile(keyFile: string, o: SignOptions): string {
  return signLicenceFile(payloadOf(o), privateKeyFromPem(readFileSync(keyFile, "utf8")));
}

/**
 * Writes a new key pair: the private key to `keyFile` (0600) and its public half to `<keyFile>.pub`;
 * refuses to replace either (a lost signing key cannot be made again). Answers the public half.
 */
export function keygen(keyFile: string): string {
  const { privatePem, publicKey } = generateLicenceKeys();
  for (const file of [keyFile, `${keyFile}.pub`]) if (existsSync(file)) throw new Error(`${file} exists: --keygen never replaces a key`);
  writeFileSync(keyFile, privatePem, { mode: 0o600, flag: "wx" });
  writeFileSync(`${keyFile}.pub`, `${publicKey}\n`, { flag: "wx" });
  return publicKey;
}

const USAGE = `usage:
  tsx scripts/licence-sign.ts --keygen --key <private.pem>
  tsx scripts/licence-sign.ts --key <private.pem> --edition <${EDITION_NAMES.join("|")}> --licensee <name>
      --users <n|unlimited> --expires <YYYY-MM-DD|date-time|never> [--id <id>] [--out <file>]
`;

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      keygen: { type: "boolean" },
      key: { type: "string" },
      edition: { type: "string" },
      licensee: { type: "string" },
      users: { type: "string" },
      expires: { type: "string" },
      id: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.key) throw new Error("--key is required");
  if (values.keygen) {
    const publicKey = keygen(values.key);
    process.stdout.write(`private key written to ${values.key} (keep it off the repository and the build machines), public key to ${values.key}.pub\npublic key: ${publicKey}\n`);
    return 0;
  }
  if (!values.edition || !values.licensee || !values.users || !values.expires) throw new Error("--edition, --licensee, --users and --expires are required");
  const text = signLicenceWithKeyFile(values.key, { edition: values.edition, licensee: values.licensee, users: values.users, expires: values.expires, id: values.id });
  const publicKey = publicKeyText(privateKeyFromPem(readFileSync(values.key, "utf8")));
  if (!BUILD_LICENCE_PUBLIC_KEYS.includes(publicKey)) process.stderr.write(`note: key ${publicKey} is not this build's key; only an engine trusting it (FERRY_LICENSE_PUBLIC_KEY) accepts the licence\n`);
  if (values.out) {
    writeFileSync(values.out, `${text}\n`, { flag: "wx" });
    process.stderr.write(`licence written to ${values.out}\n`);
  } else process.stdout.write(`${text}\n`);
  return 0;
}

// Run as a script (not imported by the tests).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`licence-sign: ${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
  }
}
