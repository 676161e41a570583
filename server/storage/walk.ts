import { FerryError } from "../errors";

/**
 * Bounds of a folder walk (zip downloads, search, size sums, copy; docs/security.md, "Folder
 * walks"). A walk never follows a symbolic link below its start, so it cannot loop; the bounds keep
 * a deep or huge tree from holding the engine, and the signal stops the work once the client that
 * asked for it is gone.
 */
export interface WalkLimits {
  /** Deepest folder level below the start that is entered (the start's children are level 1). */
  maxDepth: number;
  /** Entries looked at before the walk gives up. */
  maxEntries: number;
}

export interface WalkOptions extends Partial<WalkLimits> {
  /** Aborted when the client goes away (request closed, socket closed): the walk stops with StoppedByClient. */
  signal?: AbortSignal;
}

/** The engine defaults (FERRY_WALK_MAX_DEPTH, FERRY_WALK_MAX_ENTRIES). */
export const WALK_DEFAULTS: WalkLimits = { maxDepth: 64, maxEntries: 1_000_000 };

/** No bounds: the engine's own bookkeeping (quota counts), which never follows links either. */
export const UNBOUNDED: WalkLimits = { maxDepth: Number.POSITIVE_INFINITY, maxEntries: Number.POSITIVE_INFINITY };

/**
 * What folder walks have done in this process: read by the engine tests (a walk whose client left
 * must stop) and useful when diagnosing a busy engine.
 */
export const walkStats = {
  /** Walks running now. */
  running: 0,
  /** Folders read by every walk so far. */
  foldersRead: 0,
  /** Walks stopped because their client went away. */
  stopped: 0,
  /** Walks refused at a limit. */
  limited: 0,
};

/** The refusal of a walk past its limits (code 4260, the limits in the message). */
export function walkLimitError(limits: WalkLimits): FerryError {
  const vars = { entries: limits.maxEntries, depth: limits.maxDepth };
  return new FerryError("WalkLimit", vars, vars);
}

/** The running count of one walk: call `folder` before reading a folder and `entries` for what it held. */
export class WalkBudget {
  readonly limits: WalkLimits;
  readonly signal: AbortSignal | undefined;
  private seen = 0;
  private done = false;

  constructor(defaults: WalkLimits, options: WalkOptions = {}) {
    this.limits = { maxDepth: options.maxDepth ?? defaults.maxDepth, maxEntries: options.maxEntries ?? defaults.maxEntries };
    this.signal = options.signal;
    walkStats.running++;
  }

  /** Throws StoppedByClient once the client is gone. */
  check(): void {
    if (this.signal?.aborted) throw new FerryError("StoppedByClient");
  }

  /** Before reading a folder at `depth` (the start is 0): refuses one past maxDepth. */
  folder(depth: number): void {
    this.check();
    if (depth > this.limits.maxDepth) throw walkLimitError(this.limits);
    walkStats.foldersRead++;
  }

  /** Counts `n` entries looked at: refuses past maxEntries. */
  entries(n: number): void {
    this.seen += n;
    if (this.seen > this.limits.maxEntries) throw walkLimitError(this.limits);
  }

  /** True when one more level below `depth` may be entered. */
  mayDescend(depth: number): boolean {
    return depth + 1 <= this.limits.maxDepth;
  }

  get count(): number {
    return this.seen;
  }

  /** Ends the walk's bookkeeping; pass what it failed with, if anything. Idempotent. */
  end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    walkStats.running--;
    if (error instanceof FerryError && error.errorName === "StoppedByClient") walkStats.stopped++;
    if (error instanceof FerryError && error.errorName === "WalkLimit") walkStats.limited++;
  }

  /** Runs `work` as this walk, ending it whatever happens. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.end();
      return result;
    } catch (error) {
      this.end(error);
      throw error;
    }
  }
}
