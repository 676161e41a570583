// `npm start`: builds the web client if needed and the engine if its sources changed, runs the built
// engine and the web client side by side with plain `node`, and prints where to open them once both
// answer. Plain Node ESM so it runs before any build step.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildEngine, ENGINE_ENTRY, ENGINE_NODE_OPTIONS, engineBuildStale } from "./build-engine.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
/** A crashed child is started again after 1 s, doubling up to this. */
const RESTART_MAX_DELAY_MS = 30_000;
/** Restarts are counted over this window; more than FERRY_RESTART_LIMIT in it and Ferry exits. */
const RESTART_WINDOW_MS = 60_000;
/**
 * The engine's exit codes for the administrator's dashboard actions (server/main.ts, ENGINE_EXIT):
 * restart starts it again at once, uncounted; shutdown stops Ferry (the web too) with exit code 0.
 */
const ENGINE_EXIT = { restart: 75, shutdown: 76 };

/** The same precedence as the engine (server/config.ts): environment, then the FERRY_CONFIG file, then defaults. */
function setting(name, fallback) {
  const fromEnv = process.env[name];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const value = configFile[name];
  return value !== undefined && value !== "" ? String(value) : fallback;
}

let configFile = {};
if (process.env.FERRY_CONFIG) {
  try {
    configFile = JSON.parse(readFileSync(process.env.FERRY_CONFIG, "utf8"));
  } catch {
    // The engine reports a broken FERRY_CONFIG itself and exits; the defaults do until then.
  }
}

const apiPort = setting("FERRY_API_PORT", "8090");
/**
 * Node options of the web process. remix-serve's live heap is a few tens of MB; without a bound V8
 * lets garbage pile up far past that under a flood of refused requests (docs/security.md, "The
 * flood test": peak RSS 270 MB with the default heap, 160 MB with these). Raise it here if a busy
 * site ever needs more.
 */
const WEB_NODE_OPTIONS = setting("FERRY_WEB_NODE_OPTIONS", "--max-semi-space-size=2 --max-old-space-size=256").split(" ").filter(Boolean);
const restartLimit = Number.parseInt(setting("FERRY_RESTART_LIMIT", "5"), 10);
if (!Number.isInteger(restartLimit) || restartLimit < 0) {
  process.stderr.write(`[ferry] FERRY_RESTART_LIMIT must be a whole number (0 = never restart), not "${setting("FERRY_RESTART_LIMIT", "")}"\n`);
  process.exit(1);
}
const webPort = setting("FERRY_WEB_PORT", "3000");
const engineUrl = setting("FERRY_ENGINE_URL", `http://127.0.0.1:${apiPort}`).replace(/\/+$/, "");

/** Resolves a package's bin script, so it runs with this Node directly (no npx, no shell). */
function binOf(pkg, name) {
  const manifestPath = path.join(root, "node_modules", pkg, "package.json");
  const { bin } = JSON.parse(readFileSync(manifestPath, "utf8"));
  return path.join(path.dirname(manifestPath), typeof bin === "string" ? bin : bin[name]);
}

const children = new Map(); // label → ChildProcess
let stopping = false;

function say(line) {
  process.stdout.write(`[ferry] ${line}\n`);
}

function prefixed(stream, label, out, onLine) {
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    out.write(line ? `[${label}] ${line}\n` : `[${label}]\n`);
    onLine?.(line);
  });
}

/**
 * Children get their own process group (detached) so a terminal Ctrl-C reaches them once, from
 * here, instead of twice (from the terminal and from us).
 */
function run(label, args, env, onLine) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  prefixed(child.stdout, label, process.stdout, onLine);
  prefixed(child.stderr, label, process.stderr, onLine);
  children.set(label, child);
  child.exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(label);
      resolve({ code, signal });
    });
    child.once("error", (error) => {
      process.stderr.write(`[ferry] could not start ${label}: ${error.message}\n`);
      children.delete(label);
      resolve({ code: 1, signal: null });
    });
  });
  return child;
}

