import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { collectOutput, type CommandResult } from "../../tests/support/wan-link";

/**
 * What the bench started and must take down again: child processes and temporary directories.
 * Everything registered here is removed on a normal end, on an error and on Ctrl-C, so a run
 * never leaves an nginx, an engine or a gigabyte of test data behind.
 */

/** Logs go to stderr so that `--json` keeps stdout to exactly one JSON object. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const cleanups: (() => Promise<void>)[] = [];

export async function tempDir(prefix: string): Promise<string> {
  // The OS temp dir is on the same disk as the data directories the engine and nginx write to.
  const dir = await mkdtemp(path.join(tmpdir(), `ferry-bench-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

/** Runs `fn` at cleanup (before children are killed), e.g. to close a browser. */
export function onCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

/** Spawns a child that is killed at cleanup. */
export function startChild(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Stops one child: SIGTERM, then SIGKILL after `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      children.delete(child);
      return resolve();
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export type RunResult = CommandResult;

/** Runs a command to its end (killed after `timeoutMs`) and collects its output; Ctrl-C stops it with the bench. */
export function run(command: string, args: string[], timeoutMs: number, options: SpawnOptions = {}): Promise<RunResult> {
  return collectOutput(startChild(command, args, options), timeoutMs);
}

/** Polls `check` until it returns a value, at most `timeoutMs`. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ""}`);
}

/** A free loopback port (the listener that finds it closes before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let cleaning: Promise<void> | undefined;

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((error: unknown) => log(`cleanup: ${(error as Error).message}`));
    await Promise.all([...children].map((child) => stopChild(child)));
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
    tempDirs.clear();
  })();
  return cleaning;
}

/** Last resort if the process exits without `cleanup()` (an uncaught error): nothing may outlive it. */
function cleanupSync() {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

export function installSignalHandlers(): void {
  process.once("exit", cleanupSync);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
}
