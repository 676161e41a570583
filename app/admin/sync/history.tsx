import { useTranslation } from "react-i18next";
import { ButtonLink } from "~/components/ui/button";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column } from "~/components/ui/table";
import { formatSize } from "~/utils/format";
import { useFormatTime } from "~/utils/use-time-zone";
import { errorByCode } from "../../../contract/errors";
import type { SyncRun, SyncTask } from "../../../contract/sync";
import { SyncStatusBadge } from "./status";

/** A task's runs, newest first (GET /api/admin/sync-tasks/:id/runs), paged by the address (`hpage`, `hsize`). */
export function SyncHistory({
  task,
  runs,
  page,
  size,
  closeHref,
  hrefFor,
}: {
  task: SyncTask;
  runs: { list: SyncRun[]; total: number };
  page: number;
  size: number;
  closeHref: string;
  hrefFor: (page: number, size: number) => string;
}) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const time = (ms: number | null) => (ms === null ? "—" : formatTime(Math.floor(ms / 1000)));
  const columns: Column<SyncRun>[] = [
    { key: "startedAt", title: t("admin.sync.started"), type: "time", render: (r) => time(r.startedAt) },
    { key: "endedAt", title: t("admin.sync.ended"), type: "time", render: (r) => time(r.endedAt) },
    { key: "status", title: t("admin.sync.status"), type: "custom", render: (r) => <SyncStatusBadge status={r.status} /> },
    { key: "trigger", title: t("admin.sync.trigger"), type: "custom", render: (r) => t(`admin.sync.trigger.${r.trigger}`) },
    { key: "copied", title: t("admin.sync.copied"), type: "custom", render: (r) => String(r.filesCopied) },
    { key: "deleted", title: t("admin.sync.deleted-files"), type: "custom", render: (r) => String(r.filesDeleted) },
    { key: "skipped", title: t("admin.sync.skipped"), type: "custom", render: (r) => String(r.filesSkipped) },
    { key: "bytes", title: t("admin.sync.bytes"), type: "custom", render: (r) => formatSize(r.bytes) },
    {
      key: "error",
      title: t("admin.sync.error"),
      type: "custom",
      render: (r) => (r.errorCode && errorByCode(r.errorCode) ? <span className="[overflow-wrap:anywhere]">{`${t(`error.${r.errorCode}`)}${r.errorPath ? ` (${r.errorPath})` : ""}`}</span> : "—"),
    },
  ];
  return (
    <section aria-labelledby="sync-history-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <div className="flex items-center justify-between gap-4">
        <h2 id="sync-history-title" className="text-base font-semibold text-gray-900">
          {t("admin.sync.history.title", { name: task.name })}
        </h2>
        <ButtonLink href={closeHref} variant="outlined" size="small">
          {t("admin.sync.history.close")}
        </ButtonLink>
      </div>
      <Table label={t("admin.sync.history.table", { name: task.name })} columns={columns} data={runs.list} rowKey="id" rowLabel={(r) => time(r.startedAt)} />
      <Pagination total={runs.total} page={page} pageSize={size} hrefFor={hrefFor} />
    </section>
  );
}
