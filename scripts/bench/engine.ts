import path from "node:path";
import type { ChildProcess } from "node:child_process";
import type { CreateUserBody } from "../../contract/admin";
import { createCredentialCodec } from "../../contract/credentials";
import type { Envelope } from "../../contract/envelope";
import { PERMISSION_FULL } from "../../contract/permissions";
import { buildEngine, ENGINE_ENTRY, ENGINE_NODE_OPTIONS, engineBuildStale } from "../build-engine.mjs";
import { freePort, log, startChild, stopChild, waitFor } from "./lifecycle";

/**
 * The engine under test: the production build (build/engine/main.js, what `npm start` runs, made
 * first when server/ or contract/ changed since) as a child process of plain `node` on free
 * loopback ports with a temporary data directory and SQLite, so its RSS and CPU are its own and
 * nothing of the shell's configuration leaks in.
 */

export const ROOT = path.resolve(import.meta.dirname, "../..");
const SALT = "bench-salt";
const ADMIN_INITIAL_PASSWORD = "Bench#Start2026";
const ADMIN_PASSWORD = "Bench#Chief2026";
export const codec = createCredentialCodec(SALT);
const USER_PASSWORD = "Ferry#Speed2026";

export interface BenchUser {
  account: string;
  password: string;
  token: string;
  socketToken: string;
  /** Absolute folder of the user's personal space on disk. */
  homeDir: string;
}

export interface EngineProcess {
  apiUrl: string;
  fileUrl: string;
  apiPort: number;
  filePort: number;
  pid: number;
  dataDir: string;
  /** Salt of the credential encoding, which the web client must share. */
  salt: string;
  child: ChildProcess;
  call<T>(method: string, apiPath: string, body?: unknown, token?: string): Promise<Envelope<T>>;
  /** `settings`: more of the user's settings (part objects: a home on another storage, `storageId`); `homeDir` is then meaningless. */
  createUser(account: string, settings?: Omit<CreateUserBody, "account" | "password">): Promise<BenchUser>;
  /** The admin's token, for admin REST calls (the first use changes the initial password). */
  adminToken(): Promise<string>;
  /** Signs in a user made by an earlier process on the same data directory (createUser's password). */
  signIn(account: string): Promise<BenchUser>;
  stop(): Promise<void>;
}

/** Where the engine runs when not on the host's loopback (the WAN part: inside a network namespace). */
export interface EnginePlacement {
  /** `ip netns exec` this namespace; the engine listens on every address of it. */
  netns: string;
  /** Ports the caller has bridged to the host's 127.0.0.1 (wan-link.ts), so the control URLs below work unchanged. */
  apiPort: number;
  filePort: number;
}

