import { defineConfig, devices } from "@playwright/test";
import path from "node:path";
import { E2E_API_PORT, E2E_LOCAL_CLIENT_PORTS, E2E_WEB_PORT, ENGINE_URL, FORWARD_SECRET, SALT, WEB_URL, WEB_EN_URL, e2eRunDir } from "./tests/support/e2e-env";

// End-to-end tests: the real engine (fresh SQLite data directory per run) and the built web client,
// driven in Debian's Chromium. `npx playwright test` builds the web first when it is out of date.
// Helpers for talking to the engine directly: tests/support/e2e-helpers.ts.

const runDir = e2eRunDir();
/** Debian's Chromium (Playwright cannot download its own here), at the product's minimum width and more. */
const browser = {
  ...devices["Desktop Chrome"],
  viewport: { width: 1440, height: 900 },
  launchOptions: {
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  },
};
/** What both web processes share: the test engine, its salt, a data directory for the session secret. */
const webEnv = { FERRY_ENGINE_URL: ENGINE_URL, FERRY_API_PORT: "", FERRY_HASHID_SALT: SALT, FERRY_FORWARD_SECRET: FORWARD_SECRET, FERRY_DATA_DIR: path.join(runDir, "web"), FERRY_ENGLISH_ONLY: "0", FERRY_LOCAL_CLIENT_PORTS: E2E_LOCAL_CLIENT_PORTS.join(",") };

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results",
  // 2 cores, and every test shares one engine (and its administrator): one test at a time.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // The slowest tests are listed after the summary (tests/support/slowest-reporter.ts).
  reporter: [["list"], ["./tests/support/slowest-reporter.ts"]],
  // The 15 slowest files over a minute, listed at the end of the run (where CI's log tail shows them).
  reportSlowTests: { max: 15, threshold: 60_000 },
  globalTeardown: "./tests/support/e2e-teardown.ts",
  use: {
    baseURL: WEB_URL,
    headless: true,
    trace: "off",
    screenshot: "only-on-failure",
    video: "off",
    // The product's minimum width is 1400 px.
    viewport: { width: 1440, height: 900 },
  },
  projects: [
    {
      // The administrator's very first sign-in (forced password change) runs before anything signs admin in.
      name: "first-admin",
      testMatch: /first-admin\.spec\.ts/,
      use: browser,
    },
    {
      name: "chromium",
      testIgnore: /first-admin\.spec\.ts/,
      dependencies: ["first-admin"],
      use: browser,
    },
  ],
  webServer: [
    {
      name: "engine",
      command: "node --import tsx tests/support/e2e-server.ts",
      url: `${ENGINE_URL}/api/health`,
      env: { FERRY_E2E_RUN_DIR: runDir, FERRY_E2E_API_PORT: String(E2E_API_PORT), FERRY_E2E_WEB_PORT: String(E2E_WEB_PORT) },
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
      // SIGTERM lets server/main.ts close the database and the launcher delete the run directory.
      gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    },
    {
      name: "web",
      command: "node --import tsx tests/support/e2e-build.ts && exec node --import ./scripts/web-peer.mjs node_modules/@remix-run/serve/dist/cli.js build/index.js",
      url: `${WEB_URL}/favicon.svg`,
      env: { NODE_ENV: "production", PORT: String(E2E_WEB_PORT), HOST: "127.0.0.1", ...webEnv },
      reuseExistingServer: false,
      // Includes a `remix build` when the sources changed (~2 s here, more on a cold disk).
      timeout: 180_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      // The English edition (FERRY_ENGLISH_ONLY=1) on the same engine, for the edition-flag test.
      name: "web-en",
      command: "exec node --import ./scripts/web-peer.mjs node_modules/@remix-run/serve/dist/cli.js build/index.js",
      url: `${WEB_EN_URL}/favicon.svg`,
      env: { NODE_ENV: "production", PORT: String(E2E_WEB_PORT + 1), HOST: "127.0.0.1", ...webEnv, FERRY_ENGLISH_ONLY: "1" },
      reuseExistingServer: false,
      timeout: 180_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});
