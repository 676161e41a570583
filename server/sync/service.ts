import { createHash } from "node:crypto";
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
import { runSync, type StateRecord, type SyncCounts, SyncRunError, type SyncState } from "./runner";
import { intervalTicker, nextRunAt, type Ticker } from "./schedule";
import { type SyncDatabase, syncDb, type SyncRunsTable, type SyncTasksTable } from "./schema";

/**
 * Sync tasks (docs/sync.md): the tasks, their runs, the queue and the scheduler. A task runs at most
 * once at a time; at most MAX_RUNNING runs go at once on the engine, the rest wait "in queue".
 */

/** The storages a task names (server/storage/registry.ts): `get` refuses an unknown id (4004), `at` is the Storage rooted at a folder. */
export interface SyncStorages {
  get(id: number): Promise<unknown>;
  at(id: number, folder: string): Promise<Storage>;
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
    const changed = [...new Set([...puts.keys(), ...removes])];
    const rows = [...puts].map(([path, r]) => ({ task_id: taskId, path_hash: pathHash(path), path, src_size: r.srcSize, src_mtime: r.srcMtime, dst_size: r.dstSize, dst_mtime: r.dstMtime }));
    puts.clear();
    removes.clear();
    await k.transaction().execute(async (tx) => {
      for (let at = 0; at < changed.length; at += 200) {
        await tx.deleteFrom("sync_state").where("task_id", "=", taskId).where("path_hash", "in", changed.slice(at, at + 200).map(pathHash)).execute();
      }
      for (let at = 0; at < rows.length; at += 100) await tx.insertInto("sync_state").values(rows.slice(at, at + 100)).execute();
    });
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

  /** Queues a run of the task (the schedule's or the administrator's). */
  async function enqueue(taskId: number, trigger: "manual" | "schedule"): Promise<void> {
    const now = clock.now();
    const inserted = k.insertInto("sync_runs").values({ task_id: taskId, started_at: now, status: "in_queue", started_by: trigger });
    const runId = db.dialect === "mysql" ? Number((await inserted.executeTakeFirstOrThrow()).insertId) : Number((await inserted.returning("id").executeTakeFirstOrThrow()).id);
    await k.updateTable("sync_tasks").set({ status: "in_queue", last_run_id: runId, updated_at: now }).where("id", "=", taskId).execute();
    queue.push({ taskId, runId });
    pump();
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

  /** Due scheduled runs go into the queue; a task still running keeps its turn for the next time. */
  async function tick(): Promise<void> {
    const now = clock.now();
    const due = await k.selectFrom("sync_tasks").selectAll().where("next_run_at", "is not", null).where("next_run_at", "<=", now).execute();
    for (const row of due) {
      const frequency = JSON.parse(row.frequency) as SyncFrequency;
      const next = frequency.kind === "once" ? null : nextRunAt(frequency, now, timeZone);
      await k.updateTable("sync_tasks").set({ next_run_at: next }).where("id", "=", row.id).execute();
      if (!isBusy(row.id)) await enqueue(row.id, "schedule");
    }
  }

  return {
    tick,

    /** Marks runs that an engine stop or crash interrupted, then starts the scheduler. */
    async start(): Promise<void> {
      const now = clock.now();
      await k.updateTable("sync_runs").set({ status: "stopped_by_server", ended_at: now }).where("ended_at", "is", null).execute();
      await k.updateTable("sync_tasks").set({ status: "stopped_by_server", updated_at: now }).where("status", "in", [...SYNC_RUNNING]).execute();
      started = true;
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
      if (isBusy(id)) fail("SyncTaskRunning");
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
      await k
        .updateTable("sync_tasks")
        .set({ ...columnsOf(task), ...(rescheduled ? { next_run_at: nextRunAt(task.frequency, clock.now(), timeZone) } : {}), updated_at: clock.now() })
        .where("id", "=", id)
        .execute();
      // Other folders: what earlier runs saw says nothing about them (no deletion may follow from it).
      if (moved) await k.deleteFrom("sync_state").where("task_id", "=", id).execute();
      return toTask(await taskRow(id));
    },

    async remove(id: number): Promise<void> {
      await taskRow(id);
      if (isBusy(id)) fail("SyncTaskRunning");
      await k.deleteFrom("sync_state").where("task_id", "=", id).execute();
      await k.deleteFrom("sync_runs").where("task_id", "=", id).execute();
      await k.deleteFrom("sync_tasks").where("id", "=", id).execute();
    },

    /** Run now: queued behind other runs when MAX_RUNNING are going; 4602 while this task runs or waits. */
    async runNow(id: number): Promise<SyncTask> {
      await taskRow(id);
      if (isBusy(id) || closing) fail("SyncTaskRunning");
      await enqueue(id, "manual");
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
      }
      return toTask(await taskRow(id));
    },

    async runs(id: number, page: { pageNum: number; pageSize: number }) {
      await taskRow(id);
      const { total } = await k.selectFrom("sync_runs").where("task_id", "=", id).select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await k.selectFrom("sync_runs").selectAll().where("task_id", "=", id).orderBy("id", "desc").limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: rows.map(toRun), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /** Resolves when the task's current run (if any) has ended; for the engine's tests and the CLI. */
    async settled(id: number): Promise<void> {
      await running.get(id)?.done;
    },
  };
}

export type Sync = ReturnType<typeof createSync>;
