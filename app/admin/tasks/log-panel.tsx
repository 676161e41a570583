import { Form, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { TransferLogDetail, TransferLogEntry, TransferLogPage } from "../../../contract/tasks";
import { OPERATION_KINDS } from "../../../contract/logs";
import { formatSize } from "../../../contract/sizes";
import { useFormatTime } from "~/admin/dashboard/format";
import { Button, ButtonLink } from "~/components/ui/button";
import { Facts } from "~/components/ui/facts";
import { Pagination } from "~/components/ui/pagination";
import { SelectInput } from "~/components/ui/select-input";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useWho } from "./live-panel";
import { clockDuration, tasksSearch, type TasksQuery } from "./query";
import { DirectionSelect } from "./direction-select";

/** The transfer log (table transfer_log) with search, paging and a detail view (`?tab=log&detail=<id>`). */
export function LogPanel({ page, detail, query }: { page: TransferLogPage; detail: TransferLogDetail | null; query: TasksQuery }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const when = useFormatTime("dateTime");
  const who = useWho();
  const here = (q: Partial<TasksQuery>) => `/admin/transfer/tasks${tasksSearch({ ...query, tab: "log", confirm: "", ...q })}`;
  const direction = (e: { direction: "upload" | "download" }) => t(`admin.tasks.direction.${e.direction}`);
  const result = (e: TransferLogEntry) => (
    <span className={e.result === "ok" ? "text-green-700" : "text-red-700"}>{t(`admin.tasks.log.result.${e.result}`)}</span>
  );
  const person = (e: TransferLogEntry) => who({ account: e.account, userId: e.userId, shareOwner: "" });
  const columns: Column<TransferLogEntry>[] = [
    { type: "time", key: "at", title: t("admin.tasks.log.column.time"), render: (e) => <time dateTime={new Date(e.at).toISOString()}>{when(e.at)}</time> },
    { type: "custom", key: "user", title: t("admin.tasks.column.user"), width: 140, render: (e) => <span className="break-all">{person(e)}</span> },
    { type: "custom", key: "direction", title: t("admin.tasks.column.direction"), width: 90, render: direction },
    { type: "custom", key: "path", title: t("admin.tasks.column.file"), render: (e) => <span className="break-all">{e.path}</span> },
    { type: "custom", key: "bytes", title: t("admin.tasks.log.column.bytes"), width: 100, nowrap: true, render: (e) => formatSize(e.bytes) },
    { type: "custom", key: "duration", title: t("admin.tasks.log.column.duration"), width: 90, render: (e) => clockDuration(e.durationMs / 1000) },
    { type: "custom", key: "result", title: t("admin.tasks.log.result"), width: 90, render: result },
    { type: "ellipsis", dataIndex: "address", title: t("admin.tasks.column.address"), width: 130 },
    {
      type: "custom",
      key: "details",
      title: t("admin.tasks.column.actions"),
      width: 90,
      render: (e) => (
        <ButtonLink href={here({ detail: e.id })} variant="text" size="small" aria-label={t("admin.tasks.log.details.label", { direction: direction(e).toLowerCase(), file: e.path })}>
          {t("admin.tasks.log.details")}
        </ButtonLink>
      ),
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <Form method="get" action="/admin/transfer/tasks" role="search" aria-label={t("admin.tasks.log.filter")} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="tab" value="log" />
        <input type="hidden" name="size" value={query.size} />
        <TextInput name="user" label={t("admin.tasks.log.user")} placeholder={t("admin.tasks.log.user.placeholder")} defaultValue={query.user} maxLength={64} className="w-40" />
        <TextInput type="search" name="text" label={t("admin.tasks.log.text")} placeholder={t("admin.tasks.log.text.placeholder")} defaultValue={query.text} maxLength={200} className="w-56" />
        <DirectionSelect defaultValue={query.direction} />
        <SelectInput
          name="result"
          label={t("admin.tasks.log.result")}
          defaultValue={query.result}
          options={[
            { value: "", label: t("global.all") },
            { value: "ok", label: t("admin.tasks.log.result.ok") },
            { value: "failed", label: t("admin.tasks.log.result.failed") },
            { value: "stopped", label: t("admin.tasks.log.result.stopped") },
          ]}
          className="w-36"
        />
        <Button type="submit">{t("global.search")}</Button>
        <ButtonLink href={`/admin/transfer/tasks${tasksSearch({ tab: "log", size: query.size })}`} variant="outlined">
          {t("global.reset")}
        </ButtonLink>
      </Form>
      {detail && (
        <section aria-labelledby="transfer-detail-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
          <div className="flex items-center justify-between gap-3">
            <h2 id="transfer-detail-title" className="text-sm font-semibold">
              {t("admin.tasks.log.detail.title")}
            </h2>
            <ButtonLink href={here({ detail: null })} variant="outlined" size="small">
              {t("admin.tasks.log.detail.close")}
            </ButtonLink>
          </div>
          <Facts
            label={t("admin.tasks.log.detail.title")}
            rows={[
              [t("admin.tasks.column.user"), person(detail)],
              [t("admin.tasks.column.direction"), direction(detail)],
              [t("admin.tasks.column.file"), detail.path, "mono"],
              [t("admin.tasks.log.detail.space"), detail.groupId > 0 ? t("admin.tasks.log.detail.space.group", { name: detail.groupName ?? `#${detail.groupId}` }) : t("admin.tasks.log.detail.space.personal")],
              [t("admin.tasks.log.column.bytes"), formatSize(detail.bytes)],
              [t("admin.tasks.log.detail.files"), detail.files],
              [t("admin.tasks.log.detail.started"), when(detail.startedAt)],
              [t("admin.tasks.log.detail.ended"), when(detail.at)],
              [t("admin.tasks.log.column.duration"), clockDuration(detail.durationMs / 1000)],
              [t("admin.tasks.log.detail.average"), `${formatSize(detail.averageSpeed)}/s`],
              [t("admin.tasks.log.result"), result(detail)],
              [t("admin.tasks.log.column.via"), detail.via],
              [t("admin.tasks.column.address"), detail.address, "mono"],
              detail.shareId !== null && [t("admin.tasks.log.detail.link"), detail.shareId, "mono"],
              detail.shareOwner !== null && [t("admin.tasks.log.detail.owner"), detail.shareOwner],
              [
                t("admin.tasks.log.detail.operations"),
                detail.operations.length === 0
                  ? t("admin.tasks.log.detail.operations.none")
                  : detail.operations.map((o) =>
                      t("admin.tasks.log.detail.operation", {
                        kind: (OPERATION_KINDS as readonly string[]).includes(o.kind) ? t(`admin.logs.kind.${o.kind}`) : o.kind,
                        target: o.target,
                        result: o.result === "ok" ? t("admin.logs.result.ok") : `${t("admin.tasks.log.result.failed")} (${t("admin.tasks.log.detail.code", { code: o.code })})`,
                      }),
                    ),
                "list",
              ],
            ]}
          />
        </section>
      )}
      {page.list.length === 0 && <p className="text-sm text-gray-600">{t("admin.tasks.log.empty")}</p>}
      <Table columns={columns} data={page.list} rowKey="id" label={t("admin.tasks.log.table")} rowLabel={(e) => `${person(e)} ${e.path}`} />
      <Pagination total={page.total} page={query.page} pageSize={query.size} hrefFor={(p, s) => here({ page: p, size: s, detail: null })} onChange={(p, s) => navigate(here({ page: p, size: s, detail: null }))} />
    </div>
  );
}