/**
 * Keeps one child running: one that dies (a crash, an out-of-memory kill) is started again after a
 * back-off, so the web dying never takes the engine down or the reverse. More than
 * FERRY_RESTART_LIMIT restarts within RESTART_WINDOW_MS means something is wrong that restarting
 * will not fix: Ferry then stops with exit code 1, for a supervisor (systemd) to act on.
 */
function supervise(label, start) {
  const restarts = [];
  const watch = (child) => {
    say(`${label} started (pid ${child.pid})`);
    void child.exited.then(({ code, signal }) => {
      if (stopping) return;
      if (label === "engine" && code === ENGINE_EXIT.restart) {
        say("engine restarting at the administrator's request");
        watch(start());
        return;
      }
      if (label === "engine" && code === ENGINE_EXIT.shutdown) {
        say("shut down at the administrator's request");
        void stopAll(0);
        return;
      }
      const how = signal ?? `exit code ${code}`;
      const now = Date.now();
      while (restarts.length && restarts[0] <= now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length >= restartLimit) {
        process.stderr.write(
          `[ferry] ${label} exited (${how}) after ${restarts.length} restart(s) within ${RESTART_WINDOW_MS / 1000} s (FERRY_RESTART_LIMIT=${restartLimit}); stopping Ferry with exit code 1\n`,
        );
        void stopAll(1);
        return;
      }
      const delay = Math.min(RESTART_MAX_DELAY_MS, 1000 * 2 ** restarts.length);
      restarts.push(now);
      process.stderr.write(`[ferry] ${label} exited (${how}); restarting it in ${delay / 1000} s (restart ${restarts.length} of ${restartLimit} allowed within ${RESTART_WINDOW_MS / 1000} s)\n`);
      setTimeout(() => {
        if (!stopping) watch(start());
      }, delay);
    });
  };
  watch(start());
}

