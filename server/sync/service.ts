import { createHash, randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import { parseFilterPatterns } from "../../contract/upload-rules";
import {
  type CreateSyncTaskBody,
  SYNC_RUNNING,
  type SyncFrequency,
  type SyncRun,
  type SyncStatus,
  type SyncTask,
  syncFrequency,
  type UpdateSyncTaskBody,
} from "../../contract/sync";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { contains } from "../accounts/shared";
import { FerryError, fail } from "../errors";
import { isUnder, normaliseUserPath } from "../storage/paths";
import type { Storage } from "../storage/storage";
import type { WalkLimits } from "../storage/walk";
import { MAX_STATE_PATH, runSync, type StateRecord, type SyncCounts, SyncRunError, type SyncState } from "./runner";
import { intervalTicker, nextRunAt, type Ticker } from "./schedule";
import { type SyncDatabase, syncDb, type SyncRunsTable, type SyncTasksTable } from "./schema";

/**
 * Sync tasks (docs/sync.md): the tasks, their runs, the queue and the scheduler. A task runs at most
 * once at a time; at most MAX_RUNNING runs go at once on the engine, the rest wait "in queue".
 */

/**
 * The storages a task names (server/storage/registry.ts): `get` refuses an unknown id (4004), `at` is
 * the Storage rooted at a folder, `placeOf` where a folder really is (two storages may reach one place).
 */
export interface SyncStorages {
  get(id: number): Promise<unknown>;
  at(id: number, folder: string): Promise<Storage>;
  placeOf(id: number, folder: string): Promise<{ scope: string; path: string }>;
}

export interface SyncDeps {
  db: Db;
  clock: Clock;
  storages: SyncStorages;
  walk: WalkLimits;
  timeZone: string;
  ticker?: Ticker;
  log?: { warn(obj: object, message: string): void };
}

export const MAX_RUNNING = 2;
const TICK_MS = 1000;
/** State rows are written in batches of this many changes while a run goes. */
const STATE_BATCH = 200;
/** How often an engine renews the heartbeat of its runs (real time), and how old one gets before any engine takes its run for dead. */
export const HEARTBEAT_MS = 5000;
export const STALE_MS = 60_000;

/** True when place path `inner` is `outer` or lies in it. */
const placeUnder = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);

type TaskRow = Selectable<SyncTasksTable>;
type RunRow = Selectable<SyncRunsTable>;

interface Running {
  runId: number;
  controller: AbortController;
  counts: SyncCounts;
  /** Why it is being stopped: the administrator, or the engine going down. */
  reason: "admin" | "server" | null;
  done: Promise<void>;
}

const pathHash = (path: string) => createHash("sha256").update(path).digest("hex");

function toRun(row: RunRow): SyncRun {
  return {
    id: row.id,
    taskId: row.task_id,
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    status: row.status as SyncStatus,
    trigger: row.started_by as SyncRun["trigger"],
    filesCopied: Number(row.files_copied),
    filesDeleted: Number(row.files_deleted),
    filesSkipped: Number(row.files_skipped),
    bytes: Number(row.bytes),
    errorCode: Number(row.error_code),
    errorPath: row.error_path,
  };
}

/** The task's status after a run ended with `error` (null: it succeeded). */
export function statusOf(error: FerryError | null, reason: Running["reason"]): SyncStatus {
  if (!error) return "succeed";
  if (error.errorName === "StoppedByClient") return reason === "server" ? "stopped_by_server" : "stopped";
  if (error.errorName === "StorageConnectionFailed") return "connect_failed";
  if (["StoragePathLost", "StorageIdNotExist", "StorageTypeNotFound", "StorageConfigFailed"].includes(error.errorName)) return "server_connection_failed";
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EACCES" || code === "EPERM") return "insufficient_permission";
  return "failed";
}

