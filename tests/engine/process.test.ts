import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCredentialCodec } from "../../contract/credentials";
import { freePort } from "../support/ports";
import { createTestDatabase, type TestDatabase } from "../support/databases";

// Every test here starts engine or CLI processes (a few seconds each on a busy 2-core machine).
vi.setConfig({ testTimeout: 90_000 });

const root = path.resolve(import.meta.dirname, "../..");

/** Runs `npm run engine`'s entry point as its own process until `until` matches its output (or it exits). */
function runEngine(env: Record<string, string>, until: RegExp) {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { cwd: root, env: { ...process.env, FERRY_LOG_LEVEL: "warn", ...env } });
  let output = "";
  const stop = () => new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once("exit", () => done()), child.kill("SIGTERM"))));
  // `output` keeps growing after the match; read it live.
  const handle = { get output() { return output; }, get code() { return child.exitCode; }, stop };
  return new Promise<typeof handle>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (until.test(output)) resolve(handle);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", () => resolve(handle));
  });
}

let dataDir: string;
let database: TestDatabase;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "ferry-process-"));
  database = await createTestDatabase(dataDir);
});
afterAll(async () => {
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the engine process", () => {
  it("prints a generated administrator password once, which signs in and must be changed", async () => {
    const port = await freePort();
    const env = { FERRY_DATA_DIR: dataDir, DATABASE_URL: database.url, FERRY_API_PORT: String(port), FERRY_HOST: "127.0.0.1" };
    // At debug the request log has its one line per call (at the default level it has none: tests/system/operator-defaults.test.ts).
    const first = await runEngine({ ...env, FERRY_LOG_LEVEL: "debug" }, /choose a new password/);
    let uk = "";
    try {
      const password = /Initial password: +(\S+)/.exec(first.output)?.[1];
      expect(password).toBeTruthy();
      uk = createCredentialCodec("ferry").encodeUK("admin", password!);
      const reply = await fetch(`http://127.0.0.1:${port}/api/user/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ UK: uk }) });
      expect(((await reply.json()) as { code: number }).code).toBe(1074);
      await fetch(`http://127.0.0.1:${port}/api/user/info?token=query-secret-123`, { headers: { authorization: "Bearer header-secret-456" } });
    } finally {
      await first.stop();
    }
    // The request log names the calls but carries no credential.
    expect(first.output).toMatch(/"url":"\/api\/user\/info"/);
    for (const secret of [uk.split(".")[1]!, "query-secret-123", "header-secret-456"]) expect(first.output).not.toContain(secret);
    const second = await runEngine(env, /Ferry engine http/);
    try {
      expect(second.output).not.toMatch(/initial password/i);
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(((await health.json()) as { data: { status: string } }).data.status).toBe("ok");
    } finally {
      await second.stop();
    }
  });

  it("refuses to start on invalid configuration, naming the option", async () => {
    const bad = await runEngine({ FERRY_DATA_DIR: dataDir, FERRY_API_PORT: "eighty" }, /never/);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/FERRY_API_PORT/);
    const weak = await runEngine({ FERRY_DATA_DIR: path.join(dataDir, "fresh"), FERRY_ADMIN_PASSWORD: "admin123", FERRY_API_PORT: "0" }, /never/);
    expect(weak.code).toBe(1);
    expect(weak.output).toMatch(/FERRY_ADMIN_PASSWORD breaks the password rules/);
  });
});
