import dns, { type LookupAddress, type LookupAllOptions } from "node:dns";
import type http from "node:http";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { fail } from "../errors";

/**
 * What an object store's endpoint may never reach (docs/security.md, "Storage endpoints"):
 * link-local addresses (169.254.0.0/16, fe80::/10), where cloud metadata services answer with the
 * machine's credentials, the metadata services' other addresses (below), and their host names. The administrator's endpoint is
 * checked when it is saved (checkEndpointHost), and every connection of the S3 and Azure drivers is
 * checked again on the addresses its name resolves to (guardedLookup), so a name that resolves there,
 * at once or after a later DNS change (rebinding), is refused too.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet("169.254.0.0", 16, "ipv4");
LINK_LOCAL.addSubnet("fe80::", 10, "ipv6");
// Metadata services that answer outside the link-local ranges: AWS's IPv6 instance metadata
// (Nitro), Google Cloud's IPv6 one, Alibaba Cloud's, and Azure's WireServer.
LINK_LOCAL.addAddress("fd00:ec2::254", "ipv6");
LINK_LOCAL.addAddress("fd20:ce::254", "ipv6");
LINK_LOCAL.addAddress("100.100.100.200", "ipv4");
LINK_LOCAL.addAddress("168.63.129.16", "ipv4");
const METADATA_HOSTS = new Set(["metadata", "metadata.google.internal", "metadata.goog"]);

/** The code of the error a connection to a link-local address fails with; the drivers map it to StorageConnectionFailed. */
export const LINK_LOCAL_REFUSED = "ELINKLOCAL";

/** Whether an IP address (v4, v6, v4-mapped v6, with or without a zone) is link-local or a metadata service's; false for anything else. */
export function isLinkLocal(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const kind = isIP(bare);
  return kind !== 0 && LINK_LOCAL.check(bare, kind === 4 ? "ipv4" : "ipv6");
}

/** Whether a URL's host name is a metadata service's name or a link-local (or metadata) address, written as it is. */
export function isForbiddenHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return METADATA_HOSTS.has(host) || isLinkLocal(host);
}

/** StorageConfigFailed when an endpoint URL names a link-local address or a cloud metadata host. */
export function checkEndpointHost(endpoint: string | undefined) {
  if (!endpoint) return;
  let host: string;
  try {
    host = new URL(endpoint).hostname.toLowerCase();
  } catch {
    return; // the driver's own checks refuse a malformed endpoint
  }
  if (isForbiddenHost(host)) fail("StorageConfigFailed");
}

/** Resolves a host name to all its addresses (dns.lookup with `all: true`); tests give their own. */
export type Resolver = (hostname: string, options: LookupAllOptions) => Promise<LookupAddress[]>;

// dns.lookup is read at each call (not bound once) so an engine test can stand in for the system resolver.
const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => dns.lookup(hostname, { ...options, all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

const refusal = (hostname: string, address: string) =>
  Object.assign(new Error(`${hostname} resolves to the link-local address ${address}, which a storage endpoint may not reach`), { code: LINK_LOCAL_REFUSED, hostname });

/**
 * A `lookup` for sockets (net.connect, http.Agent options) that resolves with `resolve` and fails
 * with LINK_LOCAL_REFUSED when any address of the name is link-local: refusing the name rather than
 * picking another of its addresses, since a name that reaches a metadata service is not a store.
 */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, verbatim: options.verbatim, all: true }).then(
      (addresses) => {
        const bad = addresses.find((a) => isLinkLocal(a.address));
        if (bad) return callback(refusal(hostname, bad.address), "");
        const [first] = addresses;
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND", hostname }), "");
        if (options.all) return callback(null, addresses);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}

/**
 * An agent whose sockets resolve through guardedLookup. A literal address is never looked up by
 * node, so a link-local one is refused here before any socket is made.
 */
export function guardedAgent<T extends http.Agent>(make: (lookup: LookupFunction) => T, resolve?: Resolver): T {
  const agent = make(guardedLookup(resolve));
  const create = agent.createConnection.bind(agent);
  (agent as http.Agent).createConnection = (options, callback) => {
    const host = options.host ?? options.hostname ?? "";
    if (isLinkLocal(host)) {
      callback?.(refusal(host, host), undefined as never);
      return undefined as never;
    }
    return create(options, callback);
  };
  return agent;
}
