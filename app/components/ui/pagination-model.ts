/** Pagination constants (admin spec, section 9 "Shared kit constants") and the pure page arithmetic. */
export const PAGE_SIZES = [10, 20, 30, 40, 50] as const;
export const DEFAULT_PAGE_SIZE = 10;
export const DEFAULT_PAGE = 1;
export const BOUNDARY_PAGES = 1;
export const SIBLING_PAGES = 2;

export type PaginationItem = number | "ellipsis-start" | "ellipsis-end";

/** Number of pages for `total` items; an empty list still has page 1. */
export function totalPagesFor(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize));
}

/** Keeps `page` within 1..totalPages (non-numbers become page 1). */
export function clampPage(page: number, totalPages: number): number {
  if (!Number.isFinite(page)) return DEFAULT_PAGE;
  return Math.min(Math.max(1, Math.trunc(page)), Math.max(1, totalPages));
}

function range(from: number, to: number): number[] {
  return to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/**
 * The page buttons to show: `boundaries` pages at each end, `siblings` pages either side of the
 * current one, and an ellipsis where pages are left out. An ellipsis never stands for a single page
 * (that page is shown instead), so the bar keeps the same number of items while the current page
 * moves and does not jump under the pointer.
 */
export function paginationItems(
  current: number,
  totalPages: number,
  { boundaries = BOUNDARY_PAGES, siblings = SIBLING_PAGES }: { boundaries?: number; siblings?: number } = {},
): PaginationItem[] {
  const count = Math.max(1, Math.trunc(totalPages));
  const page = clampPage(current, count);
  // Both ends, the current page, its siblings and two ellipses: fewer pages than that are all shown.
  if (count <= 2 * boundaries + 2 * siblings + 3) return range(1, count);

  const startPages = range(1, boundaries);
  const endPages = range(count - boundaries + 1, count);
  // The sibling window slides inwards near the ends so the item count stays constant.
  const windowStart = Math.max(Math.min(page - siblings, count - boundaries - 2 * siblings - 1), boundaries + 2);
  const windowEnd = Math.min(Math.max(page + siblings, boundaries + 2 * siblings + 2), count - boundaries - 1);

  return [
    ...startPages,
    windowStart > boundaries + 2 ? ("ellipsis-start" as const) : boundaries + 1,
    ...range(windowStart, windowEnd),
    windowEnd < count - boundaries - 1 ? ("ellipsis-end" as const) : count - boundaries,
    ...endPages,
  ];
}

/** What a loader reads from `?page=&size=`: an allowed size and a positive page (clamp it once the total is known). */
export function readPaginationParams(params: URLSearchParams): { page: number; size: number } {
  const size = Number(params.get("size"));
  const page = Number(params.get("page"));
  return {
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    page: Number.isInteger(page) && page >= 1 ? page : DEFAULT_PAGE,
  };
}
