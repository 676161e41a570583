import { zonedInstant } from "../utils/time-zone";
import { ShareOrderBy } from "../../contract/share";

/**
 * The /link page's URL state: tab, sort, search and page, read once and written back by one
 * function, so links, forms and redirects keep every other part.
 */
export type LinkTab = "share" | "request";
export const SORT_KEYS = { name: ShareOrderBy.Name, createTime: ShareOrderBy.CreateTime, expireTime: ShareOrderBy.ExpireTime, status: ShareOrderBy.Status } as const;
export type SortKey = keyof typeof SORT_KEYS;

export interface LinkQuery extends LinkFilter {
  tab: LinkTab;
  /** Null: the engine's default order (newest first). */
  sort: LinkSort<SortKey>;
  name: string;
  page: number;
  size: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SIZES = [10, 20, 30, 40, 50];

/** A list's sort in the URL (`orderBy`, `order`), with the engine's orderBy number of each key. */
export type LinkSort<K extends string> = { key: K; order: "ascending" | "descending" } | null;

/** The parts of a link list's filter the user's and the administrator's screens share. */
export interface LinkFilter {
  status: "" | "1" | "2" | "3";
  createdStart: string;
  createdEnd: string;
}

export function readSort<K extends string>(params: URLSearchParams, keys: Record<K, number>): LinkSort<K> {
  const orderBy = Number(params.get("orderBy"));
  const key = (Object.keys(keys) as K[]).find((k) => keys[k] === orderBy);
  const order = params.get("order");
  return key && (order === "asc" || order === "desc") ? { key, order: order === "asc" ? "ascending" : "descending" } : null;
}

export function writeSort<K extends string>(params: URLSearchParams, keys: Record<K, number>, sort: LinkSort<K>): void {
  if (!sort) return;
  params.set("orderBy", String(keys[sort.key]));
  params.set("order", sort.order === "ascending" ? "asc" : "desc");
}

/** Status and creation days from the URL; anything else is left out. */
export function readLinkFilter(params: URLSearchParams): LinkFilter {
  const status = params.get("status") ?? "";
  const date = (name: string) => {
    const v = params.get(name) ?? "";
    return DATE.test(v) ? v : "";
  };
  return { status: status === "1" || status === "2" || status === "3" ? status : "", createdStart: date("created.start"), createdEnd: date("created.end") };
}

/** The filter back into the page's URL (`status`, `created.start`, `created.end`). */
export function writeLinkFilter(params: URLSearchParams, f: LinkFilter): void {
  if (f.status) params.set("status", f.status);
  if (f.createdStart) params.set("created.start", f.createdStart);
  if (f.createdEnd) params.set("created.end", f.createdEnd);
}

/** The filter for the engine's list (`shareStatus`, `StartTime`, `EndTime`). Dates are whole days in the reader's `timeZone`: from the start of the first to the end of the last. */
export function engineLinkFilter(params: URLSearchParams, f: LinkFilter, timeZone: string): void {
  if (f.status) params.set("shareStatus", f.status);
  const day = (text: string, end: boolean) => {
    const [year, month, date] = text.split("-").map(Number) as [number, number, number];
    // The end is the last second before the next day starts (a day may be 23 or 25 hours long).
    const start = (d: number) => zonedInstant({ year, month, day: d, hour: 0, minute: 0, second: 0 }, timeZone) / 1000;
    return end ? start(date + 1) - 1 : start(date);
  };
  if (f.createdStart) params.set("StartTime", String(day(f.createdStart, false)));
  if (f.createdEnd) params.set("EndTime", String(day(f.createdEnd, true)));
}

export function readLinkQuery(params: URLSearchParams): LinkQuery {
  const size = Number(params.get("size"));
  const page = Number(params.get("page"));
  return {
    tab: params.get("tab") === "request" ? "request" : "share",
    sort: readSort(params, SORT_KEYS),
    name: (params.get("name") ?? "").slice(0, 255),
    ...readLinkFilter(params),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    size: SIZES.includes(size) ? size : 10,
  };
}

/** `?…` for a query (defaults left out); `change` overrides parts of it. */
export function linkSearch(query: LinkQuery, change: Partial<LinkQuery> = {}): string {
  const q = { ...query, ...change };
  const params = new URLSearchParams();
  if (q.tab !== "share") params.set("tab", q.tab);
  writeSort(params, SORT_KEYS, q.sort);
  if (q.name) params.set("name", q.name);
  writeLinkFilter(params, q);
  if (q.page !== 1) params.set("page", String(q.page));
  if (q.size !== 10) params.set("size", String(q.size));
  const text = params.toString();
  return text ? `?${text}` : "?";
}

/** The engine's list query. */
export function engineListQuery(q: LinkQuery, timeZone: string): string {
  const params = new URLSearchParams({ shareUrlType: q.tab === "share" ? "1" : "0", pageNum: String(q.page), pageSize: String(q.size) });
  writeSort(params, SORT_KEYS, q.sort);
  if (q.name) params.set("name", q.name);
  engineLinkFilter(params, q, timeZone);
  return params.toString();
}