function stateOf(k: Kysely<SyncDatabase>, taskId: number, records: Map<string, StateRecord>): SyncState {
  const puts = new Map<string, StateRecord>();
  const removes = new Set<string>();
  // One write at a time, in order: a batch written while the previous one is still going could
  // delete and insert the same path in between its delete and insert.
  let chain: Promise<void> = Promise.resolve();
  const flush = () => {
    const next = chain.then(write);
    chain = next.catch(() => {});
    return next;
  };
  const write = async () => {
    if (puts.size === 0 && removes.size === 0) return;
    const takenPuts = new Map(puts);
    const takenRemoves = new Set(removes);
    const changed = [...new Set([...takenPuts.keys(), ...takenRemoves])];
    const rows = [...takenPuts].map(([path, r]) => ({ task_id: taskId, path_hash: pathHash(path), path, src_size: r.srcSize, src_mtime: r.srcMtime, dst_size: r.dstSize, dst_mtime: r.dstMtime }));
    puts.clear();
    removes.clear();
    try {
      await k.transaction().execute(async (tx) => {
        for (let at = 0; at < changed.length; at += 200) {
          await tx.deleteFrom("sync_state").where("task_id", "=", taskId).where("path_hash", "in", changed.slice(at, at + 200).map(pathHash)).execute();
        }
        for (let at = 0; at < rows.length; at += 100) await tx.insertInto("sync_state").values(rows.slice(at, at + 100)).execute();
      });
    } catch (error) {
      // Kept for the next write (unless the run changed the path again since): a batch that failed
      // while the run goes is retried with the next one, and the run fails if the last one does.
      for (const [path, record] of takenPuts) if (!puts.has(path) && !removes.has(path)) puts.set(path, record);
      for (const path of takenRemoves) if (!puts.has(path) && !removes.has(path)) removes.add(path);
      throw error;
    }
  };
  const maybeFlush = () => (puts.size + removes.size >= STATE_BATCH ? flush() : Promise.resolve());
  return {
    records,
    put(path, record) {
      records.set(path, record);
      removes.delete(path);
      puts.set(path, record);
      void maybeFlush().catch(() => {});
    },
    remove(path) {
      records.delete(path);
      puts.delete(path);
      removes.add(path);
      void maybeFlush().catch(() => {});
    },
    flush,
  };
}

