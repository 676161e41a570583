import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { Checkbox } from "../components/ui/checkbox";
import { Empty } from "../components/ui/empty";
import { ChevronDownIcon, CloseIcon } from "../components/ui/icons";
import { useFileServer } from "../files/file-server-context";
import { pageDownloadsSupported, readDownloadMode, writeDownloadMode } from "./page-download";
import { isSkipped } from "./refusals";
import { TransferRow } from "./transfer-row";
import { isFileRow, TransferStatus, type TransferItem } from "./types";
import { useAttachTransfers, useTransfers } from "./use-transfers";

const openers = new Set<() => void>();
/** Shows the panel (the top bar's transfer-list button). */
export function openTransferPanel() {
  openers.forEach((open) => open());
}

/**
 * Transfers the page itself is carrying: leaving would interrupt them. Uploads, and the downloads
 * the page writes itself (parallel ranges into a file the user picked). Downloads handed to the
 * browser's download manager never count (started without navigating the page), and a "Leave
 * site?" question answered "Stay" would have cancelled the very download that asked it. A P2P
 * transfer in either direction lives in this page.
 */
const uploading = (item: TransferItem) =>
  item.elsewhere !== true &&
  ((item.p2p !== undefined && (item.p2p.state === "connecting" || item.p2p.state === "running")) ||
    (item.kind === "upload" && ((item.status === TransferStatus.Uploading && !item.paused && !item.needsFile) || item.status === TransferStatus.ServerChecking)) ||
    (item.kind === "download" && item.pageWritten === true && item.status === TransferStatus.Downloading && !item.paused));

/** Files the space's file filter skipped are not failures: the summary counts them apart. */
const failed = (item: TransferItem) => (item.status === TransferStatus.UploadFailed && !isSkipped(item)) || item.status === TransferStatus.DownloadFailed;
const skipped = (item: TransferItem) => item.status === TransferStatus.UploadFailed && isSkipped(item);
/** A batch's summary row is no file: the counts leave it out. */
const done = (item: TransferItem) => isFileRow(item) && (item.status === TransferStatus.Uploaded || item.status === TransferStatus.Downloaded);

/**
 * The rows in their order, except that the files of a batch that failed come right under the
 * batch's summary row: one refusal among thousands of files is seen without scrolling.
 */
export function withRefusalsFirst(items: readonly TransferItem[]): readonly TransferItem[] {
  const groups = new Set(items.filter((item) => item.batch).map((item) => item.id));
  const moved = (item: TransferItem) => item.inBatch !== undefined && item.status === TransferStatus.UploadFailed && groups.has(item.inBatch);
  const failedIn = new Map<string, TransferItem[]>();
  for (const item of items) if (moved(item)) failedIn.set(item.inBatch!, [...(failedIn.get(item.inBatch!) ?? []), item]);
  if (failedIn.size === 0) return items;
  return items.flatMap((item) => (item.batch ? [item, ...(failedIn.get(item.id) ?? [])] : moved(item) ? [] : [item]));
}

/** How long a finished list stays open before folding to its summary: long enough to see the last row end. */
const IDLE_FOLD_MS = 1500;

/** The user's own choice of the chevron (open or folded), kept per browser. */
const PREFERENCE_KEY = "ferry.transfers.panel";
type Preference = "expanded" | "collapsed";
function readPreference(): Preference {
  try {
    return window.localStorage.getItem(PREFERENCE_KEY) === "collapsed" ? "collapsed" : "expanded";
  } catch {
    return "expanded";
  }
}
function writePreference(preference: Preference) {
  try {
    window.localStorage.setItem(PREFERENCE_KEY, preference);
  } catch {
    // Storage off (private mode, quota): the choice lasts this page only.
  }
}

/**
 * The floating transfer list (spec section 2): bottom right, 350 px wide, 50 px collapsed and 470 px
 * expanded, the count of active transfers in its header. It appears when a transfer is added and
 * hides when closed or emptied; while an upload runs, leaving the page asks first.
 *
 * It never hides what it sits over: while shown it marks `<html data-transfer-panel>` and the
 * page's `<main>` keeps clear of it (app/tailwind.css), so the table's last column (row menus,
 * Modified) stays reachable. It folds to its header (the summary: "3 done · 1 failed") when the
 * user clicks elsewhere on the page, and by itself a moment after every transfer has finished,
 * unless one of them failed (the error and its Retry stay in view), the user opened it by hand
 * (top bar, summary or chevron: pinned until it folds), or the pointer or focus is in it. A new
 * transfer opens it again unless the user folded it with the chevron, a choice remembered in
 * localStorage.
 */
