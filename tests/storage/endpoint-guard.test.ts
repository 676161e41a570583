import type { LookupAddress } from "node:dns";
import { type AddressInfo, connect, createServer, type LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { checkEndpointHost, guardedLookup, LINK_LOCAL_REFUSED, type Resolver } from "../../server/storage/endpoint-guard";

// The connect-time guard of object-store endpoints (docs/security.md, "Storage endpoints"), on its own:
// the drivers' tests (storage-s3, storage-azure) show that it is the one their connections use.

const answering =
  (...addresses: LookupAddress[]): Resolver =>
  async () =>
    addresses;

/** What a lookup calls back with, as a promise. */
const lookedUp = (lookup: LookupFunction, all: boolean) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
    lookup("store.test", { all }, (err, address, family) => resolve({ err, address, family })),
  );

describe("guardedLookup", () => {
  it("answers like dns.lookup: every address with all, the first one without", async () => {
    const lookup = guardedLookup(answering({ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }));
    expect((await lookedUp(lookup, true)).address).toEqual([
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ]);
    expect(await lookedUp(lookup, false)).toMatchObject({ err: null, address: "127.0.0.1", family: 4 });
  });

  it("refuses a name when any of its addresses is link-local or a metadata service's (IPv4, IPv6, IPv4-mapped IPv6)", async () => {
    for (const bad of [
      { address: "169.254.169.254", family: 4 },
      { address: "fe80::1", family: 6 },
      { address: "fe80::a9fe:a9fe%eth0", family: 6 },
      { address: "::ffff:169.254.169.254", family: 6 },
      // Metadata services outside the link-local ranges (AWS IPv6, Google IPv6, Alibaba, Azure WireServer).
      { address: "fd00:ec2::254", family: 6 },
      { address: "fd20:ce::254", family: 6 },
      { address: "100.100.100.200", family: 4 },
      { address: "::ffff:168.63.129.16", family: 6 },
    ]) {
      for (const all of [true, false]) {
        const { err } = await lookedUp(guardedLookup(answering({ address: "127.0.0.1", family: 4 }, bad)), all);
        expect(err?.code).toBe(LINK_LOCAL_REFUSED);
        expect(err?.message).toContain("store.test");
      }
    }
  });

  it("passes the resolver's failure on", async () => {
    const gone = Object.assign(new Error("getaddrinfo ENOTFOUND store.test"), { code: "ENOTFOUND" });
    const { err } = await lookedUp(guardedLookup(() => Promise.reject(gone)), true);
    expect(err?.code).toBe("ENOTFOUND");
    expect((await lookedUp(guardedLookup(answering()), false)).err?.code).toBe("ENOTFOUND");
  });

  it("is what a socket connects through: refused before connecting, or connected to the address it gave", async () => {
    const server = createServer((socket) => socket.end("hello"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const dial = (resolve: Resolver) =>
      new Promise<string>((done) => {
        const socket = connect({ host: "store.test", port, lookup: guardedLookup(resolve) });
        let got = "";
        socket.on("data", (data) => (got += data.toString()));
        socket.on("end", () => done(got));
        socket.on("error", (err: NodeJS.ErrnoException) => done(err.code ?? "error"));
      });
    try {
      expect(await dial(answering({ address: "169.254.169.254", family: 4 }))).toBe(LINK_LOCAL_REFUSED);
      expect(await dial(answering({ address: "127.0.0.1", family: 4 }))).toBe("hello");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("checkEndpointHost", () => {
  it("refuses an endpoint naming a link-local address or a metadata host, and lets others through", () => {
    for (const endpoint of ["http://169.254.169.254", "http://[fe80::1]:8080", "http://[fd00:ec2::254]", "http://100.100.100.200", "http://168.63.129.16", "http://[::ffff:169.254.169.254]", "http://metadata.google.internal./x", "http://METADATA"]) {
      expect(() => checkEndpointHost(endpoint), endpoint).toThrow(FerryError);
    }
    for (const endpoint of [undefined, "", "http://127.0.0.1:9000", "https://s3.eu-west-1.amazonaws.com", "not a url"]) expect(() => checkEndpointHost(endpoint)).not.toThrow();
  });
});
