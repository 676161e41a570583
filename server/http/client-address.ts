import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";
import { CLIENT_ADDRESS_HEADER, CLIENT_SIGNATURE_HEADER, verifiedClientAddress } from "../../contract/forwarding";

export interface ClientAddressOptions {
  trustedProxies: string[];
  /** The key the web signs visitors' addresses with (contract/forwarding.ts); null: no web vouches. */
  forwardKey: string | null;
  /** Told once when a signature does not verify (the web and the engine hold different keys). */
  onBadSignature?: () => void;
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
};

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client; counters must not see two. */
export function normaliseAddress(address: string | null | undefined): string | null {
  if (!address) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/**
 * The client's address of a request, read the same way by the REST API and the file server:
 * 1. the address the web vouches for (X-Ferry-Client-Address with a valid X-Ferry-Client-Signature;
 *    "unknown" gives null, so the web's requests are never counted as one client);
 * 2. otherwise the socket's peer; behind one of FERRY_TRUSTED_PROXIES, the nearest address in
 *    X-Forwarded-For that is not a trusted proxy. A trusted proxy that forwards no address at all
 *    leaves it unknown (null).
 * A signature that does not verify is ignored, never believed: the request counts as its socket.
 */
export function clientAddressReader(options: ClientAddressOptions): (req: IncomingMessage) => string | null {
  const { trustedProxies, forwardKey } = options;
  let warned = false;
  const trust = trustedProxies.length > 0 ? proxyAddr.compile(trustedProxies) : null;
  const fromSocket = (req: IncomingMessage): string | null => {
    if (!trust) return req.socket.remoteAddress ?? null;
    if (!req.headers["x-forwarded-for"] && trust(req.socket.remoteAddress ?? "", 0)) return null;
    return proxyAddr(req, trust);
  };
  return (req) => {
    const claimed = header(req, CLIENT_ADDRESS_HEADER);
    if (claimed !== undefined && forwardKey) {
      const vouched = verifiedClientAddress(forwardKey, claimed, header(req, CLIENT_SIGNATURE_HEADER));
      if (vouched !== undefined) return normaliseAddress(vouched);
      if (!warned) {
        warned = true;
        options.onBadSignature?.();
      }
    }
    return normaliseAddress(fromSocket(req));
  };
}
