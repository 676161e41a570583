import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { signClientAddress } from "../../contract/forwarding";
import { clientAddressReader } from "../../server/http/client-address";

/** A request as the readers see it: the socket's peer and the headers. */
const request = (peer: string, forwarded?: string, extra: Record<string, string> = {}) =>
  ({
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: { ...(forwarded === undefined ? {} : { "x-forwarded-for": forwarded }), ...extra },
  }) as unknown as IncomingMessage;

const KEY = "unit-test-forward-key-0123456789abcdef";
const signed = (address: string, key = KEY) => ({ "x-ferry-client-address": address, "x-ferry-client-signature": signClientAddress(key, address) });

describe("the client's address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    const read = clientAddressReader({ trustedProxies: [], forwardKey: null });
    expect(read(request("198.51.100.4"))).toBe("198.51.100.4");
    expect(read(request("198.51.100.4", "203.0.113.9"))).toBe("198.51.100.4");
  });

  it("behind a trusted proxy is the nearest address it does not trust", () => {
    const read = clientAddressReader({ trustedProxies: ["127.0.0.1", "10.0.0.0/8"], forwardKey: null });
    expect(read(request("127.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    // The client's own claim before the proxies' entries is not believed.
    expect(read(request("127.0.0.1", "192.0.2.1, 203.0.113.9, 10.1.2.3"))).toBe("203.0.113.9");
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    const read = clientAddressReader({ trustedProxies: ["127.0.0.1"], forwardKey: null });
    expect(read(request("198.51.100.4", "203.0.113.9"))).toBe("198.51.100.4");
  });

  it("is unknown when a trusted proxy forwards no address", () => {
    const read = clientAddressReader({ trustedProxies: ["127.0.0.1"], forwardKey: null });
    expect(read(request("127.0.0.1"))).toBeNull();
  });

  it("is the address the web signed, when the signature verifies under the engine's key", () => {
    let warnings = 0;
    const read = clientAddressReader({ trustedProxies: [], forwardKey: KEY, onBadSignature: () => warnings++ });
    expect(read(request("127.0.0.1", undefined, signed("203.0.113.9")))).toBe("203.0.113.9");
    expect(read(request("127.0.0.1", undefined, signed("::FFFF:203.0.113.10")))).toBe("203.0.113.10");
    expect(read(request("127.0.0.1", undefined, signed("unknown")))).toBeNull();
    // Another key, another address's MAC, a truncated or missing MAC: the socket's peer, and one warning.
    expect(read(request("127.0.0.1", undefined, signed("203.0.113.9", "another-key-0123456789abcdef0123")))).toBe("127.0.0.1");
    expect(read(request("127.0.0.1", undefined, { ...signed("203.0.113.1"), "x-ferry-client-address": "203.0.113.2" }))).toBe("127.0.0.1");
    expect(read(request("127.0.0.1", undefined, { "x-ferry-client-address": "203.0.113.3", "x-ferry-client-signature": signClientAddress(KEY, "203.0.113.3").slice(2) }))).toBe("127.0.0.1");
    expect(read(request("127.0.0.1", undefined, { "x-ferry-client-address": "203.0.113.4" }))).toBe("127.0.0.1");
    expect(warnings).toBe(1);
    // Without a key nothing is believed.
    expect(clientAddressReader({ trustedProxies: [], forwardKey: null })(request("127.0.0.1", undefined, signed("203.0.113.9")))).toBe("127.0.0.1");
  });
});
