import { clientTlsInfo, clientTlsUploadBody, tlsInfo, tlsPlainBody, tlsUploadBody } from "../../contract/tls";
import { route } from "../http/route";
import type { Tls } from "./service";
import type { ClientTrust } from "./trust";

/** The administrator API of the file server's certificate and of client TLS (docs/admin-api.md). Every route needs the administrator's access token. */
export function tlsRoutes(tls: Tls, trust: ClientTrust) {
  return [
    route({ method: "GET", url: "/api/admin/tls", tag: "admin", summary: "The file server's certificate (domains, validity, state, fingerprint, source), its ports and the non-TLS switch.", auth: "admin", response: tlsInfo, handler: () => tls.info() }),
    route({
      method: "PUT", url: "/api/admin/tls/certificate", tag: "admin",
      summary: "Upload the file server's certificate (PEM with chain) and RSA key; served at once, no restart. 4520/4521 unreadable, 4031 not RSA, 4029 under 2048 bits, 4030 expired, 4522 not yet valid, 4032 key mismatch.",
      auth: "admin", body: tlsUploadBody, response: tlsInfo, handler: ({ body }) => tls.upload(body),
    }),
    route({ method: "DELETE", url: "/api/admin/tls/certificate", tag: "admin", summary: "Forget the uploaded certificate: FERRY_TLS_CERT's is served again, or the TLS port closes. 4524 while non-TLS connections are disabled.", auth: "admin", response: tlsInfo, handler: () => tls.remove() }),
    route({ method: "PUT", url: "/api/admin/tls/plain", tag: "admin", summary: "Disable (close the plain port at once, and keep it closed at start) or enable non-TLS connections. 4523: disabling needs a valid certificate in use.", auth: "admin", body: tlsPlainBody, response: tlsInfo, handler: ({ body }) => tls.setPlainDisabled(body.plainDisabled) }),
    route({ method: "GET", url: "/api/admin/client-tls", tag: "admin", summary: "Certificate authorities trusted by Ferry's outgoing TLS (SMTP, LDAP/AD, external HTTP sign-in) besides the system's roots.", auth: "admin", response: clientTlsInfo, handler: async () => trust.info() }),
    route({ method: "PUT", url: "/api/admin/client-tls", tag: "admin", summary: "Replace the trusted certificate authorities (PEM); used by the next outgoing connection. 4520 unreadable, 4030 expired.", auth: "admin", body: clientTlsUploadBody, response: clientTlsInfo, handler: ({ body }) => trust.upload(body.authorities) }),
    route({ method: "DELETE", url: "/api/admin/client-tls", tag: "admin", summary: "Trust the system's roots only again.", auth: "admin", response: clientTlsInfo, handler: () => trust.remove() }),
  ];
}
