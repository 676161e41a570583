import { createReadStream, readFileSync } from "node:fs";
import { link, mkdir, readdir, rm } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { FILE_SERVER_PATHS } from "../../contract/files";
import { blake3Of } from "../../server/uploads/hash";
import { connectFiles, type FileClient } from "../../tests/support/file-client";
import { type BenchUser, type EngineProcess, startEngineProcess } from "./engine";
import { log, run, stopChild, tempDir } from "./lifecycle";
import { median } from "./series";

/**
 * What writing the operation and transfer logs costs (docs/bench.md, "Log cost"): the same workload
 * on two engines of the same build, one as users run it (the log recorder on) and one started with
 * FERRY_BENCH_LOGS_OFF=1 (no hooks, no download tracking, no queue, no writes), turn about:
 *   - uploads: tus creation, the slice in several PATCHes, `commit` (a transfer row and an operation each);
 *   - ranged downloads: the test file as parallel `Range` GETs of one signed URL (a transfer row each);
 *   - a burst of logged operations: socket mkdir / rename / delete and REST share create / cancel.
 * Each number is the speed with the log ÷ the speed without it, measured minutes apart in the same run.
 */

const MIB = 1024 * 1024;
/** Downloads and command sockets under way at once, per engine. */
const WORKERS = 4;
/** Uploads under way at once: the engine's default of parallel uploads per sign-in (Transfer protocol settings), 3. */
const UPLOAD_WORKERS = 3;
const UPLOADS = 16;
const RANGES = 64;
/** mkdir + rename + delete per item, per worker. */
const OPS_ITEMS = 60;
/** Share create + cancel per worker. */
const OPS_LINKS = 5;
const WEB_ORIGIN = "https://files.example.com";
/** After each timed phase: the recorder's timer (1 s) writes the phase's last rows before the other engine's turn. */
const SETTLE_MS = 1500;

export type LogPhase = "upload" | "download" | "ops";
export const LOG_PHASES: LogPhase[] = ["upload", "download", "ops"];

export interface PhaseResult {
  /** Per round: MiB/s for transfers, operations/s for ops. */
  on: number[];
  off: number[];
  bestOn: number | null;
  bestOff: number | null;
  /** Best with the log ÷ best without. */
  ratio: number | null;
  /** Each round's on ÷ the off of the same round, and their median. */
  paired: number[];
  pairedMedian: number | null;
  /** The engine process's CPU seconds (user + system, all its threads) during each timed phase. */
  cpuOn: number[];
  cpuOff: number[];
  /** Median of each round's CPU with the logs ÷ without: the log's work, less exposed to the neighbours than wall time. */
  cpuPairedMedian: number | null;
  unit: "MiB/s" | "ops/s";
}

export interface LogCostResult {
  phases: Record<LogPhase, PhaseResult>;
  workload: { uploads: number; uploadBytes: number; patchesPerUpload: number; ranges: number; rangeBytes: number; socketOps: number; restOps: number; workers: number; uploadWorkers: number };
  /** Rows the workload wrote (the "on" engine's setup rows left out): the "on" engine must have them all, the "off" one none at all. */
  rows: { on: { operations: number; transfers: number }; off: { operations: number; transfers: number } };
  /** Rows the "on" engine should hold, counted from the work done (0 in a control run). */
  expectedRows: { operations: number; transfers: number };
}

interface Side {
  name: "on" | "off";
  engine: EngineProcess;
  user: BenchUser;
  /** One per worker: commands on one socket run one at a time. */
  sockets: FileClient[];
  agent: http.Agent;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `count` jobs, `workers` at a time; job i gets the worker's index. */
async function pool(count: number, job: (i: number, worker: number) => Promise<void>, workers = WORKERS): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (next < count) await job(next++, worker);
    }),
  );
}

