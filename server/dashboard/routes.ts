import {
  dashboardConnections,
  dashboardInfo,
  dashboardLicense,
  dashboardMetrics,
  dashboardStatus,
  dashboardStorage,
  dashboardSummary,
  dashboardTuning,
} from "../../contract/dashboard";
import { route } from "../http/route";
import type { Dashboard } from "./service";

/** The administrator's dashboard (docs/admin-api.md, "Dashboard"). Every route needs the administrator's token. */
export function dashboardRoutes(dashboard: Dashboard) {
  const base = "/api/admin/dashboard";
  return [
    route({ method: "GET", url: base, tag: "admin", summary: "Every dashboard panel but the charts at once: connections, storage, license, status, info.", auth: "admin", response: dashboardSummary, handler: () => dashboard.summary() }),
    route({ method: "GET", url: `${base}/connections`, tag: "admin", summary: "Users online on the web, with a file-server socket, desktop clients and the edition's client limit.", auth: "admin", response: dashboardConnections, handler: () => dashboard.connections() }),
    route({ method: "GET", url: `${base}/storage`, tag: "admin", summary: "Size, used and free bytes of each filesystem Ferry's storage and data directory are on (df's numbers).", auth: "admin", response: dashboardStorage, handler: () => dashboard.storage() }),
    route({ method: "GET", url: `${base}/license`, tag: "admin", summary: "Edition, licence status, user limit and accounts created, expiry.", auth: "admin", response: dashboardLicense, handler: () => dashboard.license() }),
    route({ method: "GET", url: `${base}/status`, tag: "admin", summary: "The engine's state (running, restarting, shuttingDown, starting), start time, uptime, process id.", auth: "admin", response: dashboardStatus, handler: async () => dashboard.status() }),
    route({ method: "GET", url: `${base}/info`, tag: "admin", summary: "Main information: host name, version, MAC, OS, host, ports.", auth: "admin", response: dashboardInfo, handler: () => dashboard.info() }),
    route({ method: "GET", url: `${base}/metrics`, tag: "admin", summary: "CPU, memory and per-interface network rates of the last minutes, one point per sample interval, oldest first.", auth: "admin", response: dashboardMetrics, handler: async () => dashboard.metrics() }),
    route({ method: "GET", url: `${base}/tuning`, tag: "admin", summary: "Host tuning: ferry doctor's quick checks (congestion control, qdisc, socket buffers, open files, free disk; clock when timesyncd's flag says so), each with what was found and the sysctl lines that fix it. Read again at most once a minute.", auth: "admin", response: dashboardTuning, handler: () => dashboard.tuning() }),
    route({ method: "POST", url: `${base}/restart`, tag: "admin", summary: "Restart the Ferry engine (not the host): answers restarting, then the engine stops and starts again. 4109 when it cannot.", auth: "admin", response: dashboardStatus, handler: async () => dashboard.restart() }),
    route({ method: "POST", url: `${base}/shutdown`, tag: "admin", summary: "Shut the Ferry service down (not the host): answers shuttingDown, then the engine (and under npm start the web) stops. 4109 when it cannot.", auth: "admin", response: dashboardStatus, handler: async () => dashboard.shutdown() }),
  ];
}
