import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Envelope } from "../../contract/envelope";
import { createCredentialCodec } from "../../contract/credentials";
import { loadConfig } from "../../server/config";
import { type Engine, startEngine } from "../../server/engine";
import { createTestDatabase } from "./databases";

export const ADMIN_INITIAL_PASSWORD = "Initial#Boss2026";
export const ADMIN_PASSWORD = "Ferry#Chief2026";
export const SALT = "test-salt";
export const codec = createCredentialCodec(SALT);

/** A clock the test moves by hand. */
export class TestClock {
  constructor(private t = Date.now()) {}
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

export interface Reply<T = unknown> {
  status: number;
  body: Envelope<T>;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Raw request text instead of JSON.stringify(body). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestEngine {
  url: string;
  /** The file server's base URL (http://127.0.0.1:<port>); its socket is at /ws. */
  fileUrl: string;
  clock: TestClock;
  engine: Engine;
  dataDir: string;
  databaseUrl: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  login(account: string, password: string, headers?: Record<string, string>): Promise<Reply<any>>;
  /** Signs in as a user and returns its access token (fails the test otherwise). */
  tokenFor(account: string, password: string): Promise<string>;
  /** The administrator's access token, after the forced first change of password. */
  adminToken(): Promise<string>;
  /** Creates a user (admin API) and signs it in: its access token and its file-server (websocket) token. */
  createUser(account: string, options?: Record<string, unknown>): Promise<{ id: number; account: string; password: string; token: string; socketToken: string }>;
  /** Stops the engine and starts it again on the same data directory, configuration and clock (as a restart does). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the real engine on an ephemeral port with its own data directory and database. */
export async function startTestEngine(env: Record<string, string> = {}): Promise<TestEngine> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "ferry-test-"));
  const database = await createTestDatabase(dataDir);
  const clock = new TestClock();
  const config = loadConfig({
    FERRY_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    FERRY_HOST: "127.0.0.1",
    FERRY_API_PORT: "0",
    FERRY_FILE_PORT: "0",
    FERRY_ADMIN_PASSWORD: ADMIN_INITIAL_PASSWORD,
    FERRY_HASHID_SALT: SALT,
    FERRY_LOG_LEVEL: "silent",
    ...env,
  });
  let engine = await startEngine(config, clock);
  let url = engine.apiUrl;
  let adminToken: string | undefined;

  async function call<T>(method: string, p: string, options: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined = options.raw;
    if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined) headers["content-type"] ??= "application/json";
    const res = await fetch(url + p, { method, headers, body: payload });
    return { status: res.status, body: (await res.json()) as Envelope<T>, headers: res.headers };
  }

  const login = (account: string, password: string, headers?: Record<string, string>) =>
    call<any>("POST", "/api/user/login", { body: { UK: codec.encodeUK(account, password) }, headers });

  async function tokenFor(account: string, password: string) {
    const reply = await login(account, password);
    if (reply.body.code !== 200) throw new Error(`login ${account} failed: ${JSON.stringify(reply.body)}`);
    return reply.body.data.token as string;
  }

  const t: TestEngine = {
    url,
    fileUrl: engine.fileServer.url,
    clock,
    engine,
    dataDir,
    databaseUrl: database.url,
    call,
    login,
    tokenFor,
    async adminToken() {
      // Tests move the clock by days; a cached token may have expired since.
      if (adminToken && (await call("GET", "/api/user/info", { token: adminToken })).body.code === 200) return adminToken;
      const first = await login("admin", ADMIN_INITIAL_PASSWORD);
      if (first.body.code === 1074) {
        const changed = await call("PUT", "/api/user/password/update", {
          body: { account: "admin", oldPassword: codec.encode(ADMIN_INITIAL_PASSWORD), newPassword: codec.encode(ADMIN_PASSWORD), needUpdatePwd: false },
        });
        if (changed.body.code !== 200) throw new Error(`admin reset failed: ${JSON.stringify(changed.body)}`);
      }
      adminToken = await tokenFor("admin", ADMIN_PASSWORD);
      return adminToken;
    },
    async createUser(account, options = {}) {
      const password = (options.password as string | undefined) ?? "Str0ng#Pass";
      const created = await call("POST", "/api/admin/users", {
        token: await t.adminToken(),
        body: { account, password, needUpdatePwd: false, ...options },
      });
      if (created.body.code !== 200) throw new Error(`create ${account} failed: ${JSON.stringify(created.body)}`);
      const signedIn = await login(account, password);
      if (signedIn.body.code !== 200) throw new Error(`login ${account} failed: ${JSON.stringify(signedIn.body)}`);
      const { token, websocket_token: socketToken } = signedIn.body.data as { token: string; websocket_token: string };
      return { id: (created.body.data as { id: number }).id, account, password, token, socketToken };
    },
    async restart() {
      await engine.stop();
      engine = await startEngine(config, clock);
      url = engine.apiUrl;
      Object.assign(t, { url, fileUrl: engine.fileServer.url, engine });
    },
    async stop() {
      await engine.stop();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
