import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useFetcher, useLoaderData, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import { findUsers, loadListPage, readAdminPost } from "~/admin/list-page.server";
import { storageChoices } from "~/admin/users/user-form.server";
import { listQuery, listSortOf, SortFields, type ListSort } from "~/admin/list-sort";
import { draftOf, GroupDialog, GroupPanel, type GroupDraft } from "~/admin/groups/group-dialog";
import type { PickedMember } from "~/admin/groups/member-picker";
import { GB, backSchema, deleteSchema, groupFormSchema } from "~/admin/groups/schema";
import { Button, ButtonLink } from "~/components/ui/button";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column, type SortState } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { formatSize } from "~/utils/format";
import { redirectWithToast } from "~/utils/toast.server";
import { useHydrated } from "~/utils/use-hydrated";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { GROUP_ORDER_BY, SEARCH_MAX, type AdminGroup, type AdminUser } from "../../contract/admin";

type GroupsSort = ListSort<(typeof GROUP_ORDER_BY)[number]>;

/** Group spaces (admin document, section 2 "Groups"): one page of groups, as the URL says (`orderBy`, `order`, `q`, `page`, `size`), sorted by the engine. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size, search, sort, data: groups } = await loadListPage<AdminGroup, (typeof GROUP_ORDER_BY)[number]>(admin, params, "/api/admin/groups", GROUP_ORDER_BY);
  // The dialog's user picker asks with `users=<text>` (GET /api/admin/users, first 10 matches).
  const users = params.get("users");
  const picker = users !== null ? await findUsers(admin, users) : null;
  // Without JavaScript the dialogs are parts of the page: `edit=new|<id>` the add / edit form (with
  // what was typed when Find users sent it here), `remove=<id>` the delete confirmation.
  const back = backSchema.parse(params.get("back") ?? listQuery(search, page, size, sort));
  const edit = params.get("edit");
  let editing: { group: AdminGroup | null; draft: GroupDraft } | null = null;
  if (edit === "new" || /^\d{1,12}$/.test(edit ?? "")) {
    const group = edit === "new" ? null : await findGroup(admin, groups.list, Number(edit));
    if (edit === "new" || group) editing = { group, draft: users !== null ? await typedDraft(admin, params, group) : draftOf(group) };
  }
  const removeId = params.get("remove");
  const removing = removeId && /^\d{1,12}$/.test(removeId) ? await findGroup(admin, groups.list, Number(removeId)) : null;
  return data(
    { storages: await storageChoices(admin), groups: groups.list, total: groups.total, page, size, search, sort, picker, users: users ?? "", back, editing, removing: removing && { id: removing.id, name: removing.name } },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

async function findGroup(admin: SignedIn, list: AdminGroup[], id: number): Promise<AdminGroup | null> {
  const listed = list.find((g) => g.id === id);
  if (listed) return listed;
  const reply = await admin.call<AdminGroup>(`/api/admin/groups/${id}`);
  return reply.result && reply.data ? reply.data : null;
}

/** The form as Find users (a GET) sent it: the values typed, and the members with their accounts. */
async function typedDraft(admin: SignedIn, params: URLSearchParams, group: AdminGroup | null): Promise<GroupDraft> {
  const text = (name: string, max: number) => (params.get(name) ?? "").slice(0, max);
  const members: PickedMember[] = [];
  for (const value of params.getAll("member").slice(0, 100)) {
    const match = /^(\d{1,12}):(read|full)$/.exec(value);
    if (!match || members.some((m) => m.userId === Number(match[1]))) continue;
    const userId = Number(match[1]);
    const known = group?.members.find((m) => m.userId === userId);
    const account = known?.account ?? (await admin.call<AdminUser>(`/api/admin/users/${userId}`)).data?.account;
    if (account) members.push({ userId, account, level: match[2] as PickedMember["level"] });
  }
  return {
    name: text("name", 64),
    home: text("home", 1024),
    storageId: text("storageId", 12),
    maxUploadSpeed: text("maxUploadSpeed", 6),
    maxDownloadSpeed: text("maxDownloadSpeed", 6),
    quotaGb: text("quotaGb", 7),
    uploadNewOnly: params.get("uploadNewOnly") === "on",
    members,
  };
}

/** Saves the group (POST or PATCH), then brings its members to the dialog's list (PUT / DELETE members). */
async function save(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: groupFormSchema });
  if (submission.status !== "success") return { submission: submission.reply() };
  const v = submission.value;
  const body = {
    name: v.name,
    ...(v.home ? { home: v.home } : {}),
    ...(v.storageId ? { storageId: Number(v.storageId) } : {}),
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

/**
 * Save and delete. The dialogs (fetchers) get data back; the page without JavaScript posts `back`
 * (the list's query) and gets a redirect there with a toast, a Delete first one to its confirmation.
 */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const back = form.has("back") ? backSchema.parse(form.get("back")) : null;
  const list = `/admin/groups${back ?? ""}`;
  if (form.get("intent") === "delete") {
    const parsed = deleteSchema.safeParse({ intent: form.get("intent"), id: form.get("id"), confirmed: form.get("confirmed") ?? undefined });
    if (!parsed.success) return back === null ? data({ deleted: false as const, code: 400 }, { headers }) : redirectWithToast(list, { type: "error", message: t("error.400") }, { headers });
    if (back !== null && parsed.data.confirmed !== "1") {
      const ask = new URLSearchParams(back.slice(1));
      ask.set("remove", String(parsed.data.id));
      return redirect(`/admin/groups?${ask.toString()}`, { headers });
    }
    const reply = await admin.call(`/api/admin/groups/${parsed.data.id}`, { method: "DELETE" });
    if (back !== null)
      return redirectWithToast(list, reply.result ? { type: "success", message: t("admin.groups.deleted") } : { type: "error", message: t(`error.${reply.code}`) }, { headers });
    return data(reply.result ? { deleted: true as const, code: 0 } : { deleted: false as const, code: reply.code }, { headers });
  }
  const answer = await save(admin, form);
  if (back !== null && "saved" in answer) return redirectWithToast(list, { type: "success", message: t("admin.groups.saved") }, { headers });
  return data(answer, { headers });
}

