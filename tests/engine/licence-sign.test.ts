import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import type { LicenceState } from "../../contract/licence";
import { payloadOf } from "../../scripts/licence-sign";
import { startTestEngine, type TestEngine } from "../support/engine";
import { TEST_LICENCE_PUBLIC_KEY } from "../support/licence";

/**
 * The vendor's licence tool (scripts/licence-sign.ts, docs/licence.md "Signing licences"), run as the
 * vendor runs it (tsx, a fresh key from --keygen): its licence is accepted by an engine trusting that
 * key and refused with 1093 by one that does not.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const TOOL = ["node_modules/.bin/tsx", "scripts/licence-sign.ts"] as const;
const tool = (...args: string[]) => run(TOOL[0], [TOOL[1], ...args], { cwd: process.cwd() });

let dir: string;
let publicKey: string;
let licence: string;
const engines: TestEngine[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-licence-tool-"));
  const keyFile = path.join(dir, "vendor.pem");
  const made = await tool("--keygen", "--key", keyFile);
  publicKey = (await readFile(`${keyFile}.pub`, "utf8")).trim();
  expect(made.stdout).toContain(`public key: ${publicKey}`);
  expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  // A second --keygen never replaces the key.
  await expect(tool("--keygen", "--key", keyFile)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("never replaces a key") });

  const out = path.join(dir, "acme.licence");
  const signed = await tool("--key", keyFile, "--edition", "enterprise", "--licensee", "Acme Ltd", "--users", "25", "--expires", "2999-12-31", "--id", "acme-1", "--out", out);
  expect(signed.stderr).toContain("is not this build's key");
  licence = await readFile(out, "utf8");
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
  await rm(dir, { recursive: true, force: true });
});

async function uploadTo(env: Record<string, string>) {
  const e = await startTestEngine(env);
  engines.push(e);
  const token = await e.adminToken();
  const reply = await e.call<LicenceState>("POST", "/api/admin/licence", { token, body: { licence } });
  return { reply, state: (await e.call<LicenceState>("GET", "/api/admin/licence", { token })).body.data! };
}

describe("scripts/licence-sign.ts", () => {
  it("makes a licence an engine trusting the new key accepts, with the terms given", async () => {
    const { reply, state } = await uploadTo({ FERRY_LICENSE_PUBLIC_KEY: publicKey });
    expect(reply.body.code).toBe(200);
    expect(state).toMatchObject({
      edition: "enterprise",
      source: "licence",
      status: "activated",
      userLimit: 25,
      licence: { id: "acme-1", edition: "enterprise", licensee: "Acme Ltd", userLimit: 25, expiresAt: Date.UTC(3000, 0, 1) / 1000 },
      problem: null,
    });
  });

  it("an engine that does not trust the key refuses the licence with 1093 and stays free", async () => {
    // Trusting the build key and the tests' key, not the vendor key just made.
    const { reply, state } = await uploadTo({ FERRY_LICENSE_PUBLIC_KEY: TEST_LICENCE_PUBLIC_KEY });
    expect(reply.body.code).toBe(ErrorCode.LicenseInvalid);
    expect(state).toMatchObject({ edition: "free", source: "default", status: "inactivated", licence: null });
  });

  it("reads its options strictly: editions, users, expiry", () => {
    const base = { edition: "pro", licensee: "Acme", users: "unlimited", expires: "never", id: "x", issuedAt: 1 };
    expect(payloadOf(base)).toEqual({ id: "x", edition: "pro", licensee: "Acme", userLimit: null, issuedAt: 1, expiresAt: null });
    expect(payloadOf({ ...base, users: "3", expires: "2030-01-31" })).toMatchObject({ userLimit: 3, expiresAt: Date.UTC(2030, 1, 1) / 1000 });
    expect(() => payloadOf({ ...base, edition: "gold" })).toThrow("--edition");
    for (const users of ["0", "-1", "2.5", "many"]) expect(() => payloadOf({ ...base, users })).toThrow("--users");
    expect(() => payloadOf({ ...base, expires: "soon" })).toThrow("--expires");
    expect(() => payloadOf({ ...base, licensee: " " })).toThrow("--licensee");
  });
});
