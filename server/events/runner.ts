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
/**
 * Time after SIGKILL after which a run ends even if its output pipes are still open: a grandchild
 * that left the process group (setsid) may hold them for ever; they are destroyed then.
 */
export const PIPE_GRACE_MS = 1000;
/** Dropped runs of one event within this time are written as one run log row. */
export const DROP_LOG_INTERVAL_MS = 10_000;
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
  /** The run log row written for it (runner.run), when the record told it. */
  runId?: number;
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
      // NUL (a program printing `find -print0`) is shown as U+2400 "␀": PostgreSQL text cannot hold it.
      const s = Buffer.concat(kept).toString("utf8").replaceAll("\0", "\u2400");
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
  pipeGraceMs?: number;
  dropIntervalMs?: number;
  now(): number;
  /** Where every run ends up (the run log), answering the row's id; its failures are logged, never thrown into the runner. */
  record(spec: RunSpec, outcome: RunOutcome): Promise<number | void>;
  warn(obj: object, msg: string): void;
}

/** A byte that no argument may hold: NUL ends a C string, so spawn refuses it (ERR_INVALID_ARG_VALUE). */
const hasNul = (text: string) => text.includes("\0");

export function createRunner(options: RunnerOptions) {
  const outputMax = options.outputMax ?? EVENT_OUTPUT_MAX;
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const pipeGraceMs = options.pipeGraceMs ?? PIPE_GRACE_MS;
  const dropIntervalMs = options.dropIntervalMs ?? DROP_LOG_INTERVAL_MS;
  const queue: Array<() => void> = [];
  const running = new Set<{ pid: number; done: Promise<void>; halt(): void }>();
  let active = 0;
  let dropped = 0;
  let stopped = false;
  /** Drops per event since its last "dropped" row, written as one row when the interval ends. */
  const drops = new Map<number, { spec: RunSpec; count: number; at: number; timer: NodeJS.Timeout }>();

  const killGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };

  const emptyOutcome = (at: number, o: Partial<RunOutcome>): RunOutcome => ({ at, exitCode: null, signal: null, timedOut: false, durationMs: 0, stdout: "", stderr: "", error: "", ...o });

  /** One run, start to end; never rejects: whatever goes wrong is the outcome's error. */
  async function execute(spec: RunSpec): Promise<RunOutcome> {
    const at = options.now();
    const started = performance.now();
    const outcome = (o: Partial<RunOutcome>): RunOutcome => emptyOutcome(at, { durationMs: Math.round(performance.now() - started), ...o });
    try {
      // A value put into an argument (a path, an account) holding NUL cannot be passed: refused, not started.
      if (spec.args.some(hasNul)) return outcome({ error: "refused: an argument holds a NUL byte" });
      let real: string;
      try {
        real = await checkExecutable(options.binDir, spec.executable);
      } catch (error) {
        return outcome({ error: `refused: ${error instanceof ExecutableRefused ? error.message : String(error)}` });
      }
      const cwd = await realpath(options.binDir!);
      return await spawnRun(spec, real, cwd, outcome);
    } catch (error) {
      return outcome({ error: `spawn failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) });
    }
  }

  function spawnRun(spec: RunSpec, real: string, cwd: string, outcome: (o: Partial<RunOutcome>) => RunOutcome): Promise<RunOutcome> {
    return new Promise<RunOutcome>((resolve) => {
      const out = capture(outputMax);
      const err = capture(outputMax);
      let timedOut = false;
      let halted = false;
      let exit: { code: number | null; signal: string | null } | null = null;
      let failure = "";
      let finished = false;
      // Throws synchronously on an argument spawn cannot pass; execute() makes that the outcome.
      const child = spawn(real, spec.args, { shell: false, cwd, env: { ...RUN_ENV } as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true, windowsHide: true });
      const pid = child.pid;
      let settle!: () => void;
      const timers: NodeJS.Timeout[] = [];
      /** Stops the run: SIGTERM to its group, SIGKILL after the grace, then (pipes still held by an escaped grandchild) the pipes destroyed and the run ended. */
      const halt = () => {
        if (halted || finished) return;
        halted = true;
        if (pid) killGroup(pid, "SIGTERM");
        timers.push(
          setTimeout(() => {
            if (pid) killGroup(pid, "SIGKILL");
            timers.push(
              setTimeout(() => {
                child.stdout?.destroy();
                child.stderr?.destroy();
                finish(null, null);
              }, pipeGraceMs),
            );
          }, killGraceMs),
        );
      };
      const entry = { pid: pid ?? 0, done: new Promise<void>((r) => (settle = r)), halt };
      if (pid) running.add(entry);
      const deadline = setTimeout(() => {
        timedOut = true;
        halt();
      }, spec.waitSeconds * 1000);
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => err.push(c));
      const finish = (code: number | null, signal: string | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        for (const t of timers) clearTimeout(t);
        // What the run started and left behind goes with it.
        if (pid) killGroup(pid, "SIGKILL");
        running.delete(entry);
        settle();
        const ended = exit ?? { code, signal };
        resolve(
          outcome({
            exitCode: ended.code,
            signal: ended.signal,
            timedOut,
            stdout: out.text(),
            stderr: err.text(),
            error: failure || (timedOut ? `stopped after the completion wait time (${spec.waitSeconds} s)` : halted ? "stopped: the engine is stopping" : ""),
          }),
        );
      };
      child.on("error", (e) => {
        failure = `spawn failed: ${e.message}`;
        // It never started: no "close" may follow.
        if (!pid) finish(null, null);
      });
      child.on("exit", (code, signal) => {
        exit = { code, signal };
      });
      // "close": the process exited and its output pipes are shut. A child that keeps them open
      // keeps the run going until the wait time stops it; one that left the group (setsid) and
      // survives SIGKILL has its pipes cut by halt().
      child.on("close", (code, signal) => finish(code, signal));
    });
  }

  async function runAndRecord(spec: RunSpec): Promise<RunOutcome> {
    const result = await execute(spec);
    const id = await options.record(spec, result).catch((error: unknown) => {
      options.warn({ err: error, eventId: spec.eventId }, "writing an event run failed");
    });
    return typeof id === "number" ? { ...result, runId: id } : result;
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

  const recordDropped = (spec: RunSpec, at: number, count: number) => {
    const error = count === 1 ? "dropped: the event queue is full" : `dropped: the event queue is full (${count} runs)`;
    void options.record(spec, emptyOutcome(at, { error })).catch((e: unknown) => options.warn({ err: e, eventId: spec.eventId }, "writing an event run failed"));
  };

  /** Writes the dropped runs counted for an event since its last row. */
  const flushDrops = (eventId: number) => {
    const d = drops.get(eventId);
    if (!d) return;
    drops.delete(eventId);
    clearTimeout(d.timer);
    if (d.count > 0) recordDropped(d.spec, d.at, d.count);
  };

  /** The first dropped run of an event is written at once; those after it within the interval become one row at its end. */
  function drop(spec: RunSpec) {
    dropped++;
    if (dropped === 1 || dropped % 1000 === 0) options.warn({ dropped, eventId: spec.eventId }, "event queue full: runs dropped");
    const pending = drops.get(spec.eventId);
    if (pending) {
      pending.count++;
      pending.spec = spec;
      return;
    }
    recordDropped(spec, options.now(), 1);
    const timer = setTimeout(() => flushDrops(spec.eventId), dropIntervalMs);
    timer.unref();
    drops.set(spec.eventId, { spec, count: 0, at: options.now(), timer });
  }

  return {
    /** A fired event: queued, or dropped (and logged) when the queue is full. Never waits, never throws. */
    enqueue(spec: RunSpec): void {
      if (stopped) return;
      if (active >= options.concurrency && queue.length >= options.maxQueued) {
        drop(spec);
        return;
      }
      slot()
        .then(async () => {
          try {
            if (!stopped) await runAndRecord(spec);
          } finally {
            release();
          }
        })
        .catch((error: unknown) => options.warn({ err: error, eventId: spec.eventId }, "an event run failed"));
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
    get running() {
      return running.size;
    },
    /**
     * Engine shutdown: nothing new starts; what runs is stopped (its whole group, then its pipes)
     * and waited for, at most the kill grace and the pipe grace and a second more.
     */
    async stop() {
      stopped = true;
      for (const eventId of [...drops.keys()]) flushDrops(eventId);
      for (const r of running) r.halt();
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...running].map((r) => r.done)), new Promise<void>((r) => (bound = setTimeout(r, killGraceMs + pipeGraceMs + 1000)))]);
      clearTimeout(bound);
      // Queued runs are let go without running.
      while (queue.length > 0) queue.shift()!();
    },
  };
}
export type Runner = ReturnType<typeof createRunner>;
