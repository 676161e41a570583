import { useTranslation } from "react-i18next";
import { formatSize } from "~/utils/format";
import { useFormatTime } from "~/utils/use-time-zone";
import type { AdminUser, SpaceUsage } from "../../../contract/admin";
import type { DashboardLicense } from "../../../contract/dashboard";

/** Online or offline (the engine reports no addresses or connection counts per user). */
export function OnlineState({ online }: { online: boolean }) {
  const { t } = useTranslation();
  return (
    <span className="inline-flex items-center gap-1.5">
      <span aria-hidden="true" className={`size-2 rounded-full ${online ? "bg-green-600" : "bg-gray-400"}`} />
      {online ? t("admin.users.online") : t("admin.users.offline")}
    </span>
  );
}

/** Locked by the administrator, locked for a while after wrong passwords, or normal. */
export function StatusCell({ user }: { user: AdminUser }) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  if (user.locked) return <span className="font-medium text-red-700">{t("admin.users.locked")}</span>;
  if (user.lockedUntil > 0)
    return (
      <span className="font-medium text-red-700" title={t("admin.users.locked-until", { time: formatTime(user.lockedUntil) })}>
        {t("admin.users.locked")}
      </span>
    );
  return <span className="text-gray-700">{t("admin.users.unlocked")}</span>;
}

/** Space occupation: used of quota, then the file and folder counts. */
export function SpaceCell({ space, quota }: { space: SpaceUsage; quota: number }) {
  const { t } = useTranslation();
  return (
    <span className="flex flex-col leading-tight">
      <span>{t("admin.users.space.used", { used: formatSize(space.used), quota: quota > 0 ? formatSize(quota) : t("admin.users.space.unlimited") })}</span>
      <span className="text-xs text-gray-600">{t("admin.users.space.counts", { files: space.files, folders: space.folders })}</span>
    </span>
  );
}

/** The account count against the edition's limit (spec section 1: a maximum or unlimited, and how many exist). */
export function LicenseLine({ license }: { license: DashboardLicense }) {
  const { t } = useTranslation();
  const vars = { count: license.userCount, limit: license.userLimit, edition: license.edition };
  const full = license.userLimit !== null && license.userCount >= license.userLimit;
  return (
    <div role="status" className={`rounded px-3 py-2 text-sm ${full ? "bg-amber-50 text-amber-900" : "bg-gray-50 text-gray-700"}`}>
      {license.userLimit === null ? t("admin.users.limit.unlimited", vars) : t("admin.users.limit.count", vars)}
      {full && <span className="ml-2">{t("admin.users.limit.reached", vars)}</span>}
    </div>
  );
}
