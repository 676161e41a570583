import { randomInt } from "node:crypto";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { createCredentialCodec } from "../contract/credentials";
import { passwordProblem } from "../contract/validation";
import { adminRoutes } from "./admin/routes";
import { type Accounts, createAccounts } from "./accounts/service";
import { authRoutes } from "./auth/routes";
import { createAuth } from "./auth/service";
import { createLockout } from "./auth/lockout";
import { createTokens, type Tokens } from "./auth/tokens";
import { type Clock, systemClock } from "./clock";
import { type Config, ConfigError } from "./config";
import { type Db, openDatabase } from "./db/connect";
import { buildApi } from "./http/app";
import { openApiDocument } from "./http/openapi";
import { route, type RouteDef } from "./http/route";
import { installerRoutes } from "./installers/routes";
import { createInstallers } from "./installers/service";
import { VERSION } from "./version";
import { createNotices, type Notices } from "./notices/service";
import { noticeRoutes } from "./notices/routes";
import { createSettings, type Settings } from "./settings/service";
import { siteRoutes } from "./site/routes";
import { createHomes } from "./storage/homes";
import { createSpaces, type Spaces } from "./files/spaces";
import { createHashes, type Hashes } from "./files/hashes";
import { type FileServer, startFileServer } from "./fileserver/server";
import { handleSocket } from "./fileserver/socket";
import { createClientRegistry } from "./fileserver/clients";
import type { FileServerParts } from "./fileserver/parts";
import { fileCommandParts } from "./files/commands";
import { downloadParts } from "./fileserver/downloads";
import { uploadParts } from "./uploads/tus";

export const ADMIN_ACCOUNT = "admin";

export interface Services {
  config: Config;
  clock: Clock;
  db: Db;
  settings: Settings;
  tokens: Tokens;
  accounts: Accounts;
  notices: Notices;
  spaces: Spaces;
  hashes: Hashes;
}

/** Opens the database and wires the services; shared by the engine and the operator CLI. */
export async function openServices(config: Config, clock: Clock = systemClock): Promise<Services> {
  const db = await openDatabase(config.databaseUrl);
  const settings = createSettings(db);
  const tokens = createTokens(db, clock, { access: config.accessTokenTtl, refresh: config.refreshTokenTtl });
  const storageRoot = path.join(config.dataDir, "storage");
  const homes = createHomes(storageRoot);
  const accounts = createAccounts({ db, clock, tokens, settings, homes });
  const notices = createNotices(db, clock);
  const spaces = createSpaces(db, path.resolve(storageRoot));
  const hashes = createHashes(db);
  return { config, clock, db, settings, tokens, accounts, notices, spaces, hashes };
}

/** A password that passes every rule: 16 characters from all four classes. */
function generatePassword(): string {
  const sets = ["ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnpqrstuvwxyz", "23456789", "-_.!@#%"];
  for (;;) {
    const chars = Array.from({ length: 16 }, (_, i) => {
      const set = sets[i < 4 ? i : randomInt(sets.length)]!;
      return set[randomInt(set.length)]!;
    });
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j]!, chars[i]!];
    }
    const password = chars.join("");
    if (!passwordProblem(password, ADMIN_ACCOUNT)) return password;
  }
}

/**
 * First start: creates the single administrator, who must change the password at first sign-in.
 * Returns the initial password when this call created the account (so it is printed exactly once).
 */
export async function ensureAdministrator(services: Services): Promise<string | null> {
  const existing = await services.db.kysely.selectFrom("users").select("id").where("role", "=", "admin").executeTakeFirst();
  if (existing) return null;
  const password = services.config.adminPassword ?? generatePassword();
  const problem = passwordProblem(password, ADMIN_ACCOUNT, (await services.settings.get("security")).weakPasswords);
  if (problem) {
    throw new ConfigError(
      `FERRY_ADMIN_PASSWORD breaks the password rules (${problem}): 8–20 characters, three of upper/lower/digit/other, no spaces or Chinese, not containing "${ADMIN_ACCOUNT}", not a weak password.`,
    );
  }
  await services.accounts.createUser({ account: ADMIN_ACCOUNT, password, needUpdatePwd: true, fullname: "Administrator" }, "admin");
  return password;
}

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

export function allRoutes(s: Services): RouteDef[] {
  const codec = createCredentialCodec(s.config.hashidSalt);
  const lockout = createLockout(s.db, s.clock);
  const auth = createAuth({ ...s, codec, lockout, edition: s.config.edition });
  const routes = [...authRoutes(auth, s.tokens, s.accounts), ...siteRoutes(s.config, s.settings, s.db, s.clock), ...noticeRoutes(s.notices), ...adminRoutes(s.accounts, s.notices, s.settings)];
  routes.push(
    route({
      method: "GET",
      url: "/api/openapi.json",
      tag: "site",
      summary: "This OpenAPI document.",
      auth: "public",
      handler: async () => openApiDocument(routes, VERSION),
    }),
  );
  return routes;
}

export async function startEngine(config: Config, clock: Clock = systemClock): Promise<Engine> {
  const services = await openServices(config, clock);
  try {
    const initialAdminPassword = await ensureAdministrator(services);
    const api = buildApi({
      bodyLimit: config.apiBodyLimit,
      trustedProxies: config.trustedProxies,
      logLevel: config.logLevel,
      tokens: services.tokens,
      routes: allRoutes(services),
    });
    installerRoutes(api, { installers: createInstallers(config.installersDir), tokens: services.tokens });
    const address = await api.listen({ host: config.host, port: config.apiPort });
    const parts: FileServerParts[] = await Promise.all([fileCommandParts, downloadParts, uploadParts].map((part) => part(services, api.log)));
    const commands = Object.assign({}, ...parts.map((p) => p.commands)) as FileServerParts["commands"];
    const clients = createClientRegistry({ db: services.db, clock, edition: config.edition, log: api.log });
    const closeParts = () => Promise.all([...parts.map((p) => p.close?.()), clients.close()]);
    const fileServer = await startFileServer({
      host: config.host,
      port: config.filePort,
      allowedOrigins: config.webOrigins,
      handlers: parts.flatMap((p) => p.handlers),
      onSocket: (socket, req) => handleSocket(socket, req, { tokens: services.tokens, handlers: commands, clients, log: api.log }),
      log: api.log,
    }).catch(async (error: unknown) => {
      await closeParts();
      await api.close();
      throw error;
    });
    // With port 0 (tests) the system picked one; clients learn the port in use from /api/service/info.
    config.filePort = Number(new URL(fileServer.url).port);
    return {
      services,
      api,
      apiUrl: address.replace("0.0.0.0", "127.0.0.1").replace("[::]", "127.0.0.1"),
      fileServer,
      initialAdminPassword,
      async stop() {
        await fileServer.close();
        await closeParts();
        await api.close();
        await services.db.close();
      },
    };
  } catch (error) {
    await services.db.close();
    throw error;
  }
}