/** `extraEnv`: options of this engine only, over the pinned ones (the log-cost part's FERRY_BENCH_LOGS_OFF). */
export async function startEngineProcess(dataDir: string, extraEnv: Record<string, string> = {}, placement?: EnginePlacement): Promise<EngineProcess> {
  const apiPort = placement?.apiPort ?? (await freePort());
  const filePort = placement?.filePort ?? (await freePort());
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const fileUrl = `http://127.0.0.1:${filePort}`;
  // Every option pinned: an exported DATABASE_URL or FERRY_CONFIG must never point the bench at real data.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FERRY_DATA_DIR: dataDir,
    DATABASE_URL: "",
    FERRY_CONFIG: "",
    FERRY_INSTALLERS_DIR: "",
    FERRY_HOST: placement ? "0.0.0.0" : "127.0.0.1",
    FERRY_API_PORT: String(apiPort),
    FERRY_FILE_PORT: String(filePort),
    FERRY_FILE_TLS_PORT: String(await freePort()),
    FERRY_ENGINE_URL: apiUrl,
    FERRY_ADMIN_PASSWORD: ADMIN_INITIAL_PASSWORD,
    FERRY_HASHID_SALT: SALT,
    FERRY_LOG_LEVEL: "warn",
    FERRY_TRUSTED_PROXIES: "127.0.0.1,::1",
    FERRY_ACCEL_REDIRECT: "",
    FERRY_WEB_ORIGINS: "",
    FERRY_BENCH_LOGS_OFF: "",
    ...extraEnv,
  };
  const stale = engineBuildStale();
  if (stale) {
    log(`${stale}: building the engine…`);
    await buildEngine();
  }
  const argv = [...ENGINE_NODE_OPTIONS, ENGINE_ENTRY];
  // `ip netns exec` execs the command, so the child's pid is the engine's own (RSS, CPU, signals).
  const child = placement ? startChild("ip", ["netns", "exec", placement.netns, process.execPath, ...argv], { cwd: ROOT, env }) : startChild(process.execPath, argv, { cwd: ROOT, env });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", (chunk: Buffer) => {
    keep(chunk);
    process.stderr.write(`[engine] ${chunk.toString()}`);
  });
  await waitFor("the engine's health endpoints", 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`engine exited with ${child.exitCode}: ${output.trim()}`);
    const [api, files] = await Promise.all([fetch(`${apiUrl}/api/health`), fetch(`${fileUrl}/health`)]);
    return api.ok && files.ok ? true : undefined;
  }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${output.trim()}`);
  });
  log(`engine pid ${child.pid} at ${apiUrl}, file server ${fileUrl}`);

  async function call<T>(method: string, apiPath: string, body?: unknown, token?: string): Promise<Envelope<T>> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(apiUrl + apiPath, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as Envelope<T>;
  }
  const login = (account: string, password: string) => call<{ token: string; websocket_token: string }>("POST", "/api/user/login", { UK: codec.encodeUK(account, password) });

  let adminToken: string | undefined;
  async function admin(): Promise<string> {
    if (adminToken) return adminToken;
    const first = await login("admin", ADMIN_INITIAL_PASSWORD);
    // 1074: the initial password must be changed before anything else.
    if (first.code !== 1074) throw new Error(`admin first sign-in answered ${first.code} ${first.message}`);
    const changed = await call("PUT", "/api/user/password/update", {
      account: "admin",
      oldPassword: codec.encode(ADMIN_INITIAL_PASSWORD),
      newPassword: codec.encode(ADMIN_PASSWORD),
      needUpdatePwd: false,
    });
    if (changed.code !== 200) throw new Error(`admin password change answered ${changed.code} ${changed.message}`);
    const signedIn = await login("admin", ADMIN_PASSWORD);
    if (signedIn.code !== 200) throw new Error(`admin sign-in answered ${signedIn.code} ${signedIn.message}`);
    adminToken = signedIn.data!.token;
    return adminToken;
  }

  async function signIn(account: string): Promise<BenchUser> {
    const password = USER_PASSWORD;
    const home = `/users/${account}`;
    const signedIn = await login(account, password);
    if (signedIn.code !== 200) throw new Error(`${account} sign-in answered ${signedIn.code} ${signedIn.message}`);
    const { token, websocket_token: socketToken } = signedIn.data!;
    return {
      account,
      password,
      token,
      socketToken,
      homeDir: path.join(dataDir, "storage", home),
    };
  }

  return {
    apiUrl,
    fileUrl,
    apiPort,
    filePort,
    pid: child.pid!,
    dataDir,
    salt: SALT,
    child,
    call,
    signIn,
    adminToken: admin,
    async createUser(account, settings = {}) {
      const body: CreateUserBody = { account, password: USER_PASSWORD, home: `/users/${account}`, needUpdatePwd: false, permission: PERMISSION_FULL, ...settings };
      const created = await call("POST", "/api/admin/users", body, await admin());
      if (created.code !== 200) throw new Error(`creating ${account} answered ${created.code} ${created.message}`);
      return signIn(account);
    },
    stop: () => stopChild(child, 10_000),
  };
}
