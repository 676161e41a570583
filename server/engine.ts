import type { FastifyInstance } from "fastify";
import { createCredentialCodec } from "../contract/credentials";
import { dashboardRoutes } from "./dashboard/routes";
import { databaseRoutes } from "./database/routes";
import { storageAdminRoutes } from "./storage/admin/routes";
import { createStorageAdmin } from "./storage/admin/service";
import { createDatabaseAdmin } from "./database/service";
import { settlePendingSwitch } from "./database/startup";
import { createDashboard, type Dashboard, type Lifecycle, type LifecycleActions } from "./dashboard/service";
import { createSampler } from "./dashboard/samples";
import { authRoutes } from "./auth/routes";
import { authenticationRoutes } from "./authentication/routes";
import { createAuthentication } from "./authentication/service";
import { createAuth } from "./auth/service";
import { createLockout } from "./auth/lockout";
import { createRateLimits } from "./limits/rate-limits";
import { type Clock, systemClock } from "./clock";
import type { Config } from "./config";
import { securePrivateFiles } from "./data-dir";
import { buildApi } from "./http/app";
import { apiServerUrl, fileServerEntries, openApiDocument } from "./http/openapi";
import { route, type RouteDef } from "./http/route";
import { installerRoutes } from "./installers/routes";
import { createInstallers } from "./installers/service";
import { VERSION } from "./version";
import { noticeRoutes } from "./notices/routes";
import { noticeAdminRoutes } from "./notices/admin-routes";
import { settingsRoutes } from "./settings/routes";
import { tlsRoutes } from "./tls/routes";
import { statisticsRoutes } from "./statistics/routes";
import { createStatistics } from "./statistics/service";
import { userRoutes } from "./users/routes";
import { groupRoutes } from "./groups/routes";
import { mailRoutes } from "./mail/routes";
import { siteRoutes } from "./site/routes";
import { siteDesignFileRoutes, siteDesignRoutes } from "./site-design/routes";
import { createSiteDesign } from "./site-design/service";
import { licenceRoutes } from "./licence/routes";
import { shareRoutes } from "./shares/routes";
import { shareAdminRoutes } from "./shares/admin-routes";
import { type FileServer, startFileServer } from "./fileserver/server";
import { handleSocket } from "./fileserver/socket";
import { createClientRegistry } from "./fileserver/clients";
import { createUserSockets } from "./fileserver/user-sockets";
import type { FileServerParts } from "./fileserver/parts";
import { fileCommandParts } from "./files/commands";
import { downloadParts } from "./fileserver/downloads";
import { thumbnailParts } from "./fileserver/thumbnails";
import { uploadParts } from "./uploads/tus";
import { clientAddressReader } from "./http/client-address";
import { requireWhitelistedUser } from "./auth/ip-whitelist";
import { loadForwardSecret } from "../contract/forwarding";
import { shareFileRoutes } from "./fileserver/share-routes";
import { createShareSockets } from "./fileserver/share-socket";
import { startPurgeTimer } from "./limits/purge";
import { withCommandLog, withRouteLog } from "./logs/hooks";
import { logRoutes } from "./logs/routes";
import { autoCleanRoutes } from "./storage/autoclean/routes";
import { autoCleanOf, autoCleanScheduleOf, startAutoClean } from "./storage/autoclean/wiring";
import { syncRoutes } from "./sync/routes";
import { syncOf } from "./sync/wiring";
import { p2pRoutes } from "./p2p/routes";
import { p2pOf, p2pParts } from "./p2p/wiring";
import { relayParts } from "./p2p/relay";
import { eventRoutes } from "./events/routes";
import { createTasks } from "./tasks/service";
import { taskRoutes } from "./tasks/routes";
import { createLogs, startLogSweep } from "./logs/service";
import { logHostTuning } from "./doctor/startup";
import { ADMIN_ACCOUNT, ensureAdministrator, openServices, type Services } from "./services";

