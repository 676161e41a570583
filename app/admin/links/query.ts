import { PAGE_SIZES } from "~/components/ui/pagination-model";
import { zonedInstant } from "~/utils/time-zone";

/**
 * The Share files / Request files screens' URL state: sort, search, page and the link whose details
 * are open, read once and written back by one function, so links, forms and redirects keep the rest.
 */
export type LinksKind = "files" | "requests";
/** The engine's orderBy (GET /api/admin/shares) of each sortable column. */
export const LINK_SORT_KEYS = { name: 1, created: 2, expires: 3, status: 4, owner: 5, downloads: 6 } as const;
export type LinkSortKey = keyof typeof LINK_SORT_KEYS;

export interface AdminLinksQuery {
  sort: { key: LinkSortKey; order: "ascending" | "descending" } | null;
  name: string;
  account: string;
  status: "" | "1" | "2" | "3";
  createdStart: string;
  createdEnd: string;
  page: number;
  size: number;
  /** The link whose details and download statistics are shown, and the statistics' page. */
  detail: string;
  detailPage: number;
  detailSize: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ID = /^[0-9a-f-]{36}$/;
const sizeOf = (text: string | null) => {
  const size = Number(text);
  return (PAGE_SIZES as readonly number[]).includes(size) ? size : 10;
};
const pageOf = (text: string | null) => {
  const page = Number(text);
  return Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1;
};

export function readAdminLinksQuery(params: URLSearchParams): AdminLinksQuery {
  const orderBy = Number(params.get("orderBy"));
  const key = (Object.keys(LINK_SORT_KEYS) as LinkSortKey[]).find((k) => LINK_SORT_KEYS[k] === orderBy);
  const order = params.get("order");
  const status = params.get("status") ?? "";
  const date = (name: string) => {
    const v = params.get(name) ?? "";
    return DATE.test(v) ? v : "";
  };
  const detail = params.get("detail") ?? "";
  return {
    sort: key && (order === "asc" || order === "desc") ? { key, order: order === "asc" ? "ascending" : "descending" } : null,
    name: (params.get("name") ?? "").trim().slice(0, 255),
    account: (params.get("account") ?? "").trim().slice(0, 64),
    status: status === "1" || status === "2" || status === "3" ? status : "",
    createdStart: date("created.start"),
    createdEnd: date("created.end"),
    page: pageOf(params.get("page")),
    size: sizeOf(params.get("size")),
    detail: ID.test(detail) ? detail : "",
    detailPage: pageOf(params.get("dpage")),
    detailSize: sizeOf(params.get("dsize")),
  };
}

/** `?…` for a query (defaults left out); `change` overrides parts of it. */
export function adminLinksSearch(query: AdminLinksQuery, change: Partial<AdminLinksQuery> = {}): string {
  const q = { ...query, ...change };
  const params = new URLSearchParams();
  if (q.sort) {
    params.set("orderBy", String(LINK_SORT_KEYS[q.sort.key]));
    params.set("order", q.sort.order === "ascending" ? "asc" : "desc");
  }
  if (q.name) params.set("name", q.name);
  if (q.account) params.set("account", q.account);
  if (q.status) params.set("status", q.status);
  if (q.createdStart) params.set("created.start", q.createdStart);
  if (q.createdEnd) params.set("created.end", q.createdEnd);
  if (q.page !== 1) params.set("page", String(q.page));
  if (q.size !== 10) params.set("size", String(q.size));
  if (q.detail) {
    params.set("detail", q.detail);
    if (q.detailPage !== 1) params.set("dpage", String(q.detailPage));
    if (q.detailSize !== 10) params.set("dsize", String(q.detailSize));
  }
  const text = params.toString();
  return text ? `?${text}` : "?";
}

/** The same list without an open detail (what every list change and action goes back to). */
export const LIST_ONLY: Partial<AdminLinksQuery> = { detail: "", detailPage: 1, detailSize: 10 };

/** GET /api/admin/shares for the screen's kind. Dates are whole days in the reader's `timeZone`. */
export function engineLinksQuery(kind: LinksKind, q: AdminLinksQuery, timeZone: string): string {
  const params = new URLSearchParams({ shareUrlType: kind === "files" ? "1" : "0", pageNum: String(q.page), pageSize: String(q.size) });
  if (q.sort) {
    params.set("orderBy", String(LINK_SORT_KEYS[q.sort.key]));
    params.set("order", q.sort.order === "ascending" ? "asc" : "desc");
  }
  if (q.name) params.set("name", q.name);
  if (q.account) params.set("account", q.account);
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
