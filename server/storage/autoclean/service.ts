import { randomUUID } from "node:crypto";
import path from "node:path";
import type { AutoCleanReport, AutoCleanRun, AutoCleanRunBody } from "../../../contract/autoclean";
import type { Clock } from "../../clock";
import { FerryError } from "../../errors";
import type { OperationEntry } from "../../logs/recorder";
import type { InUse } from "../in-use";
import type { WalkLimits } from "../walk";
import { type CleanItem, type CleanPolicy, type CleanReport, checkRecyclePath, runClean } from "./cleaner";
import { type CleanLeases, LEASE_HEARTBEAT_MS, LEASE_STALE_MS, memoryLeases } from "./lease";

/** A run with no renewal of its lease for this long stops: half of LEASE_STALE_MS, after which another engine may take it. */
const LEASE_RENEW_WITHIN_MS = LEASE_STALE_MS / 2;

/**
 * Auto-clean runs of the local storages (docs/storage.md, "Auto-clean"): on demand (the
 * administrator's "Run now" and "Dry run") and from the schedule (schedule.ts). One run at a time
 * per storage: asking for a run while one goes in this process answers that run's report; while
 * one goes on another engine on the database (it holds the storage's lease, lease.ts), "Run now"
 * answers AutoCleanRunning and the schedule leaves the storage for its next pass. Every file moved or
 * deleted is written to the operation log (autoclean_recycle, autoclean_delete) and so is each run
 * (autoclean_run); dry runs change nothing and are not logged.
 */

/** A local storage as auto-clean sees it. */
export interface CleanTarget {
  id: number;
  name: string;
  /** Absolute folder of the storage. */
  root: string;
  /** null: auto-clean is off (or the storage is not local). */
  policy: CleanPolicy | null;
  /** false: an object storage, which has no auto-clean (InvalidOperation). */
  local?: boolean;
}

export interface AutoCleanDeps {
  clock: Clock;
  /** The storages (the `storages` table's local ones); StorageIdNotExist from `target` for an unknown id. */
  targets(): Promise<CleanTarget[]>;
  target(id: number): Promise<CleanTarget>;
  inUse: Pick<InUse, "isInUse">;
  limits?: WalkLimits;
  maxFiles?: number;
  log: Pick<{ recordOperation(entry: OperationEntry): void }, "recordOperation">;
  /** Told of each file a run took (the usage counts of the homes holding it). */
  onRemoved?(target: CleanTarget, item: CleanItem): void;
  /** The storages' leases, last runs and walk cursors: the database's (wiring.ts); default this process's only. */
  leases?: CleanLeases;
  /** How often a run renews its lease (real time); default LEASE_HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** A run stops when no renewal succeeded for this long (real time); default LEASE_RENEW_WITHIN_MS, half the lapse. */
  renewWithinMs?: number;
  /** Where a failed renewal is told (the engine's log). */
  warn?(obj: object, msg: string): void;
}

/** Who asked: the administrator (their user id) or the schedule. */
export type Trigger = { kind: "admin"; userId: number } | { kind: "schedule" };

/** A run's answer, and where the next walk starts (saved with the lease). */
interface Reported {
  report: AutoCleanReport;
  stoppedAt: string | null;
}

/** Runs kept per storage for GET …/autoclean/runs. */
const KEEP_RUNS = 20;

