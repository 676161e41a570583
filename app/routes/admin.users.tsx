import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigate, useSubmit } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { ConnectionsDetail, LicenseLine, OnlineState, SpaceCell, StatusCell } from "~/admin/users/cells";
import { listSortOf, readListSort, SortFields, writeListSort } from "~/admin/list-sort";
import { USER_ORDER_BY, usersSearch } from "~/admin/users/query";
import { Button, ButtonLink } from "~/components/ui/button";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Table, type Column, type SortState } from "~/components/ui/table";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { AdminUser } from "../../contract/admin";
import type { DashboardLicense } from "../../contract/dashboard";
import { permissionLabels } from "../../contract/permissions";

type UserPage = { list: AdminUser[]; total: number; size: number; current: number };

/** The Users list (admin spec section 2): search, paging, sorting (in the engine, headers as links), online state with connections (addresses in the expanded row), lock / unlock, space, delete, the account limit. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const url = new URL(request.url);
  const { page, size } = readPaginationParams(url.searchParams);
  const search = (url.searchParams.get("search") ?? "").trim().slice(0, 64);
  const sort = readListSort(url.searchParams, USER_ORDER_BY);
  const query = writeListSort(new URLSearchParams({ pageNum: String(page), pageSize: String(size) }), sort);
  if (search) query.set("search", search);
  const [users, license] = await Promise.all([
    admin.call<UserPage>(`/api/admin/users?${query.toString()}`),
    admin.call<DashboardLicense>("/api/admin/dashboard/license"),
  ]);
  if (!users.result || !users.data) throw new Response(users.message, { status: 502 });
  const headers = { "Set-Cookie": await admin.commit() };
  const last = Math.max(1, Math.ceil(users.data.total / size));
  if (page > last) throw redirect(`/admin/users${usersSearch({ page: last, size, search, sort })}`, { headers });
  // Without JavaScript a Delete comes back here first, to be confirmed on the page.
  const confirmId = Number(url.searchParams.get("confirm"));
  const confirm = users.data.list.find((u) => u.id === confirmId) ?? null;
  return data(
    { users: users.data.list, total: users.data.total, page, size, search, sort, license: license.result ? (license.data ?? null) : null, confirm: confirm ? { id: confirm.id, account: confirm.account } : null },
    { headers },
  );
}

const actionSchema = z.object({
  intent: z.enum(["lock", "unlock", "delete"]),
  id: z.coerce.number().int().positive(),
  account: z.string().max(64),
  confirmed: z.literal("1").optional(),
  back: z.string().max(512).optional(),
});

/** Lock, unlock and delete (confirmed first): POST forms answered with a redirect back and a toast. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const t = await getT(request);
  const parsed = actionSchema.safeParse(Object.fromEntries(form));
  const back = parsed.success && parsed.data.back?.startsWith("?") ? parsed.data.back : "";
  const to = `/admin/users${back}`;
  const headers = { "Set-Cookie": await admin.commit() };
  if (!parsed.success) return redirectWithToast(to, { type: "error", message: "error.400" }, { headers });
  const { intent, id, account, confirmed } = parsed.data;
  if (intent === "delete" && confirmed !== "1") {
    const ask = new URLSearchParams(back.slice(1));
    ask.set("confirm", String(id));
    return redirect(`/admin/users?${ask.toString()}`, { headers });
  }
  const reply =
    intent === "delete"
      ? await admin.call(`/api/admin/users/${id}`, { method: "DELETE" })
      : await admin.call(`/api/admin/users/${id}/${intent}`, { method: "POST" });
  if (!reply.result) return redirectWithToast(to, { type: "error", message: reply.message || `error.${reply.code}` }, { headers });
  return redirectWithToast(to, { type: "success", message: t(`admin.users.done.${intent}`, { account }) }, { headers });
}

/** One row action as a POST form: works without JavaScript; Delete asks first. */
function RowAction({ user, intent, back, onDelete }: { user: AdminUser; intent: "lock" | "unlock" | "delete"; back: string; onDelete?: (user: AdminUser) => void }) {
  const { t } = useTranslation();
  const ask = (event: FormEvent<HTMLFormElement>) => {
    if (intent !== "delete" || !onDelete) return;
    event.preventDefault();
    onDelete(user);
  };
  return (
    <Form method="post" action="/admin/users" onSubmit={ask} className="inline-flex" preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={user.id} />
      <input type="hidden" name="account" value={user.account} />
      <input type="hidden" name="back" value={back} />
      <Button type="submit" size="small" variant="text" danger={intent === "delete"} aria-label={t(`admin.users.${intent}.label`, { account: user.account })}>
        {t(`admin.users.${intent}`)}
      </Button>
    </Form>
  );
}

