import { Form, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { P2pLiveEntry } from "../../../contract/p2p";
import { formatSize } from "../../../contract/sizes";
import { useFormatTime } from "~/admin/dashboard/format";
import { LiveHeading, useLivePoll } from "~/admin/live-poll";
import { Button, ButtonLink } from "~/components/ui/button";
import { Pagination } from "~/components/ui/pagination";
import { Progress } from "~/components/ui/progress";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { StatusCell, usePartyColumns } from "./cells";
import type { P2pLiveData } from "./data.server";
import { liveEngineQuery, p2pSearch, type P2pQuery } from "./query";

/** How often the page asks for the live values while it is shown (ms), as the General tasks screen does. */
export const P2P_LIVE_POLL_MS = 1500;

export function P2pLivePanel({ initial, query }: { initial: P2pLiveData; query: P2pQuery }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { live, stale } = useLivePoll(initial, {
    key: "transfer-p2p-live",
    url: `/admin/transfer/p2p/live${p2pSearch({ ...query, tab: "live" })}`,
    search: liveEngineQuery(query),
    everyMs: P2P_LIVE_POLL_MS,
  });
  const started = useFormatTime("dateTime");
  const here = (q: Partial<P2pQuery>) => `/admin/transfer/p2p${p2pSearch({ ...query, tab: "live", ...q })}`;
  const list = live.unreachable ? [] : live.page.list;

  const partyColumns = usePartyColumns<P2pLiveEntry>();
  const columns: Column<P2pLiveEntry>[] = [
    ...partyColumns,
    {
      type: "custom",
      key: "progress",
      title: t("admin.p2p.column.progress"),
      width: 160,
      render: (e) => (
        <Progress
          label={t("admin.p2p.progress.label", { sender: e.sender.account, receiver: e.receiver.account })}
          value={e.doneBytes}
          max={e.totalBytes}
          detail={t("admin.p2p.progress.of", { done: formatSize(e.doneBytes), total: formatSize(e.totalBytes) })}
        />
      ),
    },
    { type: "custom", key: "speed", title: t("admin.p2p.column.speed"), width: 110, nowrap: true, render: (e) => (e.speed > 0 ? t("admin.p2p.speed", { speed: formatSize(e.speed) }) : t("admin.p2p.none")) },
    { type: "custom", key: "status", title: t("admin.p2p.column.status"), width: 170, render: (e) => <StatusCell status={e.status} path={e.path} /> },
    { type: "time", key: "started", title: t("admin.p2p.column.started"), render: (e) => <time dateTime={new Date(e.createdAt).toISOString()}>{started(e.createdAt)}</time> },
  ];

  return (
    <div className="flex flex-col gap-4">
      <LiveHeading
        intro={t("admin.p2p.live.intro")}
        updating={t("admin.p2p.live.updating", { seconds: P2P_LIVE_POLL_MS / 1000 })}
        snapshot={t("admin.p2p.live.snapshot")}
        refresh={t("admin.p2p.refresh")}
        refreshHref={here({})}
        unreachable={live.unreachable || stale ? t("admin.p2p.live.unreachable") : null}
      />
      <Form method="get" action="/admin/transfer/p2p" role="search" aria-label={t("admin.p2p.search")} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="size" value={query.size} />
        <TextInput type="search" name="text" label={t("admin.p2p.search.text")} placeholder={t("admin.p2p.search.text.placeholder")} defaultValue={query.text} maxLength={200} className="w-64" />
        <Button type="submit">{t("global.search")}</Button>
        <ButtonLink href={here({ text: "", page: 1 })} variant="outlined">
          {t("global.reset")}
        </ButtonLink>
      </Form>
      {!live.unreachable && (
        <p role="status" className="text-sm text-gray-700">
          {t("admin.p2p.live.totals", { count: live.page.total })}
        </p>
      )}
      {list.length === 0 && <p className="text-sm text-gray-600">{t("admin.p2p.live.empty")}</p>}
      <Table columns={columns} data={list} rowKey="transferId" label={t("admin.p2p.live.table")} rowLabel={(e) => `${e.sender.account} → ${e.receiver.account}`} />
      {!live.unreachable && (
        <Pagination total={live.page.total} page={query.page} pageSize={query.size} hrefFor={(p, s) => here({ page: p, size: s })} onChange={(p, s) => navigate(here({ page: p, size: s }))} />
      )}
    </div>
  );
}
