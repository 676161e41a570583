import { PAGE_SIZES } from "~/components/ui/pagination-model";
import { engineLinkFilter, readLinkFilter, readSort, writeLinkFilter, writeSort, type LinkFilter, type LinkSort } from "~/shares/link-query";

/**
 * The Share files / Request files screens' URL state: sort, search, page and the link whose details
 * are open, read once and written back by one function, so links, forms and redirects keep the rest.
 */
export type LinksKind = "files" | "requests";
/** The engine's orderBy (GET /api/admin/shares) of each sortable column. */
export const LINK_SORT_KEYS = { name: 1, created: 2, expires: 3, status: 4, owner: 5, downloads: 6 } as const;
export type LinkSortKey = keyof typeof LINK_SORT_KEYS;

export interface AdminLinksQuery extends LinkFilter {
  sort: LinkSort<LinkSortKey>;
  name: string;
  account: string;
  page: number;
  size: number;
  /** The link whose details and download statistics are shown, and the statistics' page. */
  detail: string;
  detailPage: number;
  detailSize: number;
}

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
  const detail = params.get("detail") ?? "";
  return {
    sort: readSort(params, LINK_SORT_KEYS),
    name: (params.get("name") ?? "").trim().slice(0, 255),
    account: (params.get("account") ?? "").trim().slice(0, 64),
    ...readLinkFilter(params),
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
  writeSort(params, LINK_SORT_KEYS, q.sort);
  if (q.name) params.set("name", q.name);
  if (q.account) params.set("account", q.account);
  writeLinkFilter(params, q);
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
  writeSort(params, LINK_SORT_KEYS, q.sort);
  if (q.name) params.set("name", q.name);
  if (q.account) params.set("account", q.account);
  engineLinkFilter(params, q, timeZone);
  return params.toString();
}
