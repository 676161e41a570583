import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "~/components/ui/pagination-model";

/** The Users list's address query: page, size and search, only what differs from the defaults. */
export function usersSearch({ page, size, search }: { page: number; size: number; search: string }): string {
  const query = new URLSearchParams();
  if (page !== DEFAULT_PAGE) query.set("page", String(page));
  if (size !== DEFAULT_PAGE_SIZE) query.set("size", String(size));
  if (search) query.set("search", search);
  const text = query.toString();
  return text ? `?${text}` : "";
}
