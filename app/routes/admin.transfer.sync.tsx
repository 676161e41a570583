import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useRevalidator, useSubmit } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { loadListPage, readAdminPost, type ListPage } from "~/admin/list-page.server";
import { getT } from "~/i18n/i18next.server";
import { listQuery } from "~/admin/list-sort";
import { SyncHistory } from "~/admin/sync/history";
import { backSchema, deleteSchema, MB, syncFormSchema, taskIntentSchema } from "~/admin/sync/schema";
import { SyncStatusBadge, useFrequencyText } from "~/admin/sync/status";
import { SyncTaskForm, type StorageOption } from "~/admin/sync/task-form";
import { Button, ButtonLink } from "~/components/ui/button";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { readPaginationParams } from "~/components/ui/pagination-model";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { formatSize } from "~/utils/format";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { timeZoneOfCookieHeader, zonedInstant } from "~/utils/time-zone";
import { redirectWithToast } from "~/utils/toast.server";
import { useFormatTime } from "~/utils/use-time-zone";
import { useHydrated } from "~/utils/use-hydrated";
import { SEARCH_MAX } from "../../contract/admin";
import { SYNC_RUNNING, type SyncRun, type SyncTask } from "../../contract/sync";

const PAGE = "/admin/transfer/sync";

/** The storages a task may name (GET /api/admin/storages/choices); the built-in one when the engine answers none. */
async function storageOptions(admin: SignedIn, builtin: string): Promise<StorageOption[]> {
  const reply = await admin.call<Array<{ id: number; name: string }>>("/api/admin/storages/choices");
  if (reply.result && Array.isArray(reply.data) && reply.data.length > 0) return reply.data.map((s) => ({ id: s.id, name: s.name }));
  return [{ id: 1, name: builtin }];
}

/**
 * Sync tasks (admin document, section 2 "Transfer: Sync tasks"): one page of tasks as the URL says
 * (`q`, `page`, `size`); `edit=new|<id>` shows the add / edit form, `history=<id>` (`hpage`) a
 * task's runs, `remove=<id>` the delete confirmation of a page without JavaScript.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size, search, data: tasks } = await loadListPage<SyncTask, never>(admin, params, "/api/admin/sync-tasks", []);
  const back = listQuery(search, page, size, null);
  const find = async (id: number) => tasks.list.find((x) => x.id === id) ?? (await admin.call<SyncTask>(`/api/admin/sync-tasks/${id}`)).data ?? null;
  const idOf = (name: string) => (/^\d{1,12}$/.test(params.get(name) ?? "") ? Number(params.get(name)) : null);
  const edit = params.get("edit");
  const editId = idOf("edit");
  const editing = edit === "new" ? { task: null } : editId !== null ? { task: await find(editId) } : null;
  const historyId = idOf("history");
  let history: { task: SyncTask; runs: ListPage<SyncRun>; page: number; size: number } | null = null;
  if (historyId !== null) {
    const task = await find(historyId);
    const { page: hpage, size: hsize } = readPaginationParams(new URLSearchParams({ page: params.get("hpage") ?? "1", size: params.get("hsize") ?? "10" }));
    const runs = await admin.call<ListPage<SyncRun>>(`/api/admin/sync-tasks/${historyId}/runs?pageNum=${hpage}&pageSize=${hsize}`);
    if (task && runs.result && runs.data) history = { task, runs: runs.data, page: hpage, size: hsize };
  }
  const removeId = idOf("remove");
  const removing = removeId !== null ? await find(removeId) : null;
  const t = await getT(request);
  return data(
    {
      tasks: tasks.list,
      total: tasks.total,
      page,
      size,
      search,
      back,
      storages: await storageOptions(admin, t("admin.sync.storage.builtin")),
      editing: editing && (edit === "new" || editing.task) ? editing : null,
      history,
      removing: removing && { id: removing.id, name: removing.name },
    },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

/** The form as the engine's body (contract/sync.ts createSyncTaskBody). */
function bodyOf(v: ReturnType<typeof syncFormSchema.parse>, timeZone: string) {
  let frequency: Record<string, unknown> = { kind: "manual" };
  if (v.frequencyKind === "interval") frequency = { kind: "interval", every: v.every, unit: v.unit };
  if (v.frequencyKind === "daily") frequency = { kind: "daily", at: v.dailyAt };
  if (v.frequencyKind === "once") {
    const [date, time] = v.onceAt!.split("T") as [string, string];
    const [year, month, day] = date.split("-").map(Number) as [number, number, number];
    const [hour, minute] = time.split(":").map(Number) as [number, number];
    frequency = { kind: "once", at: Math.floor(zonedInstant({ year, month, day, hour, minute, second: 0 }, timeZone) / 1000) };
  }
  return {
    name: v.name,
    source: { storageId: v.sourceStorage, path: v.sourcePath },
    target: { storageId: v.targetStorage, path: v.targetPath },
    frequency,
    updateMode: v.updateMode,
    options: {
      keepMtime: v.keepMtime === "on",
      onlyTopLevel: v.onlyTopLevel === "on",
      deleteTargetWhenSourceDeleted: v.deleteTarget === "on",
      deleteSourceAfterSync: v.deleteSource === "on",
      twoWay: v.twoWay === "on",
    },
    filters: v.filters,
    skipOverSize: v.skipOverSizeMb * MB,
  };
}

