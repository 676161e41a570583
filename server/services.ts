import { randomInt } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ADMIN_ACCOUNT } from "../contract/auth";
import { passwordProblem } from "../contract/validation";
import { type AccountHomes, createAccountHomes } from "./accounts/shared";
import { createTokens, type Tokens } from "./auth/tokens";
import { type Clock, systemClock } from "./clock";
import { type Config, ConfigError } from "./config";
import { forgetInitialAdminPassword, initialAdminPasswordFile, PRIVATE_FILE_MODE, tightenMode } from "./data-dir";
import { type Db, openDatabase } from "./db/connect";
import { switchedDatabaseDown, switchedDatabaseUrl } from "./database/startup";
import { createHashes, type Hashes } from "./files/hashes";
import { createQuota, type Quota } from "./files/quota";
import { createMail, type Mail } from "./mail/service";
import { createShareMailer, type ShareMailer } from "./mail/share-mail";
import { createSecretBox, loadEngineSecret, type SecretBox } from "./mail/secret";
import { createSpaces, type Spaces } from "./files/spaces";
import { createGroups, type Groups } from "./groups/service";
import { createLicence, type Licence } from "./licence/service";
import { createEvents, type Events } from "./events/service";
import { createRecorder, type Recorder } from "./logs/recorder";
import { createNotices, type Notices } from "./notices/service";
import { createTransferNotices, type TransferNotices } from "./notices/transfers";
import { createNoticeMailing, type NoticeMailing } from "./notices/mailing";
import { createShares, type Shares } from "./shares/service";
import { createSettings, type Settings } from "./settings/service";
import { createSpeed, type Speed } from "./speed/service";
import { createTaskRegistry, type TaskRegistry } from "./tasks/registry";
import { createHomes } from "./storage/homes";
import { createStorageRegistry, type StorageRegistry } from "./storage/registry";
import { countHome, createUsageCache, type UsageCache } from "./storage/usage";
import { createUsers, type Users } from "./users/service";
import { createTls, type Tls } from "./tls/service";
import { createClientTrust, type ClientTrust } from "./tls/trust";

/*
 * The engine's services over the database and the storage, without any listener: the engine
 * (engine.ts) serves them, and the operator CLI uses them directly, so a CLI command does not load
 * the file server's libraries.
 */

/** The single administrator's account (contract/auth.ts: the web's console checks it too). */
export { ADMIN_ACCOUNT };

export interface Services {
  config: Config;
  clock: Clock;
  db: Db;
  settings: Settings;
  tokens: Tokens;
  users: Users;
  groups: Groups;
  notices: Notices;
  spaces: Spaces;
  /** The administrator's storages as drivers (server/storage/registry.ts). */
  storages: StorageRegistry;
  /** Seals the storages' credentials (SecretBox "storage"). */
  storageBox: () => SecretBox;
  /** Where users' and groups' homes are, on their storages. */
  accountHomes: AccountHomes;
  /** The home usage counts (server/storage/usage.ts). */
  usage: UsageCache;
  hashes: Hashes;
  quota: Quota;
  /** SMTP sender accounts and sending (docs/mail.md). */
  mail: Mail;
  /** Share mails and owner notices, for the share service. */
  shareMailer: ShareMailer;
  /** The administrator's notices of notify-admin users' transfers (docs/mail.md, "Transfer notices to the administrator"). */
  transferNotices: TransferNotices;
  /** The administrator's notifications with their rules and their mails (server/notices/mailing.ts). */
  noticeMailing: NoticeMailing;
  /** Share links and invitations; `shares.access.resolveShareToken` serves the file server. */
  shares: Shares;
  /** Users' and group spaces' speed limits, per engine process (docs/file-server.md, "Speed limits"). */
  speed: Speed;
  /** The file server's certificate and the non-TLS switch (docs/file-server.md, "TLS"). */
  tls: Tls;
  /** Client TLS: authorities Ferry's outgoing TLS trusts (docs/admin-api.md, "Client TLS"). */
  trust: ClientTrust;
  /** The licence and the edition in effect, read live (docs/licence.md). */
  licence: Licence;
  /** The administrator's events: fired by file operations, they run executables (server/events/, docs/events.md). */
  events: Events;
  /** The operation and transfer logs' batched writer (server/logs/recorder.ts). */
  recorder: Recorder;
  /** The transfers in progress on this engine instance (server/tasks/registry.ts). */
  tasks: TaskRegistry;
}

