import * as z from "zod";

/**
 * The TLS certificate of the file server and the client TLS trust (Ferry's own design, docs/admin-api.md
 * "TLS certificate" and "Client TLS"; rules: admin spec section 5, codes 4029–4032 and 4520–4524).
 */

/** Largest certificate PEM (the leaf and its chain), in characters. */
export const TLS_CERT_MAX = 64 * 1024;
/** Largest private key PEM (an RSA 8192 key is about 6.4 KB). */
export const TLS_KEY_MAX = 16 * 1024;
/** Largest client CA bundle PEM (a hundred or so authorities). */
export const TLS_CA_MAX = 256 * 1024;
/** Smallest RSA key accepted (spec: "at least 2048 bits"). */
export const TLS_MIN_BITS = 2048;
/** A certificate ending within this many days is flagged as nearing expiry. */
export const TLS_EXPIRY_WARNING_DAYS = 30;

export const certificateState = z.enum(["valid", "expired", "not-yet-valid"]);
export type CertificateState = z.infer<typeof certificateState>;

/** One X.509 certificate as the console shows it. */
export const certificateInfo = z.object({
  subject: z.string().describe("Subject distinguished name, one attribute a line as node:crypto writes it."),
  issuer: z.string(),
  domains: z.array(z.string()).describe("The names it is valid for: subjectAltName DNS names and IP addresses, else the subject CN."),
  validFrom: z.number().int().describe("Unix ms."),
  validTo: z.number().int().describe("Unix ms."),
  state: certificateState.describe("On the engine's clock: valid, expired or not-yet-valid."),
  expiresSoon: z.boolean().describe(`Valid and ending within ${TLS_EXPIRY_WARNING_DAYS} days.`),
  fingerprint: z.string().describe("SHA-256 fingerprint, colon-separated hex (as node:tls getPeerCertificate().fingerprint256)."),
  keyBits: z.number().int().nullable().describe("RSA modulus length; null for another key type."),
  selfSigned: z.boolean(),
});
export type CertificateInfo = z.infer<typeof certificateInfo>;

export const tlsInfo = z.object({
  certificate: certificateInfo.nullable().describe("The leaf certificate the TLS port serves; null when none."),
  chainLength: z.number().int().describe("Certificates in the served PEM (the leaf and its chain)."),
  source: z.enum(["uploaded", "environment"]).nullable().describe("uploaded in the console (kept in the data directory), or FERRY_TLS_CERT/FERRY_TLS_KEY; an upload wins."),
  tlsPort: z.number().int().nullable().describe("The file server's TLS port while it listens, else null."),
  plainPort: z.number().int().nullable().describe("The file server's plain port while it listens, else null."),
  plainDisabled: z.boolean().describe("Non-TLS connections to the file server are disabled: the plain port is closed and stays closed at start."),
});
export type TlsInfo = z.infer<typeof tlsInfo>;

export const tlsUploadBody = z
  .object({
    certificate: z.string().min(1).max(TLS_CERT_MAX).describe("PEM: the certificate, then its chain (intermediates), as a web server's fullchain.pem."),
    privateKey: z.string().min(1).max(TLS_KEY_MAX).describe("PEM: the certificate's unencrypted RSA private key (PKCS#8 or PKCS#1)."),
  })
  .strict();
export type TlsUploadBody = z.infer<typeof tlsUploadBody>;

export const tlsPlainBody = z.object({ plainDisabled: z.boolean() }).strict();

/** What the client TLS trust covers: the outgoing connections that trust the uploaded authorities. */
export const CLIENT_TLS_COVERS = ["smtp", "ldap", "http-auth"] as const;

export const clientTlsInfo = z.object({
  authorities: z.array(certificateInfo).describe("The uploaded certificate authorities, trusted besides the system's roots; empty when none."),
  covers: z.array(z.enum(CLIENT_TLS_COVERS)).describe("Outgoing TLS connections that trust them: SMTP (mail), LDAP/AD (ldaps:// and StartTLS), the external HTTP sign-in."),
});
export type ClientTlsInfo = z.infer<typeof clientTlsInfo>;

export const clientTlsUploadBody = z
  .object({ authorities: z.string().min(1).max(TLS_CA_MAX).describe("PEM: one or more CA certificates.") })
  .strict();
