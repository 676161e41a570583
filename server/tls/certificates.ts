import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import { type CertificateInfo, TLS_EXPIRY_WARNING_DAYS, TLS_MIN_BITS } from "../../contract/tls";
import { FerryError } from "../errors";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;
const DAY = 24 * 60 * 60 * 1000;

/** The certificates of a PEM text, in order; 4520 when there is none or one does not parse. */
export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new FerryError("CertificateMalformed");
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    throw new FerryError("CertificateMalformed");
  }
}

/** The names a certificate is valid for: its subjectAltName DNS names and IP addresses, else its CN. */
function domainsOf(cert: X509Certificate): string[] {
  const names = (cert.subjectAltName ?? "")
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry.trim())?.[1])
    .filter((name): name is string => !!name);
  if (names.length > 0) return [...new Set(names)];
  const cn = /^CN=(.+)$/m.exec(cert.subject)?.[1];
  return cn ? [cn] : [];
}

export function describeCertificate(cert: X509Certificate, now: number): CertificateInfo {
  const validFrom = Date.parse(cert.validFrom);
  const validTo = Date.parse(cert.validTo);
  const state = now > validTo ? "expired" : now < validFrom ? "not-yet-valid" : "valid";
  const key = cert.publicKey;
  return {
    subject: cert.subject,
    issuer: cert.issuer,
    domains: domainsOf(cert),
    validFrom,
    validTo,
    state,
    expiresSoon: state === "valid" && validTo - now <= TLS_EXPIRY_WARNING_DAYS * DAY,
    fingerprint: cert.fingerprint256,
    keyBits: key.asymmetricKeyType === "rsa" ? (key.asymmetricKeyDetails?.modulusLength ?? null) : null,
    selfSigned: cert.checkIssued(cert) && cert.verify(key),
  };
}

function parseKey(pem: string): KeyObject {
  if (!/-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/.test(pem)) throw new FerryError("PrivateKeyMalformed");
  try {
    return createPrivateKey({ key: pem, format: "pem" });
  } catch {
    // Also an encrypted key: Ferry has nowhere to keep a passphrase.
    throw new FerryError("PrivateKeyMalformed");
  }
}

/**
 * The spec's rules for the file server's certificate (admin spec section 5), in this order: both
 * readable (4520, 4521), RSA only (4031), at least 2048 bits (4029), within its validity on the
 * engine's clock (4030 expired, 4522 not yet valid), the key is the leaf's (4032). The leaf is the
 * first certificate; the rest is its chain, sent along as it is.
 */
export function checkServerCertificate(certificatePem: string, keyPem: string, now: number): { leaf: X509Certificate; chain: X509Certificate[] } {
  const chain = parseCertificates(certificatePem);
  const key = parseKey(keyPem);
  const leaf = chain[0]!;
  if (key.asymmetricKeyType !== "rsa" || leaf.publicKey.asymmetricKeyType !== "rsa") throw new FerryError("CertificateNotRsa");
  const bits = Math.min(key.asymmetricKeyDetails?.modulusLength ?? 0, leaf.publicKey.asymmetricKeyDetails?.modulusLength ?? 0);
  if (bits < TLS_MIN_BITS) throw new FerryError("CertificateKeyTooShort", { bits, min: TLS_MIN_BITS });
  const { state } = describeCertificate(leaf, now);
  if (state === "expired") throw new FerryError("CertificateExpired", { validTo: Date.parse(leaf.validTo) });
  if (state === "not-yet-valid") throw new FerryError("CertificateNotYetValid", { validFrom: Date.parse(leaf.validFrom) });
  if (!leaf.checkPrivateKey(key)) throw new FerryError("CertificateKeyMismatch");
  try {
    // What the listener will load; catches what the checks above do not (e.g. a key OpenSSL refuses).
    createSecureContext({ cert: certificatePem, key: keyPem });
  } catch {
    throw new FerryError("PrivateKeyMalformed");
  }
  return { leaf, chain };
}

/** A PEM text of the given certificates, one after the other (what the files hold). */
export const toPem = (certs: X509Certificate[]) => certs.map((c) => c.toString().trim()).join("\n") + "\n";
