import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { loadListPage, readAdminPost } from "~/admin/list-page.server";
import { listQuery } from "~/admin/list-sort";
import { autoCleanAction } from "~/admin/storage/autoclean.server";
import { bodyOf, SECRET_FIELDS, storageActionSchema, storageFormSchema } from "~/admin/storage/schema";
import { StorageDialog } from "~/admin/storage/storage-dialog";
import { Button } from "~/components/ui/button";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { StatusBadge } from "~/components/ui/status-badge";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { useHydrated } from "~/utils/use-hydrated";
import { requireAdmin } from "~/utils/session.server";
import { SEARCH_MAX } from "../../contract/admin";
import { type AdminStorage, isS3Provider, type StorageTestResult } from "../../contract/storage";

/** Storage (admin document, section 2 "Resource: Storage", section 3 "Storage"): the storages, one page as the URL says (`q`, `page`, `size`). */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size, search, data: storages } = await loadListPage<AdminStorage, never>(admin, params, "/api/admin/storages", []);
  return data({ storages: storages.list, total: storages.total, page, size, search }, { headers: { "Set-Cookie": await admin.commit() } });
}

/** Save or test (the dialog), delete and set default (the list). Without JavaScript, set default and delete post here too. */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const intent = form.get("intent");
  if (intent === "autoclean") return data(await autoCleanAction(admin, form), { headers });
  if (intent === "delete" || intent === "default") {
    const parsed = storageActionSchema.safeParse({ intent, id: form.get("id") });
    if (!parsed.success) return data({ done: false as const, intent, code: 400, name: "" }, { headers });
    const { id } = parsed.data;
    const reply =
      intent === "delete"
        ? await admin.call(`/api/admin/storages/${id}`, { method: "DELETE" })
        : await admin.call<AdminStorage>(`/api/admin/storages/${id}/default`, { method: "PUT" });
    const name = reply.data && typeof reply.data === "object" && "name" in reply.data ? String(reply.data.name) : "";
    return data(reply.result ? { done: true as const, intent, code: 0, name } : { done: false as const, intent, code: reply.code, name }, { headers });
  }
  const submission = parseWithZod(form, { schema: storageFormSchema });
  if (submission.status !== "success") return data({ submission: submission.reply({ hideFields: SECRET_FIELDS }) }, { headers });
  const v = submission.value;
  const builtin = v.id !== undefined && (await admin.call<AdminStorage>(`/api/admin/storages/${v.id}`)).data?.builtin === true;
  const body = bodyOf(v, builtin);
  if (v.intent === "test") {
    const reply = await admin.call<StorageTestResult>("/api/admin/storages/test", { method: "POST", body: JSON.stringify({ ...body, name: undefined, ...(v.id ? { id: v.id } : {}) }) });
    return data({ tested: reply.result && reply.data ? { ok: true as const, ms: reply.data.ms, code: 0 } : { ok: false as const, ms: 0, code: reply.code } }, { headers });
  }
  const saved = v.id
    ? await admin.call<AdminStorage>(`/api/admin/storages/${v.id}`, { method: "PATCH", body: JSON.stringify(body) })
    : await admin.call<AdminStorage>("/api/admin/storages", { method: "POST", body: JSON.stringify(body) });
  if (!saved.result || !saved.data) return data({ submission: submission.reply({ formErrors: [`error.${saved.code}`], hideFields: SECRET_FIELDS }) }, { headers });
  void t;
  return data({ saved: true as const }, { headers });
}

const hrefOf = (search: string, page: number, size: number) => `/admin/storage${listQuery(search, page, size, null)}`;

/** Where a storage's files are, in one line: the folder, the bucket and prefix, or the container. */
function placeOf(s: AdminStorage): string {
  if (s.provider === "local") return s.path;
  if (s.provider === "azure") return [s.container, s.path].filter(Boolean).join("/");
  if (isS3Provider(s.provider)) return `${s.endpoint ? `${s.endpoint} · ` : ""}${[s.bucket, s.path].filter(Boolean).join("/")}`;
  return "";
}

