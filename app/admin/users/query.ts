import { type ListSort, writeListSort } from "~/admin/list-sort";
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "~/components/ui/pagination-model";
import { USER_ORDER_BY } from "../../../contract/admin";

export type UsersSort = ListSort<(typeof USER_ORDER_BY)[number]>;
export { USER_ORDER_BY };

/** The Users list's address query: order, page, size and search, only what differs from the defaults. */
export function usersSearch({ page, size, search, sort = null }: { page: number; size: number; search: string; sort?: UsersSort }): string {
  const query = writeListSort(new URLSearchParams(), sort);
  if (page !== DEFAULT_PAGE) query.set("page", String(page));
  if (size !== DEFAULT_PAGE_SIZE) query.set("size", String(size));
  if (search) query.set("search", search);
  const text = query.toString();
  return text ? `?${text}` : "";
}
