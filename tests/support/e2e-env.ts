import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * What the end-to-end run shares between playwright.config.ts (main process), the engine launcher
 * (tests/support/e2e-server.ts), the test workers (tests/support/e2e-helpers.ts) and the global
 * teardown. Plain values only: the config imports this file.
 *
 * Ports are fixed so a failing run is easy to poke at; FERRY_E2E_API_PORT / FERRY_E2E_WEB_PORT move
 * them when two runs share a machine. The engine's file-server ports sit right after the API port.
 */
const portFrom = (name: string, fallback: number) => {
  const value = process.env[name];
  const port = value ? Number(value) : fallback;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}=${value} is not a port`);
  return port;
};

export const E2E_API_PORT = portFrom("FERRY_E2E_API_PORT", 18490);
export const E2E_WEB_PORT = portFrom("FERRY_E2E_WEB_PORT", 13490);
export const E2E_FILE_PORT = E2E_API_PORT + 1;
export const E2E_FILE_TLS_PORT = E2E_API_PORT + 2;
/** The web looks for the local desktop client on these two ports (FERRY_LOCAL_CLIENT_PORTS); tests/e2e/client.spec.ts listens there. */
export const E2E_LOCAL_CLIENT_PORTS = [E2E_WEB_PORT + 2, E2E_WEB_PORT + 3] as const;

/** The engine's REST API, for tests that talk to it directly (the browser only ever sees the web). */
export const ENGINE_URL = `http://127.0.0.1:${E2E_API_PORT}`;
/** The web client; also Playwright's `baseURL`, so `page.goto("/")` lands here. */
export const WEB_URL = `http://127.0.0.1:${E2E_WEB_PORT}`;
/** The same web client built as the English edition (FERRY_ENGLISH_ONLY=1), on the next port. */
export const WEB_EN_URL = `http://127.0.0.1:${E2E_WEB_PORT + 1}`;

/** Initial password of `admin` (FERRY_ADMIN_PASSWORD): meets the rules, no "admin" in it. */
export const ADMIN_ACCOUNT = "admin";
export const ADMIN_INITIAL_PASSWORD = "E2e#Start2026";
/** What `adminToken()` changes the administrator's password to at the forced first change. */
export const ADMIN_PASSWORD = "E2e#Chief2026";
export const SALT = "e2e-salt";
/** FERRY_FORWARD_SECRET of the engine and both web processes: the web vouches for the browser's address with it. */
export const FORWARD_SECRET = "e2e-forward-secret-0123456789abcdef-0123";

/**
 * The run's own directory: `data/` is the engine's FERRY_DATA_DIR, `admin-session.json` is the
 * helpers' memory across worker processes. The config (main process) picks the name once and the
 * workers inherit it through the environment; the engine launcher creates it (and refuses one that
 * exists, so every run starts on an empty database); the launcher's exit and the global teardown
 * remove it.
 */
export function e2eRunDir(): string {
  process.env.FERRY_E2E_RUN_DIR ||= path.join(tmpdir(), `ferry-e2e-${randomUUID()}`);
  return process.env.FERRY_E2E_RUN_DIR;
}

/** The engine's events directory (FERRY_EVENT_BIN_DIR, docs/events.md): tests put their event executables there. */
export const e2eEventBinDir = (): string => path.join(e2eRunDir(), "event-bin");
