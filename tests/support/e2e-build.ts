// Runs `remix build` when build/index.js is missing or older than what goes into it, so
// `npx playwright test` alone always tests the current sources. playwright.config.ts runs it just
// before remix-serve, inside the web server's command: Playwright starts its webServers before
// globalSetup, so a build there would come too late for the first run.
//   node --import tsx tests/support/e2e-build.ts
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** The web build's inputs: the app, the contract it imports, and the build's own configuration. */
const INPUTS = ["app", "contract", "remix.config.js", "tailwind.config.ts", "package.json"];
/** Unit tests next to the code do not go into the build. */
const NOT_BUILT = /\.test\.[cm]?[jt]sx?$/;

function newestMtime(entry: string): number {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return NOT_BUILT.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

function staleReason(): string | null {
  const serverBuild = path.join(root, "build", "index.js");
  const built = statSync(serverBuild, { throwIfNoEntry: false });
  if (!built) return "no build/index.js yet";
  if (!existsSync(path.join(root, "public", "build"))) return "no public/build yet";
  const newest = Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
  return newest > built.mtimeMs ? "sources changed since the last build" : null;
}

const reason = staleReason();
if (reason) {
  process.stderr.write(`[e2e] ${reason}: running remix build…\n`);
  const { bin } = JSON.parse(readFileSync(path.join(root, "node_modules/@remix-run/dev/package.json"), "utf8")) as { bin: Record<string, string> };
  const remix = path.join(root, "node_modules/@remix-run/dev", bin.remix!);
  // Its output goes to stderr, which Playwright shows (it drops a webServer's stdout).
  const result = spawnSync(process.execPath, [remix, "build"], { cwd: root, stdio: ["ignore", 2, 2], env: { ...process.env, NODE_ENV: "production" } });
  if (result.status !== 0) {
    process.stderr.write(`[e2e] remix build failed (${result.signal ?? `exit code ${result.status}`})\n`);
    process.exit(1);
  }
}
