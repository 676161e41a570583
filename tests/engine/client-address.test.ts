import { spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadForwardSecret, signClientAddress } from "../../contract/forwarding";
import { PERMISSION_FULL } from "../../contract/permissions";
import { SHARE_ATTEMPTS_PER_ADDRESS } from "../../contract/share";
import { startTestEngine, type TestEngine } from "../support/engine";
import { makeLink, SHARE_ENV, writeTree } from "../support/share-visitor";

// The engine believes a forwarded client address only when the web signed it with the forward
// secret (docs/security.md, section 2). These engines trust no proxy, as under `npm start`: every
// request comes from 127.0.0.1, and only a valid signature can make it count as another address.

let t: TestEngine;
let key: string;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_LOGIN_ADDRESS_MAX_FAILURES: "4" });
  // What the web does: the same loader on the same data directory finds the engine's key.
  key = loadForwardSecret(t.dataDir, null);
});
afterAll(() => t?.stop());

/** Headers the web sends for a visitor at `address`. */
const vouched = (address: string, signingKey = key) => ({
  "x-ferry-client-address": address,
  "x-ferry-client-signature": signClientAddress(signingKey, address),
});

async function codesFor(accounts: string[], headers: (i: number) => Record<string, string>) {
  const codes: number[] = [];
  for (const [i, account] of accounts.entries()) codes.push((await t.login(account, "Wrong#Pass1", headers(i))).body.code);
  return codes;
}

describe("a client address vouched for by the web", () => {
  it("counts wrong passwords across many accounts against the signed address, and locks it", async () => {
    const victim = await t.createUser("addr_victim");
    const accounts = ["spray_a", "spray_b", "spray_c", "spray_d", "spray_e"];
    expect(await codesFor(accounts, () => vouched("198.51.100.7"))).toEqual([1005, 1005, 1005, 4116, 4116]);
    // Locked for that address even with a right password; another visitor through the same web is not.
    expect((await t.login("addr_victim", victim.password, vouched("198.51.100.7"))).body.code).toBe(4116);
    expect((await t.login("addr_victim", victim.password, vouched("198.51.100.8"))).body.code).toBe(200);
    // IPv6 and IPv4-mapped forms of one address are one client.
    expect(await codesFor(["v6_a", "v6_b", "v6_c"], () => vouched("2001:DB8::1"))).toEqual([1005, 1005, 1005]);
    expect((await t.login("v6_d", "Wrong#Pass1", vouched("2001:db8::1"))).body.code).toBe(4116);
    expect(await codesFor(["m_a", "m_b", "m_c"], () => vouched("::ffff:192.0.2.44"))).toEqual([1005, 1005, 1005]);
    expect((await t.login("m_d", "Wrong#Pass1", vouched("192.0.2.44"))).body.code).toBe(4116);
  });

  it("ignores forged, altered and malformed signatures: the request counts as its real peer", async () => {
    const real = await startTestEngine({ FERRY_LOGIN_ADDRESS_MAX_FAILURES: "4" });
    try {
      const user = await real.createUser("peer_user");
      const realKey = loadForwardSecret(real.dataDir, null);
      const forgeries: Array<Record<string, string>> = [
        vouched("203.0.113.1", "a-key-that-is-not-the-engines-0123456789"), // another key
        { "x-ferry-client-address": "203.0.113.2", "x-ferry-client-signature": signClientAddress(realKey, "203.0.113.99") }, // another address's MAC
        { "x-ferry-client-address": "203.0.113.3", "x-ferry-client-signature": "00".repeat(32) },
        { "x-ferry-client-address": "203.0.113.4" }, // no signature
        { "x-ferry-client-address": "203.0.113.5", "x-ferry-client-signature": "zz" },
        { "x-ferry-client-address": "not an address", "x-ferry-client-signature": signClientAddress(realKey, "not an address") },
        { "x-forwarded-for": "203.0.113.6" }, // no proxy is trusted
        { "x-ferry-peer": "203.0.113.7" },
      ];
      const codes = [];
      for (const [i, headers] of forgeries.entries()) codes.push((await real.login(`forged_${i}`, "Wrong#Pass1", headers)).body.code);
      // Every claim was ignored: all eight count as 127.0.0.1, which locked at the fourth.
      expect(codes).toEqual([1005, 1005, 1005, 4116, 4116, 4116, 4116, 4116]);
      expect((await real.login("peer_user", user.password)).body.code).toBe(4116);
      // A valid signature still speaks for its own address.
      expect((await real.login("peer_user", user.password, vouched("203.0.113.50", realKey))).body.code).toBe(200);
    } finally {
      await real.stop();
    }
  });

  it("counts per account only when the web says the address is unknown", async () => {
    const user = await t.createUser("unknown_addr");
    expect(await codesFor(["unk_a", "unk_b", "unk_c", "unk_d", "unk_e"], () => vouched("unknown"))).toEqual([1005, 1005, 1005, 1005, 1005]);
    expect((await t.login("unknown_addr", user.password, vouched("unknown"))).body.code).toBe(200);
  });

  it("counts parallel sign-ins from one address exactly, checking no more passwords than the limit", async () => {
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => t.login(`par_${i}`, "Wrong#Pass1", vouched("198.51.100.30"))));
    const codes = replies.map((r) => r.body.code).sort();
    // The fourth attempt locks: three wrong-password answers, the rest refused without a hash.
    expect(codes).toEqual([...Array(3).fill(1005), ...Array(13).fill(4116)]);
  });

  it("uses FERRY_FORWARD_SECRET when set, and then not the data directory's key", async () => {
    const secret = "an-operator-chosen-forward-secret-0123456789";
    const configured = await startTestEngine({ FERRY_FORWARD_SECRET: secret, FERRY_LOGIN_ADDRESS_MAX_FAILURES: "2" });
    try {
      const fileKey = loadForwardSecret(configured.dataDir, null);
      const withFileKey = [];
      for (let i = 0; i < 2; i++) withFileKey.push((await configured.login(`cfg_${i}`, "Wrong#Pass1", vouched(`192.0.2.${i + 1}`, fileKey))).body.code);
      expect(withFileKey).toEqual([1005, 4116]); // not believed: both were 127.0.0.1
      expect((await configured.login("cfg_x", "Wrong#Pass1", vouched("192.0.2.9", secret))).body.code).toBe(1005);
    } finally {
      await configured.stop();
    }
  });
});

