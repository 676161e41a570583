import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import { EventDialog, EventPanel, EVENTS_PATH } from "~/admin/events/event-dialog";
import { RunDetails, useRunResult, useTriggerName } from "~/admin/events/run-view";
import { backSchema, deleteSchema, eventFormSchema, statusSchema, testSchema } from "~/admin/events/schema";
import { type ListPage, loadListPage, readAdminPost } from "~/admin/list-page.server";
import { listQuery } from "~/admin/list-sort";
import { Button, ButtonLink } from "~/components/ui/button";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Modal } from "~/components/ui/modal";
import { Callout } from "~/components/ui/callout";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { useHydrated } from "~/utils/use-hydrated";
import { SEARCH_MAX } from "../../contract/admin";
import type { AdminEvent, EventRun } from "../../contract/events";

const RUNS_PAGE_SIZE = 10;
const idOf = (text: string | null) => (text && /^\d{1,12}$/.test(text) ? Number(text) : null);

/**
 * Events (admin document section 3 "Event", docs/events.md): one page of events as the URL says
 * (`q`, `page`, `size`), and, with `runs=<id>` (`rpage`), that event's run log. Without JavaScript
 * the dialogs are parts of the page: `edit=new|<id>` the form, `remove=<id>` the delete confirmation.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size, search, data: events } = await loadListPage<AdminEvent, never>(admin, params, "/api/admin/events", []);
  const info = await admin.call<{ binDir: string | null }>("/api/admin/events/info");
  const binDir = info.data?.binDir ?? null;
  const runsId = idOf(params.get("runs"));
  let runs: (ListPage<EventRun> & { event: { id: number; name: string } }) | null = null;
  if (runsId !== null) {
    const event = await findEvent(admin, events.list, runsId);
    const rpage = Math.max(1, Math.min(100_000, idOf(params.get("rpage")) ?? 1));
    const reply = event ? await admin.call<ListPage<EventRun>>(`/api/admin/events/${runsId}/runs?pageNum=${rpage}&pageSize=${RUNS_PAGE_SIZE}`) : null;
    if (event && reply?.result && reply.data) runs = { ...reply.data, event: { id: event.id, name: event.name } };
  }
  const listed = listQuery(search, page, size, null);
  const back = backSchema.parse(params.get("back") ?? (runs ? `${listed}&runs=${runs.event.id}` : listed));
  const edit = params.get("edit");
  let editing: { event: AdminEvent | null } | null = null;
  if (edit === "new") editing = { event: null };
  else if (idOf(edit) !== null) {
    const event = await findEvent(admin, events.list, idOf(edit)!);
    if (event) editing = { event };
  }
  const removeId = idOf(params.get("remove"));
  const removing = removeId !== null ? await findEvent(admin, events.list, removeId) : null;
  return data(
    { events: events.list, total: events.total, page, size, search, binDir, runs, back, editing, removing: removing && { id: removing.id, name: removing.name } },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

async function findEvent(admin: SignedIn, list: AdminEvent[], id: number): Promise<AdminEvent | null> {
  const listed = list.find((e) => e.id === id);
  if (listed) return listed;
  const reply = await admin.call<AdminEvent>(`/api/admin/events/${id}`);
  return reply.result && reply.data ? reply.data : null;
}

async function save(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: eventFormSchema });
  if (submission.status !== "success") return { submission: submission.reply() };
  const { intent: _intent, id, ...body } = submission.value;
  const saved = id
    ? await admin.call<AdminEvent>(`/api/admin/events/${id}`, { method: "PATCH", body: JSON.stringify(body) })
    : await admin.call<AdminEvent>("/api/admin/events", { method: "POST", body: JSON.stringify(body) });
  if (!saved.result || !saved.data) return { submission: submission.reply({ formErrors: [`error.${saved.code}`] }) };
  return { saved: true as const };
}

/**
 * Save, delete, activate / deactivate and test. The dialogs (fetchers) get data back; the page
 * without JavaScript posts `back` (the list's query) and gets a redirect there with a toast, a
 * Delete first one to its confirmation; a test answers the page with the run.
 */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const back = form.has("back") ? backSchema.parse(form.get("back")) : null;
  const list = `${EVENTS_PATH}${back ?? ""}`;
  const intent = form.get("intent");
  const refused = (code: number) => (back === null ? data({ intent, ok: false as const, code }, { headers }) : redirectWithToast(list, { type: "error", message: t(`error.${code}`) }, { headers }));
  if (intent === "delete") {
    const parsed = deleteSchema.safeParse({ intent, id: form.get("id"), confirmed: form.get("confirmed") ?? undefined });
    if (!parsed.success) return refused(400);
    if (back !== null && parsed.data.confirmed !== "1") {
      const ask = new URLSearchParams(back.slice(1));
      ask.set("remove", String(parsed.data.id));
      return redirect(`${EVENTS_PATH}?${ask.toString()}`, { headers });
    }
    const reply = await admin.call(`/api/admin/events/${parsed.data.id}`, { method: "DELETE" });
    if (!reply.result) return refused(reply.code);
    return back === null ? data({ intent, ok: true as const, code: 0 }, { headers }) : redirectWithToast(list, { type: "success", message: t("admin.events.deleted") }, { headers });
  }
  if (intent === "status") {
    const parsed = statusSchema.safeParse({ intent, id: form.get("id"), status: form.get("status") });
    if (!parsed.success) return refused(400);
    const reply = await admin.call(`/api/admin/events/${parsed.data.id}/status`, { method: "PUT", body: JSON.stringify({ status: parsed.data.status }) });
    if (!reply.result) return refused(reply.code);
    const message = t(parsed.data.status === "activated" ? "admin.events.activated" : "admin.events.deactivated");
    return back === null ? data({ intent, ok: true as const, code: 0, message }, { headers }) : redirectWithToast(list, { type: "success", message }, { headers });
  }
  if (intent === "test") {
    const parsed = testSchema.safeParse({ intent, id: form.get("id") });
    if (!parsed.success) return data({ intent, ok: false as const, code: 400, run: null, eventId: 0 }, { headers });
    const reply = await admin.call<EventRun>(`/api/admin/events/${parsed.data.id}/test`, { method: "POST" });
    // A failed test (4144) carries its run too: exit code and output are what the administrator needs.
    return data({ intent, ok: reply.result, code: reply.code, run: reply.data ?? null, eventId: parsed.data.id }, { headers });
  }
  const answer = await save(admin, form);
  if (back !== null && "saved" in answer) return redirectWithToast(list, { type: "success", message: t("admin.events.saved") }, { headers });
  return data(answer, { headers });
}

