import { useRef, useState, type ChangeEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { FileIcon } from "../components/ui/icons";
import { formatSize } from "../utils/format";
import { isSkipped } from "./refusals";
import { secondsLeft } from "./store";
import { TransferStatus, type TransferItem } from "./types";
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
  if (WITH_PROGRESS.includes(item.status)) {
    const total = Math.max(item.totalSize, 0);
    const percent = total > 0 ? Math.min(100, Math.floor((item.currentSize / total) * 100)) : 0;
    const left = secondsLeft(item);
    const moving = item.status !== TransferStatus.ServerChecking && !item.paused && !item.queued && item.speed > 0;
    let state: string = t(`transfers.status.${item.status}`);
    if (item.verifying) state = t("transfers.verifying");
    else if (item.needsFile) state = t("transfers.needs-file");
    else if (item.paused) state = t("transfers.paused");
    else if (item.queued) state = t("transfers.queued");
    return (
      <div className="space-y-1">
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
        <div className="flex flex-wrap items-center justify-between gap-x-2 text-xs text-gray-500">
          <span>{state}</span>
          <span>
            {formatSize(item.currentSize)} / {formatSize(total)}
          </span>
        </div>
        {moving && (
          <div className="flex justify-between text-xs text-gray-500">
            <span>{t("transfers.speed", { speed: formatSize(item.speed) })}</span>
            {left !== null && <span>{t("transfers.time-left", { time: formatDuration(left) })}</span>}
          </div>
        )}
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
  if (item.status === TransferStatus.UploadFailed || item.status === TransferStatus.DownloadFailed) {
    return (
      <p className="text-xs text-red-600">
        {t(`transfers.status.${item.status}`)}: {item.errorMsgKey ? t(item.errorMsgKey, item.errorVars ?? {}) : ""}
      </p>
    );
  }
  return <p className="text-xs text-gray-500">{t(`transfers.status.${item.status}`)}</p>;
}

const FINISHED: readonly TransferStatus[] = [TransferStatus.Uploaded, TransferStatus.Downloaded, TransferStatus.UploadFailed, TransferStatus.DownloadFailed];

type Actions = Pick<Transfers, "pause" | "resume" | "cancel" | "retry" | "clear" | "provideFile">;

/** One transfer: name, status line and the actions its state allows (each named after the file). */
export function TransferRow({ item, actions }: { item: TransferItem; actions: Actions }) {
  const { t } = useTranslation();
  const picker = useRef<HTMLInputElement>(null);
  const [wrongFile, setWrongFile] = useState(false);
  const name = item.name;
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
  // An upload, or a download the page writes itself: both can be paused, resumed and cancelled here.
  const uploading = item.status === TransferStatus.Uploading || (item.status === TransferStatus.Downloading && item.pageWritten === true);
  return (
    <li className="border-b border-gray-100 px-4 py-2 last:border-b-0" aria-label={name}>
      <div className="flex items-center gap-2">
        <FileIcon className="shrink-0 text-gray-400" />
        <span className="min-w-0 flex-1 truncate text-sm text-gray-800" title={name}>
          {name}
        </span>
        <div className="flex shrink-0 items-center">
          {uploading && item.needsFile && button("choose-file", () => picker.current?.click())}
          {uploading && !item.paused && !item.queued && button("pause", () => actions.pause(item.id))}
          {uploading && item.paused && !item.needsFile && button("resume", () => actions.resume(item.id))}
          {item.status === TransferStatus.DownloadFailed && item.pageWritten && button("retry", () => actions.retry(item.id))}
          {item.status === TransferStatus.UploadFailed && item.errorMsgKey !== errorMessageKey(ErrorCode.FileTooLarge) && !isSkipped(item) && button("retry", () => actions.retry(item.id))}
          {uploading && button("cancel", () => actions.cancel(item.id))}
          {FINISHED.includes(item.status) && button("remove", () => actions.clear(item.id))}
        </div>
      </div>
      <TransferStatusLine item={item} />
      {wrongFile && <p className="text-xs text-red-600">{t("transfers.error.wrong-file")}</p>}
      {item.needsFile && <input ref={picker} type="file" hidden tabIndex={-1} aria-hidden="true" onChange={(e) => void chosen(e)} />}
    </li>
  );
}