describe("share passwords through the web", () => {
  it("are counted per signed visitor address across links; forged addresses count as the real peer", async () => {
    const shares = await startTestEngine(SHARE_ENV);
    try {
      const shareKey = loadForwardSecret(shares.dataDir, null);
      const owner = await shares.createUser("share_owner", { permission: PERMISSION_FULL });
      await writeTree(path.join(shares.dataDir, "storage", "users", "share_owner"), { "a.txt": "a", "b.txt": "b" });
      const first = await makeLink(shares, owner.token, { shareFiles: ["/a.txt"], needPassword: true, shareUrlPasswd: "Kq7w" });
      const second = await makeLink(shares, owner.token, { shareFiles: ["/b.txt"], needPassword: true, shareUrlPasswd: "Zx9p" });
      const verify = (url: string, passwd: string, headers: Record<string, string>) =>
        shares.call("POST", "/api/share/link/verify/url", { body: { url, fingerprint: "fp", passwd }, headers });

      const codes = [];
      for (let i = 0; i < SHARE_ATTEMPTS_PER_ADDRESS + 1; i++) codes.push((await verify(first.shareUrl, `no${i}`, vouched("198.51.100.60", shareKey))).body.code);
      expect(codes).toEqual([...Array(SHARE_ATTEMPTS_PER_ADDRESS).fill(1005), 4231]);
      // That visitor is stopped on every link; another visitor of the same web is not.
      expect((await verify(second.shareUrl, "Zx9p", vouched("198.51.100.60", shareKey))).body.code).toBe(4231);
      expect((await verify(second.shareUrl, "Zx9p", vouched("198.51.100.61", shareKey))).body.code).toBe(200);

      // Claims signed with another key all count as the one real peer, 127.0.0.1.
      const forged = [];
      for (let i = 0; i < SHARE_ATTEMPTS_PER_ADDRESS + 1; i++) forged.push((await verify(second.shareUrl, `no${i}`, vouched(`203.0.113.${i + 1}`, "not-the-engine-key-0123456789abcdef"))).body.code);
      expect(forged).toEqual([...Array(SHARE_ATTEMPTS_PER_ADDRESS).fill(1005), 4231]);
    } finally {
      await shares.stop();
    }
  });
});

describe("the forward-secret file", () => {
  it("is created once, 0600, and every process racing to create it reads the same key", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ferry-forward-"));
    try {
      const loader = `import { loadForwardSecret } from ${JSON.stringify(path.resolve("contract/forwarding.ts"))}; process.stdout.write(loadForwardSecret(process.argv[1], null));`;
      const run = () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", loader, path.join(dir, "data")], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          child.stdout.on("data", (chunk) => (out += chunk));
          child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`loader exited ${code}`))));
        });
      const keys = await Promise.all(Array.from({ length: 6 }, run));
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
      expect((await stat(path.join(dir, "data", "forward-secret"))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
