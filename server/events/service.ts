import { type Selectable, sql } from "kysely";
import {
  type AdminEvent,
  type CreateEventBody,
  EVENT_OPERATIONS,
  type EventRun,
  type EventStatus,
  type EventType,
  type EventValues,
  type UpdateEventBody,
  substituteArgument,
  tokenizeCommandLine,
} from "../../contract/events";
import { unique } from "../accounts/shared";
import { type Clock, toSeconds } from "../clock";
import type { Config } from "../config";
import type { Db } from "../db/connect";
import { escapeLike } from "../db/like";
import { FerryError, fail } from "../errors";
import { checkExecutable, createRunner, ExecutableRefused, type RunOutcome, type RunSpec } from "./runner";
import { type EventsTable, eventsDb } from "./schema";

/*
 * The administrator's events (docs/events.md): what they are (the admin API's service) and their
 * firing. The file operations call `fire` (server/files/service.ts, server/uploads/commit.ts and
 * batch.ts, the download log in server/logs/live.ts): it returns at once; the matching activated
 * events are looked up in memory (reloaded on every change made here) and their runs queued on
 * the runner.
 */

/** Runs kept per event; older ones go as new ones are written. */
export const RUNS_KEPT_PER_EVENT = 500;

/** One occurrence of a file operation, as the place it happened knows it. */
export interface FileEvent {
  type: EventType;
  /** The account whose space it was; null: a share visitor's (the link's owner is `ownerId`). */
  userId: number | null;
  /** Filled from the user id when left out. */
  account?: string;
  /** 0 or absent: the personal space. */
  groupId?: number;
  path: string;
  newPath?: string;
  size?: number | null;
  /** Unix ms; now when left out. */
  at?: number;
}

export interface EventSink {
  /** Queues the runs of the activated events of this type; never waits, never throws. */
  fire(event: FileEvent): void;
  /** False when no activated event has this type (the caller may skip work done only for events). */
  wants(type: EventType): boolean;
}

type Row = Selectable<EventsTable>;

/** The first pause before the activated events are read again after a failed read; it doubles up to the maximum. */
export const RELOAD_RETRY_MS = 500;
export const RELOAD_RETRY_MAX_MS = 60_000;

/** The sample values of a test run. */
export const TEST_VALUES = { path: "/ferry-event-test/sample file.txt", newPath: "/ferry-event-test/renamed file.txt", user: "admin", size: "1024" };

