import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddressReader } from "../../server/http/client-address";

/** A request as the readers see it: the socket's peer and the headers. */
const request = (peer: string, forwarded?: string) =>
  ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } }) as unknown as IncomingMessage;

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
});