/**
 * Save, run now, stop and delete, each a plain POST that answers with a redirect back to the list
 * (`back`) and a toast; a refused save comes back to the form with the engine's message. Delete
 * without `confirmed` goes to the page's confirmation first (the dialog asks when there is JavaScript).
 */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const back = backSchema.parse(form.get("back") ?? "");
  const list = `${PAGE}${back}`;
  const intent = form.get("intent");
  if (intent === "delete") {
    const parsed = deleteSchema.safeParse({ intent, id: form.get("id"), confirmed: form.get("confirmed") ?? undefined });
    if (!parsed.success) return redirectWithToast(list, { type: "error", message: t("error.400") }, { headers });
    if (parsed.data.confirmed !== "1") {
      const ask = new URLSearchParams(back.slice(1));
      ask.set("remove", String(parsed.data.id));
      return redirect(`${PAGE}?${ask.toString()}`, { headers });
    }
    const reply = await admin.call(`/api/admin/sync-tasks/${parsed.data.id}`, { method: "DELETE" });
    return redirectWithToast(list, reply.result ? { type: "success", message: t("admin.sync.deleted") } : { type: "error", message: t(`error.${reply.code}`) }, { headers });
  }
  if (intent === "run" || intent === "stop") {
    const parsed = taskIntentSchema.safeParse({ intent, id: form.get("id") });
    if (!parsed.success) return redirectWithToast(list, { type: "error", message: t("error.400") }, { headers });
    const reply = await admin.call(`/api/admin/sync-tasks/${parsed.data.id}/${intent}`, { method: "POST" });
    const done = intent === "run" ? "admin.sync.started-toast" : "admin.sync.stopping-toast";
    return redirectWithToast(list, reply.result ? { type: "success", message: t(done) } : { type: "error", message: t(`error.${reply.code}`) }, { headers });
  }
  const submission = parseWithZod(form, { schema: syncFormSchema });
  if (submission.status !== "success") return data({ submission: submission.reply() }, { headers });
  const v = submission.value;
  const body = JSON.stringify(bodyOf(v, timeZoneOfCookieHeader(request.headers.get("cookie"))));
  const saved = v.id ? await admin.call<SyncTask>(`/api/admin/sync-tasks/${v.id}`, { method: "PATCH", body }) : await admin.call<SyncTask>("/api/admin/sync-tasks", { method: "POST", body });
  if (!saved.result) return data({ submission: submission.reply({ formErrors: [`error.${saved.code}`] }) }, { headers });
  return redirectWithToast(list, { type: "success", message: t("admin.sync.saved") }, { headers });
}

/** A task's row action as a POST form (run now, stop, delete): works without JavaScript; delete asks first. */
function RowAction({ task, intent, back, label, danger, onAsk }: { task: SyncTask; intent: "run" | "stop" | "delete"; back: string; label: string; danger?: boolean; onAsk?: (task: SyncTask) => void }) {
  const ask = (event: FormEvent<HTMLFormElement>) => {
    if (!onAsk) return;
    event.preventDefault();
    onAsk(task);
  };
  return (
    <Form method="post" action={PAGE} onSubmit={ask} className="inline-flex" preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={task.id} />
      <input type="hidden" name="back" value={back} />
      <Button type="submit" size="small" variant="text" danger={danger}>
        {label}
      </Button>
    </Form>
  );
}

/** While a task runs the page asks the engine again every second and a half: the status and the counts move. */
function useLiveWhile(busy: boolean) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (!busy || state !== "idle") return;
    const timer = setTimeout(revalidate, 1500);
    return () => clearTimeout(timer);
  }, [busy, state, revalidate]);
}

