import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { GroupDialog } from "~/admin/groups/group-dialog";
import { GB, deleteSchema, groupFormSchema } from "~/admin/groups/schema";
import { Button } from "~/components/ui/button";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { readForm } from "~/utils/form.server";
import { formatSize } from "~/utils/format";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import type { AdminGroup, AdminUser } from "../../contract/admin";

type Page<T> = { list: T[]; total: number; size: number; current: number };
const SEARCH_MAX = 64;

/** Group spaces (admin document, section 2 "Groups"): one page of groups, as the URL says (`q`, `page`, `size`). */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size } = readPaginationParams(params);
  const search = (params.get("q") ?? "").slice(0, SEARCH_MAX);
  const query = new URLSearchParams({ pageNum: String(page), pageSize: String(size) });
  if (search) query.set("search", search);
  const groups = await admin.call<Page<AdminGroup>>(`/api/admin/groups?${query.toString()}`);
  if (!groups.result || !groups.data) throw new Response(groups.message, { status: 502 });
  // The dialog's user picker asks with `users=<text>` (GET /api/admin/users, first 10 matches).
  let picker: Array<Pick<AdminUser, "id" | "account" | "email">> | null = null;
  const users = params.get("users");
  if (users !== null) {
    const found = new URLSearchParams({ pageNum: "1", pageSize: "10" });
    if (users.trim()) found.set("search", users.trim().slice(0, SEARCH_MAX));
    const reply = await admin.call<Page<AdminUser>>(`/api/admin/users?${found.toString()}`);
    picker = reply.result && reply.data ? reply.data.list.filter((u) => u.role === "user").map((u) => ({ id: u.id, account: u.account, email: u.email })) : [];
  }
  return data({ groups: groups.data.list, total: groups.data.total, page, size, search, picker }, { headers: { "Set-Cookie": await admin.commit() } });
}

/** Saves the group (POST or PATCH), then brings its members to the dialog's list (PUT / DELETE members). */
async function save(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: groupFormSchema });
  if (submission.status !== "success") return { submission: submission.reply() };
  const v = submission.value;
  const body = {
    name: v.name,
    ...(v.home ? { home: v.home } : {}),
    maxUploadSpeed: v.maxUploadSpeed,
    maxDownloadSpeed: v.maxDownloadSpeed,
    uploadNewOnly: v.uploadNewOnly === "on",
    quota: v.quotaGb * GB,
  };
  const saved = v.id
    ? await admin.call<AdminGroup>(`/api/admin/groups/${v.id}`, { method: "PATCH", body: JSON.stringify(body) })
    : await admin.call<AdminGroup>("/api/admin/groups", { method: "POST", body: JSON.stringify(body) });
  if (!saved.result || !saved.data) return { submission: submission.reply({ formErrors: [`error.${saved.code}`] }) };
  const group = saved.data;
  const wanted = new Map(v.member.map((m) => [m.userId, m.groupPermission]));
  for (const current of group.members) {
    if (wanted.has(current.userId)) continue;
    const gone = await admin.call(`/api/admin/groups/${group.id}/members/${current.userId}`, { method: "DELETE" });
    if (!gone.result) return { submission: submission.reply({ formErrors: [`error.${gone.code}`] }) };
  }
  for (const [userId, groupPermission] of wanted) {
    if (group.members.some((m) => m.userId === userId && m.groupPermission === groupPermission)) continue;
    const added = await admin.call(`/api/admin/groups/${group.id}/members/${userId}`, { method: "PUT", body: JSON.stringify({ groupPermission }) });
    if (!added.result) return { submission: submission.reply({ formErrors: [`error.${added.code}`] }) };
  }
  return { saved: true as const };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const headers = { "Set-Cookie": await admin.commit() };
  if (form.get("intent") === "delete") {
    const parsed = deleteSchema.safeParse({ intent: form.get("intent"), id: form.get("id") });
    if (!parsed.success) return data({ deleted: false as const, code: 400 }, { headers });
    const reply = await admin.call(`/api/admin/groups/${parsed.data.id}`, { method: "DELETE" });
    return data(reply.result ? { deleted: true as const, code: 0 } : { deleted: false as const, code: reply.code }, { headers });
  }
  return data(await save(admin, form), { headers });
}

const hrefOf = (search: string, page: number, size: number) => {
  const q = new URLSearchParams({ page: String(page), size: String(size) });
  if (search) q.set("q", search);
  return `/admin/groups?${q.toString()}`;
};

export default function GroupsPage() {
  const { groups, total, page, size, search } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const toast = useToast();
  const location = useLocation();
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const [deleting, setDeleting] = useState<AdminGroup | null>(null);
  const remover = useFetcher<typeof action>();
  const group = editing?.id ? (groups.find((g) => g.id === editing.id) ?? null) : null;

  useEffect(() => {
    const answer = remover.data;
    if (remover.state !== "idle" || !answer || !("deleted" in answer)) return;
    if (answer.deleted) {
      toast.success(t("admin.groups.deleted"));
      setDeleting(null);
    } else toast.error(t(`error.${answer.code}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [remover.data, remover.state]);

  const unlimited = t("admin.groups.unlimited");
  const columns: Column<AdminGroup>[] = [
    { title: t("admin.groups.name"), dataIndex: "name", type: "ellipsis" },
    { title: t("admin.groups.home"), dataIndex: "home", type: "ellipsis" },
    { key: "members", title: t("admin.groups.members"), type: "custom", render: (g) => g.members.map((m) => m.account).join(", ") || "—" },
    {
      key: "speed",
      title: t("admin.groups.speed"),
      type: "custom",
      render: (g) => `${g.maxUploadSpeed || unlimited} / ${g.maxDownloadSpeed || unlimited}`,
    },
    {
      key: "usage",
      title: t("admin.groups.usage"),
      type: "custom",
      render: (g) => t("admin.groups.usage.value", { used: formatSize(g.space.used), quota: g.quota ? formatSize(g.quota) : t("admin.groups.usage.unlimited") }),
    },
    { key: "files", title: t("admin.groups.files"), type: "custom", render: (g) => String(g.space.files) },
    { key: "folders", title: t("admin.groups.folders"), type: "custom", render: (g) => String(g.space.folders) },
    {
      key: "actions",
      title: t("admin.groups.actions"),
      type: "custom",
      render: () => null,
      buttons: [
        { label: t("global.table.edit"), onClick: (g) => setEditing({ id: g.id }) },
        { label: t("global.delete"), onClick: (g) => setDeleting(g), danger: true },
      ],
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.groups.title")}</h1>
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action="/admin/groups" role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <TextInput type="search" name="q" label={t("admin.groups.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <Button onClick={() => setEditing({ id: null })}>{t("admin.groups.add")}</Button>
      </div>
      <Table label={t("admin.groups.table")} columns={columns} data={groups} rowKey="id" rowLabel={(g) => g.name} />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s)} />
      <GroupDialog open={editing !== null} group={group} onClose={() => setEditing(null)} />
      <Modal
        open={deleting !== null}
        danger
        title={t("admin.groups.delete")}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) remover.submit({ intent: "delete", id: String(deleting.id) }, { method: "post", action: "/admin/groups" });
          return false;
        }}
      >
        <p>{t("admin.groups.delete.confirm", { name: deleting?.name ?? "" })}</p>
      </Modal>
    </div>
  );
}
