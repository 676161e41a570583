import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";

/**
 * The client's address of a request, read the same way by the REST API and the file server: the
 * socket's peer; behind one of FERRY_TRUSTED_PROXIES, the nearest address in X-Forwarded-For that
 * is not a trusted proxy (the proxies' own entries can be trusted, the client's cannot). A trusted
 * proxy that forwards no address at all (the web process, which cannot always know the browser's)
 * leaves the address unknown: null, so its requests are not counted as one client.
 */
export function clientAddressReader(trustedProxies: string[]): (req: IncomingMessage) => string | null {
  if (trustedProxies.length === 0) return (req) => req.socket.remoteAddress ?? null;
  const trust = proxyAddr.compile(trustedProxies);
  return (req) => {
    if (!req.headers["x-forwarded-for"] && trust(req.socket.remoteAddress ?? "", 0)) return null;
    return proxyAddr(req, trust);
  };
}
