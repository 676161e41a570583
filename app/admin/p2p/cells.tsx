import { useTranslation } from "react-i18next";
import type { P2pHistoryEntry, P2pLiveEntry } from "../../../contract/p2p";
import { type BadgeTone, StatusBadge } from "~/components/ui/status-badge";
import type { Column } from "~/components/ui/table";
import { formatDeviceId } from "~/p2p/device-id";

type Party = P2pLiveEntry["sender"];

/** One party of a transfer: the account, its device id (read out in groups of three) and the client address. */
export function PartyCell({ party }: { party: Party }) {
  const { t } = useTranslation();
  return (
    <span className="flex flex-col">
      <span className="break-words [overflow-wrap:anywhere]">{party.account}</span>
      <span className="whitespace-nowrap text-xs text-gray-600">{t("admin.p2p.device", { id: formatDeviceId(party.deviceId) })}</span>
      {party.address && <span className="break-all font-mono text-xs text-gray-600">{party.address}</span>}
    </span>
  );
}

/** The first top-level names of a transfer (the engine sends up to 20), the others counted, and its file and folder counts. */
export function NamesCell({ entry }: { entry: Pick<P2pHistoryEntry, "names" | "fileCount" | "folderCount"> }) {
  const { t } = useTranslation();
  const shown = entry.names.slice(0, 3);
  const more = entry.names.length - shown.length;
  const counts = [t("admin.p2p.counts.files", { count: entry.fileCount }), entry.folderCount > 0 && t("admin.p2p.counts.folders", { count: entry.folderCount })].filter(Boolean);
  return (
    <span className="flex flex-col">
      <span className="break-words [overflow-wrap:anywhere]">
        {shown.join(", ")}
        {more > 0 && <span className="text-gray-600"> {t("admin.p2p.names.more", { n: more })}</span>}
      </span>
      <span className="text-xs text-gray-600">{counts.join(t("admin.p2p.counts.and"))}</span>
    </span>
  );
}

/** The sender, receiver and names columns of the live list and the history. */
export function usePartyColumns<E extends P2pLiveEntry | P2pHistoryEntry>(): Column<E>[] {
  const { t } = useTranslation();
  return [
    { type: "custom", key: "sender", title: t("admin.p2p.column.sender"), width: 140, render: (e) => <PartyCell party={e.sender} /> },
    { type: "custom", key: "receiver", title: t("admin.p2p.column.receiver"), width: 140, render: (e) => <PartyCell party={e.receiver} /> },
    { type: "custom", key: "names", title: t("admin.p2p.column.names"), render: (e) => <NamesCell entry={e} /> },
  ];
}

/** The path in words: direct, relayed, held; or not chosen yet (an offer not answered). */
export function usePathWords() {
  const { t } = useTranslation();
  return (path: string) => (path === "direct" || path === "relay" || path === "held" ? t(`admin.p2p.path.${path}`) : t("admin.p2p.path.none"));
}

const TONES: Record<P2pLiveEntry["status"], BadgeTone> = {
  offered: "neutral",
  held: "warning",
  accepted: "info",
  running: "info",
  done: "success",
  failed: "danger",
  cancelled: "neutral",
  declined: "neutral",
  expired: "warning",
};

/** A transfer's status in words, as a badge coloured by how it stands or ended, and the path it takes (or took) in words under it (an unanswered offer's is not chosen yet). */
export function StatusCell({ status, path }: { status: P2pLiveEntry["status"]; path: string }) {
  const { t } = useTranslation();
  const pathWords = usePathWords();
  return (
    <span className="flex flex-col items-start gap-1">
      <StatusBadge tone={TONES[status]} busy={status === "running"}>
        {t(`admin.p2p.status.${status}`)}
      </StatusBadge>
      {/* A declined offer never moved a byte: it had no path. */}
      {status !== "declined" && <span className="text-xs text-gray-700">{status === "offered" ? pathWords("") : pathWords(path)}</span>}
    </span>
  );
}