export default function UsersPage() {
  const { users, total, page, size, search, sort, license, confirm } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const submit = useSubmit();
  const [deleting, setDeleting] = useState<{ id: number; account: string } | null>(null);
  const back = usersSearch({ page, size, search, sort });
  /** A header's next order: the engine sorts, and a new order starts at page 1. */
  const sortedHref = (next: SortState | null) => `/admin/users${usersSearch({ page: 1, size, search, sort: listSortOf(next, USER_ORDER_BY) })}`;

  const confirmDelete = (user: { id: number; account: string }) =>
    submit({ intent: "delete", id: String(user.id), account: user.account, confirmed: "1", back }, { method: "post", action: "/admin/users", preventScrollReset: true });

  const columns: Column<AdminUser>[] = [
    { type: "expand", width: 44 },
    {
      key: "account",
      title: t("admin.users.column.account"),
      width: 150,
      sort: true,
      render: (u) => (
        <Link to={`/admin/users/${u.id}`} className="break-all text-primary hover:underline" aria-label={t("admin.users.edit.label", { account: u.account })}>
          {u.account}
        </Link>
      ),
      type: "custom",
    },
    { type: "ellipsis", dataIndex: "fullname", title: t("admin.users.column.fullname"), sort: true },
    { type: "ellipsis", dataIndex: "email", title: t("admin.users.column.email") },
    { type: "custom", key: "online", title: t("admin.users.column.status"), width: 195, render: (u) => <OnlineState user={u} /> },
    { type: "custom", key: "lock", title: t("admin.users.column.lock"), width: 80, render: (u) => <StatusCell user={u} /> },
    { type: "custom", key: "space", title: t("admin.users.column.space"), width: 160, render: (u) => <SpaceCell space={u.space} quota={u.quota} /> },
    {
      type: "custom",
      key: "permission",
      title: t("admin.users.column.permission"),
      render: (u) => {
        const labels = permissionLabels(u.permission)
          .split(";")
          .filter(Boolean)
          .map((name) => t(`admin.users.permission.${name}`))
          .join(";");
        return (
          <span className="block truncate" title={labels}>
            {labels}
          </span>
        );
      },
    },
    {
      type: "custom",
      key: "actions",
      title: t("admin.users.column.actions"),
      width: 170,
      render: (u) => (
        <span className="flex items-center gap-1">
          <Link to={`/admin/users/${u.id}`} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10" aria-label={t("admin.users.edit.label", { account: u.account })}>
            {t("admin.users.edit.button")}
          </Link>
          {/* The one administrator is not locked or deleted from its own console. */}
          {u.role !== "admin" && <RowAction user={u} intent={u.locked || u.lockedUntil > 0 ? "unlock" : "lock"} back={back} />}
          {u.role !== "admin" && <RowAction user={u} intent="delete" back={back} onDelete={setDeleting} />}
        </span>
      ),
    },
  ];

  return (
    <section className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-4">
        <h1 className="text-lg font-semibold">{t("admin.users.title")}</h1>
        <ButtonLink href="/admin/users/new">{t("admin.users.add")}</ButtonLink>
      </div>
      {license && <LicenseLine license={license} />}
      <Form method="get" action="/admin/users" role="search" className="flex items-center gap-2">
        <input type="hidden" name="size" value={size} />
        <SortFields sort={sort} />
        <label htmlFor="users-search" className="sr-only">
          {t("admin.users.search")}
        </label>
        <input
          id="users-search"
          name="search"
          type="search"
          maxLength={64}
          defaultValue={search}
          placeholder={t("admin.users.search")}
          className="h-8 w-72 rounded border border-gray-300 px-3 text-sm focus:border-primary focus:outline-none focus:ring-1 focus:ring-primary"
        />
        <Button type="submit">{t("global.search")}</Button>
        {search && (
          <ButtonLink href={`/admin/users${usersSearch({ page: 1, size, search: "", sort })}`} variant="outlined">
            {t("global.reset")}
          </ButtonLink>
        )}
      </Form>
      {confirm && (
        <InlineConfirm
          message={t("admin.users.delete.confirm", { account: confirm.account })}
          action="/admin/users"
          fields={{ intent: "delete", id: confirm.id, account: confirm.account, confirmed: "1", back }}
          cancelHref={`/admin/users${back}`}
        />
      )}
      <Table
        columns={columns}
        data={users}
        rowKey="id"
        label={t("admin.users.table")}
        rowLabel={(u) => u.account}
        expandedRender={(u) => <ConnectionsDetail user={u} />}
        sort={sort}
        onSortChange={(next) => navigate(sortedHref(next))}
        sortHref={sortedHref}
      />
      <p className="text-xs text-gray-500">{t("admin.users.online.note")}</p>
      <Pagination
        total={total}
        page={page}
        pageSize={size}
        hrefFor={(p, s) => `/admin/users${usersSearch({ page: p, size: s, search, sort })}`}
        onChange={(p, s) => navigate(`/admin/users${usersSearch({ page: p, size: s, search, sort })}`)}
      />
      <Modal
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        danger
        title={t("global.tips")}
        onConfirm={() => {
          if (deleting) confirmDelete(deleting);
        }}
      >
        {deleting && <p>{t("admin.users.delete.confirm", { account: deleting.account })}</p>}
      </Modal>
    </section>
  );
}