export { ADMIN_ACCOUNT, type Services };

export interface Engine {
  services: Services;
  api: FastifyInstance;
  apiUrl: string;
  /** The file server (WebSocket commands, uploads, downloads), docs/file-server.md. */
  fileServer: FileServer;
  /** Set when this start created the administrator. */
  initialAdminPassword: string | null;
  stop(): Promise<void>;
}

/** The dashboard of an engine that is not serving (OpenAPI generation): routes only, never sampled. */
const describedDashboard = (s: Services) =>
  createDashboard({ services: s, lifecycle: { state: "running", startedAt: Date.now(), actions: null }, sampler: createSampler(s.config.dashboardSamples) });

/** The site design over the services (server/site-design/): stateless, so one per caller is fine. */
const siteDesignOf = (s: Services) => createSiteDesign({ dataDir: s.config.dataDir, settings: s.settings, licence: s.licence });

export function allRoutes(s: Services, dashboard: Dashboard = describedDashboard(s)): RouteDef[] {
  const codec = createCredentialCodec(s.config.hashidSalt);
  const lockout = createLockout(s.db, s.clock);
  const authentication = createAuthentication(s);
  const auth = createAuth({ ...s, codec, lockout, rates: createRateLimits(s.db, s.clock), edition: () => s.licence.edition(), addressLimits: s.config.addressLimits, ways: authentication });
  const routes = [...authRoutes(auth, s.tokens, s.users), ...authenticationRoutes(authentication), ...siteRoutes(s.config, s.settings, s.db, s.clock, s.tls, siteDesignOf(s)), ...noticeRoutes(s.notices), ...userRoutes(s.users), ...groupRoutes(s.groups), ...storageAdminRoutes(createStorageAdmin({ db: s.db, clock: s.clock, registry: s.storages, box: s.storageBox, driver: { builtinRoot: s.storages.builtinRoot, walk: s.spaces.walkLimits } })), ...noticeAdminRoutes(s.notices, s.noticeMailing), ...settingsRoutes(s.settings, () => s.licence.edition()), ...statisticsRoutes(createStatistics(s), s.settings), ...dashboardRoutes(dashboard), ...mailRoutes(s.mail), ...shareRoutes(s.shares, s.tokens), ...shareAdminRoutes(s.shares), ...shareFileRoutes(s), ...logRoutes(createLogs(s), s.settings), ...eventRoutes(s.events), ...taskRoutes(createTasks({ db: s.db, tasks: s.tasks, recorder: s.recorder })), ...tlsRoutes(s.tls, s.trust), ...databaseRoutes(createDatabaseAdmin(s))];
  routes.push(...syncRoutes(syncOf(s)));
  routes.push(...autoCleanRoutes(autoCleanOf(s), () => autoCleanScheduleOf(s)));
  routes.push(...p2pRoutes(p2pOf(s), s.settings));
  // Every route that changes something is in the operation log (server/logs/hooks.ts); not with
  // FERRY_BENCH_LOGS_OFF, the bench's baseline without the logs.
  if (!s.recorder.off) routes.splice(0, routes.length, ...withRouteLog(s.recorder, routes));
  routes.push(...siteDesignRoutes(siteDesignOf(s)), ...licenceRoutes(s.licence, s.db));
  routes.push(
    route({
      method: "GET",
      url: "/api/openapi.json",
      tag: "site",
      summary: "This OpenAPI document.",
      auth: "public",
      // The port in use (set after listen, so also for port 0), not a default.
      handler: async () => openApiDocument(routes, VERSION, apiServerUrl(s.config.host, s.config.apiPort), fileServerEntries(s.config.host, s.tls.ports())),
    }),
  );
  return routes;
}

/**
 * `lifecycle`: what restart and shutdown do (server/main.ts); without it the dashboard refuses them,
 * as an engine embedded in another process (tests) cannot restart itself.
 */
