import { parseWithZod } from "@conform-to/zod/v4";
import { readAdminPost } from "~/admin/list-page.server";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useId, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { STATISTICS_ORDER_BY, StatisticsReport, StatisticsSettings } from "../../contract/statistics";
import { DailyCharts } from "~/admin/statistics/charts";
import { dateIn, RANGE_PRESETS, readRange, type RangeChoice } from "~/admin/statistics/range";
import { periodFormSchema } from "~/admin/statistics/schema";
import { Bytes, sumColumns, SumsTable, type SumsList } from "~/admin/statistics/sums-table";
import { Panel } from "~/admin/dashboard/panels";
import { Button, ButtonLink } from "~/components/ui/button";
import { Empty } from "~/components/ui/empty";
import { NumberInput } from "~/components/ui/number-input";
import { PAGE_SIZES } from "~/components/ui/pagination-model";
import { SelectInput } from "~/components/ui/select-input";
import { Table, type Column, type SortState } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { redirectWithToast } from "~/utils/toast.server";
import type { StatisticsRow } from "../../contract/statistics";

type OrderBy = (typeof STATISTICS_ORDER_BY)[number];
const SORTABLE = ["name", "uploadBytes", "uploads", "downloadBytes", "downloads", "totalBytes"] as const;
const DEFAULT_SORT: SortState = { key: "totalBytes", order: "descending" };

/** One list's part of the address (`uq`, `upage`, `usize`, `uorderBy`, `uorder`; `g…` for group spaces). */
function readList(params: URLSearchParams, prefix: "u" | "g") {
  const page = Math.max(1, Math.min(1_000_000, Number.parseInt(params.get(`${prefix}page`) ?? "1", 10) || 1));
  const asked = Number.parseInt(params.get(`${prefix}size`) ?? "", 10);
  const size = (PAGE_SIZES as readonly number[]).includes(asked) ? asked : 10;
  const search = (params.get(`${prefix}q`) ?? "").slice(0, 64);
  const key = params.get(`${prefix}orderBy`) ?? "";
  const sort: SortState = (SORTABLE as readonly string[]).includes(key) ? { key, order: params.get(`${prefix}order`) === "asc" ? "ascending" : "descending" } : DEFAULT_SORT;
  return { page, size, search, sort };
}

async function fetchReport(admin: SignedIn, query: URLSearchParams): Promise<StatisticsReport> {
  const reply = await admin.call<StatisticsReport>(`/api/admin/statistics?${query.toString()}`);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  return reply.data;
}

/**
 * Statistics (admin document, section 2 "Users: Statistics"): the range the address asks for (by
 * default the statistics period), its per-day sums for the charts and the Per day table, and one
 * page each of the per-user and per-group sums, all summed by the engine.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const timeZone = timeZoneOfCookieHeader(request.headers.get("Cookie"));
  const range = readRange(params, timeZone, Date.now());
  const base = new URLSearchParams({ tz: timeZone });
  if (range.from !== null && range.to !== null) {
    base.set("from", String(range.from));
    base.set("to", String(range.to));
  }
  const days = await fetchReport(admin, new URLSearchParams({ ...Object.fromEntries(base), groupBy: "day" }));
  // The lists sum exactly the range the days did ("now" moves between calls otherwise).
  const fixed = { tz: timeZone, from: String(days.from), to: String(days.to) };
  const lists = await Promise.all(
    (["u", "g"] as const).map(async (prefix) => {
      const list = readList(params, prefix);
      const query = new URLSearchParams({
        ...fixed,
        groupBy: prefix === "u" ? "user" : "group",
        pageNum: String(list.page),
        pageSize: String(list.size),
        orderBy: list.sort.key as OrderBy,
        order: list.sort.order === "ascending" ? "asc" : "desc",
      });
      if (list.search) query.set("search", list.search);
      const report = await fetchReport(admin, query);
      return { list: report.list, total: report.total, page: list.page, size: list.size, search: list.search, sort: list.sort } satisfies SumsList;
    }),
  );
  const settings = await admin.call<StatisticsSettings>("/api/admin/settings/statistics");
  return data(
    { range, days, users: lists[0]!, groups: lists[1]!, timeZone, periodHours: settings.data?.periodHours ?? days.periodHours, query: params.toString() },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

/** Saves the statistics period, back to the page as it was, with a toast. */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const submission = parseWithZod(form, { schema: periodFormSchema });
  if (submission.status !== "success") return data({ submission: submission.reply() }, { headers });
  const saved = await admin.call<StatisticsSettings>("/api/admin/settings/statistics", { method: "PATCH", body: JSON.stringify({ periodHours: submission.value.periodHours }) });
  if (!saved.result) return data({ submission: submission.reply({ formErrors: [`error.${saved.code}`] }) }, { headers });
  return redirectWithToast(`/admin/statistics${submission.value.back}`, { type: "success", message: t("admin.statistics.period.saved") }, { headers });
}

