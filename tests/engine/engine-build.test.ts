import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildEngine } from "../../scripts/build-engine.mjs";
import { freePort } from "../support/ports";

// The production engine (`npm run build:engine`, run by `npm start` with plain node): built into a
// temp dir, then run as users run it. Building and starting processes take seconds here.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const root = path.resolve(import.meta.dirname, "../..");
let outDir: string;
let dataDir: string;

beforeAll(async () => {
  // Inside the repository (build/ is ignored by git), as the packages resolve from its node_modules.
  await mkdir(path.join(root, "build"), { recursive: true });
  outDir = await mkdtemp(path.join(root, "build", "engine-test-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "ferry-engine-build-data-"));
  await buildEngine(outDir);
});
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe("the built engine", () => {
  it("starts with plain node from any folder and serves the API and the file server", async () => {
    const apiPort = await freePort();
    const filePort = await freePort();
    const env = {
      ...process.env,
      FERRY_DATA_DIR: dataDir,
      DATABASE_URL: "",
      FERRY_CONFIG: "",
      FERRY_HOST: "127.0.0.1",
      FERRY_API_PORT: String(apiPort),
      FERRY_FILE_PORT: String(filePort),
      FERRY_FILE_TLS_PORT: String(await freePort()),
      FERRY_LOG_LEVEL: "warn",
    };
    // Started from another folder: the bundle must not find its files relative to the working directory.
    const child = spawn(process.execPath, [path.join(outDir, "main.js")], { cwd: dataDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`engine exited with ${code}: ${output}`)));
        child.stdout.on("data", () => {
          if (output.includes("Ferry engine http://")) resolve();
        });
      });
      const health = (await (await fetch(`http://127.0.0.1:${apiPort}/api/health`)).json()) as { data: { version: string; database: string } };
      const { version } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { version: string };
      expect(health.data).toMatchObject({ version, database: "sqlite" });
      expect((await fetch(`http://127.0.0.1:${filePort}/health`)).ok).toBe(true);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  });

  it("runs the operator CLI with plain node", () => {
    const result = spawnSync(process.execPath, [path.join(outDir, "ferry.js"), "help"], { cwd: dataDir, encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Ferry operator command line");
  });
});
