import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, realpath, stat } from "node:fs/promises";
import path from "node:path";

/*
 * Runs an event's executable (docs/events.md, "How it runs"): never through a shell (spawn with
 * an argument vector, shell false), with a cleared environment, stdin closed, in the events
 * directory, as the leader of its own process group so the completion wait time stops it and
 * every child it started (SIGTERM, then SIGKILL). At most `concurrency` run at once; further runs
 * wait in a bounded queue, and past it they are dropped and logged as dropped. The file operation
 * that fired an event never waits for any of this.
 */

/** Bytes of stdout and of stderr kept per run; the rest is read and dropped. */
export const EVENT_OUTPUT_MAX = 16 * 1024;
/** Time between SIGTERM and SIGKILL of a run past its wait time. */
export const KILL_GRACE_MS = 2000;
/** The environment a run gets: nothing of the engine's (secrets, DATABASE_URL). */
export const RUN_ENV: Readonly<Record<string, string>> = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8" };

export interface RunSpec {
  eventId: number;
  executable: string;
  args: string[];
  waitSeconds: number;
  /** The event type, or "test". */
  trigger: string;
  path: string;
  account: string;
}

export interface RunOutcome {
  at: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** Why it did not run or did not end on its own; empty when it ran and exited. */
  error: string;
}

export class ExecutableRefused extends Error {}

/**
 * The real path of `executable` when it is a regular, executable file inside the real events
 * directory `binDir`; throws ExecutableRefused otherwise. Links are resolved first, so a link in
 * the directory that leads out of it is refused; checked when an event is saved and again before
 * every run (the directory's content may have changed since).
 */
export async function checkExecutable(binDir: string | null, executable: string): Promise<string> {
  if (!binDir) throw new ExecutableRefused("no events directory is configured (FERRY_EVENT_BIN_DIR)");
  if (!path.isAbsolute(executable) || executable.includes("\0")) throw new ExecutableRefused("not an absolute path");
  const dir = await realpath(binDir).catch(() => {
    throw new ExecutableRefused("the events directory does not exist");
  });
  const real = await realpath(executable).catch(() => {
    throw new ExecutableRefused("the executable does not exist");
  });
  const rel = path.relative(dir, real);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) throw new ExecutableRefused("the executable is outside the events directory");
  const info = await stat(real);
  if (!info.isFile()) throw new ExecutableRefused("the executable is not a regular file");
  await access(real, constants.X_OK).catch(() => {
    throw new ExecutableRefused("the file is not executable");
  });
  return real;
}

/** Keeps the first `max` bytes of a stream and counts the rest. */
function capture(max: number) {
  const kept: Buffer[] = [];
  let size = 0;
  let cut = 0;
  return {
    push(chunk: Buffer) {
      const room = max - size;
      if (room > 0) {
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        kept.push(part);
        size += part.length;
      }
      cut += Math.max(0, chunk.length - Math.max(0, room));
    },
    text() {
      const s = Buffer.concat(kept).toString("utf8");
      return cut > 0 ? `${s}\n[${cut} more bytes not kept]` : s;
    },
  };
}

export interface RunnerOptions {
  binDir: string | null;
  concurrency: number;
  maxQueued: number;
  outputMax?: number;
  killGraceMs?: number;
  now(): number;
  /** Where every run ends up (the run log); never throws into the runner. */
  record(spec: RunSpec, outcome: RunOutcome): Promise<void>;
  warn(obj: object, msg: string): void;
}

