import { lstatSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * lstat of every name in one folder, for listings (docs/file-server.md, "list").
 *
 * A listing of 100,000 entries is 100,000 lstat calls; on the 2-core development machine those
 * cost ~3 µs each in the kernel and as much again in Node (a Stats object with four Dates per call,
 * and its garbage), so on one thread they were most of a 2 s listing and blocked the event loop.
 * Large folders are therefore stat'ed on a small pool of worker threads, in chunks shared out to
 * whichever thread is free, while the event loop keeps serving other requests. Each chunk travels
 * as one string of names (one copy, no per-name cloning) and comes back as a transferred
 * Float64Array of [mode, size, mtimeMs] per name: no objects cross threads.
 *
 * Small folders (the usual case) are stat'ed right here: below POOL_MIN names that costs less
 * than one round trip to a thread, and far less than starting one. Threads start with the first
 * large listing and stop after IDLE_MS without one, so an engine that is not listing huge folders
 * does not carry their memory (~9 MB each).
 */

/** Below this many names the calling thread stats them itself (~10 ms at most, as a slice of the old loop). */
export const POOL_MIN = 2000;
/** Names per message: small enough to share out evenly between threads, large enough to make messages rare. */
const CHUNK = 4096;
const IDLE_MS = 60_000;
/** More threads than cores gain nothing; 4 bounds the memory the pool can hold on a large machine. */
const THREADS = Math.max(1, Math.min(availableParallelism(), 4));

/** Values per name in a result: mode (0 when the name could not be stat'ed), size, mtimeMs. */
export const STAT_FIELDS = 3;

/**
 * The worker's code, plain CommonJS evaluated by Node (`eval: true`), so it runs the same from
 * TypeScript sources (tsx, vitest) and from the engine bundle. Names never hold "/" (the one
 * character a file name cannot contain), which makes it the separator.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { lstatSync } = require("node:fs");
const options = { throwIfNoEntry: false };
parentPort.on("message", ({ dir, names }) => {
  const list = names.split("/");
  const rows = new Float64Array(list.length * ${STAT_FIELDS});
  for (let i = 0; i < list.length; i++) {
    let info;
    try {
      info = lstatSync(dir + "/" + list[i], options);
    } catch {
      info = undefined;
    }
    if (!info) continue;
    rows[i * ${STAT_FIELDS}] = info.mode;
    rows[i * ${STAT_FIELDS} + 1] = info.size;
    rows[i * ${STAT_FIELDS} + 2] = info.mtimeMs;
  }
  parentPort.postMessage(rows, [rows.buffer]);
});
`;

interface Task {
  dir: string;
  names: string;
  resolve: (rows: Float64Array) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
  idleTimer: NodeJS.Timeout | null;
}

const queue: Task[] = [];
const threads = new Set<Thread>();

function stopIdleTimer(thread: Thread) {
  if (thread.idleTimer) clearTimeout(thread.idleTimer);
  thread.idleTimer = null;
}

/** Takes a thread out of the pool and fails its task, if any; the next task starts a fresh one. */
function retire(thread: Thread, error: Error) {
  if (!threads.delete(thread)) return;
  stopIdleTimer(thread);
  thread.task?.reject(error);
  thread.task = null;
  void thread.worker.terminate();
  pump();
}

function spawn(): Thread {
  const thread: Thread = { worker: new Worker(WORKER_SOURCE, { eval: true }), task: null, idleTimer: null };
  thread.worker.on("message", (rows: Float64Array) => {
    const task = thread.task;
    thread.task = null;
    task?.resolve(rows);
    pump();
  });
  thread.worker.on("error", (error) => retire(thread, error));
  thread.worker.on("exit", (code) => retire(thread, new Error(`lstat worker exited with code ${code}`)));
  threads.add(thread);
  return thread;
}

/** Hands queued chunks to free threads, starting threads up to THREADS; parks the rest. */
function pump() {
  for (const thread of threads) {
    if (thread.task) continue;
    const task = queue.shift();
    if (task) start(thread, task);
    else park(thread);
  }
  while (queue.length > 0 && threads.size < THREADS) {
    let thread: Thread;
    try {
      thread = spawn();
    } catch (error) {
      // No thread can start (resource limits): with none running, nothing would ever take the queue.
      if (threads.size === 0) for (const task of queue.splice(0)) task.reject(error as Error);
      return;
    }
    start(thread, queue.shift()!);
  }
}

function start(thread: Thread, task: Task) {
  stopIdleTimer(thread);
  thread.task = task;
  // Held by the event loop only while working: a waiting caller must not see the process exit under it.
  thread.worker.ref();
  thread.worker.postMessage({ dir: task.dir, names: task.names });
}

function park(thread: Thread) {
  thread.worker.unref();
  if (thread.idleTimer) return;
  thread.idleTimer = setTimeout(() => retire(thread, new Error("idle")), IDLE_MS);
  thread.idleTimer.unref();
}

function statChunk(dir: string, names: readonly string[]): Promise<Float64Array> {
  return new Promise((resolve, reject) => {
    queue.push({ dir, names: names.join("/"), resolve, reject });
    pump();
  });
}

/** Stats names on the calling thread into rows, from row `offset` on. */
function statHere(dir: string, names: readonly string[], rows: Float64Array, offset: number) {
  const options = { throwIfNoEntry: false };
  names.forEach((name, i) => {
    let info;
    try {
      info = lstatSync(`${dir}/${name}`, options);
    } catch {
      info = undefined;
    }
    if (!info) return;
    const at = (offset + i) * STAT_FIELDS;
    rows[at] = info.mode;
    rows[at + 1] = info.size;
    rows[at + 2] = info.mtimeMs;
  });
}

/**
 * For names[i] in the folder `dir` (absolute), rows[i * STAT_FIELDS + 0..2] = lstat's mode, size
 * and mtimeMs; mode 0 when the name is gone or cannot be stat'ed (the listing then leaves it out).
 */
export async function lstatNames(dir: string, names: readonly string[]): Promise<Float64Array> {
  const rows = new Float64Array(names.length * STAT_FIELDS);
  if (names.length < POOL_MIN) {
    statHere(dir, names, rows, 0);
    return rows;
  }
  const chunks: Promise<void>[] = [];
  for (let from = 0; from < names.length; from += CHUNK) {
    const part = names.slice(from, from + CHUNK);
    chunks.push(
      statChunk(dir, part).then(
        (result) => rows.set(result, from * STAT_FIELDS),
        // A thread that failed only costs the speed: the listing is still whole.
        () => statHere(dir, part, rows, from),
      ),
    );
  }
  await Promise.all(chunks);
  return rows;
}