async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  const running = [...children.entries()];
  if (running.length) say(`stopping ${running.map(([label]) => label).join(" and ")}…`);
  await Promise.all(
    running.map(async ([label, child]) => {
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        say(`${label} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
        child.kill("SIGKILL");
      }, STOP_GRACE_MS);
      await child.exited;
      clearTimeout(timer);
    }),
  );
  process.exit(exitCode);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void stopAll(0));
// Last resort (an exception here): never leave the children behind.
process.on("exit", () => {
  for (const child of children.values()) child.kill("SIGKILL");
});

async function answers(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response;
  } catch {
    return null;
  }
}

async function waitFor(what, check) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!stopping && Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  if (!stopping) process.stderr.write(`[ferry] ${what} did not answer within ${READY_TIMEOUT_MS / 1000} s\n`);
  return false;
}

async function main() {
  if (!existsSync(path.join(root, "build", "index.js"))) {
    say("no web build yet (build/index.js): running remix build…");
    const build = run("build", [binOf("@remix-run/dev", "remix"), "build"], process.env);
    const { code, signal } = await build.exited;
    if (stopping) return;
    if (code !== 0) {
      process.stderr.write(`[ferry] remix build failed (${signal ?? `exit code ${code}`})\n`);
      process.exit(1);
    }
  }

  // Sub-second, so done whenever server/ or contract/ changed (a `git pull` without `npm run build`
  // must not start yesterday's engine); a deployment without the sources is never stale.
  const engineStale = engineBuildStale();
  if (engineStale) {
    say(`${engineStale}: building the engine…`);
    try {
      await buildEngine();
    } catch (error) {
      process.stderr.write(`[ferry] engine build failed: ${error?.message ?? error}\n`);
      process.exit(1);
    }
  }

  let firstStart = false;
  let fromEnvPassword = false;
  /** A generated initial password and the file the engine keeps it in, repeated in the banner printed last. */
  let initialPassword = "";
  let initialPasswordFile = "";
  // The engine trusts no local process as a proxy: the web vouches for each visitor's address with
  // a signature instead (FERRY_FORWARD_SECRET, docs/security.md section 2), so nothing else on this
  // machine can claim an address by sending X-Forwarded-For.
  // FERRY_SUPERVISED: the engine leaves restarts to this script (exit code ENGINE_EXIT.restart).
  const engineEnv = { ...process.env, FERRY_TRUSTED_PROXIES: setting("FERRY_TRUSTED_PROXIES", ""), FERRY_SUPERVISED: "1" };
  supervise("engine", () =>
    run("engine", [...ENGINE_NODE_OPTIONS, path.relative(root, ENGINE_ENTRY)], engineEnv, (line) => {
      // The engine announces the administrator it created; the banner then speaks of this start.
      if (/^\s*First start:/.test(line)) firstStart = true;
      if (line.includes("FERRY_ADMIN_PASSWORD")) fromEnvPassword = true;
      initialPassword = /^\s*Initial password: +(\S+)/.exec(line)?.[1] ?? initialPassword;
      initialPasswordFile = /^\s*Also saved in (.+)$/.exec(line)?.[1] ?? initialPasswordFile;
    }),
  );
  supervise("web", () =>
    run("web", [...WEB_NODE_OPTIONS, "--import", "./scripts/web-peer.mjs", binOf("@remix-run/serve", "remix-serve"), "build/index.js"], {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV || "production",
      PORT: webPort,
      FERRY_ENGINE_URL: engineUrl,
      // The web finds the engine's forward-secret file where the engine does (also when set in FERRY_CONFIG).
      FERRY_DATA_DIR: setting("FERRY_DATA_DIR", "./data"),
      FERRY_FORWARD_SECRET: setting("FERRY_FORWARD_SECRET", ""),
    }),
  );

  const engineReady = await waitFor(`the engine (${engineUrl}/api/health)`, async () => {
    const response = await answers(`${engineUrl}/api/health`);
    if (!response?.ok) return false;
    const body = await response.json().catch(() => null);
    return body?.result === true;
  });
  const webReady =
    engineReady && (await waitFor(`the web client (port ${webPort})`, async () => (await answers(`http://127.0.0.1:${webPort}/favicon.svg`)) !== null));
  if (stopping) return;
  if (!engineReady || !webReady) return stopAll(1);

  // The administrator signs in at the admin console (docs/web.md, "Admin console").
  const consoleUrl = `http://localhost:${webPort}/admin`;
  const signIn = firstStart
    ? [
        `First sign-in at the admin console, ${consoleUrl}:`,
        fromEnvPassword || !initialPassword
          ? `account "admin" with the initial password from FERRY_ADMIN_PASSWORD.`
          : `account "admin", initial password:  ${initialPassword}`,
        ...(initialPasswordFile
          ? [`The password is also in ${initialPasswordFile}`, "(readable only by you; deleted after the first password change)."]
          : []),
        "You will be asked to choose a new password at that first sign-in.",
      ]
    : [
        `Admin console: ${consoleUrl}, account "admin". The first time, use the initial password the engine printed on its first`,
        `start (kept in ${path.resolve(root, setting("FERRY_DATA_DIR", "./data"), "initial-admin-password")} until it is changed;`,
        "or FERRY_ADMIN_PASSWORD if you set it) and choose a new one when asked; after that, use the",
        "password you chose then.",
      ];
  const lines = [
    "Ferry is running.",
    "",
    `  Web:  http://localhost:${webPort}`,
    `  API:  http://localhost:${apiPort}   (OpenAPI: http://localhost:${apiPort}/api/openapi.json)`,
    "",
    ...signIn.map((l) => `  ${l}`),
    "",
    "  Stop with Ctrl-C.",
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const rule = "=".repeat(width);
  process.stdout.write(`\n${rule}\n${lines.map((l) => (l ? ` ${l}` : "")).join("\n")}\n${rule}\n\n`);
}

main().catch((error) => {
  process.stderr.write(`[ferry] ${error?.stack ?? error}\n`);
  void stopAll(1);
});
