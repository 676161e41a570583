import { describe, expect, it } from "vitest";
import { IP_WHITELIST_MAX_ENTRIES, ipAllowed, ipWhitelistProblem } from "./ip-whitelist";

describe("IP login whitelist", () => {
  it("lets everyone in when empty", () => {
    expect(ipAllowed("", "203.0.113.9")).toBe(true);
    expect(ipAllowed(" ; ", null)).toBe(true);
  });

  it("matches the spec's bracket range per octet", () => {
    const list = "10.80.90.[1-100]";
    expect(ipAllowed(list, "10.80.90.1")).toBe(true);
    expect(ipAllowed(list, "10.80.90.100")).toBe(true);
    expect(ipAllowed(list, "10.80.90.101")).toBe(false);
    expect(ipAllowed(list, "10.80.90.0")).toBe(false);
    expect(ipAllowed(list, "10.80.91.50")).toBe(false);
    expect(ipAllowed("10.[1-2].*.7", "10.2.200.7")).toBe(true);
    expect(ipAllowed("10.[1-2].*.7", "10.3.200.7")).toBe(false);
  });

  it("matches single addresses and IPv4 CIDR, ';' ',' and line breaks separating", () => {
    const list = "192.168.1.5; 172.16.0.0/12,\n127.0.0.1";
    expect(ipAllowed(list, "192.168.1.5")).toBe(true);
    expect(ipAllowed(list, "192.168.1.6")).toBe(false);
    expect(ipAllowed(list, "172.31.255.255")).toBe(true);
    expect(ipAllowed(list, "172.32.0.0")).toBe(false);
    expect(ipAllowed(list, "127.0.0.1")).toBe(true);
    expect(ipAllowed("0.0.0.0/0", "8.8.8.8")).toBe(true);
    expect(ipAllowed("10.1.2.3/32", "10.1.2.3")).toBe(true);
    expect(ipAllowed("10.1.2.3/32", "10.1.2.4")).toBe(false);
    // A CIDR base with host bits set is the network it lies in.
    expect(ipAllowed("10.1.2.3/24", "10.1.2.200")).toBe(true);
  });

  it("matches IPv6 addresses and networks, and IPv4-mapped addresses against IPv4 rules", () => {
    expect(ipAllowed("::1", "::1")).toBe(true);
    expect(ipAllowed("::1", "::2")).toBe(false);
    expect(ipAllowed("2001:db8::/32", "2001:0db8:ffff::1")).toBe(true);
    expect(ipAllowed("2001:db8::/32", "2001:db9::1")).toBe(false);
    expect(ipAllowed("fe80::/10", "fe80::1%eth0")).toBe(true);
    expect(ipAllowed("::ffff:10.0.0.0/104", "::ffff:10.9.9.9")).toBe(true);
    expect(ipAllowed("10.0.0.0/8", "::ffff:10.9.9.9")).toBe(true);
    expect(ipAllowed("10.0.0.0/8", "2001:db8::1")).toBe(false);
    expect(ipAllowed("2001:db8::/32", "10.0.0.1")).toBe(false);
    expect(ipAllowed("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8")).toBe(true);
  });

  it("refuses an unknown address when a whitelist is set", () => {
    expect(ipAllowed("10.0.0.0/8", null)).toBe(false);
    expect(ipAllowed("10.0.0.0/8", "not-an-ip")).toBe(false);
  });

  it("names the first bad entry, and accepts good lists", () => {
    expect(ipWhitelistProblem("10.80.90.[1-100]; 10.0.0.0/8; ::1; 2001:db8::/48")).toBeNull();
    for (const bad of ["10.80.90.[100-1]", "10.80.90.256", "10.80.90", "10.80.90.[1-300]", "10.0.0.0/33", "::1/129", "1:::2", "1:2:3:4:5:6:7:8:9", "host.example", "10.0.0.1-10.0.0.9", "10.0.0.01x"]) {
      expect(ipWhitelistProblem(`127.0.0.1;${bad}`)).toBe(bad);
    }
    const many = Array.from({ length: IP_WHITELIST_MAX_ENTRIES + 1 }, (_, i) => `10.0.0.${i % 256}`).join(";");
    expect(ipWhitelistProblem(many)).toMatch(/more than/);
  });

  it("refuses everyone under an invalid stored whitelist", () => {
    expect(ipAllowed("10.0.0.999", "10.0.0.1")).toBe(false);
  });
});
