/**
 * A user's IP login whitelist (admin spec section 3, User: "IP login whitelist (ranges such as
 * 10.80.90.[1-100] are supported)"; code 4019 for a bad one, 1091 for a sign-in from outside it).
 *
 * Entries are separated by ";" (the product's list separator, as for file formats and permission
 * labels); "," and line breaks are taken too. An entry is
 * - an IPv4 address whose octets may be ranges or "*": `10.0.0.7`, `10.80.90.[1-100]`, `10.80.*.*`;
 * - an IPv4 network in CIDR form: `192.168.0.0/16`;
 * - an IPv6 address or network: `::1`, `2001:db8::/32`.
 * An empty whitelist lets every address in. Pure code: the contract checks it (zod), the engine matches.
 */

export const IP_WHITELIST_MAX_ENTRIES = 100;

export type IpRule =
  | { v: 4; octets: Array<[number, number]> }
  | { v: 4; from: number; to: number }
  | { v: 6; base: bigint; prefix: number };

const SEPARATORS = /[;,\r\n]+/;

function octet(text: string): number | null {
  if (!/^\d{1,3}$/.test(text)) return null;
  const n = Number(text);
  return n <= 255 ? n : null;
}

/** `a.b.c.d` as an unsigned 32-bit number; null when not a plain IPv4 address. */
function ipv4Number(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    const o = octet(part);
    if (o === null) return null;
    n = n * 256 + o;
  }
  return n;
}

/** An IPv6 address (with `::` and an optional dotted IPv4 tail) as a 128-bit number; null when not one. */
function ipv6Number(text: string): bigint | null {
  if (!/^[0-9a-f:.]+$/i.test(text) || text.length > 45) return null;
  let groups: string[];
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const side = (s: string) => (s === "" ? [] : s.split(":"));
  const head = side(halves[0]!);
  const tail = halves.length === 2 ? side(halves[1]!) : [];
  const last = (halves.length === 2 ? tail : head).at(-1);
  const words: string[] = [];
  const expandTail = (list: string[]) => {
    if (last !== undefined && last.includes(".")) {
      const v4 = ipv4Number(last);
      if (v4 === null || list.at(-1) !== last) return null;
      list = [...list.slice(0, -1), (v4 >>> 16).toString(16), (v4 & 0xffff).toString(16)];
    }
    return list;
  };
  if (halves.length === 2) {
    const t = expandTail(tail);
    if (t === null) return null;
    const missing = 8 - head.length - t.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill("0"), ...t];
  } else {
    const h = expandTail(head);
    if (h === null) return null;
    groups = h;
  }
  if (groups.length !== 8) return null;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    words.push(g);
  }
  return words.reduce((n, w) => (n << 16n) | BigInt(Number.parseInt(w, 16)), 0n);
}

function prefixOf(text: string, max: number): number | null {
  if (!/^\d{1,3}$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

function parseEntry(entry: string): IpRule | null {
  const slash = entry.indexOf("/");
  if (slash >= 0) {
    const address = entry.slice(0, slash);
    const bits = entry.slice(slash + 1);
    const v4 = ipv4Number(address);
    if (v4 !== null) {
      const prefix = prefixOf(bits, 32);
      if (prefix === null) return null;
      const size = 2 ** (32 - prefix);
      const from = v4 - (v4 % size);
      return { v: 4, from, to: from + size - 1 };
    }
    const v6 = ipv6Number(address);
    const prefix = prefixOf(bits, 128);
    return v6 === null || prefix === null ? null : { v: 6, base: v6, prefix };
  }
  if (entry.includes(":")) {
    const v6 = ipv6Number(entry);
    return v6 === null ? null : { v: 6, base: v6, prefix: 128 };
  }
  const parts = entry.split(".");
  if (parts.length !== 4) return null;
  const octets: Array<[number, number]> = [];
  for (const part of parts) {
    if (part === "*") {
      octets.push([0, 255]);
      continue;
    }
    const range = /^\[(\d{1,3})-(\d{1,3})\]$/.exec(part);
    if (range) {
      const lo = octet(range[1]!);
      const hi = octet(range[2]!);
      if (lo === null || hi === null || lo > hi) return null;
      octets.push([lo, hi]);
      continue;
    }
    const single = octet(part);
    if (single === null) return null;
    octets.push([single, single]);
  }
  return { v: 4, octets };
}

const entriesOf = (text: string) =>
  text
    .split(SEPARATORS)
    .map((e) => e.trim())
    .filter(Boolean);

/** The rules of a whitelist, or the first entry that is not one (or too many entries). */
export function parseIpWhitelist(text: string): { rules: IpRule[] } | { bad: string } {
  const entries = entriesOf(text);
  if (entries.length > IP_WHITELIST_MAX_ENTRIES) return { bad: `more than ${IP_WHITELIST_MAX_ENTRIES} entries` };
  const rules: IpRule[] = [];
  for (const entry of entries) {
    const rule = parseEntry(entry);
    if (!rule) return { bad: entry };
    rules.push(rule);
  }
  return { rules };
}

/** Null when `text` is a valid whitelist; otherwise what is wrong, for the 4019 answer. */
export function ipWhitelistProblem(text: string): string | null {
  const parsed = parseIpWhitelist(text);
  return "bad" in parsed ? parsed.bad : null;
}

/**
 * Whether `address` may sign in under `text`. An empty whitelist allows everyone; a non-empty one
 * refuses an address that is unknown (null) or not an IP, and an invalid whitelist refuses all
 * (it cannot be stored through the API, so only a hand-edited database has one).
 * IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) match IPv4 rules.
 */
export function ipAllowed(text: string, address: string | null): boolean {
  const parsed = parseIpWhitelist(text);
  if ("bad" in parsed) return false;
  if (parsed.rules.length === 0) return true;
  if (!address) return false;
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  const v4 = ipv4Number(mapped ? mapped[1]! : bare);
  const v6 = bare.includes(":") ? ipv6Number(bare) : null;
  return parsed.rules.some((rule) => {
    if (rule.v === 4) {
      if (v4 === null) return false;
      if ("from" in rule) return v4 >= rule.from && v4 <= rule.to;
      const o = [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255];
      return rule.octets.every(([lo, hi], i) => o[i]! >= lo && o[i]! <= hi);
    }
    if (v6 === null) return false;
    const shift = BigInt(128 - rule.prefix);
    return v6 >> shift === rule.base >> shift;
  });
}
