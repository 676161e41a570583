import { Form, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { LiveTask } from "../../../contract/tasks";
import { formatSize } from "../../../contract/sizes";
import { useFormatTime } from "~/admin/dashboard/format";
import { LiveHeading, useLivePoll } from "~/admin/live-poll";
import { Button, ButtonLink } from "~/components/ui/button";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Pagination } from "~/components/ui/pagination";
import { Progress } from "~/components/ui/progress";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import type { LiveData } from "./data.server";
import { clockDuration, liveEngineQuery, secondsLeft, tasksSearch, type TasksQuery } from "./query";
import { ThroughputChart } from "./throughput-chart";
import { DirectionSelect } from "./direction-select";

/** How often the page asks for the live values while it is shown (ms). */
export const LIVE_POLL_MS = 1500;

/** Who moves a transfer: the account, or a share-link visitor (with the link's owner). */
export function useWho() {
  const { t } = useTranslation();
  return (task: Pick<LiveTask, "account" | "userId" | "shareOwner">) =>
    task.userId !== null ? task.account : task.shareOwner ? t("admin.tasks.visitor", { owner: task.shareOwner }) : t("admin.tasks.visitor.unknown");
}

export function LivePanel({ initial, query }: { initial: LiveData; query: TasksQuery }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { live, stale } = useLivePoll(initial, {
    key: "transfer-tasks-live",
    url: `/admin/transfer/tasks/live${tasksSearch({ ...query, tab: "live", confirm: "", detail: null })}`,
    search: liveEngineQuery(query),
    everyMs: LIVE_POLL_MS,
  });
  const who = useWho();
  const started = useFormatTime("dateTime");
  const here = (q: Partial<TasksQuery>) => `/admin/transfer/tasks${tasksSearch({ ...query, confirm: "", detail: null, ...q })}`;
  const direction = (task: LiveTask) => t(`admin.tasks.direction.${task.direction}`);
  const stopWords = (task: LiveTask) => ({ direction: direction(task).toLowerCase(), file: task.path, user: who(task) });
  const list = live.unreachable ? [] : live.page.list;
  const confirming = query.confirm ? list.find((task) => task.id === query.confirm) : undefined;

  const columns: Column<LiveTask>[] = [
    {
      type: "custom",
      key: "user",
      title: t("admin.tasks.column.user"),
      width: 150,
      render: (task) => (
        <span className="flex flex-col">
          <span className="break-all">{who(task)}</span>
          <span className="text-xs text-gray-600">{t(`admin.tasks.via.${task.via}`)}</span>
        </span>
      ),
    },
    {
      type: "custom",
      key: "file",
      title: t("admin.tasks.column.file"),
      render: (task) => (
        <span className="break-all">
          {task.path}
          {task.zip && <span className="ml-1 text-xs text-gray-600">({t("admin.tasks.zip")})</span>}
        </span>
      ),
    },
    { type: "custom", key: "direction", title: t("admin.tasks.column.direction"), width: 90, render: (task) => direction(task) },
    {
      type: "custom",
      key: "progress",
      title: t("admin.tasks.column.progress"),
      width: 190,
      render: (task) => {
        const detail = task.total !== null ? t("admin.tasks.progress.of", { done: formatSize(task.bytes), total: formatSize(task.total) }) : t("admin.tasks.progress.unknown", { done: formatSize(task.bytes) });
        return <Progress label={t("admin.tasks.progress.label", { file: task.path })} value={task.total === null ? 0 : task.bytes} max={task.total ?? 0} detail={detail} />;
      },
    },
    {
      type: "custom",
      key: "speed",
      title: t("admin.tasks.column.speed"),
      width: 110,
      nowrap: true,
      render: (task) => (task.status === "idle" ? t("admin.tasks.status.idle") : `${formatSize(task.speed)}/s`),
    },
    {
      type: "custom",
      key: "left",
      title: t("admin.tasks.column.left"),
      width: 90,
      render: (task) => {
        const left = secondsLeft(task);
        return left === null ? t("admin.tasks.left.unknown") : clockDuration(left);
      },
    },
    { type: "ellipsis", dataIndex: "address", title: t("admin.tasks.column.address"), width: 130 },
    { type: "time", key: "started", title: t("admin.tasks.column.started"), render: (task) => <time dateTime={new Date(task.startedAt).toISOString()}>{started(task.startedAt)}</time> },
    {
      type: "custom",
      key: "actions",
      title: t("admin.tasks.column.actions"),
      width: 90,
      render: (task) => (
        <ConfirmedAction
          action="/admin/transfer/tasks"
          fields={{ intent: "stop", id: task.id, back: tasksSearch({ ...query, confirm: "", detail: null }) }}
          label={t("admin.tasks.stop")}
          aria-label={t("admin.tasks.stop.label", stopWords(task))}
          title={t("global.tips")}
          message={t("admin.tasks.stop.confirm", stopWords(task))}
          confirmLabel={t("admin.tasks.stop")}
          size="small"
          variant="text"
          danger
        />
      ),
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <LiveHeading
        intro={t("admin.tasks.live.intro")}
        updating={t("admin.tasks.live.updating", { seconds: LIVE_POLL_MS / 1000 })}
        snapshot={t("admin.tasks.live.snapshot")}
        refresh={t("admin.tasks.refresh")}
        refreshHref={here({})}
        unreachable={live.unreachable || stale ? t("admin.tasks.live.unreachable") : null}
      />
      <Form method="get" action="/admin/transfer/tasks" role="search" aria-label={t("admin.tasks.search")} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="size" value={query.size} />
        <TextInput type="search" name="search" label={t("admin.tasks.search.text")} placeholder={t("admin.tasks.search.text.placeholder")} defaultValue={query.search} maxLength={200} className="w-64" />
        <DirectionSelect defaultValue={query.direction} />
        <Button type="submit">{t("global.search")}</Button>
        <ButtonLink href={here({ search: "", direction: "", page: 1 })} variant="outlined">
          {t("global.reset")}
        </ButtonLink>
      </Form>
      {!live.unreachable && (
        <p role="status" className="text-sm text-gray-700">
          {t("admin.tasks.totals", {
            uploads: live.page.totals.uploads,
            downloads: live.page.totals.downloads,
            uploadSpeed: formatSize(live.page.totals.uploadSpeed),
            downloadSpeed: formatSize(live.page.totals.downloadSpeed),
          })}
        </p>
      )}
      {confirming && (
        <InlineConfirm
          message={t("admin.tasks.stop.confirm", stopWords(confirming))}
          action="/admin/transfer/tasks"
          fields={{ intent: "stop", id: confirming.id, confirmed: "1", back: tasksSearch({ ...query, confirm: "", detail: null }) }}
          cancelHref={here({})}
          confirmLabel={t("admin.tasks.stop")}
        />
      )}
      {list.length === 0 && <p className="text-sm text-gray-600">{t("admin.tasks.empty")}</p>}
      <Table columns={columns} data={list} rowKey="id" label={t("admin.tasks.table")} rowLabel={(task) => `${who(task)} ${task.path}`} />
      {!live.unreachable && (
        <Pagination
          total={live.page.total}
          page={query.page}
          pageSize={query.size}
          hrefFor={(p, s) => here({ page: p, size: s })}
          onChange={(p, s) => navigate(here({ page: p, size: s }))}
        />
      )}
      {!live.unreachable && <ThroughputChart throughput={live.throughput} />}
    </div>
  );
}