type TestAnswer = { intent: "test"; ok: boolean; code: number; run: EventRun | null; eventId: number };
const isTest = (a: unknown): a is TestAnswer => !!a && typeof a === "object" && (a as { intent?: unknown }).intent === "test";

/** A row's POST button (activate / deactivate, test, delete): a plain form without JavaScript, a fetcher with it. */
function RowAction({ fields, back, label, name, danger, onSubmit }: { fields: Record<string, string>; back: string; label: string; name: string; danger?: boolean; onSubmit?: (event: FormEvent<HTMLFormElement>) => void }) {
  return (
    <Form method="post" action={EVENTS_PATH} onSubmit={onSubmit} className="inline-flex" preventScrollReset>
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <input type="hidden" name="back" value={back} />
      <Button type="submit" size="small" variant="text" danger={danger} aria-label={name}>
        {label}
      </Button>
    </Form>
  );
}

function RunLog({ runs, back }: { runs: NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["runs"]>; back: string }) {
  const { t, i18n } = useTranslation();
  const result = useRunResult();
  const trigger = useTriggerName();
  const base = new URLSearchParams(back.slice(1));
  base.delete("rpage");
  const closeQuery = new URLSearchParams(base);
  closeQuery.delete("runs");
  const columns: Column<EventRun>[] = [
    { type: "expand" },
    { key: "at", title: t("admin.events.run.at"), type: "time", render: (r) => new Date(r.at).toLocaleString(i18n.language) },
    { key: "trigger", title: t("admin.events.run.trigger"), type: "custom", render: (r) => trigger(r.trigger) },
    { key: "path", title: t("admin.events.run.path"), type: "custom", render: (r) => <span className="font-mono text-xs [overflow-wrap:anywhere]">{r.path}</span> },
    { key: "user", title: t("admin.events.run.user"), dataIndex: "user", type: "ellipsis", minScreen: "md" },
    { key: "result", title: t("admin.events.run.result"), type: "custom", render: (r) => (r.error && r.exitCode === null ? `${result(r)} — ${r.error}` : result(r)) },
    { key: "duration", title: t("admin.events.run.duration"), type: "custom", minScreen: "sm", render: (r) => t("admin.events.run.duration.value", { ms: r.durationMs }) },
  ];
  return (
    <section aria-labelledby="event-runs-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <div className="flex items-center justify-between gap-4">
        <h2 id="event-runs-title" className="text-base font-semibold text-gray-900">
          {t("admin.events.runs.title", { name: runs.event.name })}
        </h2>
        <ButtonLink href={`${EVENTS_PATH}?${closeQuery.toString()}`} variant="outlined" size="small">
          {t("admin.events.runs.close")}
        </ButtonLink>
      </div>
      {runs.total === 0 ? (
        <p className="text-sm text-gray-600">{t("admin.events.runs.none")}</p>
      ) : (
        <>
          <Table label={t("admin.events.runs.table", { name: runs.event.name })} columns={columns} data={runs.list} rowKey="id" rowLabel={(r) => `${trigger(r.trigger)} ${r.path}`} expandedRender={(r) => <RunDetails run={r} />} />
          <Pagination
            label={t("admin.events.runs")}
            total={runs.total}
            page={runs.current}
            pageSize={RUNS_PAGE_SIZE}
            hrefFor={(p) => {
              const q = new URLSearchParams(base);
              q.set("rpage", String(p));
              return `${EVENTS_PATH}?${q.toString()}`;
            }}
          />
        </>
      )}
    </section>
  );
}