export function createRunner(options: RunnerOptions) {
  const outputMax = options.outputMax ?? EVENT_OUTPUT_MAX;
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const queue: Array<() => void> = [];
  const running = new Set<{ pid: number; done: Promise<void> }>();
  let active = 0;
  let dropped = 0;
  let stopped = false;

  const killGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };

  /** One run, start to end; never throws. */
  async function execute(spec: RunSpec): Promise<RunOutcome> {
    const at = options.now();
    const started = performance.now();
    const outcome = (o: Partial<RunOutcome>): RunOutcome => ({ at, exitCode: null, signal: null, timedOut: false, durationMs: Math.round(performance.now() - started), stdout: "", stderr: "", error: "", ...o });
    let real: string;
    try {
      real = await checkExecutable(options.binDir, spec.executable);
    } catch (error) {
      return outcome({ error: `refused: ${error instanceof ExecutableRefused ? error.message : String(error)}` });
    }
    const cwd = await realpath(options.binDir!);
    return new Promise<RunOutcome>((resolve) => {
      const out = capture(outputMax);
      const err = capture(outputMax);
      let timedOut = false;
      let exit: { code: number | null; signal: string | null } | null = null;
      let failure = "";
      const child = spawn(real, spec.args, { shell: false, cwd, env: { ...RUN_ENV } as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true, windowsHide: true });
      const pid = child.pid;
      let settle!: () => void;
      const entry = { pid: pid ?? 0, done: new Promise<void>((r) => (settle = r)) };
      if (pid) running.add(entry);
      let killTimer: NodeJS.Timeout | null = null;
      const deadline = setTimeout(() => {
        timedOut = true;
        if (!pid) return;
        killGroup(pid, "SIGTERM");
        killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), killGraceMs);
      }, spec.waitSeconds * 1000);
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => err.push(c));
      let finished = false;
      const finish = (code: number | null, signal: string | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        if (killTimer) clearTimeout(killTimer);
        // What the run started and left behind goes with it.
        if (pid) killGroup(pid, "SIGKILL");
        running.delete(entry);
        settle();
        const ended = exit ?? { code, signal };
        resolve(outcome({ exitCode: ended.code, signal: ended.signal, timedOut, stdout: out.text(), stderr: err.text(), error: failure || (timedOut ? `stopped after the completion wait time (${spec.waitSeconds} s)` : "") }));
      };
      child.on("error", (e) => {
        failure = `spawn failed: ${e.message}`;
        // It never started: no "close" may follow.
        if (!pid) finish(null, null);
      });
      child.on("exit", (code, signal) => {
        exit = { code, signal };
      });
      // "close": the process exited and its output pipes are shut (children that keep them open
      // keep the run going until the wait time stops them too).
      child.on("close", (code, signal) => finish(code, signal));
    });
  }

  async function runAndRecord(spec: RunSpec): Promise<RunOutcome> {
    const result = await execute(spec);
    await options.record(spec, result).catch((error: unknown) => options.warn({ err: error, eventId: spec.eventId }, "writing an event run failed"));
    return result;
  }

  /** Waits for a free slot (test runs); a run never starts after stop(). */
  function slot(): Promise<void> {
    if (active < options.concurrency) {
      active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(() => resolve()));
  }

  function release() {
    const next = queue.shift();
    if (next) next();
    else active--;
  }

  return {
    /** A fired event: queued, or dropped (and logged) when the queue is full. Never waits, never throws. */
    enqueue(spec: RunSpec): void {
      if (stopped) return;
      if (active >= options.concurrency && queue.length >= options.maxQueued) {
        dropped++;
        if (dropped === 1 || dropped % 1000 === 0) options.warn({ dropped, eventId: spec.eventId }, "event queue full: runs dropped");
        void options.record(spec, { at: options.now(), exitCode: null, signal: null, timedOut: false, durationMs: 0, stdout: "", stderr: "", error: "dropped: the event queue is full" }).catch(() => undefined);
        return;
      }
      void slot().then(async () => {
        try {
          if (!stopped) await runAndRecord(spec);
        } finally {
          release();
        }
      });
    },
    /** A test run: waits for a slot and for the end of the run. */
    async run(spec: RunSpec): Promise<RunOutcome> {
      await slot();
      try {
        return await runAndRecord(spec);
      } finally {
        release();
      }
    },
    get dropped() {
      return dropped;
    },
    get queued() {
      return queue.length;
    },
    /** Engine shutdown: nothing new starts; what runs is stopped (its whole group) and waited for. */
    async stop() {
      stopped = true;
      for (const r of running) killGroup(r.pid, "SIGTERM");
      const kill = setTimeout(() => {
        for (const r of running) killGroup(r.pid, "SIGKILL");
      }, killGraceMs);
      await Promise.all([...running].map((r) => r.done));
      clearTimeout(kill);
      // Queued runs are let go without running.
      while (queue.length > 0) queue.shift()!();
    },
  };
}
export type Runner = ReturnType<typeof createRunner>;