export function TransferPanel({ account }: { account: string }) {
  const { t } = useTranslation();
  const server = useFileServer();
  useAttachTransfers(server?.connection ?? null, account, server?.tcpFileSizeLimit ?? 0, server?.uploads);
  const transfers = useTransfers();
  // The actions are the same functions on every render: rows whose item did not change are not
  // rendered again (a folder of thousands of small files has a row per file).
  const { pause, resume, cancel, retry, clear, provideFile } = transfers;
  const rowActions = useMemo(() => ({ pause, resume, cancel, retry, clear, provideFile }), [pause, resume, cancel, retry, clear, provideFile]);
  const { items, activeCount } = transfers;
  const [open, setOpen] = useState(false);
  const [expanded, setExpanded] = useState(true);
  const section = useRef<HTMLElement>(null);
  /** Opened by the user's own hand: it does not fold by itself (a click elsewhere or the chevron still folds it). */
  const pinned = useRef(false);
  const failedCount = items.filter(failed).length;
  const doneCount = items.filter(done).length;
  const skippedCount = items.filter(skipped).length;

  const seen = useRef(0);
  useEffect(() => {
    if (items.length > seen.current) {
      setOpen(true);
      setExpanded(readPreference() === "expanded");
    }
    if (items.length === 0) setOpen(false);
    seen.current = items.length;
  }, [items.length]);

  // Everything finished: fold to the summary after a moment, unless this run left a failure to see.
  const wasActive = useRef(false);
  const failuresAtStart = useRef(0);
  const [settling, setSettling] = useState(false);
  useEffect(() => {
    if (activeCount > 0) {
      if (!wasActive.current) failuresAtStart.current = failedCount;
      wasActive.current = true;
      setSettling(false);
    } else if (wasActive.current) {
      wasActive.current = false;
      setSettling(failedCount <= failuresAtStart.current);
    } else if (failedCount > failuresAtStart.current) {
      // A late failure (a download the file server refused after the browser took it) stays in view too.
      setSettling(false);
    }
  }, [activeCount, failedCount]);
  useEffect(() => {
    if (!settling) return;
    const timer = window.setTimeout(() => {
      setSettling(false);
      const panel = section.current;
      // Nothing folds under the user's pointer or focus.
      if (pinned.current || !panel || panel.matches(":hover") || panel.contains(document.activeElement)) return;
      setExpanded(false);
    }, IDLE_FOLD_MS);
    return () => window.clearTimeout(timer);
  }, [settling]);
  useEffect(() => {
    if (!expanded || !open) pinned.current = false;
  }, [expanded, open]);

  // A click anywhere else on the page folds it: the user went back to the page. A dialog's
  // buttons (a question about the transfers themselves) do not count.
  useEffect(() => {
    if (!open || !expanded) return;
    const fold = (event: MouseEvent) => {
      const target = event.target;
      if (!(target instanceof Element) || section.current?.contains(target) || target.closest('[role="dialog"]')) return;
      setExpanded(false);
    };
    // On click, not pointerdown: the page under the pointer must not change between press and release.
    document.addEventListener("click", fold, true);
    return () => document.removeEventListener("click", fold, true);
  }, [open, expanded]);

  // The page keeps clear of the panel (app/tailwind.css, `data-transfer-panel`); on a phone by the
  // panel's real height, which follows its rows.
  useEffect(() => {
    const root = document.documentElement;
    const panel = section.current;
    if (!open || !panel) return;
    root.dataset.transferPanel = expanded ? "expanded" : "collapsed";
    const measure = new ResizeObserver(() => root.style.setProperty("--transfer-panel-height", `${panel.offsetHeight}px`));
    measure.observe(panel);
    return () => {
      measure.disconnect();
      delete root.dataset.transferPanel;
      root.style.removeProperty("--transfer-panel-height");
    };
  }, [open, expanded]);

  useEffect(() => {
    const show = () => {
      pinned.current = true;
      setOpen(true);
      setExpanded(true);
    };
    openers.add(show);
    return () => {
      openers.delete(show);
    };
  }, []);

  // Where the page can write downloads itself, the user may still prefer the browser's download manager.
  const [canWrite, setCanWrite] = useState(false);
  const [browserManager, setBrowserManager] = useState(false);
  useEffect(() => {
    setCanWrite(pageDownloadsSupported());
    setBrowserManager(readDownloadMode() === "browser");
  }, []);

  const busy = items.some(uploading);
  const warning = t("transfers.leave-warning");
  useEffect(() => {
    if (!busy) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show (or at least require) a returnValue.
      event.returnValue = warning;
      return warning;
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [busy, warning]);

  if (!open) return null;
  return (
    <section
      ref={section}
      aria-label={t("transfers.title")}
      // Above the page, below the modals (MODAL_Z_INDEX 10): an open dialog covers the panel like the rest.
      // On a phone the open panel is as tall as its rows, at most half the screen, so the list it sits over stays in view (app/tailwind.css).
      className={`fixed bottom-0 left-4 right-4 z-[9] flex flex-col overflow-hidden rounded-t-md border border-gray-200 bg-white shadow-xl md:left-auto md:w-[350px] ${expanded ? "max-h-[min(470px,50dvh)] md:h-[470px] md:max-h-none" : "h-[50px]"}`}
    >
      {/* Folded, the whole summary opens it on a click (the chevron is its keyboard control). */}
      <header
        className={`flex h-[50px] shrink-0 items-center gap-2 border-b border-gray-200 px-4 ${expanded ? "" : "cursor-pointer"}`}
        onClick={(event) => {
          if (expanded || (event.target instanceof Element && event.target.closest("button"))) return;
          pinned.current = true;
          setExpanded(true);
        }}
      >
        <h2 className="flex min-w-0 flex-1 items-center gap-2 text-sm font-medium text-gray-800">
          {t("transfers.title")}
          <span aria-live="polite" className="flex items-center gap-1 text-xs">
            {activeCount > 0 || items.length === 0 ? (
              <span className={`rounded-full px-2 py-0.5 ${activeCount > 0 ? "bg-primary text-white" : "bg-gray-100 text-gray-600"}`}>
                {t("transfers.active", { count: activeCount })}
              </span>
            ) : (
              <>
                {doneCount > 0 && <span className="rounded-full bg-gray-100 px-2 py-0.5 text-gray-600">{t("transfers.done", { count: doneCount })}</span>}
                {doneCount > 0 && failedCount > 0 && (
                  <span aria-hidden="true" className="text-gray-400">
                    ·
                  </span>
                )}
                {failedCount > 0 && <span className="rounded-full bg-red-600 px-2 py-0.5 text-white">{t("transfers.failed", { count: failedCount })}</span>}
                {skippedCount > 0 && (doneCount > 0 || failedCount > 0) && (
                  <span aria-hidden="true" className="text-gray-400">
                    ·
                  </span>
                )}
                {skippedCount > 0 && <span className="rounded-full bg-gray-100 px-2 py-0.5 text-gray-600">{t("transfers.skipped-count", { count: skippedCount })}</span>}
              </>
            )}
          </span>
        </h2>
        <Button
          size="small"
          variant="text"
          aria-expanded={expanded}
          aria-label={t(expanded ? "transfers.collapse" : "transfers.expand")}
          onClick={() => {
            writePreference(expanded ? "collapsed" : "expanded");
            pinned.current = !expanded;
            setExpanded(!expanded);
          }}
        >
          <ChevronDownIcon className={expanded ? "" : "rotate-180"} />
        </Button>
        <Button size="small" variant="text" aria-label={t("transfers.close")} onClick={() => setOpen(false)}>
          <CloseIcon />
        </Button>
      </header>
      {expanded &&
        (items.length === 0 ? (
          // Opened from the top bar before anything was transferred.
          <Empty description={t("transfers.empty")} className="flex-1" />
        ) : (
          <ul aria-label={t("transfers.list")} className="min-h-0 flex-1 overflow-y-auto">
            {withRefusalsFirst(items).map((item) => (
              <TransferRow key={item.id} item={item} actions={rowActions} />
            ))}
          </ul>
        ))}
      {expanded && canWrite && (
        <footer className="shrink-0 border-t border-gray-200 px-4 py-2 text-xs text-gray-700">
          <Checkbox
            label={t("transfers.use-browser-manager")}
            checked={browserManager}
            onChange={(checked) => {
              setBrowserManager(checked);
              writeDownloadMode(checked ? "browser" : "page");
            }}
          />
        </footer>
      )}
    </section>
  );
}