export default function EventsPage() {
  const { events, total, page, size, search, binDir, runs, back, editing: asked, removing } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const toast = useToast();
  const location = useLocation();
  const hydrated = useHydrated();
  const [editing, setEditing] = useState<{ id: number | null } | null>(asked ? { id: asked.event?.id ?? null } : null);
  const [deleting, setDeleting] = useState<AdminEvent | null>(null);
  const [testing, setTesting] = useState<AdminEvent | null>(null);
  const actor = useFetcher<typeof action>();
  const tester = useFetcher<typeof action>();
  const event = editing?.id ? (events.find((e) => e.id === editing.id) ?? (asked?.event?.id === editing.id ? asked.event : null)) : null;
  const open = (id: number | null) => (e: MouseEvent) => {
    e.preventDefault();
    setEditing({ id });
  };
  const withParam = (name: string, value: string | number) => {
    const q = new URLSearchParams(back.slice(1));
    q.set(name, String(value));
    return `${EVENTS_PATH}?${q.toString()}`;
  };

  useEffect(() => {
    const a = actor.data;
    if (actor.state !== "idle" || !a || !("intent" in a)) return;
    if (a.ok) {
      if (a.intent === "delete") {
        toast.success(t("admin.events.deleted"));
        setDeleting(null);
      } else if ("message" in a && typeof a.message === "string") toast.success(a.message);
    } else toast.error(t(`error.${a.code}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [actor.data, actor.state]);

  /** With JavaScript a row's button posts through a fetcher (no page load); without it, the form itself. */
  const viaFetcher = (fields: Record<string, string>, fetcher = actor) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    fetcher.submit(fields, { method: "post", action: EVENTS_PATH });
  };
  const testAnswer = tester.state === "idle" && isTest(tester.data) ? tester.data : null;
  const pageTest = !hydrated || !testAnswer ? (isTest(answer) ? answer : null) : null;

  const columns: Column<AdminEvent>[] = [
    { title: t("admin.events.name"), dataIndex: "name", type: "ellipsis" },
    { key: "type", title: t("admin.events.type"), type: "custom", render: (e) => t(`admin.events.type.${e.type}`) },
    { key: "executable", title: t("admin.events.executable"), type: "custom", minScreen: "md", render: (e) => <span className="font-mono text-xs [overflow-wrap:anywhere]">{e.executable}</span> },
    { key: "status", title: t("admin.events.status"), type: "custom", render: (e) => t(`admin.events.status.${e.status}`) },
    { key: "remark", title: t("admin.events.remark"), dataIndex: "remark", type: "ellipsis", minScreen: "md" },
    {
      key: "actions",
      title: t("admin.events.actions"),
      type: "custom",
      render: (e) => {
        const next = e.status === "activated" ? "inactivated" : "activated";
        const statusFields = { intent: "status", id: String(e.id), status: next };
        return (
          <span className="flex flex-wrap items-center gap-1">
            <Link to={withParam("edit", e.id)} onClick={open(e.id)} aria-label={`${t("global.table.edit")} ${e.name}`} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10">
              {t("global.table.edit")}
            </Link>
            <RowAction
              fields={statusFields}
              back={back}
              label={t(next === "activated" ? "admin.events.activate" : "admin.events.deactivate")}
              name={t(next === "activated" ? "admin.events.activate.named" : "admin.events.deactivate.named", { name: e.name })}
              onSubmit={hydrated ? viaFetcher(statusFields) : undefined}
            />
            <RowAction
              fields={{ intent: "test", id: String(e.id) }}
              back={back}
              label={t("admin.events.test")}
              name={t("admin.events.test.named", { name: e.name })}
              onSubmit={
                hydrated
                  ? (ev) => {
                      setTesting(e);
                      viaFetcher({ intent: "test", id: String(e.id) }, tester)(ev);
                    }
                  : undefined
              }
            />
            <Link to={withParam("runs", e.id)} aria-label={t("admin.events.runs.named", { name: e.name })} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10">
              {t("admin.events.runs")}
            </Link>
            <RowAction
              fields={{ intent: "delete", id: String(e.id) }}
              back={back}
              label={t("global.delete")}
              name={t("admin.events.delete.named", { name: e.name })}
              danger
              onSubmit={
                hydrated
                  ? (ev) => {
                      ev.preventDefault();
                      setDeleting(e);
                    }
                  : undefined
              }
            />
          </span>
        );
      },
    },
  ];

  const hrefOf = (q: string, p: number, s: number) => `${EVENTS_PATH}${listQuery(q, p, s, null)}`;
  const testedName = (id: number) => events.find((e) => e.id === id)?.name ?? testing?.name ?? "";

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.events.title")}</h1>
      <p className="text-sm text-gray-600">{t("admin.events.intro")}</p>
      {binDir ? (
        <p className="text-sm text-gray-600">
          {t("admin.events.dir")}{" "}
          <code className="font-mono text-xs">{binDir}</code>
        </p>
      ) : (
        <Callout tone="warning">{t("admin.events.dir.none")}</Callout>
      )}
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action={EVENTS_PATH} role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <TextInput type="search" name="q" label={t("admin.events.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <ButtonLink href={withParam("edit", "new")} onClick={open(null)}>
          {t("admin.events.add")}
        </ButtonLink>
      </div>
      {!hydrated && asked && (
        <EventPanel event={asked.event} binDir={binDir} back={back} action={withParam("edit", asked.event?.id ?? "new")} lastResult={answer && "submission" in answer ? answer.submission : undefined} />
      )}
      {removing && (
        <InlineConfirm message={t("admin.events.delete.confirm", { name: removing.name })} action={EVENTS_PATH} fields={{ intent: "delete", id: removing.id, confirmed: "1", back }} cancelHref={`${EVENTS_PATH}${back}`} />
      )}
      {pageTest?.run && (
        <section aria-labelledby="event-test-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
          <h2 id="event-test-title" className="text-base font-semibold text-gray-900">
            {t("admin.events.test.title", { name: testedName(pageTest.eventId) })}
          </h2>
          <Callout tone={pageTest.ok ? "success" : "error"}>{t(pageTest.ok ? "admin.events.test.ok" : "admin.events.test.failed")}</Callout>
          <RunDetails run={pageTest.run} />
        </section>
      )}
      <Table label={t("admin.events.table")} columns={columns} data={events} rowKey="id" rowLabel={(e) => e.name} />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s)} />
      {runs && <RunLog runs={runs} back={back} />}
      <EventDialog open={hydrated && editing !== null} event={event} binDir={binDir} onClose={() => setEditing(null)} />
      <Modal
        open={hydrated && testing !== null}
        title={t("admin.events.test.title", { name: testing?.name ?? "" })}
        width={640}
        okOnly
        onClose={() => setTesting(null)}
        onConfirm={() => setTesting(null)}
      >
        {tester.state !== "idle" || !testAnswer ? (
          <p className="text-sm text-gray-600">{t("global.loading")}</p>
        ) : testAnswer.run ? (
          <div className="flex flex-col gap-3">
            <Callout tone={testAnswer.ok ? "success" : "error"}>{t(testAnswer.ok ? "admin.events.test.ok" : "admin.events.test.failed")}</Callout>
            <RunDetails run={testAnswer.run} />
          </div>
        ) : (
          <Callout tone="error">{t(`error.${testAnswer.code}`)}</Callout>
        )}
      </Modal>
      <Modal
        open={deleting !== null}
        danger
        title={t("admin.events.delete")}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) actor.submit({ intent: "delete", id: String(deleting.id) }, { method: "post", action: EVENTS_PATH });
          return false;
        }}
      >
        <p>{t("admin.events.delete.confirm", { name: deleting?.name ?? "" })}</p>
      </Modal>
    </div>
  );
}
