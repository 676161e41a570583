import { useTranslation } from "react-i18next";
import { Facts } from "~/components/ui/facts";
import { formatSize } from "~/utils/format";
import { useFormatTime } from "~/utils/use-time-zone";
import type { AdminUser, SpaceUsage } from "../../../contract/admin";
import type { DashboardLicense } from "../../../contract/dashboard";

/** Online with the number of connections, or offline. */
export function OnlineState({ user }: { user: Pick<AdminUser, "online" | "connections"> }) {
  const { t } = useTranslation();
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${user.online ? "bg-green-600" : "bg-gray-400"}`} />
      {!user.online ? t("admin.users.offline") : user.connections > 0 ? t("admin.users.online.connections", { count: user.connections }) : t("admin.users.online")}
    </span>
  );
}

/** The expanded row: how many connections and the addresses they come from. */
export function ConnectionsDetail({ user }: { user: Pick<AdminUser, "connections" | "addresses"> }) {
  const { t } = useTranslation();
  return (
    <Facts
      className="py-1"
      rows={[
        [t("admin.users.detail.connections"), user.connections > 0 ? user.connections : t("admin.users.detail.none")],
        user.connections > 0 &&
          (user.addresses.length > 0
            ? [t("admin.users.detail.addresses"), user.addresses, "mono-list"]
            : [t("admin.users.detail.addresses"), t("admin.users.detail.unknown")]),
      ]}
    />
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
export function SpaceCell({ space, quota }: { space: SpaceUsage | null; quota: number }) {
  const { t } = useTranslation();
  // The General settings' user space statistics are off: the engine measured nothing.
  if (space === null) return <span className="text-gray-600">{t("admin.settings.statistics.off")}</span>;
  return (
    <span className="flex flex-col leading-tight">
      <span>{t("admin.users.space.used", { used: formatSize(space.used), quota: quota > 0 ? formatSize(quota) : t("admin.users.space.unlimited") })}</span>
      <span className="text-xs text-gray-600">
        {t("admin.users.space.files", { count: space.files })}, {t("admin.users.space.folders", { count: space.folders })}
      </span>
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
