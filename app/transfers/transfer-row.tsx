import { memo, useRef, useState, type ChangeEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { FileIcon, FolderIcon } from "../components/ui/icons";
import { formatSize } from "../utils/format";
import { REFUSED_SHOWN } from "./folder-download";
import { isSkipped } from "./refusals";
import { secondsLeft } from "./store";
import { TransferStatus, type P2pRow, type TransferItem } from "./types";
import type { Transfers } from "./use-transfers";

/** Seconds as "m:ss" or "h:mm:ss" (language-neutral). */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, "0");
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(s % 60)}` : `${minutes}:${pad(s % 60)}`;
}

const WITH_PROGRESS: readonly TransferStatus[] = [TransferStatus.Uploading, TransferStatus.ServerChecking, TransferStatus.Downloading];

/** The status line of spec section 4: progress with sizes, speed and time left; total; failure text; waiting. */
export function TransferStatusLine({ item }: { item: TransferItem }) {
  const { t } = useTranslation();
  if (item.p2p) return <P2pStatusLine item={item} p2p={item.p2p} />;
  const batch = item.batch;
  // A batch's summary: how many of its files landed and how many the engine refused, under its progress.
  const counts = batch ? (
    <p className={`text-xs ${batch.failed > 0 ? "text-red-600" : "text-gray-500"}`}>
      {batch.failed > 0 ? t("transfers.batch.counts-failed", { uploaded: batch.uploaded, count: batch.files, failed: batch.failed }) : t("transfers.batch.counts", { uploaded: batch.uploaded, count: batch.files })}
    </p>
  ) : item.folder ? (
    <FolderCounts folder={item.folder} />
  ) : null;
  if (batch && item.status === TransferStatus.Uploaded) {
    return (
      <div className="space-y-0.5">
        <div className="flex justify-between text-xs text-gray-500">
          <span>{t(batch.failed > 0 ? "transfers.batch.ended" : "transfers.status.3")}</span>
          <span>{formatSize(item.totalSize)}</span>
        </div>
        {counts}
      </div>
    );
  }
  if (WITH_PROGRESS.includes(item.status)) {
    const total = Math.max(item.totalSize, 0);
    const percent = total > 0 ? Math.min(100, Math.floor((item.currentSize / total) * 100)) : 0;
    const left = secondsLeft(item);
    const moving = item.status !== TransferStatus.ServerChecking && !item.paused && !item.queued && !item.elsewhere && item.speed > 0;
    let state: string = t(`transfers.status.${item.status}`);
    if (item.elsewhere) state = t("transfers.other-tab");
    else if (item.verifying) state = t("transfers.verifying");
    else if (item.needsFile) state = t("transfers.needs-file");
    else if (item.paused) state = t("transfers.paused");
    else if (item.queued) state = t("transfers.queued");
    return (
      <div className="space-y-1">
        <ProgressBar item={item} percent={percent} />
        <div className="flex flex-wrap items-center justify-between gap-x-2 text-xs text-gray-500">
          <span>{state}</span>
          <span>
            {formatSize(item.currentSize)} / {formatSize(total)}
          </span>
        </div>
        {moving && <SpeedLine speed={item.speed} left={left} />}
        {counts}
      </div>
    );
  }
  if (item.status === TransferStatus.Downloaded && item.folder) {
    const saved = item.verified ? "transfers.folder.saved-verified" : item.verified === null ? "transfers.folder.saved-unverified" : "transfers.folder.saved-refused";
    return (
      <div className="space-y-0.5">
        <div className="flex justify-between text-xs text-gray-500">
          <span>{t(saved)}</span>
          <span>{formatSize(item.totalSize)}</span>
        </div>
        {counts}
      </div>
    );
  }
  if (item.status === TransferStatus.Uploaded || item.status === TransferStatus.Downloaded) {
    return (
      <div className="flex justify-between text-xs text-gray-500">
        <span>{item.kind === "upload" ? t(`transfers.status.${item.status}`) : !item.pageWritten ? t("transfers.in-browser") : item.verified ? t("transfers.saved-verified") : t("transfers.saved-unverified")}</span>
        <span>{formatSize(item.totalSize)}</span>
      </div>
    );
  }
  if (item.status === TransferStatus.UploadFailed && isSkipped(item)) {
    // Skipped by the space's file filter: what the administrator asked for, not a failure.
    return (
      <p className="text-xs text-gray-600">{t("transfers.skipped-by-filter")}</p>
    );
  }
  if ((item.status === TransferStatus.UploadFailed || item.status === TransferStatus.DownloadFailed) && item.elsewhere) {
    // Failed in the tab that runs it: that tab offers Retry; this one takes it over when that tab goes.
    return (
      <div className="space-y-0.5">
        <p className="text-xs text-red-600">{t("transfers.other-tab-failed", { reason: item.errorMsgKey ? t(item.errorMsgKey, item.errorVars ?? {}) : "" })}</p>
        {counts}
      </div>
    );
  }
  if (item.status === TransferStatus.UploadFailed || item.status === TransferStatus.DownloadFailed) {
    return (
      <div className="space-y-0.5">
        <p className="text-xs text-red-600">
          {t(`transfers.status.${item.status}`)}: {item.errorMsgKey ? t(item.errorMsgKey, item.errorVars ?? {}) : ""}
        </p>
        {counts}
      </div>
    );
  }
  return <p className="text-xs text-gray-500">{t(`transfers.status.${item.status}`)}</p>;
}

function ProgressBar({ item, percent }: { item: TransferItem; percent: number }) {
  const { t } = useTranslation();
  return (
    <div
      role="progressbar"
      aria-label={t("transfers.progress", { name: item.name })}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      className="h-1.5 w-full overflow-hidden rounded bg-gray-200"
    >
      <div className={item.paused ? "h-full bg-gray-400" : "h-full bg-primary"} style={{ width: `${percent}%` }} />
    </div>
  );
}

/** Speed and time left of a transfer that moves. */
function SpeedLine({ speed, left }: { speed: number; left: number | null }) {
  const { t } = useTranslation();
  return (
    <div className="flex justify-between text-xs text-gray-500">
      <span>{t("transfers.speed", { speed: formatSize(speed) })}</span>
      {left !== null && <span>{t("transfers.time-left", { time: formatDuration(left) })}</span>}
    </div>
  );
}

/** A P2P row (app/p2p/): which way and with whom, the path in words, then progress or the outcome. */
function P2pStatusLine({ item, p2p }: { item: TransferItem; p2p: P2pRow }) {
  const { t } = useTranslation();
  const total = Math.max(item.totalSize, 0);
  const percent = total > 0 ? Math.min(100, Math.floor((item.currentSize / total) * 100)) : 0;
  const left = secondsLeft(item);
  const vars = { peer: p2p.peer };
  const way = (
    <p className="text-xs text-gray-600">
      {t(`p2p.row.${p2p.direction}`, vars)}
      {p2p.path && <> · {t(`p2p.row.path.${p2p.path}`)}</>}
    </p>
  );
  if (p2p.state === "running") {
    return (
      <div className="space-y-1">
        {way}
        <ProgressBar item={item} percent={percent} />
        <div className="flex flex-wrap items-center justify-between gap-x-2 text-xs text-gray-500">
          <span>{t(p2p.direction === "send" ? "p2p.row.state.sending" : "p2p.row.state.receiving")}</span>
          <span>
            {formatSize(item.currentSize)} / {formatSize(total)}
          </span>
        </div>
        {item.speed > 0 && <SpeedLine speed={item.speed} left={left} />}
      </div>
    );
  }
  let text: string;
  let tone = "text-gray-500";
  if (p2p.state === "done") text = t(p2p.direction === "send" ? "p2p.row.state.done-send" : "p2p.row.state.done-receive");
  else if (p2p.state === "failed") {
    text = t("p2p.row.state.failed", { reason: p2p.reason ? t(p2p.reason) : "" });
    tone = "text-red-600";
  } else if (p2p.state === "declined") {
    text = t("p2p.row.state.declined", vars);
    tone = "text-red-600";
  } else text = t(`p2p.row.state.${p2p.state}`, vars);
  return (
    <div className="space-y-0.5">
      {way}
      <div className="flex justify-between gap-x-2 text-xs">
        <span className={tone}>{text}</span>
        <span className="shrink-0 text-gray-500">{formatSize(total)}</span>
      </div>
    </div>
  );
}

/** A page-written folder's files: how many are done, and the first REFUSED_SHOWN not saved with their reasons (the rest counted). */
function FolderCounts({ folder }: { folder: NonNullable<TransferItem["folder"]> }) {
  const { t } = useTranslation();
  if (folder.refused.length === 0) return <p className="text-xs text-gray-500">{t("transfers.folder.counts", { done: folder.done, count: folder.files })}</p>;
  const more = folder.refused.length - REFUSED_SHOWN;
  return (
    <div className="text-xs text-red-600">
      <p>{t("transfers.folder.counts-refused", { done: folder.done, count: folder.files, failed: folder.refused.length })}</p>
      <ul className="list-inside list-disc">
        {folder.refused.slice(0, REFUSED_SHOWN).map((file) => (
          <li key={file.name} className="break-words">
            {t("transfers.folder.refused-file", { name: file.name, reason: t(file.errorMsgKey, { name: file.name, ...file.errorVars }) })}
          </li>
        ))}
      </ul>
      {more > 0 && <p>{t("transfers.folder.refused-more", { count: more })}</p>}
    </div>
  );
}

const FINISHED: readonly TransferStatus[] = [TransferStatus.Uploaded, TransferStatus.Downloaded, TransferStatus.UploadFailed, TransferStatus.DownloadFailed];

type Actions = Pick<Transfers, "pause" | "resume" | "cancel" | "retry" | "clear" | "provideFile">;

/**
 * One transfer: name, status line and the actions its state allows (each named after the file). A
 * batch's summary row is named after its folder and file count; a file sent in a batch cannot be
 * paused (its request is a second or so), only cancelled while it waits.
 */
export const TransferRow = memo(function TransferRow({ item, actions }: { item: TransferItem; actions: Actions }) {
  const { t } = useTranslation();
  const picker = useRef<HTMLInputElement>(null);
  const [wrongFile, setWrongFile] = useState(false);
  const name = item.p2p && item.p2p.entries > 1 ? t("p2p.row.title", { name: item.name, more: item.p2p.entries - 1 }) : item.batch ? (item.name ? t("transfers.batch.title-folder", { name: item.name, count: item.batch.files }) : t("transfers.batch.title", { count: item.batch.files })) : item.name;
  const batchRow = item.batch !== undefined || item.inBatch !== undefined;
  const button = (action: "pause" | "resume" | "cancel" | "retry" | "remove" | "choose-file", onClick: () => void) => (
    <Button size="small" variant="text" danger={action === "cancel"} aria-label={t(`transfers.action.${action}`, { name })} onClick={onClick}>
      {t(`transfers.button.${action}`)}
    </Button>
  );
  const chosen = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (file) setWrongFile(!(await actions.provideFile(item.id, file)));
  };
  // An upload, or a download the page writes itself: both can be paused, resumed and cancelled here
  // (not from a tab other than the one running it).
  const uploading = !item.elsewhere && !item.p2p && (item.status === TransferStatus.Uploading || (item.status === TransferStatus.Downloading && item.pageWritten === true));
  const p2pOpen = item.p2p !== undefined && ["offered", "connecting", "running"].includes(item.p2p.state);
  return (
    <li className={`border-b border-gray-100 py-2 pr-4 last:border-b-0 ${item.inBatch ? "pl-9" : "pl-4"} ${item.batch ? "bg-gray-50" : ""}`} aria-label={name}>
      <div className="flex items-center gap-2">
        {item.batch || item.folder ? <FolderIcon className="shrink-0 text-gray-400" /> : <FileIcon className="shrink-0 text-gray-400" />}
        <span className="min-w-0 flex-1 truncate text-sm text-gray-800" title={name}>
          {name}
        </span>
        <div className="flex shrink-0 items-center">
          {uploading && item.needsFile && button("choose-file", () => picker.current?.click())}
          {uploading && !batchRow && !item.paused && !item.queued && button("pause", () => actions.pause(item.id))}
          {uploading && item.paused && !item.needsFile && button("resume", () => actions.resume(item.id))}
          {!item.elsewhere && item.status === TransferStatus.DownloadFailed && item.pageWritten && button("retry", () => actions.retry(item.id))}
          {p2pOpen && button("cancel", () => actions.cancel(item.id))}
          {!item.elsewhere && !item.p2p && item.status === TransferStatus.UploadFailed && item.errorMsgKey !== errorMessageKey(ErrorCode.FileTooLarge) && !isSkipped(item) && button("retry", () => actions.retry(item.id))}
          {item.batch && item.status === TransferStatus.Uploaded && item.batch.retryable > 0 && button("retry", () => actions.retry(item.id))}
          {uploading && (!item.inBatch || item.queued) && button("cancel", () => actions.cancel(item.id))}
          {FINISHED.includes(item.status) && !item.elsewhere && button("remove", () => actions.clear(item.id))}
        </div>
      </div>
      <TransferStatusLine item={item} />
      {wrongFile && <p className="text-xs text-red-600">{t("transfers.error.wrong-file")}</p>}
      {item.needsFile && <input ref={picker} type="file" hidden tabIndex={-1} aria-hidden="true" onChange={(e) => void chosen(e)} />}
    </li>
  );
});
