import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { FerryError } from "../errors";

/*
 * Where an SMTP connection may go. Without FERRY_SMTP_ALLOW_PRIVATE a host that is, or resolves to,
 * a loopback, private, link-local (cloud metadata at 169.254.169.254 included), carrier-grade NAT,
 * unspecified, multicast or reserved address is refused, so a user's SMTP settings cannot be used
 * to reach the engine's own network. The check runs on every send, and the connection then goes to
 * the address that was checked (not to a second DNS answer), so DNS rebinding cannot slip past it.
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local (AWS metadata fd00:ec2::254 included)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // old site-local
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/** Whether an IP address is one an SMTP connection must not reach (BlockList judges IPv4-mapped IPv6 by the IPv4 rules). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) return blocked.check(address, "ipv6");
  return true;
}

export interface SmtpTarget {
  /** The checked address the connection goes to. */
  address: string;
  /** The host name for TLS (SNI and certificate check); null when the host is an IP literal. */
  servername: string | null;
}

const DNS_TIMEOUT_MS = 10_000;

const refused = (host: string, reason: string) => new FerryError("InvalidSmtpHost", { host, reason });

/**
 * Resolves `host` and returns the address to connect to. Every address the name resolves to must be
 * allowed (a name with one public and one private address is refused as a whole).
 */
export async function resolveSmtpTarget(host: string, allowPrivate: boolean): Promise<SmtpTarget> {
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(literal)) {
    if (!allowPrivate && isPrivateAddress(literal)) throw refused(host, "private-address");
    return { address: literal, servername: null };
  }
  let addresses: { address: string }[];
  try {
    addresses = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("dns timeout")), DNS_TIMEOUT_MS).unref()),
    ]);
  } catch {
    throw new FerryError("ConnectServerFailed", { host, reason: "dns" });
  }
  if (addresses.length === 0) throw new FerryError("ConnectServerFailed", { host, reason: "dns" });
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) throw refused(host, "private-address");
  return { address: addresses[0]!.address, servername: host };
}

/**
 * The check at save time: an IP literal or a well-known local name is refused at once; a name is
 * resolved when DNS answers, and refused if it points at a private address. A name that does not
 * resolve now is accepted (the mail server may be reachable later); sending checks again.
 */
export async function checkSmtpHostOnSave(host: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(literal)) {
    if (isPrivateAddress(literal)) throw refused(host, "private-address");
    return;
  }
  const lower = host.toLowerCase().replace(/\.$/, "");
  if (lower === "localhost" || lower.endsWith(".localhost") || lower.endsWith(".local") || lower.endsWith(".internal")) {
    throw refused(host, "private-address");
  }
  try {
    await resolveSmtpTarget(host, false);
  } catch (error) {
    if (error instanceof FerryError && error.errorName === "InvalidSmtpHost") throw error;
  }
}