export default function SyncTasksPage() {
  const { tasks, total, page, size, search, back, storages, editing, history, removing } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const location = useLocation();
  const hydrated = useHydrated();
  const submit = useSubmit();
  const formatTime = useFormatTime();
  const frequencyText = useFrequencyText();
  const [deleting, setDeleting] = useState<SyncTask | null>(null);
  const running = (task: SyncTask) => (SYNC_RUNNING as readonly string[]).includes(task.status);
  useLiveWhile(tasks.some(running) || (history !== null && running(history.task)));
  const storageName = (id: number) => storages.find((s) => s.id === id)?.name ?? `#${id}`;
  const hrefWith = (name: string, value: string) => {
    const q = new URLSearchParams(back.slice(1));
    q.set(name, value);
    return `${PAGE}?${q.toString()}`;
  };
  const hrefOf = (s: string, p: number, z: number) => `${PAGE}${listQuery(s, p, z, null)}`;

  const columns: Column<SyncTask>[] = [
    { title: t("admin.sync.name"), dataIndex: "name", type: "ellipsis" },
    { key: "source", title: t("admin.sync.source"), type: "custom", render: (x) => <span className="[overflow-wrap:anywhere]">{`${storageName(x.source.storageId)}: ${x.source.path}`}</span> },
    { key: "target", title: t("admin.sync.target"), type: "custom", render: (x) => <span className="[overflow-wrap:anywhere]">{`${storageName(x.target.storageId)}: ${x.target.path}`}</span> },
    { key: "frequency", title: t("admin.sync.frequency"), type: "custom", render: (x) => frequencyText(x.frequency) },
    {
      key: "status",
      title: t("admin.sync.status"),
      type: "custom",
      render: (x) => (
        <span className="flex flex-col items-start gap-1">
          <SyncStatusBadge status={x.status} />
          {x.progress && <span className="text-xs text-gray-600">{t("admin.sync.counts", { copied: x.progress.filesCopied, deleted: x.progress.filesDeleted, skipped: x.progress.filesSkipped, bytes: formatSize(x.progress.bytes) })}</span>}
        </span>
      ),
    },
    {
      key: "lastRun",
      title: t("admin.sync.last-run"),
      type: "custom",
      render: (x) =>
        x.lastRun && x.lastRun.endedAt !== null ? (
          <span className="flex flex-col text-xs text-gray-700">
            <span>{formatTime(Math.floor(x.lastRun.endedAt / 1000))}</span>
            <span>{t("admin.sync.counts", { copied: x.lastRun.filesCopied, deleted: x.lastRun.filesDeleted, skipped: x.lastRun.filesSkipped, bytes: formatSize(x.lastRun.bytes) })}</span>
          </span>
        ) : (
          t("admin.sync.never")
        ),
    },
    {
      key: "actions",
      title: t("admin.sync.actions"),
      type: "custom",
      render: (x) => (
        <span className="flex flex-wrap items-center gap-1">
          {running(x) ? <RowAction task={x} intent="stop" back={back} label={t("admin.sync.stop")} /> : <RowAction task={x} intent="run" back={back} label={t("admin.sync.run")} />}
          <Link to={hrefWith("edit", String(x.id))} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10" preventScrollReset>
            {t("global.table.edit")}
          </Link>
          <Link to={hrefWith("history", String(x.id))} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10" preventScrollReset>
            {t("admin.sync.history")}
          </Link>
          <RowAction task={x} intent="delete" back={back} label={t("global.delete")} danger onAsk={hydrated ? setDeleting : undefined} />
        </span>
      ),
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.sync.title")}</h1>
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action={PAGE} role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <TextInput type="search" name="q" label={t("admin.sync.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <ButtonLink href={hrefWith("edit", "new")}>{t("admin.sync.add")}</ButtonLink>
      </div>
      {editing && (
        <SyncTaskForm
          key={editing.task?.id ?? "new"}
          task={editing.task}
          storages={storages}
          back={back}
          action={hrefWith("edit", String(editing.task?.id ?? "new"))}
          lastResult={answer && "submission" in answer ? answer.submission : undefined}
        />
      )}
      {removing && (
        <InlineConfirm message={t("admin.sync.delete.confirm", { name: removing.name })} action={PAGE} fields={{ intent: "delete", id: removing.id, confirmed: "1", back }} cancelHref={`${PAGE}${back}`} />
      )}
      <Table label={t("admin.sync.table")} columns={columns} data={tasks} rowKey="id" rowLabel={(x) => x.name} />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s)} />
      {history && <SyncHistory task={history.task} runs={history.runs} page={history.page} size={history.size} closeHref={`${PAGE}${back}`} hrefFor={(p, s) => `${hrefWith("history", String(history.task.id))}&hpage=${p}&hsize=${s}`} />}
      <Modal
        open={deleting !== null}
        danger
        title={t("admin.sync.delete")}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) submit({ intent: "delete", id: String(deleting.id), confirmed: "1", back }, { method: "post", action: PAGE, preventScrollReset: true });
          setDeleting(null);
        }}
      >
        <p>{t("admin.sync.delete.confirm", { name: deleting?.name ?? "" })}</p>
      </Modal>
    </div>
  );
}
