import { readFileSync } from "node:fs";
import { arch, cpus, hostname, networkInterfaces, release, totalmem, type as osType } from "node:os";
import type {
  DashboardConnections,
  DashboardInfo,
  DashboardLicense,
  DashboardMetrics,
  DashboardStatus,
  DashboardStorage,
  DashboardSummary,
  DashboardTuning,
  ServerState,
} from "../../contract/dashboard";
import { evaluate, warnings } from "../doctor/checks";
import { readDisks, readHost } from "../doctor/readings";
import { countOnlineClients } from "../fileserver/clients";
import type { UserSockets } from "../fileserver/user-sockets";
import { fail } from "../errors";
import type { Services } from "../services";
import { localRootOf, type StoredConfig, storedObject } from "../storage/registry";
import { VERSION } from "../version";
import type { Sampler } from "./samples";

/**
 * What the engine's process does when the administrator restarts or shuts Ferry down (server/main.ts
 * gives it; an engine embedded elsewhere, as in the tests, has none and refuses with 4109).
 */
export interface LifecycleActions {
  restart(): void;
  shutdown(): void;
}

/** The engine's own state (spec section 4), kept by startEngine and changed by the actions. */
export interface Lifecycle {
  state: ServerState;
  startedAt: number;
  actions: LifecycleActions | null;
}

export interface DashboardDeps {
  services: Services;
  lifecycle: Lifecycle;
  sampler: Sampler;
  /** Signed-in file-server sockets of this engine; absent while routes are only described (OpenAPI). */
  userSockets?: UserSockets;
}

/** The operating system's own name where it tells it (/etc/os-release), with kernel and architecture. */
function osName(): string {
  let pretty = "";
  try {
    pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? "";
  } catch {
    // Not Linux, or no os-release: the kernel's name will do.
  }
  return [pretty, `${osType()} ${release()}`, arch()].filter(Boolean).join(", ");
}

function firstMac(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const item of list ?? []) if (!item.internal && item.mac && item.mac !== "00:00:00:00:00:00") return item.mac;
  }
  return "";
}

/** How long the host-tuning readings are reused: they change when an operator tunes the host, not by the second. */
export const TUNING_CACHE_MS = 60_000;

/** How long after the answer the engine stops, so the answer reaches the administrator first. */
const ACTION_DELAY_MS = 100;

/** The dashboard's panels (docs/admin-api.md, "Dashboard"): live values, read at each call. */
export function createDashboard({ services, lifecycle, sampler, userSockets }: DashboardDeps) {
  const { config, db, tokens, settings, clock } = services;

  async function connections(): Promise<DashboardConnections> {
    const [online, clientOnline] = await Promise.all([tokens.onlineUserIds(), countOnlineClients(db, clock.now())]);
    return {
      webOnline: online.size,
      socketOnline: userSockets ? userSockets.online([...online]).length : 0,
      client_online: clientOnline,
      clientLimit: await services.licence.clientLimit(),
    };
  }

  /** Each filesystem Ferry keeps something on, once, with df's numbers: the data directory, the built-in storage and every local storage. */
  async function storage(): Promise<DashboardStorage> {
    const locals = await db.kysely.selectFrom("storages").select("config").where("provider", "=", "local").execute();
    const builtin = services.storages.builtinRoot;
    const places = [...new Set([builtin, config.dataDir, ...locals.map((row) => localRootOf({ config: storedObject<StoredConfig>(row.config) }, builtin))])];
    const { disks } = await readDisks(places);
    return { disks: disks.map((d) => ({ id: String(d.dev), paths: d.paths, total: d.size, used: d.used, free: d.free })) };
  }

  async function license(): Promise<DashboardLicense> {
    const row = await db.kysely
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("role", "=", "user")
      .executeTakeFirst();
    // The truth of docs/licence.md: activated only by a valid licence; FERRY_EDITION's override is not one.
    const [e, clientLimit, userLimit] = await Promise.all([services.licence.effective(), services.licence.clientLimit(), services.licence.userLimit()]);
    const licensed = e.source === "licence" ? e.licence : null;
    return {
      status: licensed ? "activated" : "inactivated",
      edition: e.edition,
      source: e.source,
      userLimit,
      userCount: Number(row?.n ?? 0),
      clientLimit,
      activationDate: licensed ? e.activatedAt : null,
      expiryDate: licensed ? licensed.expiresAt : null,
      licensee: licensed ? licensed.licensee : null,
      problem: e.problem,
    };
  }

  function status(): DashboardStatus {
    return {
      state: lifecycle.state,
      startedAt: lifecycle.startedAt,
      uptime: Math.max(0, Math.floor((Date.now() - lifecycle.startedAt) / 1000)),
      pid: process.pid,
      canRestart: lifecycle.actions !== null,
    };
  }

  async function info(): Promise<DashboardInfo> {
    const transfer = await settings.get("transfer");
    return {
      name: hostname(),
      version: VERSION,
      mac: firstMac(),
      os: osName(),
      host: transfer.host || config.host,
      apiport: config.apiPort,
      // The ports listening now: 0 / null while non-TLS is disabled / no certificate is in use.
      no_ssl_port: services.tls.ports().plain ?? 0,
      ssl_port: services.tls.ports().tls,
      cpus: cpus().length,
      memory: totalmem(),
    };
  }

  /**
   * The doctor's quick checks (server/doctor/startup.ts reads the same: small /proc files and statfs,
   * no child process), read again at most once a minute however often the dashboard polls.
   */
  let tuningRead: { at: number; answer: Promise<DashboardTuning> } | null = null;
  function tuning(): Promise<DashboardTuning> {
    const now = clock.now();
    if (tuningRead && now - tuningRead.at < TUNING_CACHE_MS) return tuningRead.answer;
    const answer = readHost(config, { quick: true }).then((readings) => {
      const checks = evaluate(readings);
      return {
        checkedAt: now,
        warnings: warnings(checks).length,
        checks: checks.map(({ id, title, status, found, why, sysctl, advice }) => ({ id, title, status, found, why, advice, sysctl: sysctl.map(({ key, value, current }) => ({ key, value, current })) })),
      };
    });
    tuningRead = { at: now, answer };
    // A failed reading is not kept: the next call reads again.
    answer.catch(() => {
      if (tuningRead?.answer === answer) tuningRead = null;
    });
    return answer;
  }

  /** Restart or shutdown: answers with the new state at once, and acts just after. */
  function act(action: keyof LifecycleActions, state: ServerState): DashboardStatus {
    const actions = lifecycle.actions ?? fail("FeatureNotSupported", { reason: "this engine is embedded and cannot restart or stop itself" });
    if (lifecycle.state !== "running") fail("FeatureNotSupported", { reason: `the engine is ${lifecycle.state}` });
    lifecycle.state = state;
    setTimeout(() => actions[action](), ACTION_DELAY_MS);
    return status();
  }

  return {
    connections,
    storage,
    license,
    status,
    info,
    metrics: (): DashboardMetrics => sampler.series(),
    tuning,
    async summary(): Promise<DashboardSummary> {
      const [c, s, l, i] = await Promise.all([connections(), storage(), license(), info()]);
      return { connections: c, storage: s, license: l, status: status(), info: i };
    },
    restart: () => act("restart", "restarting"),
    shutdown: () => act("shutdown", "shuttingDown"),
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
