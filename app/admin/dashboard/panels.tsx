import { Form } from "@remix-run/react";
import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { DashboardConnections, DashboardInfo, DashboardLicense, DashboardStatus, DashboardStorage, ServerState } from "../../../contract/dashboard";
import { formatSize } from "../../../contract/sizes";
import { Button } from "~/components/ui/button";
import { cn } from "~/components/ui/cn";
import { Facts } from "~/components/ui/facts";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "./format";

/** The look of the dashboard's choosers (a disk, a network card), as the kit's select fields. */
export const SELECT_CLASS = "h-8 min-w-0 rounded border border-gray-300 bg-white px-2 text-sm text-gray-900 focus:border-primary focus:outline-none focus:ring-1 focus:ring-primary";

/** One dashboard panel: a region named by its heading. */
export function Panel({ title, children, className, actions }: { title: ReactNode; children: ReactNode; className?: string; actions?: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={cn("rounded-lg border border-gray-200 p-4", className)}>
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 id={id} className="text-base font-semibold">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A byte count shown with formatSize, the exact count kept machine-readable in <data value>. */
const Bytes = ({ bytes }: { bytes: number }) => <data value={bytes}>{formatSize(bytes)}</data>;

export function ConnectionsPanel({ connections }: { connections: DashboardConnections }) {
  const { t } = useTranslation();
  const { webOnline, socketOnline, client_online, clientLimit } = connections;
  return (
    <Panel title={t("dashboard.connections")}>
      <dl className="grid grid-cols-3 gap-3 text-center">
        {[
          [t("dashboard.connections.web"), String(webOnline)],
          [t("dashboard.connections.socket"), String(socketOnline)],
          [
            t("dashboard.connections.clients"),
            clientLimit === null ? t("dashboard.connections.clients.unlimited", { count: client_online }) : t("dashboard.connections.clients.limited", { count: client_online, limit: clientLimit }),
          ],
        ].map(([label, value]) => (
          <div key={label} className="rounded bg-gray-50 px-2 py-3">
            <dt className="text-xs text-gray-600">{label}</dt>
            <dd className="mt-1 text-xl font-semibold text-gray-900">{value}</dd>
          </div>
        ))}
      </dl>
      {clientLimit !== null && <p className="mt-3 text-xs text-gray-600">{t("dashboard.connections.limit-note", { limit: clientLimit })}</p>}
    </Panel>
  );
}

/**
 * Storage status: a disk to choose (each filesystem Ferry keeps something on), its size, used and
 * free bytes and a bar. Without JavaScript the choice is a GET form (?disk=…); with it, the list
 * switches at once.
 */
/** A disk in the chooser: its size first (never cut off), then the first thing Ferry keeps there. */
const diskLabel = (d: DashboardStorage["disks"][number]) => `${formatSize(d.total)} · ${d.paths[0] ?? d.id}`;

export function StoragePanel({ storage, disk, onDisk }: { storage: DashboardStorage; disk: string | null; onDisk: (id: string) => void }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const selectId = useId();
  const shown = storage.disks.find((d) => d.id === disk) ?? storage.disks[0];
  if (!shown) return <Panel title={t("dashboard.storage")}>{<p className="text-sm text-gray-600">{t("dashboard.storage.none")}</p>}</Panel>;
  const percent = shown.total > 0 ? Math.round((shown.used / (shown.used + shown.free || 1)) * 100) : 0;
  return (
    <Panel title={t("dashboard.storage")}>
      {/* The chooser has a line of its own: a disk's path is long (a third of the panel beside its label cut it off). */}
      <Form method="get" className="mb-3 text-sm" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={selectId} className="mb-1 block text-gray-600">
          {t("dashboard.storage.disk")}
        </label>
        <div className="flex items-center gap-2">
          <select
            id={selectId}
            name="disk"
            value={shown.id}
            title={diskLabel(shown)}
            onChange={(event) => onDisk(event.target.value)}
            className={cn(SELECT_CLASS, "w-full flex-1")}
          >
            {storage.disks.map((d) => (
              <option key={d.id} value={d.id}>
                {diskLabel(d)}
              </option>
            ))}
          </select>
          {!hydrated && (
            <Button type="submit" size="small" variant="outlined">
              {t("dashboard.storage.show")}
            </Button>
          )}
        </div>
      </Form>
      <div
        role="img"
        aria-label={t("dashboard.storage.bar", { percent, used: formatSize(shown.used), total: formatSize(shown.total), free: formatSize(shown.free) })}
        className="mb-3 h-3 overflow-hidden rounded-full bg-gray-200"
      >
        <div className={cn("h-full rounded-full", percent >= 90 ? "bg-red-600" : "bg-primary")} style={{ width: `${percent}%` }} />
      </div>
      <Facts
        rows={[
          [t("dashboard.storage.total"), <Bytes key="t" bytes={shown.total} />],
          [t("dashboard.storage.used"), <Bytes key="u" bytes={shown.used} />],
          [t("dashboard.storage.free"), <Bytes key="f" bytes={shown.free} />],
          [t("dashboard.storage.paths"), shown.paths.join(", "), "mono"],
        ]}
      />
    </Panel>
  );
}

export function LicensePanel({ license }: { license: DashboardLicense }) {
  const { t } = useTranslation();
  const date = useFormatTime("date");
  return (
    <Panel title={t("dashboard.license")}>
      <Facts
        rows={[
          [t("dashboard.license.edition"), `${t(`dashboard.license.edition.${license.edition}`)} — ${t(`admin.licence.source.${license.source}`)}`],
          [t("dashboard.license.status"), license.problem ? `${t(`dashboard.license.status.${license.status}`)}: ${t(`error.${license.problem.code}`)}` : t(`dashboard.license.status.${license.status}`)],
          [
            t("dashboard.license.users"),
            license.userLimit === null ? t("dashboard.license.users.unlimited", { count: license.userCount }) : t("dashboard.license.users.limited", { count: license.userCount, limit: license.userLimit }),
          ],
          [t("dashboard.license.clients"), license.clientLimit === null ? t("dashboard.license.unlimited") : String(license.clientLimit)],
          ...(license.licensee ? [[t("admin.licence.licensee"), license.licensee] as [string, string]] : []),
          [t("dashboard.license.activated"), license.activationDate === null ? t("dashboard.license.no-key") : date(license.activationDate * 1000)],
          [t("dashboard.license.expiry"), license.expiryDate === null ? t("dashboard.license.never") : date(license.expiryDate * 1000)],
        ]}
      />
      <a href="/admin/site-design#licence" className="mt-3 inline-block text-sm font-medium text-primary underline">
        {t("dashboard.license.manage")}
      </a>
    </Panel>
  );
}

const STATE_LOOK: Record<ServerState, string> = {
  running: "bg-green-50 text-green-800 border-green-300",
  paused: "bg-gray-50 text-gray-800 border-gray-300",
  shuttingDown: "bg-amber-50 text-amber-900 border-amber-300",
  restarting: "bg-amber-50 text-amber-900 border-amber-300",
  starting: "bg-amber-50 text-amber-900 border-amber-300",
  error: "bg-red-50 text-red-800 border-red-300",
};

/** The spec's server state (section 4) as a badge. */
export function StateBadge({ state }: { state: ServerState }) {
  const { t } = useTranslation();
  return <span className={cn("inline-block rounded border px-2 py-0.5 text-sm font-medium", STATE_LOOK[state])}>{t(`dashboard.state.${state}`)}</span>;
}

function useDuration() {
  const { t } = useTranslation();
  return (seconds: number) => {
    const days = Math.floor(seconds / 86_400);
    const hours = Math.floor((seconds % 86_400) / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    if (days > 0) return t("dashboard.duration.days", { days, hours, minutes });
    if (hours > 0) return t("dashboard.duration.hours", { hours, minutes });
    return t("dashboard.duration.minutes", { minutes, seconds: seconds % 60 });
  };
}

export function StatusPanel({ status, state, children }: { status: DashboardStatus; state: ServerState; children?: ReactNode }) {
  const { t } = useTranslation();
  const time = useFormatTime("dateTime");
  const duration = useDuration();
  return (
    <Panel title={t("dashboard.status")}>
      <div role="status" className="mb-3 flex items-center gap-2 text-sm">
        <span className="text-gray-600">{t("dashboard.status.state")}</span>
        <StateBadge state={state} />
      </div>
      <Facts
        rows={[
          // The exact start (a restart shows a new one) kept machine-readable, as the charts' latest sample.
          [t("dashboard.status.started"), <time key="started" dateTime={new Date(status.startedAt).toISOString()}>{time(status.startedAt)}</time>],
          [t("dashboard.status.uptime"), duration(status.uptime)],
          [t("dashboard.status.pid"), String(status.pid)],
        ]}
      />
      {children}
    </Panel>
  );
}

export function InfoPanel({ info }: { info: DashboardInfo }) {
  const { t } = useTranslation();
  return (
    <Panel title={t("dashboard.info")}>
      <Facts
        rows={[
          [t("dashboard.info.name"), info.name],
          [t("dashboard.info.version"), info.version],
          [t("dashboard.info.host"), info.host],
          [t("dashboard.info.os"), info.os],
          [t("dashboard.info.mac"), info.mac || "-"],
          [t("dashboard.info.ports"), t("dashboard.info.ports.value", { api: info.apiport, files: info.no_ssl_port, tls: info.ssl_port ?? t("dashboard.info.ports.no-tls") })],
          [t("dashboard.info.cpus"), String(info.cpus)],
          [t("dashboard.info.memory"), <Bytes key="m" bytes={info.memory} />],
        ]}
      />
    </Panel>
  );
}
