import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { Empty } from "../components/ui/empty";
import { ChevronDownIcon, CloseIcon } from "../components/ui/icons";
import { useFileServer } from "../files/file-server-context";
import { TransferRow } from "./transfer-row";
import { TransferStatus, type TransferItem } from "./types";
import { useAttachTransfers, useTransfers } from "./use-transfers";

const openers = new Set<() => void>();
/** Shows the panel (the top bar's transfer-list button). */
export function openTransferPanel() {
  openers.forEach((open) => open());
}

/**
 * Uploads the page itself is carrying: leaving would interrupt them. Downloads never count: the
 * browser's download manager has them (started without navigating the page), and a "Leave site?"
 * question answered "Stay" would have cancelled the very download that asked it.
 */
const uploading = (item: TransferItem) =>
  item.kind === "upload" && ((item.status === TransferStatus.Uploading && !item.paused && !item.needsFile) || item.status === TransferStatus.ServerChecking);

/**
 * The floating transfer list (spec section 2): bottom right, 350 px wide, 50 px collapsed and 470 px
 * expanded, the count of active transfers in its header. It appears when a transfer is added and
 * hides when closed or emptied; while anything runs, leaving the page asks first.
 */
export function TransferPanel({ account }: { account: string }) {
  const { t } = useTranslation();
  const server = useFileServer();
  useAttachTransfers(server?.connection ?? null, account, server?.tcpFileSizeLimit ?? 0);
  const transfers = useTransfers();
  const { items, activeCount } = transfers;
  const [open, setOpen] = useState(false);
  const [expanded, setExpanded] = useState(true);

  const seen = useRef(0);
  useEffect(() => {
    if (items.length > seen.current) setOpen(true);
    if (items.length === 0) setOpen(false);
    seen.current = items.length;
  }, [items.length]);

  useEffect(() => {
    const show = () => {
      setOpen(true);
      setExpanded(true);
    };
    openers.add(show);
    return () => {
      openers.delete(show);
    };
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
      aria-label={t("transfers.title")}
      // Above the page, below the modals (MODAL_Z_INDEX 10): an open dialog covers the panel like the rest.
      className="fixed bottom-0 right-4 z-[9] flex w-[350px] flex-col overflow-hidden rounded-t-md border border-gray-200 bg-white shadow-xl"
      style={{ height: expanded ? 470 : 50 }}
    >
      <header className="flex h-[50px] shrink-0 items-center gap-2 border-b border-gray-200 px-4">
        <h2 className="flex-1 text-sm font-medium text-gray-800">
          {t("transfers.title")}
          <span className={`ml-2 rounded-full px-2 py-0.5 text-xs ${activeCount > 0 ? "bg-primary text-white" : "bg-gray-100 text-gray-600"}`} aria-live="polite">
            {t("transfers.active", { count: activeCount })}
          </span>
        </h2>
        <Button
          size="small"
          variant="text"
          aria-expanded={expanded}
          aria-label={t(expanded ? "transfers.collapse" : "transfers.expand")}
          onClick={() => setExpanded(!expanded)}
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
            {items.map((item) => (
              <TransferRow key={item.id} item={item} actions={transfers} />
            ))}
          </ul>
        ))}
    </section>
  );
}