function request(side: Side, method: string, url: URL, headers: Record<string, string>, body?: NodeJS.ReadableStream): Promise<{ status: number; bytes: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: side.agent }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.once("end", () => resolve({ status: res.statusCode ?? 0, bytes, headers: res.headers }));
      res.once("error", reject);
    });
    req.once("error", reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/** One upload of bytes [start, start + length) of the file: creation, PATCHes of `patchBytes`, commit. */
async function uploadSlice(side: Side, worker: number, file: string, start: number, length: number, hash: string, target: string, patchBytes: number): Promise<void> {
  const { engine, user } = side;
  const created = await request(side, "POST", new URL(FILE_SERVER_PATHS.uploads, engine.fileUrl), {
    "tus-resumable": "1.0.0",
    "upload-length": String(length),
    "upload-metadata": `groupId ${b64("0")},path ${b64(target)},overwrite ${b64("1")}`,
    authorization: `Bearer ${user.socketToken}`,
  });
  const location = created.headers.location;
  if (created.status !== 201 || !location) throw new Error(`tus creation answered HTTP ${created.status}`);
  const uploadUrl = new URL(location, engine.fileUrl);
  for (let offset = 0; offset < length; offset += patchBytes) {
    const size = Math.min(patchBytes, length - offset);
    const patched = await request(
      side,
      "PATCH",
      uploadUrl,
      {
        "tus-resumable": "1.0.0",
        "upload-offset": String(offset),
        "content-type": "application/offset+octet-stream",
        "content-length": String(size),
        authorization: `Bearer ${user.socketToken}`,
      },
      createReadStream(file, { start: start + offset, end: start + offset + size - 1, highWaterMark: MIB }),
    );
    if (patched.status !== 204) throw new Error(`PATCH at ${offset} answered HTTP ${patched.status}`);
  }
  const uploadId = uploadUrl.pathname.split("/").filter(Boolean).at(-1)!;
  const committed = await side.sockets[worker]!.cmd("commit", { uploadId, hash });
  if (committed.code !== 200) throw new Error(`commit answered ${committed.code} ${committed.message}`);
  if (committed.data.size !== length) throw new Error(`commit stored ${committed.data.size} bytes, sent ${length}`);
}

/** A data directory the two roles take in turn, its user made once. */
interface Slot {
  dataDir: string;
}

async function makeSlot(parent: string, name: string, file: string): Promise<Slot> {
  const dataDir = path.join(parent, name);
  await mkdir(dataDir, { mode: 0o700 });
  const engine = await startEngineProcess(dataDir, { FERRY_WEB_ORIGINS: WEB_ORIGIN, FERRY_BENCH_LOGS_OFF: "1" });
  try {
    const user = await engine.createUser("bench");
    await link(file, path.join(user.homeDir, "bench.bin"));
  } finally {
    await stopChild(engine.child, 10_000);
  }
  return { dataDir };
}

async function startSide(name: Side["name"], slot: Slot, logsOff: boolean): Promise<Side> {
  const engine = await startEngineProcess(slot.dataDir, { FERRY_WEB_ORIGINS: WEB_ORIGIN, ...(logsOff ? { FERRY_BENCH_LOGS_OFF: "1" } : {}) });
  const user = await engine.signIn("bench");
  const sockets = await Promise.all(Array.from({ length: WORKERS }, () => connectFiles(engine.fileUrl, user.socketToken)));
  return { name, engine, user, sockets, agent: new http.Agent({ keepAlive: true, maxSockets: WORKERS }) };
}

async function stopSide(side: Side): Promise<void> {
  side.agent.destroy();
  await Promise.all(side.sockets.map((s) => s.close()));
  await stopChild(side.engine.child, 10_000);
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15, after the command name). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function countRows(side: Side): Promise<{ operations: number; transfers: number }> {
  const db = new SqliteDatabase(path.join(side.engine.dataDir, "ferry.db"), { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) => Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    return { operations: count("operation_log"), transfers: count("transfer_log") };
  } finally {
    db.close();
  }
}

/**
 * `control` (--logs-control): both engines run without the logs, an A/A run that shows how far two
 * engines of the same build differ on this machine when nothing differs but the instance.
 */
export async function measureLogCost(opts: { file: string; size: number; rounds: number; timeoutMs: number; control?: boolean }): Promise<LogCostResult> {
  const { file, size } = opts;
  const slice = Math.max(MIB, Math.min(16 * MIB, Math.floor(size / UPLOADS / MIB) * MIB));
  const patchBytes = Math.max(MIB, slice / 4);
  const rangeBytes = Math.max(64 * 1024, Math.floor(size / RANGES));
  const ranges = Math.ceil(size / rangeBytes);
  log(`  hashing ${UPLOADS} upload slices of ${slice / MIB} MiB…`);
  const hashes: string[] = [];
  for (let i = 0; i < UPLOADS; i++) hashes.push(await blake3Of(createReadStream(file, { start: i * slice, end: (i + 1) * slice - 1, highWaterMark: MIB })));

  let sides: Side[] = [];
  const parent = await tempDir("logs");
  try {
    const control = opts.control === true;
    // Two data directories, each with user `bench` and the test file; the roles swap between them
    // every round (fresh processes), so what differs between two directories or two processes on
    // this machine (file placement on the disk, a process's luck with the scheduler) falls on both roles alike.
    const slots = [await makeSlot(parent, "a", file), await makeSlot(parent, "b", file)];
    const rows = { on: { operations: 0, transfers: 0 }, off: { operations: 0, transfers: 0 } };
    const phases = Object.fromEntries(LOG_PHASES.map((p) => [p, { on: [] as number[], off: [] as number[], cpuOn: [] as number[], cpuOff: [] as number[] }])) as Record<
      LogPhase,
      { on: number[]; off: number[]; cpuOn: number[]; cpuOff: number[] }
    >;
    let uploadsDone = 0;
    let rangesDone = 0;
    let fullRangesDone = 0;
    let opsDone = 0;
    let restDone = 0;

    const runPhase = async (phase: LogPhase, side: Side, round: string, timed: boolean): Promise<number> => {
      const counted = timed && side.name === "on" && !control;
      const { user } = side;
      if (phase === "upload") {
        await run("sync", [], 300_000);
        const started = process.hrtime.bigint();
        await pool(UPLOADS, (i, worker) => uploadSlice(side, worker, file, i * slice, slice, hashes[i]!, `/logs-up-${round}-${i}.bin`, patchBytes), UPLOAD_WORKERS);
        const s = seconds(started);
        if (counted) uploadsDone += UPLOADS;
        for (const name of await readdir(user.homeDir)) if (name.startsWith("logs-up-")) await rm(path.join(user.homeDir, name), { force: true });
        await run("sync", [], 300_000);
        return (UPLOADS * slice) / MIB / s;
      }
      if (phase === "download") {
        const { url } = await side.sockets[0]!.ok("download", { groupId: 0, paths: ["/bench.bin"] });
        const signed = new URL(url, side.engine.fileUrl);
        const started = process.hrtime.bigint();
        await pool(ranges, async (i) => {
          const from = i * rangeBytes;
          const to = Math.min(size, from + rangeBytes) - 1;
          const got = await request(side, "GET", signed, { range: `bytes=${from}-${to}` });
          if (got.status !== 206 || got.bytes !== to - from + 1) throw new Error(`range ${from}-${to} answered HTTP ${got.status} with ${got.bytes} bytes`);
        });
        const s = seconds(started);
        if (counted) {
          rangesDone += ranges;
          fullRangesDone += 1;
        }
        return size / MIB / s;
      }
      const folder = `/logs-ops-${round}`;
      await side.sockets[0]!.ok("mkdir", { groupId: 0, path: "/", name: folder.slice(1) });
      const started = process.hrtime.bigint();
      await Promise.all(
        side.sockets.map(async (socket, w) => {
          for (let i = 0; i < OPS_ITEMS; i++) {
            const name = `w${w}-${i}`;
            await socket.ok("mkdir", { groupId: 0, path: folder, name });
            await socket.ok("rename", { groupId: 0, path: `${folder}/${name}`, newName: `${name}-r` });
            await socket.ok("remove", { groupId: 0, paths: [`${folder}/${name}-r`] });
            // The REST side of the log: share links made and cancelled (server/logs/hooks.ts withRouteLog).
            if (i % (OPS_ITEMS / OPS_LINKS) === 0) {
              const made = await side.engine.call<{ shareId: string }>("POST", "/api/share/link/create", { shareBaseUrl: WEB_ORIGIN, shareUrlType: 1, shareFiles: ["/bench.bin"] }, user.token);
              if (made.code !== 200) throw new Error(`share create answered ${made.code} ${made.message}`);
              const cancelled = await side.engine.call("PATCH", "/api/share/link/cancel", { shareUrlList: [made.data!.shareId] }, user.token);
              if (cancelled.code !== 200) throw new Error(`share cancel answered ${cancelled.code} ${cancelled.message}`);
            }
          }
        }),
      );
      const s = seconds(started);
      const count = WORKERS * (OPS_ITEMS * 3 + OPS_LINKS * 2);
      if (counted) {
        opsDone += WORKERS * OPS_ITEMS * 3 + 1;
        restDone += WORKERS * OPS_LINKS * 2;
      }
      await rm(path.join(user.homeDir, folder.slice(1)), { recursive: true, force: true });
      return count / s;
    };

    for (let round = 0; round < opts.rounds; round++) {
      // Round r: directory a has the logs when r is even, b when it is odd.
      const onSlot = slots[round % 2]!;
      const offSlot = slots[(round + 1) % 2]!;
      // The process started first alternates too (in A/A runs the first was slower at the ops burst).
      if (round % 2 === 0) sides = [await startSide("on", onSlot, control), await startSide("off", offSlot, true)];
      else {
        const off = await startSide("off", offSlot, true);
        sides = [await startSide("on", onSlot, control), off];
      }
      // Every phase once untimed on both (fresh processes: code and caches warm up), then timed;
      // the first of the two alternates from round to round.
      const order = round % 2 === 0 ? [sides[0]!, sides[1]!] : [sides[1]!, sides[0]!];
      for (const phase of LOG_PHASES) for (const side of order) await runPhase(phase, side, `${round + 1}w`, false);
      await sleep(SETTLE_MS);
      const before = [await countRows(sides[0]!), await countRows(sides[1]!)];
      for (const phase of LOG_PHASES) {
        for (const side of order) {
          const cpuBefore = cpuSeconds(side.engine.pid);
          const value = await runPhase(phase, side, `${round + 1}`, true);
          // The settle is in: the rows written after the phase are its work too.
          await sleep(SETTLE_MS);
          const cpu = cpuSeconds(side.engine.pid) - cpuBefore;
          phases[phase][side.name].push(value);
          phases[phase][side.name === "on" ? "cpuOn" : "cpuOff"].push(cpu);
          log(`  ${phase} logs ${side.name} round ${round + 1}/${opts.rounds} (dir ${side === sides[0] ? (round % 2 ? "b" : "a") : round % 2 ? "a" : "b"}): ${value.toFixed(phase === "ops" ? 0 : 1)} ${phase === "ops" ? "ops/s" : "MiB/s"}, engine CPU ${cpu.toFixed(2)} s`);
        }
      }
      // Every row is written by now (SETTLE_MS after the last phase): what this round's timed work added.
      const after = [await countRows(sides[0]!), await countRows(sides[1]!)];
      for (const [i, role] of (["on", "off"] as const).entries()) {
        rows[role].operations += after[i]!.operations - before[i]!.operations;
        rows[role].transfers += after[i]!.transfers - before[i]!.transfers;
      }
      for (const side of sides) await stopSide(side);
      sides = [];
    }

    const results = Object.fromEntries(
      LOG_PHASES.map((phase) => {
        const { on, off, cpuOn, cpuOff } = phases[phase];
        const bestOn = on.length ? Math.max(...on) : null;
        const bestOff = off.length ? Math.max(...off) : null;
        const paired = on.slice(0, off.length).map((v, i) => v / off[i]!);
        const result: PhaseResult = { on, off, bestOn, bestOff, ratio: bestOn !== null && bestOff ? bestOn / bestOff : null, paired, pairedMedian: median(paired), cpuOn, cpuOff, cpuPairedMedian: median(cpuOn.slice(0, cpuOff.length).map((v, i) => v / cpuOff[i]!)), unit: phase === "ops" ? "ops/s" : "MiB/s" };
        return [phase, result];
      }),
    ) as Record<LogPhase, PhaseResult>;

    return {
      phases: results,
      workload: { uploads: UPLOADS, uploadBytes: slice, patchesPerUpload: Math.ceil(slice / patchBytes), ranges, rangeBytes, socketOps: WORKERS * OPS_ITEMS * 3, restOps: WORKERS * OPS_LINKS * 2, workers: WORKERS, uploadWorkers: UPLOAD_WORKERS },
      rows,
      // Per upload an "upload" operation and a transfer; per range a transfer, and the range that
      // reaches the file's end a "download" operation; every socket and REST operation one row.
      expectedRows: { operations: uploadsDone + fullRangesDone + opsDone + restDone, transfers: uploadsDone + rangesDone },
    };
  } finally {
    for (const side of sides) await stopSide(side);
  }
}
