import { TASK_DIRECTIONS, TRANSFER_RESULTS } from "../../../contract/tasks";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { searchOf } from "~/admin/search";

/** The General tasks screen's state as its URL carries it (plain GET forms and links, so it all works without JavaScript). */
export type TasksTab = "live" | "log";
export type Direction = (typeof TASK_DIRECTIONS)[number] | "";
export type Result = (typeof TRANSFER_RESULTS)[number] | "";

export interface TasksQuery {
  tab: TasksTab;
  /** In progress: account, file, address or link. */
  search: string;
  direction: Direction;
  /** Transfer log filters. */
  user: string;
  text: string;
  result: Result;
  page: number;
  size: number;
  /** A transfer-log row shown in detail. */
  detail: number | null;
  /** A Stop waiting for its confirmation (no JavaScript). */
  confirm: string;
}

export function readTasksQuery(params: URLSearchParams): TasksQuery {
  const { page, size } = readPaginationParams(params);
  const direction = params.get("direction") ?? "";
  const result = params.get("result") ?? "";
  const detail = Number(params.get("detail"));
  return {
    tab: params.get("tab") === "log" ? "log" : "live",
    search: (params.get("search") ?? "").trim().slice(0, 200),
    direction: (TASK_DIRECTIONS as readonly string[]).includes(direction) ? (direction as Direction) : "",
    user: (params.get("user") ?? "").trim().slice(0, 64),
    text: (params.get("text") ?? "").trim().slice(0, 200),
    result: (TRANSFER_RESULTS as readonly string[]).includes(result) ? (result as Result) : "",
    page,
    size,
    detail: Number.isSafeInteger(detail) && detail > 0 ? detail : null,
    confirm: /^[0-9a-f-]{36}$/.test(params.get("confirm") ?? "") ? params.get("confirm")! : "",
  };
}

/** The screen's own URL search (`?tab=…`) for a state; defaults are left out. */
export function tasksSearch(q: Partial<TasksQuery>): string {
  return searchOf({
    tab: q.tab === "log" && "log",
    search: q.search,
    direction: q.direction,
    user: q.user,
    text: q.text,
    result: q.result,
    page: q.page && q.page > 1 && q.page,
    size: q.size,
    detail: q.detail,
    confirm: q.confirm,
  });
}

/** The engine's query of the live list (GET /api/admin/tasks). */
export function liveEngineQuery(q: TasksQuery): string {
  const p = new URLSearchParams({ pageNum: String(q.page), pageSize: String(q.size) });
  if (q.search) p.set("search", q.search);
  if (q.direction) p.set("direction", q.direction);
  return p.toString();
}

/** The engine's query of the transfer log (GET /api/admin/logs/transfers). */
export function logEngineQuery(q: TasksQuery): string {
  const p = new URLSearchParams({ pageNum: String(q.page), pageSize: String(q.size) });
  if (q.user) p.set("user", q.user);
  if (q.text) p.set("text", q.text);
  if (q.direction) p.set("direction", q.direction);
  if (q.result) p.set("result", q.result);
  return p.toString();
}

/** Seconds as h:mm:ss or m:ss. */
export function clockDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** Time left at the current speed; null when it cannot be told (no total, no speed). */
export function secondsLeft(task: { total: number | null; bytes: number; speed: number }): number | null {
  if (task.total === null || task.speed <= 0) return null;
  return Math.max(0, task.total - task.bytes) / task.speed;
}