export function createSync({ db, clock, storages, walk, timeZone, ticker = intervalTicker(TICK_MS), log }: SyncDeps) {
  const k = syncDb(db);
  /** This engine among others on one database: its runs carry it, and only it renews their heartbeat. */
  const instance = randomUUID();
  let heartbeat: NodeJS.Timeout | null = null;
  const running = new Map<number, Running>();
  const queue: Array<{ taskId: number; runId: number }> = [];
  let started = false;
  let closing = false;

  async function taskRow(id: number): Promise<TaskRow> {
    return (await k.selectFrom("sync_tasks").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("SyncTaskNotFound");
  }

  async function toTask(row: TaskRow): Promise<SyncTask> {
    const last = row.last_run_id === null ? undefined : await k.selectFrom("sync_runs").selectAll().where("id", "=", row.last_run_id).executeTakeFirst();
    const live = running.get(row.id);
    return {
      id: row.id,
      name: row.name,
      source: { storageId: Number(row.source_storage_id), path: row.source_path },
      target: { storageId: Number(row.target_storage_id), path: row.target_path },
      frequency: JSON.parse(row.frequency) as SyncFrequency,
      updateMode: row.update_mode as SyncTask["updateMode"],
      options: {
        keepMtime: row.keep_mtime === 1,
        onlyTopLevel: row.only_top_level === 1,
        deleteTargetWhenSourceDeleted: row.delete_target === 1,
        deleteSourceAfterSync: row.delete_source === 1,
        twoWay: row.two_way === 1,
      },
      filters: row.filters,
      skipOverSize: Number(row.skip_over_size),
      status: row.status as SyncStatus,
      createTime: Number(row.created_at),
      nextRunAt: row.next_run_at === null ? null : Number(row.next_run_at),
      lastRun: last ? toRun(last) : null,
      progress: live ? { ...live.counts } : null,
    };
  }

  /** Checks a task's settings as they will be stored: known storages, confined paths, folders apart, options that go together. */
  async function checked(task: Omit<SyncTask, "id" | "status" | "createTime" | "nextRunAt" | "lastRun" | "progress">) {
    const source = { storageId: task.source.storageId, path: normaliseUserPath(task.source.path) };
    const target = { storageId: task.target.storageId, path: normaliseUserPath(task.target.path) };
    await storages.get(source.storageId);
    await storages.get(target.storageId);
    if (source.storageId === target.storageId && (isUnder(source.path, target.path) || isUnder(target.path, source.path))) fail("SyncFoldersOverlap");
    // Two storages may reach one place (a local storage at a folder of another, two S3 storages on
    // one bucket): the folders are compared where they really are.
    const [a, b] = await Promise.all([storages.placeOf(source.storageId, source.path), storages.placeOf(target.storageId, target.path)]);
    if (a.scope === b.scope && (placeUnder(a.path, b.path) || placeUnder(b.path, a.path))) fail("SyncFoldersOverlap");
    if (task.options.twoWay && task.options.deleteSourceAfterSync) fail("SyncOptionsConflict");
    return { ...task, source, target, filters: parseFilterPatterns(task.filters).join(";") };
  }

  const columnsOf = (task: Awaited<ReturnType<typeof checked>>) => ({
    name: task.name,
    name_key: task.name.toLowerCase(),
    source_storage_id: task.source.storageId,
    source_path: task.source.path,
    target_storage_id: task.target.storageId,
    target_path: task.target.path,
    frequency: JSON.stringify(task.frequency),
    update_mode: task.updateMode,
    keep_mtime: task.options.keepMtime ? 1 : 0,
    only_top_level: task.options.onlyTopLevel ? 1 : 0,
    delete_target: task.options.deleteTargetWhenSourceDeleted ? 1 : 0,
    delete_source: task.options.deleteSourceAfterSync ? 1 : 0,
    two_way: task.options.twoWay ? 1 : 0,
    filters: task.filters,
    skip_over_size: task.skipOverSize,
  });

  async function nameFree(name: string, except?: number) {
    let q = k.selectFrom("sync_tasks").select("id").where("name_key", "=", name.toLowerCase());
    if (except !== undefined) q = q.where("id", "!=", except);
    if (await q.executeTakeFirst()) fail("SyncTaskNameExists");
  }

  const isBusy = (id: number) => running.has(id) || queue.some((q) => q.taskId === id);

  async function setStatus(taskId: number, runId: number | null, status: SyncStatus, extra: Partial<RunRow> = {}) {
    await k.updateTable("sync_tasks").set({ status, updated_at: clock.now() }).where("id", "=", taskId).execute();
    if (runId !== null) await k.updateTable("sync_runs").set({ status, ...extra }).where("id", "=", runId).execute();
  }

  /**
   * Queues a run of the task (the schedule's or the administrator's); false when the task already
   * runs or waits, here or on another engine on the database. The task's status is the lease: it
   * goes to "in queue" only from a status that is not running, in one statement, so of two engines
   * asking at once one gets it.
   */
  async function enqueue(taskId: number, trigger: "manual" | "schedule"): Promise<boolean> {
    if (isBusy(taskId)) return false;
    const now = clock.now();
    const claimed = await k.updateTable("sync_tasks").set({ status: "in_queue", updated_at: now }).where("id", "=", taskId).where("status", "not in", [...SYNC_RUNNING]).executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const inserted = k.insertInto("sync_runs").values({ task_id: taskId, started_at: now, status: "in_queue", started_by: trigger, instance_id: instance, updated_at: now });
    const runId = db.dialect === "mysql" ? Number((await inserted.executeTakeFirstOrThrow()).insertId) : Number((await inserted.returning("id").executeTakeFirstOrThrow()).id);
    await k.updateTable("sync_tasks").set({ last_run_id: runId }).where("id", "=", taskId).execute();
    queue.push({ taskId, runId });
    pump();
    return true;
  }

  /** True when the task runs or waits here or (by its status in the database) on another engine. */
  async function busyAnywhere(taskId: number): Promise<boolean> {
    if (isBusy(taskId)) return true;
    const row = await k.selectFrom("sync_tasks").select("status").where("id", "=", taskId).executeTakeFirst();
    return !!row && SYNC_RUNNING.includes(row.status as SyncStatus);
  }

  /**
   * Renews the heartbeat of this engine's runs, and takes up a stop asked on another engine (the
   * run's status "stopping" in the database).
   */
  async function beat(): Promise<void> {
    const ids = [...[...running.values()].map((r) => r.runId), ...queue.map((q) => q.runId)];
    if (ids.length === 0) return;
    await k.updateTable("sync_runs").set({ updated_at: clock.now() }).where("id", "in", ids).where("ended_at", "is", null).execute();
    const stopping = await k.selectFrom("sync_runs").select(["id", "task_id"]).where("id", "in", ids).where("status", "=", "stopping").execute();
    for (const row of stopping) {
      const at = queue.findIndex((q) => q.runId === row.id);
      if (at >= 0) {
        queue.splice(at, 1);
        await setStatus(row.task_id, row.id, "stopped", { ended_at: clock.now() });
      }
      const live = running.get(row.task_id);
      if (live && live.runId === row.id && !live.controller.signal.aborted) {
        live.reason = "admin";
        live.controller.abort();
      }
    }
  }

  /**
   * Runs whose engine is gone (a crash, kill -9: no heartbeat for STALE_MS) are marked stopped by
   * server, and so are their tasks; this engine's own runs are never taken. Any engine does it, at
   * its start and with every heartbeat.
   */
  async function sweep(): Promise<void> {
    const now = clock.now();
    const limit = now - STALE_MS;
    const stale = await k.selectFrom("sync_runs").select(["id", "task_id"]).where("ended_at", "is", null).where("instance_id", "!=", instance).where("updated_at", "<", limit).execute();
    for (const run of stale) {
      const ended = await k
        .updateTable("sync_runs")
        .set({ status: "stopped_by_server", ended_at: now })
        .where("id", "=", run.id)
        .where("ended_at", "is", null)
        .where("updated_at", "<", limit)
        .executeTakeFirst();
      if (Number(ended.numUpdatedRows) !== 1) continue;
      await k.updateTable("sync_tasks").set({ status: "stopped_by_server", updated_at: now }).where("id", "=", run.task_id).where("last_run_id", "=", run.id).where("status", "in", [...SYNC_RUNNING]).execute();
    }
    // A task left "running" by an engine that died between taking the lease and recording the run.
    const orphans = await k.selectFrom("sync_tasks").select(["id", "last_run_id"]).where("status", "in", [...SYNC_RUNNING]).where("updated_at", "<", limit).execute();
    for (const task of orphans) {
      if (isBusy(task.id)) continue;
      const last = task.last_run_id === null ? undefined : await k.selectFrom("sync_runs").select("ended_at").where("id", "=", task.last_run_id).executeTakeFirst();
      if (last && last.ended_at === null) continue;
      await k.updateTable("sync_tasks").set({ status: "stopped_by_server", updated_at: now }).where("id", "=", task.id).where("status", "in", [...SYNC_RUNNING]).where("updated_at", "<", limit).execute();
    }
  }

  function pump() {
    while (!closing && running.size < MAX_RUNNING && queue.length > 0) {
      const next = queue.shift()!;
      const entry: Running = { runId: next.runId, controller: new AbortController(), counts: { filesCopied: 0, filesDeleted: 0, filesSkipped: 0, bytes: 0 }, reason: null, done: Promise.resolve() };
      running.set(next.taskId, entry);
      entry.done = execute(next.taskId, entry).finally(() => {
        running.delete(next.taskId);
        pump();
      });
    }
  }

  async function execute(taskId: number, entry: Running): Promise<void> {
    let error: FerryError | null = null;
    let errorPath = "";
    try {
      await setStatus(taskId, entry.runId, "activated", { started_at: clock.now() });
      const task = await toTask(await taskRow(taskId));
      const signal = entry.controller.signal;
      const source = await storages.at(task.source.storageId, task.source.path);
      // The source folder must exist (1043 otherwise); the target's is made when missing.
      const root = await source.stat("/").catch((e: unknown) => {
        throw new SyncRunError(e instanceof FerryError ? e : new FerryError("FileSystemError"), "/");
      });
      if (root.type !== "folder") throw new SyncRunError(new FerryError("PathIsFile"), "/");
      await (await storages.at(task.target.storageId, "/")).mkdir(task.target.path, { recursive: true }).catch((e: unknown) => {
        throw new SyncRunError(e instanceof FerryError ? e : new FerryError("FileSystemError"), "");
      });
      const target = await storages.at(task.target.storageId, task.target.path);
      const rows = await k.selectFrom("sync_state").selectAll().where("task_id", "=", taskId).execute();
      const records = new Map<string, StateRecord>(rows.map((r) => [r.path, { srcSize: Number(r.src_size), srcMtime: Number(r.src_mtime), dstSize: Number(r.dst_size), dstMtime: Number(r.dst_mtime) }]));
      await runSync({
        source,
        target,
        state: stateOf(k, taskId, records),
        signal,
        counts: entry.counts,
        warn: (path, reason) => log?.warn({ taskId, path: path.slice(0, 200), max: MAX_STATE_PATH }, `sync task skipped a file: ${reason}`),
        options: {
          updateMode: task.updateMode,
          ...task.options,
          filter: { patterns: parseFilterPatterns(task.filters), maxSize: task.skipOverSize },
          walk,
        },
      });
    } catch (caught) {
      if (caught instanceof SyncRunError) {
        error = caught.error;
        errorPath = caught.path;
      } else error = caught instanceof FerryError ? caught : Object.assign(new FerryError("UnknownException"), { cause: caught });
      if (entry.controller.signal.aborted) error = new FerryError("StoppedByClient");
    }
    const status = statusOf(error, entry.reason);
    if (error && status !== "stopped" && status !== "stopped_by_server") log?.warn({ err: error.cause ?? error, taskId, path: errorPath }, `sync task run failed: ${error.errorName}`);
    const c = entry.counts;
    try {
      await setStatus(taskId, entry.runId, status, {
        ended_at: clock.now(),
        files_copied: c.filesCopied,
        files_deleted: c.filesDeleted,
        files_skipped: c.filesSkipped,
        bytes: c.bytes,
        error_code: error && status !== "stopped" && status !== "stopped_by_server" ? error.code : 0,
        error_path: errorPath.slice(0, 1024),
      });
    } catch (dbError) {
      log?.warn({ err: dbError, taskId }, "recording the end of a sync run failed");
    }
  }

  /**
   * Due scheduled runs go into the queue. Each due turn is claimed in one statement (next_run_at
   * moves on only where it still holds the value read), so of several engines on one database one
   * takes it. A repeating task still running when its time comes skips that turn; a once task keeps
   * its time until a run of it is actually queued.
   */
  async function tick(): Promise<void> {
    const now = clock.now();
    const due = await k.selectFrom("sync_tasks").selectAll().where("next_run_at", "is not", null).where("next_run_at", "<=", now).execute();
    for (const row of due) {
      const old = Number(row.next_run_at);
      const frequency = JSON.parse(row.frequency) as SyncFrequency;
      const once = frequency.kind === "once";
      if (once && (isBusy(row.id) || SYNC_RUNNING.includes(row.status as SyncStatus))) continue;
      const next = once ? null : nextRunAt(frequency, now, timeZone);
      const claimed = await k.updateTable("sync_tasks").set({ next_run_at: next }).where("id", "=", row.id).where("next_run_at", "=", old).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      const queued = await enqueue(row.id, "schedule");
      // Busy after all (another engine took the lease in between): the once turn waits for the next tick.
      if (!queued && once) await k.updateTable("sync_tasks").set({ next_run_at: old }).where("id", "=", row.id).where("next_run_at", "is", null).execute();
    }
  }

  return {
    tick,

    /**
     * Marks runs that a crashed engine left (no heartbeat for STALE_MS; runs of engines still going
     * on the database are theirs), then starts the heartbeat and the scheduler.
     */
    async start(): Promise<void> {
      await sweep();
      started = true;
      heartbeat = setInterval(() => {
        beat()
          .then(sweep)
          .catch((error: unknown) => log?.warn({ err: error }, "sync heartbeat failed"));
      }, HEARTBEAT_MS);
      heartbeat.unref();
      let ticking = false;
      ticker.start(() => {
        if (ticking || closing) return;
        ticking = true;
        tick()
          .catch((error: unknown) => log?.warn({ err: error }, "sync schedule tick failed"))
          .finally(() => {
            ticking = false;
          });
      });
    },

    /** Stops the scheduler and every run (they end "stopped by server"); waits for them to record it. */
    async close(): Promise<void> {
      closing = true;
      if (started) ticker.stop();
      for (const q of queue.splice(0)) await setStatus(q.taskId, q.runId, "stopped_by_server", { ended_at: clock.now() }).catch(() => {});
      const runs = [...running.values()];
      for (const r of runs) {
        r.reason = "server";
        r.controller.abort();
      }
      await Promise.all(runs.map((r) => r.done));
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },

    async list(page: { pageNum: number; pageSize: number; search?: string }) {
      let query = k.selectFrom("sync_tasks");
      if (page.search) query = query.where(contains("name_key", page.search));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await query.selectAll().orderBy("id").limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: await Promise.all(rows.map(toTask)), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    async get(id: number): Promise<SyncTask> {
      return toTask(await taskRow(id));
    },

    async create(body: CreateSyncTaskBody): Promise<SyncTask> {
      const options = { keepMtime: false, onlyTopLevel: false, deleteTargetWhenSourceDeleted: false, deleteSourceAfterSync: false, twoWay: false, ...body.options };
      const task = await checked({ ...body, options });
      await nameFree(task.name);
      const now = clock.now();
      const values = { ...columnsOf(task), status: task.frequency.kind === "manual" ? "not_set" : "idle", next_run_at: nextRunAt(task.frequency, now, timeZone), created_at: now, updated_at: now };
      const insert = k.insertInto("sync_tasks").values(values);
      let id: number;
      try {
        id = db.dialect === "mysql" ? Number((await insert.executeTakeFirstOrThrow()).insertId) : Number((await insert.returning("id").executeTakeFirstOrThrow()).id);
      } catch (error) {
        // Two creates of one name at once: the unique key refuses the second.
        if (await k.selectFrom("sync_tasks").select("id").where("name_key", "=", task.name.toLowerCase()).executeTakeFirst()) fail("SyncTaskNameExists");
        throw error;
      }
      return toTask(await taskRow(id));
    },

    async update(id: number, patch: UpdateSyncTaskBody): Promise<SyncTask> {
      const current = await toTask(await taskRow(id));
      if (await busyAnywhere(id)) fail("SyncTaskRunning");
      const merged = {
        name: patch.name ?? current.name,
        source: patch.source ?? current.source,
        target: patch.target ?? current.target,
        frequency: patch.frequency ?? current.frequency,
        updateMode: patch.updateMode ?? current.updateMode,
        options: { ...current.options, ...patch.options },
        filters: patch.filters ?? current.filters,
        skipOverSize: patch.skipOverSize ?? current.skipOverSize,
      };
      syncFrequency.parse(merged.frequency);
      const task = await checked(merged);
      await nameFree(task.name, id);
      const moved =
        task.source.storageId !== current.source.storageId || task.source.path !== current.source.path || task.target.storageId !== current.target.storageId || task.target.path !== current.target.path;
      const rescheduled = JSON.stringify(task.frequency) !== JSON.stringify(current.frequency);
      // A task that never ran says whether anything is planned for it: a manual task given a schedule waits (idle), and back.
      const neverRan = current.status === "not_set" || current.status === "idle";
      const waiting = rescheduled && neverRan ? { status: task.frequency.kind === "manual" ? "not_set" : "idle" } : {};
      await k
        .updateTable("sync_tasks")
        .set({ ...columnsOf(task), ...(rescheduled ? { next_run_at: nextRunAt(task.frequency, clock.now(), timeZone) } : {}), ...waiting, updated_at: clock.now() })
        .where("id", "=", id)
        .execute();
      // Other folders: what earlier runs saw says nothing about them (no deletion may follow from it).
      if (moved) await k.deleteFrom("sync_state").where("task_id", "=", id).execute();
      return toTask(await taskRow(id));
    },

    async remove(id: number): Promise<void> {
      await taskRow(id);
      if (await busyAnywhere(id)) fail("SyncTaskRunning");
      await k.deleteFrom("sync_state").where("task_id", "=", id).execute();
      await k.deleteFrom("sync_runs").where("task_id", "=", id).execute();
      await k.deleteFrom("sync_tasks").where("id", "=", id).execute();
    },

    /** Run now: queued behind other runs when MAX_RUNNING are going; 4602 while this task runs or waits. */
    async runNow(id: number): Promise<SyncTask> {
      await taskRow(id);
      if (closing || !(await enqueue(id, "manual"))) fail("SyncTaskRunning");
      return toTask(await taskRow(id));
    },

    /** Stop: a queued run is dropped, a running one is told to stop (stopping, then stopped once it has). Nothing running: the task as it is. */
    async stop(id: number): Promise<SyncTask> {
      await taskRow(id);
      const at = queue.findIndex((q) => q.taskId === id);
      if (at >= 0) {
        const [q] = queue.splice(at, 1);
        await setStatus(id, q!.runId, "stopped", { ended_at: clock.now() });
      }
      const live = running.get(id);
      if (live && !live.controller.signal.aborted) {
        live.reason = "admin";
        await setStatus(id, live.runId, "stopping");
        live.controller.abort();
      } else if (at < 0 && !live) {
        // Running or queued on another engine: "stopping" in the database, which that engine's
        // heartbeat takes up within a few seconds.
        const row = await taskRow(id);
        if (row.last_run_id !== null && (row.status === "in_queue" || row.status === "activated")) {
          const marked = await k.updateTable("sync_runs").set({ status: "stopping" }).where("id", "=", row.last_run_id).where("ended_at", "is", null).where("instance_id", "!=", instance).executeTakeFirst();
          if (Number(marked.numUpdatedRows) === 1) await k.updateTable("sync_tasks").set({ status: "stopping", updated_at: clock.now() }).where("id", "=", id).where("status", "in", ["in_queue", "activated"]).execute();
        }
      }
      return toTask(await taskRow(id));
    },

    async runs(id: number, page: { pageNum: number; pageSize: number }) {
      await taskRow(id);
      const { total } = await k.selectFrom("sync_runs").where("task_id", "=", id).select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await k.selectFrom("sync_runs").selectAll().where("task_id", "=", id).orderBy("id", "desc").limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: rows.map(toRun), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /**
     * Forgets what earlier runs of every task on the storage left in sync (their sync_state), so no
     * deletion follows from records about a place the storage no longer points at. The storage
     * administration calls it when a storage's place changes (its path, endpoint, bucket or
     * container); how many tasks it concerned.
     */
    async forgetStorageState(storageId: number): Promise<number> {
      const tasks = await k.selectFrom("sync_tasks").select("id").where((eb) => eb.or([eb("source_storage_id", "=", storageId), eb("target_storage_id", "=", storageId)])).execute();
      if (tasks.length > 0) await k.deleteFrom("sync_state").where("task_id", "in", tasks.map((t) => t.id)).execute();
      return tasks.length;
    },

    /** How many sync tasks name the storage (source or target): the storage administration refuses to delete it or move it (4620) while any do. */
    async tasksUsing(storageId: number): Promise<number> {
      const { total } = await k
        .selectFrom("sync_tasks")
        .where((eb) => eb.or([eb("source_storage_id", "=", storageId), eb("target_storage_id", "=", storageId)]))
        .select((eb) => eb.fn.countAll<number>().as("total"))
        .executeTakeFirstOrThrow();
      return Number(total);
    },

    /** Resolves when the task's current run (if any) has ended; for the engine's tests and the CLI. */
    async settled(id: number): Promise<void> {
      await running.get(id)?.done;
    },
  };
}

export type Sync = ReturnType<typeof createSync>;
