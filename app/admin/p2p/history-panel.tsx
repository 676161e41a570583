import { Form, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { P2pHistoryEntry } from "../../../contract/p2p";
import { formatSize } from "../../../contract/sizes";
import { useFormatTime } from "~/admin/dashboard/format";
import type { ListPage } from "~/admin/list-page.server";
import { clockDuration } from "~/admin/tasks/query";
import { Button, ButtonLink } from "~/components/ui/button";
import { Pagination } from "~/components/ui/pagination";
import { SelectInput } from "~/components/ui/select-input";
import { Table, type Column } from "~/components/ui/table";
import { p2pReasonText } from "~/p2p/reason";
import { TextInput } from "~/components/ui/text-input";
import { StatusCell, usePartyColumns } from "./cells";
import { P2P_ENDED_STATUSES, p2pSearch, type P2pQuery } from "./query";

/** The transfers that ended (done, failed, cancelled, declined, expired): search by account or device id, result, creation days; paged. */
export function P2pHistoryPanel({ page, query }: { page: ListPage<P2pHistoryEntry>; query: P2pQuery }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const when = useFormatTime("dateTime");
  const here = (q: Partial<P2pQuery>) => `/admin/transfer/p2p${p2pSearch({ ...query, tab: "history", ...q })}`;
  const filtered = query.text !== "" || query.status !== "" || query.from !== "" || query.to !== "";
  const partyColumns = usePartyColumns<P2pHistoryEntry>();
  // A reason that only repeats the result ("declined", "expired") is left out; the others are translated.
  const columns: Column<P2pHistoryEntry>[] = [
    { type: "time", key: "created", title: t("admin.p2p.column.created"), render: (e) => <time dateTime={new Date(e.createdAt).toISOString()}>{when(e.createdAt)}</time> },
    ...partyColumns,
    {
      type: "custom",
      key: "size",
      title: t("admin.p2p.column.size"),
      width: 120,
      render: (e) => t("admin.p2p.progress.of", { done: formatSize(e.doneBytes), total: formatSize(e.totalBytes) }),
    },
    { type: "custom", key: "result", title: t("admin.p2p.column.result"), width: 170, render: (e) => <StatusCell status={e.status} path={e.path} /> },
    { type: "custom", key: "reason", title: t("admin.p2p.column.reason"), width: 120, render: (e) => <span className="break-words">{e.reason && e.reason !== e.status ? p2pReasonText(t, i18n, e.reason) : t("admin.p2p.none")}</span> },
    { type: "custom", key: "duration", title: t("admin.p2p.column.duration"), width: 80, nowrap: true, render: (e) => clockDuration(e.durationMs / 1000) },
  ];
  return (
    <div className="flex flex-col gap-4">
      <Form method="get" action="/admin/transfer/p2p" role="search" aria-label={t("admin.p2p.history.filter")} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="tab" value="history" />
        <input type="hidden" name="size" value={query.size} />
        <TextInput type="search" name="text" label={t("admin.p2p.search.text")} placeholder={t("admin.p2p.search.text.placeholder")} defaultValue={query.text} maxLength={200} className="w-56" />
        <SelectInput
          name="status"
          label={t("admin.p2p.history.status")}
          defaultValue={query.status}
          options={[{ value: "", label: t("global.all") }, ...P2P_ENDED_STATUSES.map((s) => ({ value: s, label: t(`admin.p2p.status.${s}`) }))]}
          className="w-36"
        />
        <TextInput type="date" name="from" label={t("admin.p2p.history.from")} defaultValue={query.from} className="w-40" />
        <TextInput type="date" name="to" label={t("admin.p2p.history.to")} defaultValue={query.to} className="w-40" />
        <Button type="submit">{t("global.search")}</Button>
        <ButtonLink href={`/admin/transfer/p2p${p2pSearch({ tab: "history", size: query.size })}`} variant="outlined">
          {t("global.reset")}
        </ButtonLink>
      </Form>
      {page.list.length === 0 && <p className="text-sm text-gray-600">{filtered ? t("admin.p2p.history.none") : t("admin.p2p.empty")}</p>}
      <Table columns={columns} data={page.list} rowKey="transferId" label={t("admin.p2p.history.table")} rowLabel={(e) => `${e.sender.account} → ${e.receiver.account}`} />
      <Pagination total={page.total} page={query.page} pageSize={query.size} hrefFor={(p, s) => here({ page: p, size: s })} onChange={(p, s) => navigate(here({ page: p, size: s }))} />
    </div>
  );
}
