import type { Insertable } from "kysely";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import type { OperationLogTable, TransferLogTable } from "../db/schema";
import { createLiveLogs, type LiveLogs } from "./live";

/*
 * The operation and transfer logs' writer (docs/admin-api.md, "Logs"). An action or a transfer
 * only pushes a row onto an in-memory queue; a timer writes the queue in batches, so no request,
 * socket command or transfer ever waits for a database write. `stop()` writes what is left
 * (engine shutdown). Accounts are filled in at write time from the user id when the caller did
 * not know them, one query per batch.
 */

export type LogRole = "user" | "admin" | "visitor";

export interface OperationEntry {
  /** Who: null for a share-link visitor or an unknown account's failed sign-in. */
  userId: number | null;
  /** Filled from the user id when left out. */
  account?: string;
  accountType?: number;
  role?: LogRole;
  address?: string | null;
  /** signin, signin_failed, upload, delete, … (contract/logs.ts OPERATION_KINDS). */
  kind: string;
  target?: string;
  detail?: string;
  result?: "ok" | "failed";
  /** The catalogue's code of a failure. */
  code?: number;
  /** Unix ms; the clock's now when left out. */
  at?: number;
}

export interface TransferEntry {
  userId: number | null;
  account?: string;
  /** The group space; null or 0 for the personal space. */
  groupId?: number | null;
  direction: "upload" | "download";
  bytes: number;
  files: number;
  durationMs: number;
  result: "ok" | "failed" | "stopped";
  via: "web" | "client" | "share" | "zip" | "tus" | "p2p";
  path: string;
  address?: string | null;
  shareId?: string | null;
  /** When it finished; the clock's now when left out. */
  at?: number;
}

export interface RecorderOptions {
  /** How often the queue is written (ms). */
  flushMs?: number;
  /** Rows per INSERT. */
  batchSize?: number;
  /** Rows kept waiting at most; past it new rows are dropped (and counted) rather than memory growing without end. */
  maxQueued?: number;
  log?: RecorderLog;
  /**
   * Bench only (FERRY_BENCH_LOGS_OFF): nothing is queued or written and downloads are not tracked,
   * the baseline `npm run bench` measures the log's cost against (docs/bench.md, "Log cost").
   */
  off?: boolean;
}

export interface RecorderLog {
  warn(obj: object, msg: string): void;
}

export interface Recorder {
  recordOperation(entry: OperationEntry): void;
  recordTransfer(entry: TransferEntry): void;
  /** Writes everything queued so far (tests, shutdown). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
  /** Rows dropped because the queue was full. */
  readonly dropped: number;
  /** The file server's downloads and the preview log (server/logs/live.ts). */
  readonly live: LiveLogs;
  /** Where a failed write or a full queue is reported (the engine's logger, once it exists). */
  setLog(log: RecorderLog): void;
  /** FERRY_BENCH_LOGS_OFF: nothing is logged. */
  readonly off: boolean;
}

const cut = (text: string | null | undefined, max: number) => {
  const s = text ?? "";
  return s.length > max ? s.slice(0, max) : s;
};

export function createRecorder(db: Db, clock: Clock, options: RecorderOptions = {}): Recorder {
  const k = db.kysely;
  const flushMs = options.flushMs ?? 1000;
  const batchSize = options.batchSize ?? 500;
  const maxQueued = options.maxQueued ?? 100_000;
  const off = options.off === true;
  let warnLog = options.log;
  const operations: Insertable<OperationLogTable>[] = [];
  const transfers: Insertable<TransferLogTable>[] = [];
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const schedule = () => {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, flushMs);
    // A CLI command or a test's engine ends without waiting for the next write.
    timer.unref();
  };

  const full = () => {
    if (operations.length + transfers.length < maxQueued) return false;
    dropped++;
    if (dropped === 1 || dropped % 10_000 === 0) warnLog?.warn({ dropped }, "log queue full: rows dropped (the database does not keep up)");
    return true;
  };

  /** Accounts of rows that name a user but not the account. */
  async function fillAccounts(rows: { user_id?: number | null; account?: string; account_type?: number }[], withType: boolean) {
    const ids = [...new Set(rows.filter((r) => r.user_id != null && !r.account).map((r) => r.user_id!))];
    if (ids.length === 0) return;
    const found = new Map<number, { account: string; account_type: number }>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = await k.selectFrom("users").select(["id", "account", "account_type"]).where("id", "in", ids.slice(i, i + 500)).execute();
      for (const u of chunk) found.set(Number(u.id), { account: u.account, account_type: Number(u.account_type) });
    }
    for (const r of rows) {
      if (r.user_id == null || r.account) continue;
      const u = found.get(r.user_id);
      if (!u) continue;
      r.account = u.account;
      if (withType && !r.account_type) r.account_type = u.account_type;
    }
  }

  async function writeBatches() {
    while (operations.length > 0 || transfers.length > 0) {
      const ops = operations.splice(0, batchSize);
      const trs = transfers.splice(0, batchSize);
      try {
        if (ops.length > 0) {
          await fillAccounts(ops, true);
          await k.insertInto("operation_log").values(ops).execute();
        }
        if (trs.length > 0) {
          await fillAccounts(trs, false);
          await k.insertInto("transfer_log").values(trs).execute();
        }
      } catch (err) {
        // A log write never fails an action; the rows of a failed batch are lost, and said so.
        warnLog?.warn({ err, operations: ops.length, transfers: trs.length }, "writing the logs failed");
      }
    }
  }

  function flush(): Promise<void> {
    writing = writing.then(writeBatches);
    return writing;
  }

  const recorder: Recorder = {
    recordOperation(e) {
      if (off || full()) return;
      operations.push({
        at: e.at ?? clock.now(),
        user_id: e.userId,
        account: cut(e.account, 64),
        account_type: e.accountType ?? 0,
        role: e.role ?? (e.userId === null ? "visitor" : "user"),
        address: cut(e.address, 64),
        kind: cut(e.kind, 32),
        target: cut(e.target, 1024),
        detail: cut(e.detail, 1024),
        result: e.result ?? "ok",
        code: e.code ?? 0,
      });
      schedule();
    },
    recordTransfer(e) {
      if (off || full()) return;
      transfers.push({
        at: e.at ?? clock.now(),
        user_id: e.userId,
        account: cut(e.account, 64),
        group_id: e.groupId ? e.groupId : null,
        direction: e.direction,
        bytes: Math.max(0, Math.round(e.bytes)),
        files: Math.max(0, Math.round(e.files)),
        duration_ms: Math.max(0, Math.round(e.durationMs)),
        result: e.result,
        via: e.via,
        path: cut(e.path, 1024),
        address: cut(e.address, 64),
        share_id: e.shareId ?? null,
      });
      schedule();
    },
    flush,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
    get dropped() {
      return dropped;
    },
    get live() {
      return live;
    },
    setLog(log) {
      warnLog = log;
    },
    off,
  };
  const live = createLiveLogs(recorder, clock, { trackDownloads: !off });
  return recorder;
}
