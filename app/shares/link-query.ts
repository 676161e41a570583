import { zonedInstant } from "../utils/time-zone";
import { ShareOrderBy } from "../../contract/share";

/**
 * The /link page's URL state: tab, sort, search and page, read once and written back by one
 * function, so links, forms and redirects keep every other part.
 */
export type LinkTab = "share" | "request";
export const SORT_KEYS = { name: ShareOrderBy.Name, createTime: ShareOrderBy.CreateTime, expireTime: ShareOrderBy.ExpireTime, status: ShareOrderBy.Status } as const;
export type SortKey = keyof typeof SORT_KEYS;

export interface LinkQuery {
  tab: LinkTab;
  /** Null: the engine's default order (newest first). */
  sort: { key: SortKey; order: "ascending" | "descending" } | null;
  name: string;
  status: "" | "1" | "2" | "3";
  createdStart: string;
  createdEnd: string;
  page: number;
  size: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SIZES = [10, 20, 30, 40, 50];

export function readLinkQuery(params: URLSearchParams): LinkQuery {
  const orderBy = Number(params.get("orderBy"));
  const key = (Object.keys(SORT_KEYS) as SortKey[]).find((k) => SORT_KEYS[k] === orderBy);
  const order = params.get("order");
  const status = params.get("status") ?? "";
  const size = Number(params.get("size"));
  const page = Number(params.get("page"));
  const date = (name: string) => {
    const v = params.get(name) ?? "";
    return DATE.test(v) ? v : "";
  };
  return {
    tab: params.get("tab") === "request" ? "request" : "share",
    sort: key && (order === "asc" || order === "desc") ? { key, order: order === "asc" ? "ascending" : "descending" } : null,
    name: (params.get("name") ?? "").slice(0, 255),
    status: status === "1" || status === "2" || status === "3" ? status : "",
    createdStart: date("created.start"),
    createdEnd: date("created.end"),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    size: SIZES.includes(size) ? size : 10,
  };
}

/** `?…` for a query (defaults left out); `change` overrides parts of it. */
export function linkSearch(query: LinkQuery, change: Partial<LinkQuery> = {}): string {
  const q = { ...query, ...change };
  const params = new URLSearchParams();
  if (q.tab !== "share") params.set("tab", q.tab);
  if (q.sort) {
    params.set("orderBy", String(SORT_KEYS[q.sort.key]));
    params.set("order", q.sort.order === "ascending" ? "asc" : "desc");
  }
  if (q.name) params.set("name", q.name);
  if (q.status) params.set("status", q.status);
  if (q.createdStart) params.set("created.start", q.createdStart);
  if (q.createdEnd) params.set("created.end", q.createdEnd);
  if (q.page !== 1) params.set("page", String(q.page));
  if (q.size !== 10) params.set("size", String(q.size));
  const text = params.toString();
  return text ? `?${text}` : "?";
}

/** The engine's list query. Dates are whole days in the reader's `timeZone`: from the start of the first to the end of the last. */
export function engineListQuery(q: LinkQuery, timeZone: string): string {
  const params = new URLSearchParams({ shareUrlType: q.tab === "share" ? "1" : "0", pageNum: String(q.page), pageSize: String(q.size) });
  if (q.sort) {
    params.set("orderBy", String(SORT_KEYS[q.sort.key]));
    params.set("order", q.sort.order === "ascending" ? "asc" : "desc");
  }
  if (q.name) params.set("name", q.name);
  if (q.status) params.set("shareStatus", q.status);
  const day = (text: string, end: boolean) => {
    const [year, month, date] = text.split("-").map(Number) as [number, number, number];
    // The end is the last second before the next day starts (a day may be 23 or 25 hours long).
    const start = (d: number) => zonedInstant({ year, month, day: d, hour: 0, minute: 0, second: 0 }, timeZone) / 1000;
    return end ? start(date + 1) - 1 : start(date);
  };
  if (q.createdStart) params.set("StartTime", String(day(q.createdStart, false)));
  if (q.createdEnd) params.set("EndTime", String(day(q.createdEnd, true)));
  return params.toString();
}