/** Opens the database and wires the services; shared by the engine and the operator CLI. */
export async function openServices(config: Config, clock: Clock = systemClock): Promise<Services> {
  // A switch made on the database page wins over DATABASE_URL; its database down stops the start (docs/database.md).
  const switched = switchedDatabaseUrl(config);
  if (switched) config.databaseUrl = switched.url;
  const db = await openDatabase(config.databaseUrl).catch((error: unknown) => {
    throw switched ? switchedDatabaseDown(switched.url, switched.file, error) : error;
  });
  const settings = createSettings(db);
  const tokens = createTokens(db, clock, { access: config.accessTokenTtl, refresh: config.refreshTokenTtl, reuseGraceMs: config.refreshReuseGraceMs });
  const storageRoot = path.join(config.dataDir, "storage");
  const walk = { maxDepth: config.walkMaxDepth, maxEntries: config.walkMaxEntries };
  let storageSecrets: SecretBox | null = null;
  const storageBox = () => (storageSecrets ??= createSecretBox(loadEngineSecret(config.dataDir, config.secret), "storage"));
  const storages = createStorageRegistry(db, storageBox, {
    builtinRoot: path.resolve(storageRoot),
    walk,
  });
  const homes = createHomes(storages);
  const spaces = createSpaces(db, storages, walk);
  const usage = createUsageCache(async (location) => countHome(await storages.atLocation(location)), clock);
  const accountHomes = createAccountHomes(homes, usage, storages);
  const licence = createLicence({ db, clock, config });
  const users = createUsers({ db, clock, tokens, settings, homes: accountHomes, userLimit: () => licence.userLimit() });
  const groups = createGroups({ db, clock, homes: accountHomes, users });
  const notices = createNotices(db, clock);
  const hashes = createHashes(db);
  const quota = createQuota(db, usage, clock);
  const trust = createClientTrust({ config, clock });
  const mail = createMail({ db, config, clock, settings, trust });
  const shareMailer = createShareMailer(mail, db, clock);
  let passwordBox: SecretBox | null = null;
  const shares = createShares({
    db,
    clock,
    spaces,
    mailer: shareMailer,
    webOrigins: config.webOrigins,
    webPort: config.webPort,
    passwordBox: () => (passwordBox ??= createSecretBox(loadEngineSecret(config.dataDir, config.secret), "share-password")),
    limits: config.shareLimits,
  });
  await shares.sealStoredPasswords();
  const transferNotices = createTransferNotices({ db, clock, notices, mail, windowMs: config.transferNoticeWindowMs });
  const noticeMailing = createNoticeMailing({ db, notices, mail });
  return { config, clock, db, settings, tokens, users, groups, notices, spaces, storages, storageBox, accountHomes, usage, hashes, quota, mail, shareMailer, transferNotices, noticeMailing, shares, licence, speed: createSpeed({ db, settings, clock, timeZone: config.timeZone }), recorder: createRecorder(db, clock, { off: config.logsOff }), events: createEvents({ db, clock, config }), tasks: createTaskRegistry(clock), tls: createTls({ config, clock }), trust };
}

/**
 * What the first start says about the administrator it created, framed so it stands out of the log
 * around it (`npm start` repeats the password in its own banner, printed last).
 */
export function firstStartBanner(config: Pick<Config, "adminPassword" | "dataDir">, password: string): string {
  const lines = [`First start: administrator account "${ADMIN_ACCOUNT}" created.`];
  if (config.adminPassword) lines.push("Its initial password is the one in FERRY_ADMIN_PASSWORD.");
  else {
    lines.push(
      `Initial password:  ${password}`,
      `Also saved in ${initialAdminPasswordFile(config.dataDir)}`,
      "(readable only by its owner; deleted after the first password change).",
    );
  }
  lines.push("Sign in with it; you will be asked to choose a new password.");
  const rule = "=".repeat(Math.max(...lines.map((l) => l.length)) + 4);
  return [rule, ...lines.map((l) => `  ${l}`), rule].join("\n");
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
 * Returns the initial password when this call created the account (so it is printed exactly once);
 * a generated one is also written to `initialAdminPasswordFile`. Later starts remove that file once
 * the administrator has chosen a password (also when that happened through the CLI).
 */
export async function ensureAdministrator(services: Services): Promise<string | null> {
  const existing = await services.db.kysely.selectFrom("users").select(["id", "need_update_pwd"]).where("role", "=", "admin").executeTakeFirst();
  if (existing) {
    if (!existing.need_update_pwd) forgetInitialAdminPassword(services.config.dataDir);
    return null;
  }
  const password = services.config.adminPassword ?? generatePassword();
  const problem = passwordProblem(password, ADMIN_ACCOUNT, (await services.settings.get("security")).weakPasswords);
  if (problem) {
    throw new ConfigError(
      `FERRY_ADMIN_PASSWORD breaks the password rules (${problem}): 8–20 characters, three of upper/lower/digit/other, no spaces or Chinese, not containing "${ADMIN_ACCOUNT}", not a weak password.`,
    );
  }
  await services.users.createUser({ account: ADMIN_ACCOUNT, password, needUpdatePwd: true, fullname: "Administrator" }, "admin");
  if (!services.config.adminPassword) {
    const file = initialAdminPasswordFile(services.config.dataDir);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${password}\n`, { mode: PRIVATE_FILE_MODE });
    // A file left from an earlier data directory keeps its mode on overwrite: tighten it.
    tightenMode(file, PRIVATE_FILE_MODE);
  }
  return password;
}