const hrefOf = (search: string, page: number, size: number, sort: GroupsSort) => `/admin/groups${listQuery(search, page, size, sort)}`;

/** Delete as a POST form: without JavaScript it comes back to the page's confirmation; with it, the dialog asks. */
function DeleteButton({ group, back, onAsk }: { group: AdminGroup; back: string; onAsk: (group: AdminGroup) => void }) {
  const { t } = useTranslation();
  const ask = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onAsk(group);
  };
  return (
    <Form method="post" action="/admin/groups" onSubmit={ask} className="inline-flex" preventScrollReset>
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="id" value={group.id} />
      <input type="hidden" name="back" value={back} />
      <Button type="submit" size="small" variant="text" danger>
        {t("global.delete")}
      </Button>
    </Form>
  );
}

export default function GroupsPage() {
  const { storages, groups, total, page, size, search, sort, picker, users, back, editing: asked, removing } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const toast = useToast();
  const location = useLocation();
  const navigate = useNavigate();
  const hydrated = useHydrated();
  const [editing, setEditing] = useState<{ id: number | null } | null>(asked ? { id: asked.group?.id ?? null } : null);
  const [deleting, setDeleting] = useState<AdminGroup | null>(null);
  const remover = useFetcher<typeof action>();
  const group = editing?.id ? (groups.find((g) => g.id === editing.id) ?? (asked?.group?.id === editing.id ? asked.group : null)) : null;
  /** With JavaScript the links open the dialog in place; without it they load the page's form. */
  const open = (id: number | null) => (event: MouseEvent) => {
    event.preventDefault();
    setEditing({ id });
  };
  const editHref = (id: number | "new") => {
    const q = new URLSearchParams(back.slice(1));
    q.set("edit", String(id));
    return `/admin/groups?${q.toString()}`;
  };

  useEffect(() => {
    const answer = remover.data;
    if (remover.state !== "idle" || !answer || !("deleted" in answer)) return;
    if (answer.deleted) {
      toast.success(t("admin.groups.deleted"));
      setDeleting(null);
    } else toast.error(t(`error.${answer.code}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [remover.data, remover.state]);

  /** A header's next order: the engine sorts, and a new order starts at page 1. */
  const sortedHref = (next: SortState | null) => hrefOf(search, 1, size, listSortOf(next, GROUP_ORDER_BY));
  const unlimited = t("admin.groups.unlimited");
  const columns: Column<AdminGroup>[] = [
    { title: t("admin.groups.name"), dataIndex: "name", type: "ellipsis", sort: true },
    { title: t("admin.groups.home"), dataIndex: "home", type: "ellipsis" },
    { key: "members", title: t("admin.groups.members"), type: "custom", sort: true, render: (g) => <span className="[overflow-wrap:anywhere]">{g.members.map((m) => m.account).join(", ") || "—"}</span> },
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
      // The General settings' group space statistics are off: the engine measured nothing.
      render: (g) => (g.space ? t("admin.groups.usage.value", { used: formatSize(g.space.used), quota: g.quota ? formatSize(g.quota) : t("admin.groups.usage.unlimited") }) : t("admin.settings.statistics.off")),
    },
    { key: "files", title: t("admin.groups.files"), type: "custom", render: (g) => (g.space ? String(g.space.files) : "—") },
    { key: "folders", title: t("admin.groups.folders"), type: "custom", render: (g) => (g.space ? String(g.space.folders) : "—") },
    {
      key: "actions",
      title: t("admin.groups.actions"),
      type: "custom",
      render: (g) => (
        <span className="flex items-center gap-1">
          <Link to={editHref(g.id)} onClick={open(g.id)} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10">
            {t("global.table.edit")}
          </Link>
          <DeleteButton group={g} back={back} onAsk={setDeleting} />
        </span>
      ),
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.groups.title")}</h1>
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action="/admin/groups" role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <SortFields sort={sort} />
          <TextInput type="search" name="q" label={t("admin.groups.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <ButtonLink href={editHref("new")} onClick={open(null)}>
          {t("admin.groups.add")}
        </ButtonLink>
      </div>
      {!hydrated && asked && (
        <GroupPanel
          group={asked.group}
          draft={asked.draft}
          found={picker}
          search={users}
          back={back}
          storages={storages}
          action={editHref(asked.group?.id ?? "new")}
          lastResult={answer && "submission" in answer ? answer.submission : undefined}
        />
      )}
      {removing && (
        <InlineConfirm
          message={t("admin.groups.delete.confirm", { name: removing.name })}
          action="/admin/groups"
          fields={{ intent: "delete", id: removing.id, confirmed: "1", back }}
          cancelHref={`/admin/groups${back}`}
        />
      )}
      <Table
        label={t("admin.groups.table")}
        columns={columns}
        data={groups}
        rowKey="id"
        rowLabel={(g) => g.name}
        sort={sort}
        onSortChange={(next) => navigate(sortedHref(next))}
        sortHref={sortedHref}
      />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s, sort)} />
      <GroupDialog open={hydrated && editing !== null} group={group} storages={storages} onClose={() => setEditing(null)} />
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
