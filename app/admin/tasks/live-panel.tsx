import { Form, useFetcher, useNavigate, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { LiveTask } from "../../../contract/tasks";
import { formatSize } from "../../../contract/sizes";
import { useFormatTime } from "~/admin/dashboard/format";
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

/**
 * The live values: the loader's snapshot first, then (with JavaScript) the resource route's answer
 * every LIVE_POLL_MS while the tab is visible; a new snapshot (after a Stop, a search) replaces
 * them at once. An engine that stops answering keeps the last values on screen, marked stale.
 * Each poll is tagged with the generation of the snapshot (and search) it was asked under: an answer
 * to a poll asked before the latest snapshot is dropped, so a transfer just stopped does not come
 * back for a moment. No poll is asked while a navigation (a Stop, a search) is under way.
 * Without JavaScript the snapshot stays, with a Refresh link.
 */
function useLive(initial: LiveData, query: TasksQuery): { live: LiveData; stale: boolean } {
  const fetcher = useFetcher<LiveData>({ key: "transfer-tasks-live" });
  const navigation = useNavigation();
  const search = liveEngineQuery(query);
  const [live, setLive] = useState(initial);
  const [stale, setStale] = useState(false);
  /** Bumped by every new snapshot or search; `asked` is the generation the last poll was asked under. */
  const generation = useRef(0);
  const asked = useRef(-1);
  useEffect(() => {
    generation.current += 1;
    setLive(initial);
    setStale(false);
  }, [initial, search]);
  useEffect(() => {
    const polled = fetcher.data;
    if (!polled) return;
    // Asked before the snapshot now shown (or for another search): older than what is on screen.
    if (asked.current !== generation.current) return;
    if (polled.unreachable) setStale(true);
    else {
      setLive(polled);
      setStale(false);
    }
  }, [fetcher.data]);
  useEffect(() => {
    const url = `/admin/transfer/tasks/live${tasksSearch({ ...query, tab: "live", confirm: "", detail: null })}`;
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible" || fetcher.state !== "idle" || navigation.state !== "idle") return;
      asked.current = generation.current;
      fetcher.load(url);
    }, LIVE_POLL_MS);
    return () => clearInterval(timer);
    // The query's engine form names everything the poll depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search, fetcher.state, navigation.state]);
  return { live, stale };
}

export function LivePanel({ initial, query }: { initial: LiveData; query: TasksQuery }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { live, stale } = useLive(initial, query);
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
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-gray-600">
          {t("admin.tasks.live.intro")} <span data-script-only="">{t("admin.tasks.live.updating", { seconds: LIVE_POLL_MS / 1000 })}</span>
          <noscript>{t("admin.tasks.live.snapshot")}</noscript>
        </p>
        <ButtonLink href={here({})} variant="outlined">
          {t("admin.tasks.refresh")}
        </ButtonLink>
      </div>
      {(live.unreachable || stale) && <p role="status" className="text-sm text-red-700">{t("admin.tasks.live.unreachable")}</p>}
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
