import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, useLoaderData, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { LOG_DAYS_MAX, LOG_DAYS_MIN, OPERATION_KINDS, type LivePreview, type LogSettings, type OperationLogEntry, type OperationLogPage } from "../../contract/logs";
import { engineFilter, logsSearch, readLogFilter } from "~/admin/logs/query";
import { Button, ButtonLink } from "~/components/ui/button";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Pagination } from "~/components/ui/pagination";
import { SelectInput } from "~/components/ui/select-input";
import { Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import { TextInput } from "~/components/ui/text-input";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { redirectWithToast } from "~/utils/toast.server";

type Tab = "operations" | "previews";

/** The Logs screen (admin spec section 2 "Logs"): the operation log (filter, paging, CSV) with its retention, and the preview log with Stop. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const url = new URL(request.url);
  const tab: Tab = url.searchParams.get("tab") === "previews" ? "previews" : "operations";
  const timeZone = timeZoneOfCookieHeader(request.headers.get("Cookie"));
  const filter = readLogFilter(url.searchParams);
  const settings = await admin.call<LogSettings>("/api/admin/settings/logs");
  if (tab === "previews") {
    const previews = await admin.call<{ list: LivePreview[] }>("/api/admin/logs/previews");
    if (!previews.result || !previews.data) throw new Response(previews.message, { status: 502 });
    // Without JavaScript a Stop comes back here first, to be confirmed on the page.
    const confirm = previews.data.list.find((p) => p.id === url.searchParams.get("confirm")) ?? null;
    return data({ tab, filter, timeZone, page: null, previews: previews.data.list, confirm, settings: settings.data ?? null }, { headers: { "Set-Cookie": await admin.commit() } });
  }
  const query = engineFilter(filter, timeZone);
  query.set("pageNum", String(filter.page));
  query.set("pageSize", String(filter.size));
  const page = await admin.call<OperationLogPage>(`/api/admin/logs?${query.toString()}`);
  if (!page.result || !page.data) throw new Response(page.message, { status: 502 });
  return data({ tab, filter, timeZone, page: page.data, previews: [] as LivePreview[], confirm: null, settings: settings.data ?? null }, { headers: { "Set-Cookie": await admin.commit() } });
}

const days = z.coerce.number().int().min(LOG_DAYS_MIN).max(LOG_DAYS_MAX);
const actionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("retention"), operationLogDays: days, transferLogDays: days, back: z.string().max(1024).optional() }),
  z.object({ intent: z.literal("stop"), id: z.string().uuid(), confirmed: z.literal("1").optional() }),
]);

/** Retention (PATCH /api/admin/settings/logs) and Stop (POST /api/admin/logs/previews/:id/stop): redirects back with a toast. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const t = await getT(request);
  const headers = { "Set-Cookie": await admin.commit() };
  const parsed = actionSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const back = String(form.get("back") ?? "");
    return redirectWithToast(`/admin/logs${back.startsWith("?") ? back : ""}`, { type: "error", message: t(form.get("intent") === "retention" ? "admin.logs.retention.range" : "error.400") }, { headers });
  }
  if (parsed.data.intent === "stop") {
    if (parsed.data.confirmed !== "1") return redirect(`/admin/logs?tab=previews&confirm=${parsed.data.id}`, { headers });
    const reply = await admin.call(`/api/admin/logs/previews/${parsed.data.id}/stop`, { method: "POST" });
    if (!reply.result) return redirectWithToast("/admin/logs?tab=previews", { type: "error", message: reply.message || `error.${reply.code}` }, { headers });
    return redirectWithToast("/admin/logs?tab=previews", { type: "success", message: t("admin.logs.previews.stopped") }, { headers });
  }
  const { operationLogDays, transferLogDays, back } = parsed.data;
  const to = `/admin/logs${back?.startsWith("?") ? back : ""}`;
  const reply = await admin.call("/api/admin/settings/logs", { method: "PATCH", body: JSON.stringify({ operationLogDays, transferLogDays }) });
  if (!reply.result) return redirectWithToast(to, { type: "error", message: reply.message || `error.${reply.code}` }, { headers });
  return redirectWithToast(to, { type: "success", message: t("admin.logs.retention.saved") }, { headers });
}

function when(ms: number, lang: string, timeZone: string) {
  return new Intl.DateTimeFormat(lang === "zh" ? "zh-CN" : "en-GB", { timeZone, dateStyle: "short", timeStyle: "medium" }).format(ms);
}

function FilterForm({ filter }: { filter: ReturnType<typeof readLogFilter> }) {
  const { t } = useTranslation();
  const kinds = [{ value: "", label: t("global.all") }, ...OPERATION_KINDS.map((k) => ({ value: k, label: t(`admin.logs.kind.${k}`) }))];
  return (
    <Form method="get" action="/admin/logs" role="search" aria-label={t("admin.logs.filter")} className="flex flex-wrap items-end gap-3">
      <input type="hidden" name="size" value={filter.size} />
      <TextInput name="user" label={t("admin.logs.filter.user")} placeholder={t("admin.logs.filter.user.placeholder")} defaultValue={filter.user} maxLength={64} className="w-40" />
      <SelectInput name="kind" label={t("admin.logs.filter.kind")} options={kinds} defaultValue={filter.kind} className="w-44" />
      <TextInput type="date" name="from" label={t("admin.logs.filter.from")} defaultValue={filter.from} className="w-40" />
      <TextInput type="date" name="to" label={t("admin.logs.filter.to")} defaultValue={filter.to} className="w-40" />
      <TextInput type="search" name="text" label={t("admin.logs.filter.text")} placeholder={t("admin.logs.filter.text.placeholder")} defaultValue={filter.text} maxLength={200} className="w-56" />
      <Button type="submit">{t("global.search")}</Button>
      <ButtonLink href={`/admin/logs${logsSearch({ size: filter.size })}`} variant="outlined">
        {t("global.reset")}
      </ButtonLink>
    </Form>
  );
}

function RetentionForm({ settings, back }: { settings: LogSettings; back: string }) {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/admin/logs" aria-label={t("admin.logs.retention")} className="flex flex-wrap items-end gap-3 rounded border border-gray-200 bg-white p-3">
      <input type="hidden" name="intent" value="retention" />
      <input type="hidden" name="back" value={back} />
      <div className="flex flex-col gap-1">
        <h2 className="text-sm font-semibold">{t("admin.logs.retention")}</h2>
        <p className="text-xs text-gray-600">{t("admin.logs.retention.intro")}</p>
      </div>
      <TextInput type="number" name="operationLogDays" label={t("admin.logs.retention.operation")} defaultValue={settings.operationLogDays} min={LOG_DAYS_MIN} max={LOG_DAYS_MAX} step={1} required className="w-40" />
      <TextInput type="number" name="transferLogDays" label={t("admin.logs.retention.transfer")} defaultValue={settings.transferLogDays} min={LOG_DAYS_MIN} max={LOG_DAYS_MAX} step={1} required className="w-40" />
      <Button type="submit" variant="outlined">
        {t("admin.logs.retention.save")}
      </Button>
    </Form>
  );
}

function OperationsPanel() {
  const { filter, timeZone, page, settings } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  if (!page) return null;
  const back = logsSearch(filter);
  const exportQuery = logsSearch({ ...filter, page: 1, size: undefined });
  const columns: Column<OperationLogEntry>[] = [
    { type: "time", key: "at", title: t("admin.logs.column.time"), render: (e) => <time dateTime={new Date(e.at).toISOString()}>{when(e.at, i18n.language, timeZone)}</time> },
    { type: "custom", key: "account", title: t("admin.logs.column.account"), width: 140, nowrap: true, render: (e) => e.account || t("admin.logs.visitor") },
    { type: "custom", key: "role", title: t("admin.logs.column.role"), width: 110, render: (e) => t(`admin.logs.role.${e.role}`) },
    { type: "ellipsis", dataIndex: "address", title: t("admin.logs.column.address"), width: 130 },
    { type: "custom", key: "kind", title: t("admin.logs.column.kind"), width: 150, render: (e) => ((OPERATION_KINDS as readonly string[]).includes(e.kind) ? t(`admin.logs.kind.${e.kind}`) : e.kind) },
    { type: "ellipsis", dataIndex: "target", title: t("admin.logs.column.target") },
    { type: "ellipsis", dataIndex: "detail", title: t("admin.logs.column.detail") },
    {
      type: "custom",
      key: "result",
      title: t("admin.logs.column.result"),
      width: 130,
      render: (e) => (e.result === "ok" ? <span className="text-green-700">{t("admin.logs.result.ok")}</span> : <span className="text-red-700">{t("admin.logs.result.failed", { code: e.code })}</span>),
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <FilterForm filter={filter} />
      <div className="flex justify-end">
        <ButtonLink href={`/admin/logs-export${exportQuery}`} variant="outlined" download>
          {t("admin.logs.export")}
        </ButtonLink>
      </div>
      {page.list.length === 0 && <p className="text-sm text-gray-600">{t("admin.logs.empty")}</p>}
      <Table columns={columns} data={page.list} rowKey="id" label={t("admin.logs.table")} rowLabel={(e) => `${e.account} ${e.kind} ${e.target}`} />
      <Pagination
        total={page.total}
        page={filter.page}
        pageSize={filter.size}
        hrefFor={(p, s) => `/admin/logs${logsSearch({ ...filter, page: p, size: s })}`}
        onChange={(p, s) => navigate(`/admin/logs${logsSearch({ ...filter, page: p, size: s })}`)}
      />
      {settings && <RetentionForm settings={settings} back={back} />}
    </div>
  );
}

function PreviewsPanel() {
  const { previews, timeZone, confirm } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation();
  const columns: Column<LivePreview>[] = [
    { type: "time", key: "startedAt", title: t("admin.logs.previews.column.started"), render: (p) => <time dateTime={new Date(p.startedAt).toISOString()}>{when(p.startedAt, i18n.language, timeZone)}</time> },
    { type: "custom", key: "account", title: t("admin.logs.column.account"), width: 160, nowrap: true, render: (p) => p.account },
    { type: "ellipsis", dataIndex: "address", title: t("admin.logs.column.address"), width: 140 },
    { type: "custom", key: "path", title: t("admin.logs.previews.column.file"), render: (p) => <span className="break-all">{p.groupId > 0 ? `${t("admin.logs.previews.group", { id: p.groupId })}: ` : ""}{p.path}</span> },
    { type: "custom", key: "state", title: t("admin.logs.previews.column.state"), width: 120, render: (p) => (p.streaming > 0 ? t("admin.logs.previews.streaming") : t("admin.logs.previews.idle")) },
    {
      type: "custom",
      key: "actions",
      title: t("admin.logs.previews.column.actions"),
      width: 110,
      render: (p) => (
        <ConfirmedAction
          action="/admin/logs"
          fields={{ intent: "stop", id: p.id }}
          label={t("admin.logs.previews.stop")}
          aria-label={t("admin.logs.previews.stop.label", { account: p.account, file: p.path })}
          title={t("global.tips")}
          message={t("admin.logs.previews.stop.confirm", { account: p.account, file: p.path })}
          confirmLabel={t("admin.logs.previews.stop")}
          size="small"
          variant="text"
          danger
        />
      ),
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-4">
        <p className="text-sm text-gray-600">{t("admin.logs.previews.intro")}</p>
        <ButtonLink href="/admin/logs?tab=previews" variant="outlined">
          {t("admin.logs.previews.refresh")}
        </ButtonLink>
      </div>
      {confirm && (
        <InlineConfirm
          message={t("admin.logs.previews.stop.confirm", { account: confirm.account, file: confirm.path })}
          action="/admin/logs"
          fields={{ intent: "stop", id: confirm.id, confirmed: "1" }}
          cancelHref="/admin/logs?tab=previews"
          confirmLabel={t("admin.logs.previews.stop")}
        />
      )}
      {previews.length === 0 && <p className="text-sm text-gray-600">{t("admin.logs.previews.empty")}</p>}
      <Table columns={columns} data={previews} rowKey="id" label={t("admin.logs.previews.table")} rowLabel={(p) => `${p.account} ${p.path}`} />
    </div>
  );
}

export default function LogsPage() {
  const { tab } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold">{t("admin.logs.title")}</h1>
      <Tabs
        label={t("admin.logs.tabs")}
        items={[
          { key: "operations", label: t("admin.logs.tab.operations") },
          { key: "previews", label: t("admin.logs.tab.previews") },
        ]}
        selected={tab}
        hrefFor={(key) => (key === "previews" ? "/admin/logs?tab=previews" : "/admin/logs")}
      >
        {tab === "previews" ? <PreviewsPanel /> : <OperationsPanel />}
      </Tabs>
    </section>
  );
}
