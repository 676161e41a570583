import { useTranslation } from "react-i18next";
import { StatusBadge, type BadgeTone } from "~/components/ui/status-badge";
import { useFormatTime } from "~/utils/use-time-zone";
import type { SyncFrequency, SyncStatus } from "../../../contract/sync";

const TONE: Record<SyncStatus, BadgeTone> = {
  not_set: "neutral",
  idle: "neutral",
  in_queue: "info",
  activated: "info",
  stopping: "warning",
  stopped: "warning",
  stopped_by_server: "warning",
  succeed: "success",
  failed: "danger",
  insufficient_permission: "danger",
  connect_failed: "danger",
  server_connection_failed: "danger",
};

/** A sync task's or run's status (admin document, section 4 "Sync task status"). */
export function SyncStatusBadge({ status }: { status: SyncStatus }) {
  const { t } = useTranslation();
  return (
    <StatusBadge tone={TONE[status]} busy={status === "activated" || status === "in_queue" || status === "stopping"}>
      {t(`admin.sync.status.${status}`)}
    </StatusBadge>
  );
}

/** A task's frequency in words: manual, every N units, daily at HH:MM, once at a time (the reader's clock). */
export function useFrequencyText() {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  return (f: SyncFrequency): string => {
    if (f.kind === "interval") return t("admin.sync.every.value", { every: f.every, unit: t(`admin.sync.unit.${f.unit}`) });
    if (f.kind === "daily") return t("admin.sync.daily.value", { at: f.at });
    if (f.kind === "once") return t("admin.sync.once.value", { at: formatTime(f.at) });
    return t("admin.sync.frequency.manual");
  };
}
