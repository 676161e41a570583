// The engine of an end-to-end run (playwright.config.ts starts it as a webServer):
//   node --import tsx tests/support/e2e-server.ts
// Creates the run's fresh directory, pins every engine option so nothing leaks in from the shell
// (a DATABASE_URL or FERRY_CONFIG there would point the run at someone's real data), then runs the
// engine's real entry point, server/main.ts, in this process. main.ts stops the engine on SIGTERM
// and exits; the exit hook below then deletes the run directory.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { TEST_LICENCE_PUBLIC_KEY } from "./licence";
import {
  ADMIN_INITIAL_PASSWORD,
  E2E_API_PORT,
  E2E_FILE_PORT,
  E2E_FILE_TLS_PORT,
  E2E_WEB_PORT,
  e2eEventBinDir,
  ENGINE_URL,
  FORWARD_SECRET,
  SALT,
} from "./e2e-env";

const runDir = process.env.FERRY_E2E_RUN_DIR;
if (!runDir) {
  process.stderr.write("e2e-server: FERRY_E2E_RUN_DIR is not set (playwright.config.ts sets it)\n");
  process.exit(1);
}
// Not recursive: a directory that already exists means a stale run, never something to reuse.
mkdirSync(runDir);
process.on("exit", () => rmSync(runDir, { recursive: true, force: true }));
// The events directory (admin-events.spec.ts writes its executable there).
mkdirSync(e2eEventBinDir());

Object.assign(process.env, {
  FERRY_DATA_DIR: path.join(runDir, "data"),
  FERRY_HOST: "127.0.0.1",
  FERRY_API_PORT: String(E2E_API_PORT),
  FERRY_FILE_PORT: String(E2E_FILE_PORT),
  FERRY_FILE_TLS_PORT: String(E2E_FILE_TLS_PORT),
  FERRY_WEB_PORT: String(E2E_WEB_PORT),
  FERRY_ENGINE_URL: ENGINE_URL,
  FERRY_ADMIN_PASSWORD: ADMIN_INITIAL_PASSWORD,
  FERRY_HASHID_SALT: SALT,
  FERRY_EDITION: "free",
  // Licences signed with the tests' key are trusted (tests/support/licence.ts): specs that need the
  // enterprise edition upload one and remove it afterwards; without one the run is the free edition.
  FERRY_LICENSE_PUBLIC_KEY: TEST_LICENCE_PUBLIC_KEY,
  // Preview is an enterprise feature by default; the run previews for real (the free edition's
  // 4109 refusal is covered by the engine tests and the web unit test).
  FERRY_PREVIEW: "on",
  FERRY_EVENT_BIN_DIR: e2eEventBinDir(),
  FERRY_LOG_LEVEL: "warn",
  // Empty counts as unset for the engine: the SQLite file in the data directory, no config file,
  // no trusted proxies, default token lifetimes and body limit.
  DATABASE_URL: "",
  FERRY_CONFIG: "",
  FERRY_INSTALLERS_DIR: "",
  // As under npm start: no local proxy is trusted; the web vouches for the browser's address with
  // the forward secret, so sign-ins through it count per account and per the browser's address.
  FERRY_TRUSTED_PROXIES: "",
  FERRY_FORWARD_SECRET: FORWARD_SECRET,
  FERRY_ACCESS_TOKEN_TTL: "",
  FERRY_REFRESH_TOKEN_TTL: "",
  FERRY_API_BODY_LIMIT: "",
  FERRY_LOGIN_ADDRESS_MAX_FAILURES: "",
  // Every spec's browser signs in from 127.0.0.1: with the default 15-minute window the run's wrong
  // passwords (lockout, console and password-change tests) add up to the address limit and lock the
  // later specs out. Two minutes keeps one spec's attempts from reaching the next; signin-address's
  // 22 attempts still fall in one window.
  FERRY_LOGIN_ADDRESS_WINDOW: "120",
  // The same for share links: every visitor of the run comes from 127.0.0.1, and the run's share
  // tokens (30 per address per window by default) add up across specs; within one spec they stay
  // far below the limit. The limit itself is tested by the engine suite (shares-anonymous).
  FERRY_SHARE_RATE_WINDOW: "120",
  FERRY_LOOKUP_ADDRESS_MAX: "",
  FERRY_REFRESH_REUSE_GRACE: "",
  // The external HTTP way's test service (admin-authentication.spec.ts) listens on 127.0.0.1.
  FERRY_AUTH_HTTP_ALLOW_PRIVATE: "1",
  // FERRY_SMTP_ALLOW_PRIVATE stays unset: the server's account (admin-email / admin-notifications)
  // reaches the smtp-server on loopback as the administrator's, and a user's own account is refused
  // there (smtp.spec.ts).
});

await import("../../server/main");
