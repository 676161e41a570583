import { OPERATION_KINDS, type OperationKind } from "../../../contract/logs";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { searchOf } from "~/admin/search";
import { zonedInstant } from "~/utils/time-zone";

/** The Logs screen's filter as the URL carries it (a plain GET form), and the engine's query from it. */
export interface LogFilter {
  user: string;
  kind: OperationKind | "";
  /** yyyy-mm-dd in the reader's time zone; "" for none. */
  from: string;
  to: string;
  text: string;
  page: number;
  size: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight at the start of a yyyy-mm-dd day in `timeZone`, unix ms; null when not a date. */
export function dayStart(date: string, timeZone: string, plusDays = 0): number | null {
  const m = DATE.exec(date);
  if (!m) return null;
  const probe = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays));
  if (Number.isNaN(probe.getTime())) return null;
  return zonedInstant({ year: probe.getUTCFullYear(), month: probe.getUTCMonth() + 1, day: probe.getUTCDate(), hour: 0, minute: 0, second: 0 }, timeZone);
}

/** A yyyy-mm-dd day from the URL; "" for none or anything else. */
export function readDay(params: URLSearchParams, name: string): string {
  const v = (params.get(name) ?? "").trim();
  return DATE.test(v) ? v : "";
}

/** An engine query's `from` and `to` (unix ms) for days in the reader's time zone: the "to" day is included whole. */
export function setDays(q: URLSearchParams, days: { from: string; to: string }, timeZone: string): void {
  const from = days.from ? dayStart(days.from, timeZone) : null;
  const to = days.to ? dayStart(days.to, timeZone, 1) : null;
  if (from !== null) q.set("from", String(from));
  if (to !== null) q.set("to", String(to));
}

export function readLogFilter(params: URLSearchParams): LogFilter {
  const { page, size } = readPaginationParams(params);
  const kind = params.get("kind") ?? "";
  return {
    user: (params.get("user") ?? "").trim().slice(0, 64),
    kind: (OPERATION_KINDS as readonly string[]).includes(kind) ? (kind as OperationKind) : "",
    from: readDay(params, "from"),
    to: readDay(params, "to"),
    text: (params.get("text") ?? "").trim().slice(0, 200),
    page,
    size,
  };
}

/** The engine's filter (GET /api/admin/logs, /export): the "to" day is included whole. */
export function engineFilter(f: LogFilter, timeZone: string): URLSearchParams {
  const q = new URLSearchParams();
  if (f.user) q.set("user", f.user);
  if (f.kind) q.set("kind", f.kind);
  if (f.text) q.set("text", f.text);
  setDays(q, f, timeZone);
  return q;
}

/** The screen's own URL search for a filter (paging keeps the filter). */
export function logsSearch(f: Partial<LogFilter>): string {
  return searchOf({ user: f.user, kind: f.kind, from: f.from, to: f.to, text: f.text, page: f.page && f.page > 1 && f.page, size: f.size });
}