export function createAutoClean(deps: AutoCleanDeps) {
  const leases = deps.leases ?? memoryLeases();
  const running = new Map<number, Promise<Reported | null>>();
  const history = new Map<number, AutoCleanRun[]>();
  /** Aborted at shutdown: every run stops between two files. */
  const stopping = new AbortController();
  /** Every run and dry run going on, so shutdown waits for them. */
  const inflight = new Set<Promise<unknown>>();
  let closed = false;

  const who = (trigger: Trigger): Pick<OperationEntry, "userId" | "account" | "role"> =>
    trigger.kind === "admin" ? { userId: trigger.userId, role: "admin" } : { userId: null, account: "auto-clean", role: "admin" };

  const describe = (policy: CleanPolicy) => `by ${policy.by}, older than ${policy.age}`;

  function summary(id: string, target: CleanTarget, policy: CleanPolicy, trigger: Trigger, report: CleanReport | null, started: number, failed?: FerryError): AutoCleanRun {
    return {
      id,
      storageId: target.id,
      trigger: trigger.kind,
      dryRun: report?.dryRun ?? false,
      cleanBy: policy.by,
      cleanAge: policy.age,
      recyclePath: policy.recyclePath ?? "",
      startedAt: started,
      finishedAt: deps.clock.now(),
      moved: report?.moved ?? 0,
      deleted: report?.deleted ?? 0,
      skippedInUse: report?.skippedInUse ?? 0,
      skippedChanged: report?.skippedChanged ?? 0,
      bytes: report?.bytes ?? 0,
      errors: report?.errors ?? [],
      truncated: report?.truncated ?? false,
      ...(failed ? { failed: failed.errorName } : {}),
    };
  }

  function remember(run: AutoCleanRun) {
    const list = history.get(run.storageId) ?? [];
    list.unshift(run);
    list.splice(KEEP_RUNS);
    history.set(run.storageId, list);
  }

  /**
   * A real run first takes the storage's lease (null when another run holds it; AutoCleanRunning
   * for the administrator) and, for the schedule, asks `stillDue` again under it: another engine
   * may have run the storage since the pass looked. The lease is renewed while the run goes; a run
   * whose lease was taken from it (its heartbeat lapsed) stops between two files.
   */
  async function execute(target: CleanTarget, policy: CleanPolicy, trigger: Trigger, dryRun: boolean, stillDue?: () => Promise<boolean>): Promise<Reported | null> {
    const runId = randomUUID();
    if (dryRun) return clean(runId, target, policy, trigger, true, (await leases.state(target.id)).resumeAt, stopping.signal);
    if (!(await leases.take(target.id, runId))) return null;
    const controller = new AbortController();
    const stop = () => controller.abort();
    stopping.signal.addEventListener("abort", stop);
    if (stopping.signal.aborted) controller.abort();
    let outcome: { finishedAt: number | null; resumeAt?: string | null } = { finishedAt: null };
    // The last renewal the database confirmed, on a steady clock: a run that cannot renew (the
    // database away from this engine but not from others) stops well before its lease can lapse
    // and another engine take the storage over, instead of cleaning on beside that engine's run.
    let renewedAt = performance.now();
    const heartbeat = setInterval(() => {
      leases.renew(target.id, runId).then(
        (held) => (held ? (renewedAt = performance.now()) : controller.abort()),
        (err: unknown) => deps.warn?.({ err, storage: target.id }, "auto-clean: the lease could not be renewed"),
      );
      if (performance.now() - renewedAt > (deps.renewWithinMs ?? LEASE_RENEW_WITHIN_MS)) controller.abort();
    }, deps.heartbeatMs ?? LEASE_HEARTBEAT_MS);
    heartbeat.unref();
    let cleaning = false;
    try {
      if (stillDue && !(await stillDue())) return null;
      // Read under the lease: the last run's cursor is final now.
      const { resumeAt } = await leases.state(target.id);
      cleaning = true;
      const report = await clean(runId, target, policy, trigger, false, resumeAt, controller.signal);
      outcome = { finishedAt: report.report.finishedAt, resumeAt: report.stoppedAt };
      return report;
    } catch (error) {
      // A run that failed counts as the last run; the database failing before it began does not.
      outcome = { finishedAt: cleaning ? deps.clock.now() : null };
      throw error;
    } finally {
      clearInterval(heartbeat);
      stopping.signal.removeEventListener("abort", stop);
      await release(target.id, runId, outcome);
    }
  }

  /**
   * Gives the lease up, once more after a failure: the run's own answer stands whatever the
   * database says now (a lease left behind lapses after LEASE_STALE_MS).
   */
  async function release(storageId: number, runId: string, outcome: { finishedAt: number | null; resumeAt?: string | null }) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await leases.release(storageId, runId, outcome);
      } catch (err) {
        deps.warn?.({ err, storage: storageId, attempt }, "auto-clean: the lease could not be given up");
      }
    }
  }

  async function clean(runId: string, target: CleanTarget, policy: CleanPolicy, trigger: Trigger, dryRun: boolean, resumeAt: string | null, signal: AbortSignal): Promise<Reported> {
    const started = deps.clock.now();
    const actor = who(trigger);
    try {
      const report = await runClean({
        root: target.root,
        policy,
        now: started,
        dryRun,
        inUse: deps.inUse,
        limits: deps.limits,
        maxFiles: deps.maxFiles,
        signal,
        runId,
        isLive: (id) => leases.isLive(id),
        resumeAt,
        onItem: (item) => {
          deps.log.recordOperation({
            ...actor,
            kind: item.action === "recycle" ? "autoclean_recycle" : "autoclean_delete",
            target: `${target.name}:${item.path}`,
            detail: `${item.to ? `→ ${item.to}; ` : ""}${describe(policy)}`,
          });
          deps.onRemoved?.(target, item);
        },
      });
      const run = summary(runId, target, policy, trigger, report, started);
      if (!dryRun) {
        remember(run);
        const first = report.errors[0];
        deps.log.recordOperation({
          ...actor,
          kind: "autoclean_run",
          target: target.name,
          detail: `${describe(policy)}; moved ${report.moved}, deleted ${report.deleted}, ${report.bytes} bytes, in use ${report.skippedInUse}, changed ${report.skippedChanged}, errors ${report.errors.length}${report.truncated ? ", stopped at a bound" : ""}`,
          ...(first ? { result: "failed" as const, code: first.code } : {}),
        });
      }
      return { report: { ...run, items: report.items }, stoppedAt: report.stoppedAt };
    } catch (error) {
      // An errno keeps its text and path in the log entry: a bare FileSystemError says neither why nor where.
      const errno = error as NodeJS.ErrnoException;
      const failure =
        error instanceof FerryError
          ? error
          : new FerryError("FileSystemError", error instanceof Error && typeof errno.code === "string" ? { reason: errno.message, ...(typeof errno.path === "string" ? { path: errno.path } : {}) } : undefined);
      if (!dryRun) {
        remember(summary(runId, target, policy, trigger, null, started, failure));
        const { reason, path: where } = failure.data ?? {};
        const why = typeof reason === "string" ? `; ${reason}${typeof where === "string" ? `: ${where}` : ""}` : "";
        deps.log.recordOperation({ ...actor, kind: "autoclean_run", target: target.name, detail: `${describe(policy)}; failed (${failure.errorName})${why}`, result: "failed", code: failure.code });
      }
      throw error;
    }
  }

  /** The policy of a run: the saved one, or for a dry run the saved one with the body's changes. */
  function policyOf(target: CleanTarget, body: Partial<AutoCleanRunBody>): CleanPolicy {
    if (target.local === false) throw new FerryError("InvalidOperation");
    const overrides = body.cleanBy !== undefined || body.cleanAge !== undefined || body.recyclePath !== undefined;
    if (overrides && !body.dryRun) throw new FerryError("InvalidParameter");
    const by = body.cleanBy ?? target.policy?.by;
    const age = body.cleanAge ?? target.policy?.age ?? "1m";
    if (!by) throw new FerryError("InvalidOperation"); // auto-clean is off and the dry run tries nothing else
    const recycle = body.recyclePath !== undefined ? body.recyclePath.trim() || null : (target.policy?.recyclePath ?? null);
    return { by, age, recyclePath: recycle ? checkRecyclePath(target.root, recycle) : null };
  }

  return {
    /**
     * Runs the auto-clean of storage `id` now (POST /api/admin/storages/:id/autoclean/run). A real
     * run while one goes answers that run's report; a dry run always walks on its own.
     */
    async run(id: number, body: Partial<AutoCleanRunBody>, trigger: Trigger): Promise<AutoCleanReport> {
      const done = await start(id, body, trigger);
      if (!done) throw new FerryError("AutoCleanRunning"); // another engine's run holds the storage
      return done.report;
    },

    /** The schedule's run of one storage (its saved policy); null when it is off, a run goes already (here or on another engine) or `stillDue` says no under the lease. */
    async runScheduled(target: CleanTarget, stillDue?: () => Promise<boolean>): Promise<AutoCleanReport | null> {
      if (closed || !target.policy || running.has(target.id)) return null;
      return (await start(target.id, {}, { kind: "schedule" }, stillDue))?.report ?? null;
    },

    isRunning: (id: number) => running.has(id),

    /** A run of the storage goes here or on another engine on the database. */
    runningAnywhere: async (id: number) => running.has(id) || (await leases.isHeld(id)),

    /** The last runs of this process, newest first. */
    runs: (id: number): AutoCleanRun[] => [...(history.get(id) ?? [])],

    /** The finish time of the last real run of the storage, by any engine on the database. */
    async lastRunAt(id: number): Promise<number | null> {
      return (await leases.state(id)).lastRunAt;
    },

    targets: () => deps.targets(),
    target: (id: number) => deps.target(id),

    /** Shutdown: runs stop between two files (their report says truncated) and are waited for. */
    async close() {
      closed = true;
      stopping.abort();
      await Promise.allSettled([...inflight]);
    },
  };

  /** A run or dry run, or joining this process's run of the storage that goes on. */
  function start(id: number, body: Partial<AutoCleanRunBody>, trigger: Trigger, stillDue?: () => Promise<boolean>): Promise<Reported | null> {
    if (closed) return Promise.reject(new FerryError("InvalidOperation"));
    const current = body.dryRun ? undefined : running.get(id);
    if (current) return current;
    const job = (async () => {
      const target = await deps.target(id);
      return execute(target, policyOf(target, body), trigger, body.dryRun === true, stillDue);
    })();
    // Taken at once (before the storage is even read), so a second "Run now" joins this one.
    if (!body.dryRun) {
      running.set(id, job);
      void job.finally(() => running.delete(id)).catch(() => undefined);
    }
    inflight.add(job);
    void job.finally(() => inflight.delete(job)).catch(() => undefined);
    return job;
  }
}
export type AutoClean = ReturnType<typeof createAutoClean>;

/** The usage-count path of a cleaned file: below the engine's storage root, when the storage is that root or inside it. */
export function rootRelative(storageRoot: string, target: CleanTarget, item: CleanItem): string | null {
  const absolute = path.join(target.root, ...item.path.split("/").filter(Boolean));
  const base = path.resolve(storageRoot);
  if (absolute !== base && !absolute.startsWith(`${base}${path.sep}`)) return null;
  return `/${path.relative(base, absolute).split(path.sep).join("/")}`;
}