export async function startEngine(config: Config, clock: Clock = systemClock, lifecycleActions: LifecycleActions | null = null): Promise<Engine> {
  const tightened = securePrivateFiles(config);
  // A copy verified on the database page is made again here, before anything is served (docs/database.md).
  await settlePendingSwitch(config, (line) => {
    if (config.logLevel !== "silent") process.stderr.write(`${line}\n`);
  });
  const services = await openServices(config, clock);
  const lifecycle: Lifecycle = { state: "starting", startedAt: Date.now(), actions: lifecycleActions };
  const sampler = createSampler(config.dashboardSamples);
  try {
    // Signed-in sockets by user: notice events (below) and the dashboard's connections.
    const userSockets = createUserSockets();
    const dashboard = createDashboard({ services, lifecycle, sampler, userSockets });
    const initialAdminPassword = await ensureAdministrator(services);
    let log: { warn(message: string): void } | null = null;
    const clientAddress = clientAddressReader({
      trustedProxies: config.trustedProxies,
      forwardKey: loadForwardSecret(config.dataDir, config.forwardSecret),
      onBadSignature: () =>
        log?.warn("a request carried X-Ferry-Client-Address with a signature that does not verify: ignored; if it came from the web, its FERRY_FORWARD_SECRET (or data directory) differs from the engine's"),
    });
    const api = buildApi({
      bodyLimit: config.apiBodyLimit,
      trustedProxies: config.trustedProxies,
      clientAddress,
      logLevel: config.logLevel,
      tokens: services.tokens,
      shareTokens: (token) => services.shares.access.checkToken(token),
      routes: allRoutes(services, dashboard),
    });
    for (const { path, from, to } of tightened) api.log.warn({ path, from: from.toString(8), to: to.toString(8) }, "file mode tightened: it was readable by other users");
    log = api.log;
    // A log write that fails never fails an action, but the administrator's log says it failed.
    services.recorder.setLog(api.log);
    // Events (server/events/, docs/events.md): their failures in the engine's log; the activated ones read before the first file operation;
    // downloads fire where their operation is logged.
    services.events.setLog((obj, msg) => api.log.warn(obj, msg));
    await services.events.load().catch((error: unknown) => api.log.error({ err: error }, "reading the events failed"));
    services.recorder.live.onDownload((meta, { ok, bytes }) => {
      // {user}: the account (looked up by id when the download did not name it); a share visitor's: the link owner, with the owner's paths.
      const owner = meta.owner;
      for (const p of owner ? owner.paths : meta.paths) services.events.fire({ type: ok ? "downloaded" : "download_failed", userId: owner ? owner.userId : meta.userId, ...(owner ? {} : { account: meta.account }), groupId: meta.groupId, path: p, size: bytes });
    });
    if (services.recorder.off) api.log.warn("FERRY_BENCH_LOGS_OFF=1: no operation or transfer log is written (a bench baseline, never for a real server)");
    installerRoutes(api, { installers: createInstallers(config.installersDir), tokens: services.tokens });
    siteDesignFileRoutes(api, { design: siteDesignOf(services), tokens: services.tokens });
    const address = await api.listen({ host: config.host, port: config.apiPort });
    config.apiPort = Number(new URL(address).port);
    const parts: FileServerParts[] = await Promise.all([fileCommandParts, downloadParts, thumbnailParts, uploadParts, p2pParts, relayParts].map((part) => part(services, api.log, clientAddress)));
    const allCommands = Object.assign({}, ...parts.map((p) => p.commands)) as FileServerParts["commands"];
    const commands = services.recorder.off ? allCommands : withCommandLog(services.recorder, allCommands);
    const shares = createShareSockets(services, commands);
    const clients = createClientRegistry({ db: services.db, clock, clientLimit: () => services.licence.clientLimit(), log: api.log });
    // Expired share tokens and counters go on a schedule (docs/security.md, section 1).
    const purge = startPurgeTimer(services.db, clock, config.purgeInterval, config.addressLimits.windowMs, api.log);
    // Log rows past their retention days go at start and hourly (server/logs/service.ts).
    const logSweep = startLogSweep(createLogs(services), 3_600_000, api.log);
    // Local storages whose auto-clean is on are cleaned once per FERRY_AUTOCLEAN_INTERVAL (docs/storage.md, "Auto-clean").
    const autoClean = startAutoClean(services, api.log);
    // Sync tasks (server/sync/): runs an engine stop or a crash cut short are marked "stopped by
    // server", then the schedule ticks.
    const sync = syncOf(services, api.log);
    await sync.start();
    // A change of a user's notices reaches their open pages at once (docs/file-server.md, "Events").
    const stopNoticeEvents = services.notices.onChange((userIds) => {
      for (const userId of userSockets.online(userIds)) {
        services.notices.unreadCount(userId).then(
          (unreadCount) => userSockets.push(userId, { event: "notice", data: { unreadCount } }),
          (error: unknown) => api.log.warn({ err: error }, "counting unread notices for an event failed"),
        );
      }
    });
    // Notification mails left queued by the last run go out now (server/notices/mailing.ts).
    services.noticeMailing.resume(api.log).catch((error: unknown) => api.log.error({ err: error }, "resuming notification mails failed"));
    sampler.start();
    // Speeds and the throughput of the transfers in progress (server/tasks/registry.ts).
    services.tasks.start();
    // Host settings that slow transfers (ferry doctor): a warning each, never awaited.
    void logHostTuning(config, api.log);
    const closeParts = () => {
      stopNoticeEvents();
      services.tasks.stopTimer();
      return Promise.all([sampler.stop(), ...parts.map((p) => p.close?.()), clients.close(), purge.stop(), logSweep.stop(), autoClean.stop(), services.transferNotices.stop(), services.noticeMailing.stop()]);
    };
    // An uploaded certificate wins over FERRY_TLS_CERT; "disable non-TLS" keeps the plain port shut.
    const tlsStart = await services.tls.startup();
    if (tlsStart.plainDisabled && !tlsStart.tls) api.log.warn("non-TLS connections are disabled but no certificate is in use: the file server accepts no connection until one is uploaded or non-TLS is enabled again");
    const fileServer = await startFileServer({
      host: config.host,
      port: config.filePort,
      tlsPort: config.fileTlsPort,
      tls: tlsStart.tls,
      plainDisabled: tlsStart.plainDisabled,
      allowedOrigins: config.webOrigins,
      handlers: parts.flatMap((p) => p.handlers),
      onSocket: (socket, req) => handleSocket(socket, req, { tokens: services.tokens, handlers: commands, shares, clients, userSockets, clientAddress, requireWhitelisted: (userId, ip) => requireWhitelistedUser(services.db, userId, ip), log: api.log }),
      log: api.log,
    }).catch(async (error: unknown) => {
      await closeParts();
      await api.close();
      throw error;
    });
    // With port 0 (tests) the system picked one; clients learn the port in use from /api/service/info.
    config.filePort = Number(new URL(fileServer.url).port);
    services.tls.attach(fileServer);
    lifecycle.state = "running";
    lifecycle.startedAt = Date.now();
    return {
      services,
      api,
      apiUrl: address.replace("0.0.0.0", "127.0.0.1").replace("[::]", "127.0.0.1"),
      fileServer,
      initialAdminPassword,
      async stop() {
        await fileServer.close();
        // Running syncs stop (their partial copies are dropped) and record it while the database is open.
        await sync.close();
        await closeParts();
        // Running event executables are stopped (their whole process group) and their runs written.
        await services.events.stop();
        await api.close();
        // The logs' last rows, after every request and transfer has ended.
        await services.recorder.stop();
        await services.db.close();
      },
    };
  } catch (error) {
    await sampler.stop();
    await services.db.close();
    throw error;
  }
}
