import { readPaginationParams } from "~/components/ui/pagination-model";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { type AdminUser, SEARCH_MAX } from "../../contract/admin";
import { readListSort, writeListSort } from "./list-sort";

/** One page of an engine list (GET /api/admin/…). */
export type ListPage<T> = { list: T[]; total: number; size: number; current: number };

/**
 * One page of a console list as the URL says (`q`, `page`, `size`, `orderBy`, `order`), searched
 * and sorted by the engine at `api`; an engine failure is a 502.
 */
export async function loadListPage<T, Key extends string>(admin: SignedIn, params: URLSearchParams, api: string, orderBy: readonly Key[]) {
  const { page, size } = readPaginationParams(params);
  const search = (params.get("q") ?? "").slice(0, SEARCH_MAX);
  const sort = readListSort(params, orderBy);
  const query = writeListSort(new URLSearchParams({ pageNum: String(page), pageSize: String(size) }), sort);
  if (search) query.set("search", search);
  const reply = await admin.call<ListPage<T>>(`${api}?${query.toString()}`);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  return { page, size, search, sort, data: reply.data };
}

/** A dialog's user picker (`users=<text>`): the first 10 users (not administrators) matching the text. */
export async function findUsers(admin: SignedIn, text: string): Promise<Array<Pick<AdminUser, "id" | "account" | "email">>> {
  const q = new URLSearchParams({ pageNum: "1", pageSize: "10" });
  if (text.trim()) q.set("search", text.trim().slice(0, SEARCH_MAX));
  const reply = await admin.call<ListPage<AdminUser>>(`/api/admin/users?${q.toString()}`);
  return reply.result && reply.data ? reply.data.list.filter((u) => u.role === "user").map((u) => ({ id: u.id, account: u.account, email: u.email ?? "" })) : [];
}

/** What a console action starts with: the form (same-site, size-capped), the administrator, the reader's language, the session cookie to send back. */
export async function readAdminPost(request: Request) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const t = await getT(request);
  const headers = { "Set-Cookie": await admin.commit() };
  return { form, admin, t, headers };
}