/** The range picker: a GET form (presets, the period, or two dates of the reader's zone). */
function RangeForm({ range, periodHours, shown, timeZone }: { range: RangeChoice; periodHours: number; shown: { from: number; to: number }; timeZone: string }) {
  const { t } = useTranslation();
  const select = useRef<HTMLSelectElement>(null);
  const label = (preset: (typeof RANGE_PRESETS)[number]) => (preset === "period" ? t("admin.statistics.range.period", { count: periodHours }) : t(`admin.statistics.range.${preset}`));
  // Typing a date means a custom range.
  const custom = () => {
    if (select.current) select.current.value = "custom";
  };
  return (
    <Form method="get" action="/admin/statistics" aria-label={t("admin.statistics.range")} className="flex flex-wrap items-end gap-3">
      <SelectInput ref={select} name="range" label={t("admin.statistics.range.label")} defaultValue={range.preset} options={RANGE_PRESETS.map((p) => ({ value: p, label: label(p) }))} key={`r${range.preset}`} />
      <TextInput type="date" name="from" label={t("admin.statistics.range.from")} defaultValue={range.fromDate || dateIn(shown.from, timeZone)} onInput={custom} key={`f${shown.from}`} />
      <TextInput type="date" name="to" label={t("admin.statistics.range.to")} defaultValue={range.toDate || dateIn(shown.to - 1, timeZone)} onInput={custom} key={`t${shown.to}`} />
      <Button type="submit">{t("admin.statistics.range.show")}</Button>
    </Form>
  );
}

function PeriodForm({ periodHours, back }: { periodHours: number; back: string }) {
  const { t } = useTranslation();
  const answer = useActionData<typeof action>();
  const errors = answer?.submission?.error;
  const error = errors?.periodHours?.[0] ?? errors?.[""]?.[0];
  return (
    <Panel title={t("admin.statistics.period")}>
      <Form method="post" action="/admin/statistics" className="flex items-start gap-3">
        <input type="hidden" name="intent" value="period" />
        <input type="hidden" name="back" value={back} />
        <NumberInput name="periodHours" label={t("admin.statistics.period.hours")} description={t("admin.statistics.period.hint")} defaultValue={String(periodHours)} error={error} className="w-96" key={periodHours} />
        <Button type="submit" className="mt-6">
          {t("admin.statistics.period.save")}
        </Button>
      </Form>
    </Panel>
  );
}