export default function StoragePage() {
  const { storages, total, page, size, search } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const toast = useToast();
  const location = useLocation();
  const hydrated = useHydrated();
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const [deleting, setDeleting] = useState<AdminStorage | null>(null);
  const doer = useFetcher<typeof action>();
  const storage = editing?.id ? (storages.find((s) => s.id === editing.id) ?? null) : null;

  useEffect(() => {
    const answer = doer.data;
    if (doer.state !== "idle" || !answer || !("done" in answer)) return;
    if (answer.done) {
      if (answer.intent === "delete") {
        toast.success(t("admin.storage.deleted"));
        setDeleting(null);
      } else toast.success(t("admin.storage.default.done", { name: answer.name }));
    } else toast.error(t(`error.${answer.code}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [doer.data, doer.state]);

  const columns: Column<AdminStorage>[] = [
    {
      key: "name",
      title: t("admin.storage.name"),
      type: "custom",
      render: (s) => (
        <span className="flex items-center gap-2">
          <span className="[overflow-wrap:anywhere]">{s.name}</span>
          {s.isDefault && <StatusBadge tone="info">{t("admin.storage.default")}</StatusBadge>}
        </span>
      ),
    },
    { key: "provider", title: t("admin.storage.provider"), type: "custom", render: (s) => t(`admin.storage.provider.${s.provider}`) },
    { key: "place", title: t("admin.storage.place"), type: "custom", render: (s) => <span className="[overflow-wrap:anywhere]">{placeOf(s)}</span> },
    { key: "usedBy", title: t("admin.storage.usedBy"), type: "custom", render: (s) => t("admin.storage.usedBy.value", { users: s.users, groups: s.groups }) },
    {
      key: "actions",
      title: t("admin.storage.actions"),
      type: "custom",
      render: (s) => (
        <span className="flex flex-wrap items-center gap-1">
          <Button size="small" variant="text" aria-label={t("admin.storage.edit.named", { name: s.name })} onClick={() => setEditing({ id: s.id })} disabled={!hydrated}>
            {t("global.table.edit")}
          </Button>
          {!s.isDefault && (
            <doer.Form method="post" action="/admin/storage" className="inline-flex">
              <input type="hidden" name="intent" value="default" />
              <input type="hidden" name="id" value={s.id} />
              <Button type="submit" size="small" variant="text" aria-label={t("admin.storage.set-default.named", { name: s.name })}>
                {t("admin.storage.set-default")}
              </Button>
            </doer.Form>
          )}
          {!s.isDefault && (
            <Button size="small" variant="text" danger aria-label={t("admin.storage.delete.named", { name: s.name })} onClick={() => setDeleting(s)} disabled={!hydrated}>
              {t("global.delete")}
            </Button>
          )}
        </span>
      ),
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.storage.title")}</h1>
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action="/admin/storage" role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <TextInput type="search" name="q" label={t("admin.storage.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <Button onClick={() => setEditing({ id: null })} disabled={!hydrated}>
          {t("admin.storage.add")}
        </Button>
      </div>
      <Table label={t("admin.storage.table")} columns={columns} data={storages} rowKey="id" rowLabel={(s) => s.name} />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s)} />
      <StorageDialog key={storage?.id ?? "new"} open={hydrated && editing !== null} storage={storage} onClose={() => setEditing(null)} />
      <Modal
        open={deleting !== null}
        danger
        title={t("admin.storage.delete")}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) doer.submit({ intent: "delete", id: String(deleting.id) }, { method: "post", action: "/admin/storage" });
          return false;
        }}
      >
        <p>{t("admin.storage.delete.confirm", { name: deleting?.name ?? "" })}</p>
      </Modal>
    </div>
  );
}
