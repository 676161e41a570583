import { sql } from "kysely";
import { LOG_CSV_MAX_ROWS, type LivePreview, type OperationLogEntry, type OperationLogPage, type OperationLogQuery } from "../../contract/logs";
import type * as z from "zod";
import type { operationLogExportQuery, operationLogFilter } from "../../contract/logs";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { escapeLike } from "../db/like";
import { FerryError } from "../errors";
import type { Settings } from "../settings/service";
import type { Recorder } from "./recorder";

/** The administrator's reading of the logs, their retention sweep and the preview log's stop (docs/admin-api.md, "Logs"). */

type Filter = z.infer<typeof operationLogFilter>;
const DAY_MS = 86_400_000;
/** Rows one DELETE removes, so a long-overdue sweep never holds a table for long. */
const SWEEP_BATCH = 5000;

export interface SweepResult {
  operations: number;
  transfers: number;
}

export function createLogs(deps: { db: Db; clock: Clock; settings: Settings; recorder: Recorder }) {
  const k = deps.db.kysely;

  function filtered(filter: Filter) {
    let q = k.selectFrom("operation_log");
    if (filter.user) q = q.where(sql<boolean>`lower(account) = ${filter.user.trim().toLowerCase()}`);
    if (filter.kind) q = q.where("kind", "=", filter.kind);
    if (filter.result) q = q.where("result", "=", filter.result);
    if (filter.from !== undefined) q = q.where("at", ">=", filter.from);
    if (filter.to !== undefined) q = q.where("at", "<", filter.to);
    const text = filter.text?.trim();
    if (text) {
      const pattern = `%${escapeLike(text.toLowerCase())}%`;
      q = q.where(
        sql<boolean>`(lower(account) like ${pattern} escape '!' or lower(target) like ${pattern} escape '!' or lower(detail) like ${pattern} escape '!' or lower(address) like ${pattern} escape '!')`,
      );
    }
    return q;
  }

  const toEntry = (r: { id: number; at: number; user_id: number | null; account: string; account_type: number; role: string; address: string; kind: string; target: string; detail: string; result: string; code: number }): OperationLogEntry => ({
    id: Number(r.id),
    at: Number(r.at),
    userId: r.user_id === null ? null : Number(r.user_id),
    account: r.account,
    accountType: Number(r.account_type),
    role: r.role === "admin" || r.role === "visitor" ? r.role : "user",
    address: r.address,
    kind: r.kind,
    target: r.target,
    detail: r.detail,
    result: r.result === "failed" ? "failed" : "ok",
    code: Number(r.code),
  });

  /** Deletes rows older than the retention days, in batches (the oldest first). */
  async function sweepTable(table: "operation_log" | "transfer_log", cutoff: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = (await k.selectFrom(table).select("id").where("at", "<", cutoff).orderBy("at").limit(SWEEP_BATCH).execute()).map((r) => Number(r.id));
      if (ids.length === 0) return deleted;
      await k.deleteFrom(table).where("id", "in", ids).execute();
      deleted += ids.length;
      if (ids.length < SWEEP_BATCH) return deleted;
    }
  }

  return {
    /** GET /api/admin/logs: one page, by time. */
    async list(query: OperationLogQuery): Promise<OperationLogPage> {
      // What was just done is in the list (the writer batches every second).
      await deps.recorder.flush();
      const counted = await filtered(query).select(sql<string | number>`count(*)`.as("n")).executeTakeFirst();
      const direction = query.order === "asc" ? "asc" : "desc";
      const rows = await filtered(query)
        .selectAll()
        .orderBy("at", direction)
        .orderBy("id", direction)
        .limit(query.pageSize)
        .offset((query.pageNum - 1) * query.pageSize)
        .execute();
      return { list: rows.map(toEntry), total: Number(counted?.n ?? 0), size: query.pageSize, current: query.pageNum };
    },

    /** GET /api/admin/logs/export: the filtered rows as CSV, streamed a page at a time, at most LOG_CSV_MAX_ROWS. */
    async exportCsv(query: z.infer<typeof operationLogExportQuery>): Promise<AsyncIterable<string>> {
      await deps.recorder.flush();
      const direction = query.order === "asc" ? "asc" : "desc";
      async function* lines() {
        yield `\uFEFF${["time", "account", "account type", "role", "address", "kind", "target", "detail", "result", "code"].join(",")}\r\n`;
        let written = 0;
        let after: { at: number; id: number } | null = null;
        while (written < LOG_CSV_MAX_ROWS) {
          let q = filtered(query);
          // Keyset paging: a row written meanwhile never shifts a page.
          if (after) {
            const { at, id } = after;
            q = direction === "desc" ? q.where((eb) => eb.or([eb("at", "<", at), eb.and([eb("at", "=", at), eb("id", "<", id)])])) : q.where((eb) => eb.or([eb("at", ">", at), eb.and([eb("at", "=", at), eb("id", ">", id)])]));
          }
          const rows = await q.selectAll().orderBy("at", direction).orderBy("id", direction).limit(Math.min(1000, LOG_CSV_MAX_ROWS - written)).execute();
          if (rows.length === 0) return;
          let chunk = "";
          for (const r of rows.map(toEntry)) {
            chunk += `${[new Date(r.at).toISOString(), r.account, r.accountType, r.role, r.address, r.kind, r.target, r.detail, r.result, r.code].map(csvCell).join(",")}\r\n`;
          }
          yield chunk;
          written += rows.length;
          const last = rows.at(-1)!;
          after = { at: Number(last.at), id: Number(last.id) };
        }
        const more = await (after ? filtered(query).select("id").where((eb) => (direction === "desc" ? eb.or([eb("at", "<", after!.at), eb.and([eb("at", "=", after!.at), eb("id", "<", after!.id)])]) : eb.or([eb("at", ">", after!.at), eb.and([eb("at", "=", after!.at), eb("id", ">", after!.id)])]))).limit(1).executeTakeFirst() : undefined);
        if (more) yield `${csvCell(`stopped after ${LOG_CSV_MAX_ROWS} rows: narrow the filter to export the rest`)}\r\n`;
      }
      return lines();
    },

    /** Deletes what is older than the "logs" settings' retention days. */
    async sweep(): Promise<SweepResult> {
      await deps.recorder.flush();
      const s = await deps.settings.get("logs");
      const now = deps.clock.now();
      return {
        operations: await sweepTable("operation_log", now - s.operationLogDays * DAY_MS),
        transfers: await sweepTable("transfer_log", now - s.transferLogDays * DAY_MS),
      };
    },

    /** GET /api/admin/logs/previews: the previews whose URL lives, newest first, with their accounts. */
    async previews(): Promise<LivePreview[]> {
      const live = deps.recorder.live.previews();
      const ids = [...new Set(live.map((p) => p.userId))];
      const accounts = new Map<number, string>();
      if (ids.length > 0) for (const u of await k.selectFrom("users").select(["id", "account"]).where("id", "in", ids).execute()) accounts.set(Number(u.id), u.account);
      return live.map((p) => ({ ...p, account: accounts.get(p.userId) ?? p.account })).sort((a, b) => b.startedAt - a.startedAt);
    },

    /** POST /api/admin/logs/previews/:id/stop */
    stopPreview(id: string): null {
      if (!deps.recorder.live.stopPreview(id)) throw new FerryError("PreviewNotLive");
      return null;
    },
  };
}
export type Logs = ReturnType<typeof createLogs>;

/** A CSV cell; a leading =, +, - or @ is quoted with an apostrophe so a spreadsheet never runs it as a formula. */
function csvCell(value: string | number): string {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Sweeps at start and every `intervalMs` until stopped; a failed sweep is logged and the next one tries again. */
export function startLogSweep(logs: Logs, intervalMs: number, log: { warn(obj: object, msg: string): void }) {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = logs.sweep().catch((err: unknown) => log.warn({ err }, "deleting old log rows failed"));
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
