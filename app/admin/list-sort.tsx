import type { SortState } from "~/components/ui/table";

/** A console list's order as its address says: `orderBy=<field>&order=asc|desc`, the engine's own names. Null: the engine's order (by id). */
export type ListSort<Key extends string> = { key: Key; order: SortState["order"] } | null;

/** Reads the order from the address; a field the engine does not sort by is no order at all. */
export function readListSort<Key extends string>(params: URLSearchParams, keys: readonly Key[]): ListSort<Key> {
  const key = params.get("orderBy");
  const order = params.get("order");
  if (!key || !(keys as readonly string[]).includes(key)) return null;
  return { key: key as Key, order: order === "desc" ? "descending" : "ascending" };
}

/** Adds the order to a query (the address or the engine's), nothing when there is none. */
export function writeListSort(params: URLSearchParams, sort: ListSort<string>): URLSearchParams {
  if (sort) {
    params.set("orderBy", sort.key);
    params.set("order", sort.order === "ascending" ? "asc" : "desc");
  }
  return params;
}

/** A console list's own address query (`?orderBy=&order=&page=&size=&q=`), for its links and for coming back after an action. */
export function listQuery(search: string, page: number, size: number, sort: ListSort<string>): string {
  const q = writeListSort(new URLSearchParams(), sort);
  q.set("page", String(page));
  q.set("size", String(size));
  if (search) q.set("q", search);
  return `?${q.toString()}`;
}

/** The table's next order as the list's: a header of a field the engine cannot sort by gives none. */
export function listSortOf<Key extends string>(sort: SortState | null, keys: readonly Key[]): ListSort<Key> {
  return sort && (keys as readonly string[]).includes(sort.key) ? { key: sort.key as Key, order: sort.order } : null;
}

/** Hidden fields that let a list's search form (a GET) keep its order. */
export function SortFields({ sort }: { sort: ListSort<string> }) {
  if (!sort) return null;
  return (
    <>
      <input type="hidden" name="orderBy" value={sort.key} />
      <input type="hidden" name="order" value={sort.order === "ascending" ? "asc" : "desc"} />
    </>
  );
}
