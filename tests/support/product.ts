// The whole product as an operator runs it: `npm start` (scripts/start.mjs) with the built engine
// and remix-serve, on free ports, a fresh data directory and the embedded SQLite database. The
// system tests (tests/system/) use it for what only the real processes show: a crash and its
// restart, and memory under a flood.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCredentialCodec } from "../../contract/credentials";
import { freePort } from "./ports";

export const PRODUCT_SALT = "system-salt";
export const PRODUCT_ADMIN_INITIAL = "Initial#Boss2026";
export const PRODUCT_ADMIN_PASSWORD = "Ferry#Chief2026";
export const productCodec = createCredentialCodec(PRODUCT_SALT);

const root = path.resolve(import.meta.dirname, "../..");

export interface Product {
  webUrl: string;
  apiUrl: string;
  fileUrl: string;
  dataDir: string;
  /** Everything start.mjs and its children printed so far. */
  readonly output: string;
  /** The pid of the running engine / web, as start.mjs last announced it. */
  pid(label: "engine" | "web"): number;
  /** Resolves when the output matches `pattern` (after `from`, an output offset), or rejects after `ms`. */
  waitFor(pattern: RegExp, ms?: number, from?: number): Promise<RegExpExecArray>;
  /** start.mjs's exit (code), once it has exited. */
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Peak resident memory of a process in MB (VmHWM), read from /proc. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startProduct(env: Record<string, string> = {}): Promise<Product> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "ferry-product-"));
  const [api, file, fileTls, web] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      FERRY_DATA_DIR: dataDir,
      DATABASE_URL: "",
      FERRY_CONFIG: "",
      FERRY_HOST: "127.0.0.1",
      HOST: "127.0.0.1",
      FERRY_API_PORT: String(api),
      FERRY_FILE_PORT: String(file),
      FERRY_FILE_TLS_PORT: String(fileTls),
      FERRY_WEB_PORT: String(web),
      FERRY_ENGINE_URL: "",
      FERRY_ADMIN_PASSWORD: PRODUCT_ADMIN_INITIAL,
      FERRY_HASHID_SALT: PRODUCT_SALT,
      FERRY_LOG_LEVEL: "warn",
      FERRY_TRUSTED_PROXIES: "",
      FERRY_WEB_ORIGINS: `http://127.0.0.1:${web}`,
      ...env,
    },
  });
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters) wake();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => {
    for (const wake of waiters) wake();
  });
  let done = false;
  void exited.then(() => (done = true));

  const waitFor = (pattern: RegExp, ms = 120_000, from = 0) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = new RegExp(pattern.source, pattern.flags).exec(output.slice(from));
        if (match) return finish(() => resolve(match));
        if (done) finish(() => reject(new Error(`start.mjs exited before ${pattern}:\n${output.slice(-4000)}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${output.slice(-4000)}`))), ms);
      const finish = (then: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        then();
      };
      waiters.add(check);
      check();
    });

  const product: Product = {
    webUrl: `http://127.0.0.1:${web}`,
    apiUrl: `http://127.0.0.1:${api}`,
    fileUrl: `http://127.0.0.1:${file}`,
    dataDir,
    get output() {
      return output;
    },
    pid(label) {
      const all = [...output.matchAll(new RegExp(`\\[ferry\\] ${label} started \\(pid (\\d+)\\)`, "g"))];
      const last = all.at(-1);
      if (!last) throw new Error(`no ${label} pid announced:\n${output.slice(-2000)}`);
      return Number(last[1]);
    },
    waitFor,
    exited,
    async stop() {
      if (!done) child.kill("SIGTERM");
      const code = await exited;
      await rm(dataDir, { recursive: true, force: true });
      return code;
    },
  };
  try {
    await waitFor(/Ferry is running\./, 180_000);
  } catch (error) {
    await product.stop();
    throw error;
  }
  return product;
}

/** The administrator's access token on a fresh product: the forced first change, then a sign-in. */
export async function productAdminToken(product: Product): Promise<string> {
  const post = async (p: string, body: unknown, method = "POST") => {
    const res = await fetch(product.apiUrl + p, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as { code: number; data: { token: string } };
  };
  const first = await post("/api/user/login", { UK: productCodec.encodeUK("admin", PRODUCT_ADMIN_INITIAL) });
  if (first.code === 1074) {
    const changed = await post(
      "/api/user/password/update",
      { account: "admin", oldPassword: productCodec.encode(PRODUCT_ADMIN_INITIAL), newPassword: productCodec.encode(PRODUCT_ADMIN_PASSWORD), needUpdatePwd: false },
      "PUT",
    );
    if (changed.code !== 200) throw new Error(`admin password change failed: ${JSON.stringify(changed)}`);
  }
  const signedIn = await post("/api/user/login", { UK: productCodec.encodeUK("admin", PRODUCT_ADMIN_PASSWORD) });
  if (signedIn.code !== 200) throw new Error(`admin sign-in failed: ${JSON.stringify(signedIn)}`);
  return signedIn.data.token;
}
