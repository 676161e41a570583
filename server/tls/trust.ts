import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { rootCertificates } from "node:tls";
import { CLIENT_TLS_COVERS, type ClientTlsInfo } from "../../contract/tls";
import type { Clock } from "../clock";
import type { Config } from "../config";
import { FerryError } from "../errors";
import { describeCertificate, parseCertificates, toPem } from "./certificates";
import { tlsDir, writeAtomic } from "./files";

/**
 * Client TLS (docs/admin-api.md, "Client TLS"): certificate authorities the administrator uploads,
 * trusted — besides the system's roots — by Ferry's own outgoing TLS connections: SMTP (mail), LDAP/AD
 * (ldaps:// and StartTLS) and the external HTTP sign-in. Kept in `<data dir>/tls/client-ca.pem` and in
 * memory; each connection reads the list when it opens, so an upload applies to the next one, without
 * a restart. FERRY_SMTP_CA stays SMTP's alone.
 */
export function createClientTrust({ config, clock }: { config: Pick<Config, "dataDir" | "smtpCa">; clock: Clock }) {
  const file = path.join(tlsDir(config.dataDir), "client-ca.pem");
  const smtpCa = config.smtpCa ? readFileSync(config.smtpCa, "utf8") : null;
  let uploaded: string[] = [];
  try {
    uploaded = parseCertificates(readFileSync(file, "utf8")).map((c) => c.toString());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const list = (...extra: (string | null)[]) => {
    const added = [...extra.filter((c): c is string => !!c), ...uploaded];
    return added.length > 0 ? [...rootCertificates, ...added] : undefined;
  };

  return {
    /** The `ca` option of an outgoing LDAP or HTTP connection; undefined: the system's roots. */
    ca: () => list(),
    /** The same for SMTP, with FERRY_SMTP_CA. */
    smtpCa: () => list(smtpCa),
    info(): ClientTlsInfo {
      const now = clock.now();
      return { authorities: uploaded.map((pem) => describeCertificate(parseCertificates(pem)[0]!, now)), covers: [...CLIENT_TLS_COVERS] };
    },
    /** Replaces the uploaded authorities; 4380 unreadable, 4030 one has expired. */
    async upload(pem: string): Promise<ClientTlsInfo> {
      const certs = parseCertificates(pem);
      const now = clock.now();
      if (certs.some((c) => describeCertificate(c, now).state === "expired")) throw new FerryError("CertificateExpired");
      await writeAtomic(file, toPem(certs), 0o644);
      uploaded = certs.map((c) => c.toString());
      return this.info();
    },
    async remove(): Promise<ClientTlsInfo> {
      await rm(file, { force: true });
      uploaded = [];
      return this.info();
    },
  };
}

export type ClientTrust = ReturnType<typeof createClientTrust>;
