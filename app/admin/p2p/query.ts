import type { P2pStatus } from "../../../contract/p2p";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { searchOf } from "~/admin/search";
import { readDay, setDays } from "~/admin/logs/query";

/** The Point to point screen's state as its URL carries it (plain GET forms and links, so it all works without JavaScript). */
export type P2pTab = "live" | "history" | "settings";

/** The statuses a transfer has once it ended: the history's status filter. */
export const P2P_ENDED_STATUSES = ["done", "failed", "cancelled", "declined", "expired"] as const satisfies readonly P2pStatus[];
export type EndedStatus = (typeof P2P_ENDED_STATUSES)[number];

export interface P2pQuery {
  tab: P2pTab;
  /** Part of either account, or a whole device id (spaces allowed: "482 913 557"). */
  text: string;
  /** History filters: an ended status, and creation days (yyyy-mm-dd in the reader's time zone, "to" included whole). */
  status: EndedStatus | "";
  from: string;
  to: string;
  page: number;
  size: number;
}

export function readP2pQuery(params: URLSearchParams): P2pQuery {
  const { page, size } = readPaginationParams(params);
  const tab = params.get("tab");
  const status = params.get("status") ?? "";
  return {
    tab: tab === "history" || tab === "settings" ? tab : "live",
    text: (params.get("text") ?? "").trim().slice(0, 200),
    status: (P2P_ENDED_STATUSES as readonly string[]).includes(status) ? (status as EndedStatus) : "",
    from: readDay(params, "from"),
    to: readDay(params, "to"),
    page,
    size,
  };
}

/** The screen's own URL search (`?tab=…`) for a state; defaults are left out. */
export function p2pSearch(q: Partial<P2pQuery>): string {
  return searchOf({
    tab: q.tab !== "live" && q.tab,
    text: q.text,
    status: q.status,
    from: q.from,
    to: q.to,
    page: q.page && q.page > 1 && q.page,
    size: q.size,
  });
}

/** A typed device id ("482 913 557") as the engine matches it; any other text as typed. */
const engineText = (text: string) => (/^[\d\s]+$/.test(text) ? text.replace(/\s+/g, "") : text);

/** The engine's query of the live list (GET /api/transmission/ptp/current). */
export function liveEngineQuery(q: P2pQuery): string {
  const p = new URLSearchParams({ pageNum: String(q.page), pageSize: String(q.size) });
  if (q.text) p.set("text", engineText(q.text));
  return p.toString();
}

/** The engine's query of the history (GET /api/logs/transmission/ptp): dates as unix ms in the reader's time zone. */
export function historyEngineQuery(q: P2pQuery, timeZone: string): string {
  const p = new URLSearchParams({ pageNum: String(q.page), pageSize: String(q.size) });
  if (q.text) p.set("text", engineText(q.text));
  if (q.status) p.set("status", q.status);
  setDays(p, q, timeZone);
  return p.toString();
}
