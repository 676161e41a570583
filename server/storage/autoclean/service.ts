import { randomUUID } from "node:crypto";
import path from "node:path";
import type { AutoCleanReport, AutoCleanRun, AutoCleanRunBody } from "../../../contract/autoclean";
import type { Clock } from "../../clock";
import { FerryError } from "../../errors";
import type { OperationEntry } from "../../logs/recorder";
import type { InUse } from "../in-use";
import type { WalkLimits } from "../walk";
import { type CleanItem, type CleanPolicy, type CleanReport, checkRecyclePath, runClean } from "./cleaner";

/**
 * Auto-clean runs of the local storages (docs/storage.md, "Auto-clean"): on demand (the
 * administrator's "Run now" and "Dry run") and from the schedule (schedule.ts). One run at a time
 * per storage: asking for a run while one goes answers that run's report. Every file moved or
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
}

/** Who asked: the administrator (their user id) or the schedule. */
export type Trigger = { kind: "admin"; userId: number } | { kind: "schedule" };

/** Runs kept per storage for GET …/autoclean/runs. */
const KEEP_RUNS = 20;

export function createAutoClean(deps: AutoCleanDeps) {
  const running = new Map<number, Promise<AutoCleanReport>>();
  const history = new Map<number, AutoCleanRun[]>();
  /** Aborted at shutdown: every run stops between two files. */
  const stopping = new AbortController();
  /** Every run and dry run going on, so shutdown waits for them. */
  const inflight = new Set<Promise<unknown>>();
  let closed = false;

  const who = (trigger: Trigger): Pick<OperationEntry, "userId" | "account" | "role"> =>
    trigger.kind === "admin" ? { userId: trigger.userId, role: "admin" } : { userId: null, account: "auto-clean", role: "admin" };

  const describe = (policy: CleanPolicy) => `by ${policy.by}, older than ${policy.age}`;

  function summary(target: CleanTarget, policy: CleanPolicy, trigger: Trigger, report: CleanReport | null, started: number, failed?: FerryError): AutoCleanRun {
    return {
      id: randomUUID(),
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

  async function execute(target: CleanTarget, policy: CleanPolicy, trigger: Trigger, dryRun: boolean): Promise<AutoCleanReport> {
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
        signal: stopping.signal,
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
      const run = summary(target, policy, trigger, report, started);
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
      return { ...run, items: report.items };
    } catch (error) {
      const failure = error instanceof FerryError ? error : new FerryError("FileSystemError");
      if (!dryRun) {
        remember(summary(target, policy, trigger, null, started, failure));
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
    run(id: number, body: Partial<AutoCleanRunBody>, trigger: Trigger): Promise<AutoCleanReport> {
      if (closed) return Promise.reject(new FerryError("InvalidOperation"));
      const current = body.dryRun ? undefined : running.get(id);
      if (current) return current;
      const job = (async () => {
        const target = await deps.target(id);
        return execute(target, policyOf(target, body), trigger, body.dryRun === true);
      })();
      // Taken at once (before the storage is even read), so a second "Run now" joins this one.
      if (!body.dryRun) {
        running.set(id, job);
        void job.finally(() => running.delete(id)).catch(() => undefined);
      }
      inflight.add(job);
      void job.finally(() => inflight.delete(job)).catch(() => undefined);
      return job;
    },

    /** The schedule's run of one storage (its saved policy); null when it is off or a run goes already. */
    async runScheduled(target: CleanTarget): Promise<AutoCleanReport | null> {
      if (closed || !target.policy || running.has(target.id)) return null;
      return this.run(target.id, {}, { kind: "schedule" });
    },

    isRunning: (id: number) => running.has(id),

    /** The last runs of this process, newest first. */
    runs: (id: number): AutoCleanRun[] => [...(history.get(id) ?? [])],

    /** The finish time of the last real run of each storage this process made. */
    lastRunAt(id: number): number | null {
      return history.get(id)?.[0]?.finishedAt ?? null;
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
}
export type AutoClean = ReturnType<typeof createAutoClean>;

/** The usage-count path of a cleaned file: below the engine's storage root, when the storage is that root or inside it. */
export function rootRelative(storageRoot: string, target: CleanTarget, item: CleanItem): string | null {
  const absolute = path.join(target.root, ...item.path.split("/").filter(Boolean));
  const base = path.resolve(storageRoot);
  if (absolute !== base && !absolute.startsWith(`${base}${path.sep}`)) return null;
  return `/${path.relative(base, absolute).split(path.sep).join("/")}`;
}
