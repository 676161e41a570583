import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DashboardStatus } from "../../contract/dashboard";
import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, codec, SALT } from "../support/engine";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { freePort } from "../support/ports";

// Restart and shutdown from the dashboard act on the engine's own process (server/main.ts): run
// alone, a restart starts a successor (a new process id, the same port and data); a shutdown ends it.
vi.setConfig({ testTimeout: 120_000 });

const root = path.resolve(import.meta.dirname, "../..");
let dataDir: string;
let database: TestDatabase;
const pids = new Set<number>();
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "ferry-dash-process-"));
  database = await createTestDatabase(dataDir);
});
afterAll(async () => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts `server/main.ts` as its own process on a free port and signs the administrator in. */
async function startProcess(extraEnv: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FERRY_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    FERRY_API_PORT: String(port),
    FERRY_FILE_PORT: "0",
    FERRY_HOST: "127.0.0.1",
    FERRY_ADMIN_PASSWORD: ADMIN_INITIAL_PASSWORD,
    FERRY_HASHID_SALT: SALT,
    FERRY_LOG_LEVEL: "warn",
    ...extraEnv,
  };
  if (!extraEnv.FERRY_SUPERVISED) delete env.FERRY_SUPERVISED;
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { cwd: root, env, stdio: "ignore" });
  pids.add(child.pid!);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const call = async <T>(method: string, p: string, token?: string, body?: unknown) => {
    const res = await fetch(base + p, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as { code: number; data: T };
  };
  const answers = async () => await fetch(`${base}/api/health`).then((r) => r.ok).catch(() => false);
  await expect.poll(answers, { timeout: 60_000, interval: 300 }).toBe(true);
  // The first start of the data directory asks for a new password; later starts sign in at once.
  await call("PUT", "/api/user/password/update", undefined, { account: "admin", oldPassword: codec.encode(ADMIN_INITIAL_PASSWORD), newPassword: codec.encode(ADMIN_PASSWORD), needUpdatePwd: false });
  const login = await call<{ token: string }>("POST", "/api/user/login", undefined, { UK: codec.encodeUK("admin", ADMIN_PASSWORD) });
  expect(login.code).toBe(200);
  return { child, exited, call, answers, token: login.data.token };
}

describe("restart and shutdown of the engine process", () => {
  it("restarts into a new process that serves again, and shuts down for good", async () => {
    const { child, exited, call, answers, token } = await startProcess({});

    const first = await call<DashboardStatus>("GET", "/api/admin/dashboard/status", token);
    expect(first.data).toMatchObject({ state: "running", pid: child.pid, canRestart: true });

    const restarting = await call<DashboardStatus>("POST", "/api/admin/dashboard/restart", token);
    expect(restarting.code).toBe(200);
    expect(restarting.data.state).toBe("restarting");
    // The old process leaves; a new one answers on the same port, with the same sessions (the database).
    expect(await exited).toBe(0);
    let second: DashboardStatus | undefined;
    await expect
      .poll(
        async () => {
          const reply = await call<DashboardStatus>("GET", "/api/admin/dashboard/status", token).catch(() => null);
          second = reply?.data;
          if (second?.pid) pids.add(second.pid);
          return second?.state;
        },
        { timeout: 60_000, interval: 300 },
      )
      .toBe("running");
    expect(second!.pid).not.toBe(child.pid);
    expect(second!.startedAt).toBeGreaterThan(first.data.startedAt);
    expect(alive(second!.pid)).toBe(true);

    const shutting = await call<DashboardStatus>("POST", "/api/admin/dashboard/shutdown", token);
    expect(shutting.data.state).toBe("shuttingDown");
    await expect.poll(() => alive(second!.pid), { timeout: 30_000, interval: 200 }).toBe(false);
    expect(await answers()).toBe(false);
  });

  it("under npm start's supervisor, leaves with the exit code the supervisor acts on and starts nothing itself", async () => {
    const restarted = await startProcess({ FERRY_SUPERVISED: "1" });
    expect((await restarted.call<DashboardStatus>("POST", "/api/admin/dashboard/restart", restarted.token)).data.state).toBe("restarting");
    expect(await restarted.exited).toBe(75);
    expect(await restarted.answers()).toBe(false);

    const stopped = await startProcess({ FERRY_SUPERVISED: "1" });
    expect((await stopped.call<DashboardStatus>("POST", "/api/admin/dashboard/shutdown", stopped.token)).data.state).toBe("shuttingDown");
    expect(await stopped.exited).toBe(76);
    expect(await stopped.answers()).toBe(false);
  });
});