export default function StatisticsPage() {
  const { range, days, users, groups, timeZone, periodHours, query } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const totalsId = useId();
  const dayTableId = useId();
  const current = new URLSearchParams(query);
  const back = query ? `?${query}` : "";
  const format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const shownFrom = format.format(days.from).replace(",", "");
  const shownTo = format.format(days.to).replace(",", "");

  /** The address with one list's part changed (`u…` or `g…`); the other list and the range stay. */
  const hrefFor = (prefix: "u" | "g", list: SumsList) => (change: { q?: string; page?: number; size?: number; sort?: SortState | null }) => {
    const next = new URLSearchParams(current);
    const sort = change.sort === undefined ? list.sort : (change.sort ?? DEFAULT_SORT);
    next.set(`${prefix}orderBy`, sort.key);
    next.set(`${prefix}order`, sort.order === "ascending" ? "asc" : "desc");
    next.set(`${prefix}page`, String(change.page ?? list.page));
    next.set(`${prefix}size`, String(change.size ?? list.size));
    return `/admin/statistics?${next.toString()}`;
  };
  /** What a list's search form keeps: the address without the list's own search and page. */
  const hiddenFor = (prefix: "u" | "g") => {
    const kept = new URLSearchParams(current);
    kept.delete(`${prefix}q`);
    kept.delete(`${prefix}page`);
    return Object.fromEntries(kept);
  };
  const exportHref = (groupBy: "user" | "group" | "day", list?: SumsList) => {
    const q = new URLSearchParams({ groupBy, tz: timeZone, from: String(days.from), to: String(days.to) });
    if (list?.search) q.set("search", list.search);
    if (list) {
      q.set("orderBy", list.sort.key);
      q.set("order", list.sort.order === "ascending" ? "asc" : "desc");
    }
    return `/admin/statistics-export?${q.toString()}`;
  };

  const { totals } = days;
  const empty = totals.uploads + totals.downloads === 0;
  const dayColumns: Column<StatisticsRow>[] = [{ key: "day", title: t("admin.statistics.day"), type: "custom", render: (r) => <time dateTime={r.key}>{r.key}</time> }, ...sumColumns(t, false)];

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{t("admin.statistics.title")}</h1>
        <p className="text-sm text-gray-600">{t("admin.statistics.intro", { zone: timeZone })}</p>
      </div>
      <RangeForm range={range} periodHours={periodHours} shown={days} timeZone={timeZone} />
      {range.invalid && (
        <p role="alert" className="text-sm text-red-600">
          {t("admin.statistics.range.invalid")}
        </p>
      )}
      <p className="text-sm text-gray-700">{t("admin.statistics.range.shown", { from: shownFrom, to: shownTo })}</p>

      <section aria-labelledby={totalsId} className="rounded-lg border border-gray-200 p-4">
        <h2 id={totalsId} className="mb-3 text-base font-semibold">
          {t("admin.statistics.totals")}
        </h2>
        <dl className="grid grid-cols-5 gap-3">
          {[
            [t("admin.statistics.uploaded"), <Bytes key="u" bytes={totals.uploadBytes} />],
            [t("admin.statistics.uploads"), String(totals.uploads)],
            [t("admin.statistics.downloaded"), <Bytes key="d" bytes={totals.downloadBytes} />],
            [t("admin.statistics.downloads"), String(totals.downloads)],
            [t("admin.statistics.failed"), String(totals.failed)],
          ].map(([label, value], index) => (
            <div key={index} className="flex flex-col gap-1 rounded bg-gray-50 p-3">
              <dt className="text-sm text-gray-600">{label}</dt>
              <dd className="text-lg font-semibold text-gray-900">{value}</dd>
            </div>
          ))}
        </dl>
      </section>

      {empty ? <Empty description={t("admin.statistics.empty")} /> : <DailyCharts days={days.list} totals={totals} />}

      <SumsTable by="user" data={users} hrefFor={hrefFor("u", users)} hidden={hiddenFor("u")} exportHref={exportHref("user", users)} />
      <SumsTable by="group" data={groups} hrefFor={hrefFor("g", groups)} hidden={hiddenFor("g")} exportHref={exportHref("group", groups)} />

      <section aria-labelledby={dayTableId} className="flex flex-col gap-3">
        <div className="flex items-end justify-between gap-4">
          <h2 id={dayTableId} className="text-base font-semibold text-gray-900">
            {t("admin.statistics.by-day")}
          </h2>
          <ButtonLink href={exportHref("day")} variant="outlined" download>
            {t("admin.statistics.export.day")}
          </ButtonLink>
        </div>
        <Table label={t("admin.statistics.by-day")} columns={dayColumns} data={days.list} rowKey="key" rowLabel={(r) => r.key} />
      </section>

      <PeriodForm periodHours={periodHours} back={back} />
    </div>
  );
}