export function createEvents({ db, clock, config, warn }: { db: Db; clock: Clock; config: Pick<Config, "events">; warn?: (obj: object, msg: string) => void }) {
  const k = eventsDb(db);
  const binDir = config.events.binDir;
  let log = warn ?? (() => undefined);
  const prunes = new Map<number, number>();

  /** PostgreSQL text cannot hold NUL (a program printing `find -print0`): shown as U+2400 "␀". */
  const text = (value: string) => value.replaceAll("\0", "\u2400");

  /** Writes one run to the log; answers its id. */
  async function recordRun(spec: RunSpec, o: RunOutcome): Promise<number> {
    const insert = k.insertInto("event_runs").values({
      event_id: spec.eventId,
      at: o.at,
      trigger_type: spec.trigger.slice(0, 32),
      path: text(spec.path).slice(0, 1024),
      account: text(spec.account).slice(0, 64),
      exit_code: o.exitCode,
      signal: o.signal,
      timed_out: o.timedOut ? 1 : 0,
      duration_ms: o.durationMs,
      stdout: text(o.stdout),
      stderr: text(o.stderr),
      error: text(o.error).slice(0, 512),
    });
    const id = db.dialect === "mysql" ? Number((await insert.executeTakeFirstOrThrow()).insertId) : Number((await insert.returning("id").executeTakeFirstOrThrow()).id);
    // The log stays bounded: every 50 runs of an event, those past the newest RUNS_KEPT_PER_EVENT go.
    const n = (prunes.get(spec.eventId) ?? 0) + 1;
    prunes.set(spec.eventId, n % 50);
    if (n % 50 === 1) await pruneRuns(spec.eventId);
    return id;
  }

  async function pruneRuns(eventId: number) {
    const cut = await k.selectFrom("event_runs").select("id").where("event_id", "=", eventId).orderBy("id", "desc").offset(RUNS_KEPT_PER_EVENT).limit(1).executeTakeFirst();
    if (cut) await k.deleteFrom("event_runs").where("event_id", "=", eventId).where("id", "<=", Number(cut.id)).execute();
  }

  const runner = createRunner({
    binDir,
    concurrency: config.events.concurrency,
    maxQueued: config.events.maxQueued,
    now: () => clock.now(),
    record: recordRun,
    warn: (obj, msg) => log(obj, msg),
  });

  // Activated events by type, in memory: firing asks no database unless an event matches.
  let active: Map<EventType, Row[]> | null = null;
  let loading: Promise<Map<EventType, Row[]>> | null = null;
  let generation = 0;

  let retryMs = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  let closed = false;

  function reload(): Promise<Map<EventType, Row[]>> {
    const mine = ++generation;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    const p = k
      .selectFrom("events")
      .selectAll()
      .where("active", "=", 1)
      .execute()
      .then((rows) => {
        const map = new Map<EventType, Row[]>();
        for (const r of rows) map.set(r.type as EventType, [...(map.get(r.type as EventType) ?? []), { ...r, id: Number(r.id) }]);
        if (mine === generation) active = map;
        retryMs = 0;
        return map;
      });
    loading = p;
    p.catch((error: unknown) => {
      log({ err: error }, "reading the events failed");
      // A failed read is not kept: the next fire reads again, and (never read yet) a retry comes after a growing pause.
      if (loading === p) loading = null;
      if (mine === generation && !closed) {
        retryMs = Math.min(RELOAD_RETRY_MAX_MS, retryMs === 0 ? RELOAD_RETRY_MS : retryMs * 2);
        retryTimer = setTimeout(() => {
          retryTimer = null;
          reload().catch(() => undefined);
        }, retryMs);
        retryTimer.unref();
      }
    });
    return p;
  }

  const current = () => (active ? Promise.resolve(active) : (loading ?? reload()));

  const toAdmin = (r: Row): AdminEvent => ({
    id: Number(r.id),
    name: r.name,
    type: r.type as EventType,
    operation: r.operation as AdminEvent["operation"],
    status: Number(r.active) === 1 ? "activated" : "inactivated",
    remark: r.remark,
    executable: r.executable,
    commandLine: r.command_line,
    args: JSON.parse(r.args) as string[],
    waitSeconds: Number(r.wait_seconds),
    createTime: toSeconds(Number(r.created_at)),
    updateTime: toSeconds(Number(r.updated_at)),
  });

  const toRun = (r: Record<string, unknown>): EventRun => ({
    id: Number(r.id),
    eventId: Number(r.event_id),
    at: Number(r.at),
    trigger: String(r.trigger_type),
    path: String(r.path),
    user: String(r.account),
    exitCode: r.exit_code === null ? null : Number(r.exit_code),
    signal: (r.signal as string | null) ?? null,
    timedOut: Number(r.timed_out) === 1,
    durationMs: Number(r.duration_ms),
    stdout: String(r.stdout),
    stderr: String(r.stderr),
    error: String(r.error),
  });

  async function row(id: number) {
    return (await k.selectFrom("events").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("EventIdMissing");
  }

  /** The executable and the command line as saved: the path checked inside the events directory, the command line split. */
  async function checked(executable: string, commandLine: string) {
    if (!binDir) fail("EventsDirectoryUnset");
    try {
      await checkExecutable(binDir, executable);
    } catch (error) {
      if (error instanceof ExecutableRefused) throw new FerryError("EventExecutableRefused", { reason: error.message }, { dir: binDir! });
      throw error;
    }
    const split = tokenizeCommandLine(commandLine);
    if ("error" in split) throw new FerryError("EventCommandLineInvalid", { reason: split.error, ...(split.at ? { at: split.at } : {}) });
    return split.args;
  }

  const checkOperation = (operation: string | undefined) => {
    if (operation !== undefined && !(EVENT_OPERATIONS as readonly string[]).includes(operation)) fail("InvalidEventOperation");
  };

  function specOf(r: Row, values: EventValues, trigger: string): RunSpec {
    const args = (JSON.parse(r.args) as string[]).map((a) => substituteArgument(a, values));
    return { eventId: r.id, executable: r.executable, args, waitSeconds: Number(r.wait_seconds), trigger, path: values.path, account: values.user };
  }

  async function accountOf(event: FileEvent): Promise<string> {
    if (event.account !== undefined) return event.account;
    if (event.userId === null) return "";
    const u = await db.kysely.selectFrom("users").select("account").where("id", "=", event.userId).executeTakeFirst();
    return u?.account ?? "";
  }

  async function dispatch(event: FileEvent) {
    const rows = (await current()).get(event.type);
    if (!rows || rows.length === 0) return;
    const values: EventValues = {
      path: event.path,
      newPath: event.newPath ?? "",
      user: await accountOf(event),
      size: event.size === null || event.size === undefined ? "" : String(event.size),
      time: new Date(event.at ?? clock.now()).toISOString(),
      type: event.type,
      group: String(event.groupId ?? 0),
    };
    for (const r of rows) runner.enqueue(specOf(r, values, event.type));
  }

  const sink: EventSink = {
    fire(event) {
      // Nothing activated of this type: nothing to do, not even a promise.
      if (active && !active.get(event.type)?.length) return;
      dispatch(event).catch((error: unknown) => log({ err: error, type: event.type }, "firing an event failed"));
    },
    wants(type) {
      return !active || (active.get(type)?.length ?? 0) > 0;
    },
  };

  return {
    ...sink,
    /** Where failures are reported once the engine has a logger. */
    setLog(next: (obj: object, msg: string) => void) {
      log = next;
    },
    /** Loads the activated events (engine start), so the first file operation finds them in memory. */
    load: () => reload().then(() => undefined),
    binDir,

    async list(q: { pageNum: number; pageSize: number; search?: string; type?: EventType; status?: EventStatus }) {
      let base = k.selectFrom("events");
      if (q.search) {
        const pattern = `%${escapeLike(q.search.toLowerCase())}%`;
        base = base.where(sql<boolean>`(name_key like ${pattern} escape '!' or lower(remark) like ${pattern} escape '!' or lower(executable) like ${pattern} escape '!')`);
      }
      if (q.type) base = base.where("type", "=", q.type);
      if (q.status) base = base.where("active", "=", q.status === "activated" ? 1 : 0);
      const total = Number((await base.select(sql<number>`count(*)`.as("n")).executeTakeFirst())?.n ?? 0);
      const rows = await base
        .selectAll()
        .orderBy("id", "asc")
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute();
      return { list: rows.map(toAdmin), total, size: q.pageSize, current: q.pageNum };
    },

    get: async (id: number) => toAdmin(await row(id)),

    async create(input: CreateEventBody): Promise<AdminEvent> {
      checkOperation(input.operation);
      const args = await checked(input.executable, input.commandLine);
      const now = clock.now();
      await unique(
        () =>
          k
          .insertInto("events")
          .values({
            name: input.name,
            name_key: input.name.toLowerCase(),
            type: input.type,
            operation: input.operation,
            active: input.status === "inactivated" ? 0 : 1,
            remark: input.remark,
            executable: input.executable,
            command_line: input.commandLine,
            args: JSON.stringify(args),
            wait_seconds: input.waitSeconds,
            created_at: now,
            updated_at: now,
          })
          .execute(),
        () => fail("EventNameExists"),
      );
      await reload();
      const made = await k.selectFrom("events").selectAll().where("name_key", "=", input.name.toLowerCase()).executeTakeFirstOrThrow();
      return toAdmin(made);
    },

    async update(id: number, patch: UpdateEventBody): Promise<AdminEvent> {
      const before = await row(id);
      checkOperation(patch.operation);
      const executable = patch.executable ?? before.executable;
      const commandLine = patch.commandLine ?? before.command_line;
      const args = await checked(executable, commandLine);
      await unique(
        () =>
          k
          .updateTable("events")
          .set({
            ...(patch.name !== undefined ? { name: patch.name, name_key: patch.name.toLowerCase() } : {}),
            ...(patch.type !== undefined ? { type: patch.type } : {}),
            ...(patch.operation !== undefined ? { operation: patch.operation } : {}),
            ...(patch.status !== undefined ? { active: patch.status === "activated" ? 1 : 0 } : {}),
            ...(patch.remark !== undefined ? { remark: patch.remark } : {}),
            ...(patch.waitSeconds !== undefined ? { wait_seconds: patch.waitSeconds } : {}),
            executable,
            command_line: commandLine,
            args: JSON.stringify(args),
            updated_at: clock.now(),
          })
          .where("id", "=", id)
          .execute(),
        () => fail("EventNameExists"),
      );
      await reload();
      return toAdmin(await row(id));
    },

    /** Activate or deactivate; no check of the executable (a deactivated event may point at a file since removed). */
    async setStatus(id: number, status: EventStatus): Promise<AdminEvent> {
      await row(id);
      await k.updateTable("events").set({ active: status === "activated" ? 1 : 0, updated_at: clock.now() }).where("id", "=", id).execute();
      await reload();
      return toAdmin(await row(id));
    },

    async remove(id: number): Promise<void> {
      await row(id);
      await k.deleteFrom("events").where("id", "=", id).execute();
      await k.deleteFrom("event_runs").where("event_id", "=", id).execute();
      await reload();
    },

    /**
     * Runs the event now with sample values (TEST_VALUES, the event's type, now), whatever its
     * status; the run is in its log as "test". A run that did not exit with 0 on its own is
     * EventTestFailed, with the run as data.
     */
    async test(id: number): Promise<EventRun> {
      const r = { ...(await row(id)), id };
      if (!binDir) fail("EventsDirectoryUnset");
      const values: EventValues = { ...TEST_VALUES, time: new Date(clock.now()).toISOString(), type: r.type, group: "0" };
      const spec = specOf(r, values, "test");
      const outcome = await runner.run(spec);
      const run: EventRun = {
        id: outcome.runId ?? 0,
        eventId: id,
        at: outcome.at,
        trigger: "test",
        path: spec.path,
        user: spec.account,
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        timedOut: outcome.timedOut,
        durationMs: outcome.durationMs,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        error: outcome.error,
      };
      if (outcome.exitCode !== 0 || outcome.timedOut || outcome.error) throw new FerryError("EventTestFailed", run as unknown as Record<string, unknown>);
      return run;
    },

    async runs(id: number, q: { pageNum: number; pageSize: number }) {
      await row(id);
      const base = k.selectFrom("event_runs").where("event_id", "=", id);
      const total = Number((await base.select(sql<number>`count(*)`.as("n")).executeTakeFirst())?.n ?? 0);
      const rows = await base
        .selectAll()
        .orderBy("id", "desc")
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute();
      return { list: rows.map((r) => toRun(r as unknown as Record<string, unknown>)), total, size: q.pageSize, current: q.pageNum };
    },

    /** Runs queued and not started. */
    get queued() {
      return runner.queued;
    },
    get dropped() {
      return runner.dropped;
    },
    /** Engine shutdown: running executables stopped and waited for. */
    stop: () => {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      return runner.stop();
    },
  };
}
export type Events = ReturnType<typeof createEvents>;
