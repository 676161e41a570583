import type { Selectable } from "kysely";
import type { ClientTrust } from "../tls/trust";
import {
  AUTH_WAYS,
  type AuthenticationInfo,
  type AuthenticationPatch,
  type AuthSource,
  type AuthWay,
  type DirectoryAccount,
  type LdapImportData,
  SOURCE_OF_WAY,
  UNLISTED_SOURCES,
} from "../../contract/authentication";
import { type CredentialCodec, createCredentialCodec } from "../../contract/credentials";
import { normalizePermission } from "../../contract/permissions";
import { ACCOUNT_TYPES } from "../../contract/users";
import { ACCOUNT_PATTERN, nameProblem, PERSON_NAME_MAX } from "../../contract/validation";
import type { Config } from "../config";
import type { Db } from "../db/connect";
import type { UsersTable } from "../db/schema";
import { fail, FerryError } from "../errors";
import type { Mail } from "../mail/service";
import { createSecretBox, loadEngineSecret, type SecretBox } from "../mail/secret";
import type { Settings } from "../settings/service";
import type { Users } from "../users/service";
import { askHttpWay, checkAuthUrlOnSave } from "./http";
import { createLdapWay, type DirectoryEntry, isImportableName, type LdapServer } from "./ldap";
import { createSystemWay, systemWayProblem } from "./system";

type UserRow = Selectable<UsersTable>;

export interface AuthenticationDeps {
  db: Db;
  config: Config;
  settings: Settings;
  users: Users;
  mail: Mail;
  /** Client TLS: the authorities LDAP/AD and the HTTP way trust (server/tls/trust.ts). */
  trust?: ClientTrust;
}

/** The account type of the accounts each way creates (contract/users.ts). */
const TYPE_OF_SOURCE: Record<Exclude<AuthSource, "local">, number> = {
  ldap: ACCOUNT_TYPES.Domain,
  email: ACCOUNT_TYPES.Email,
  system: ACCOUNT_TYPES.Linux,
  http: ACCOUNT_TYPES.Normal,
};

/** Ways under which manually created accounts cannot sign in (admin document section 6). */
const EXCLUSIVE_WAYS: readonly AuthWay[] = [AUTH_WAYS.System, AUTH_WAYS.Http];

/** A directory's or mail server's name for a person, if it is one Ferry may show; else empty. */
const personName = (name: string) => {
  const cut = name.trim().slice(0, PERSON_NAME_MAX);
  return nameProblem(cut, PERSON_NAME_MAX) === null ? cut : "";
};

/** What a way says of a sign-in: refused (null), or who it is (the account to create when new). */
interface Proven {
  account: string;
  fullname: string;
  email: string;
}

/**
 * Authentication settings, the Test button, the LDAP/AD import, and the sign-in check of every way
 * (docs/authentication.md). The sign-in service (server/auth/service.ts) asks `verify` who a
 * sign-in is; everything else is the administrator's.
 */
export function createAuthentication({ db, config, settings, users, mail, trust }: AuthenticationDeps) {
  const k = db.kysely;
  const codec: CredentialCodec = createCredentialCodec(config.hashidSalt);
  let lazyBox: SecretBox | null = null;
  const box = () => (lazyBox ??= createSecretBox(loadEngineSecret(config.dataDir, config.secret), "ldap-test-password"));
  const ldap = createLdapWay();
  const system = createSystemWay({ pamService: config.pamService });

  const decodePassword = (encoded: string, field: string) => codec.decode(encoded) ?? fail("ParameterError", { field, reason: "encoding" });

  async function ldapServer(over: Partial<LdapServer> = {}): Promise<LdapServer> {
    const s = await settings.get("authentication");
    const stored: LdapServer = {
      server: s.ldapServer,
      domain: s.ldapDomain,
      base: s.ldapBase,
      testAccount: s.ldapTestAccount,
      testPassword: s.ldapTestPasswordSealed ? (box().open(s.ldapTestPasswordSealed, "ldap") ?? "") : "",
      ca: trust?.ca(),
    };
    const merged = { ...stored, ...Object.fromEntries(Object.entries(over).filter(([, v]) => v !== undefined)) };
    if (merged.server === "") fail("ParameterError", { field: "ldapServer", reason: "required" });
    if (merged.base === "") fail("ParameterError", { field: "ldapBase", reason: "required" });
    return merged;
  }

  async function info(): Promise<AuthenticationInfo> {
    const { ldapTestPasswordSealed, ...rest } = await settings.get("authentication");
    return { ...rest, hasLdapTestPassword: ldapTestPasswordSealed !== "", defaultPermission: (await settings.get("security")).defaultPermission };
  }

  /** System and HTTP accounts follow the default permission (they have no settings of their own). */
  async function applyDefaultPermission(permission: number) {
    await k.updateTable("users").set({ permission: normalizePermission(permission) }).where("auth_source", "in", UNLISTED_SOURCES).execute();
  }

  /** Asks the way in force whether `identity` has `password`; who it is when yes, null when no. */
  async function ask(way: Exclude<AuthWay, 0>, identity: string, password: string, ip: string | null): Promise<Proven | null> {
    const s = await settings.get("authentication");
    switch (way) {
      case AUTH_WAYS.Ldap: {
        const entry = await ldap.authenticate(await ldapServer(), identity, password);
        return entry && { account: entry.account, fullname: entry.fullname, email: entry.email };
      }
      case AUTH_WAYS.Email:
        if (!identity.includes("@")) return null;
        return (await mail.authenticates(identity, password)) ? { account: identity, fullname: "", email: identity } : null;
      case AUTH_WAYS.System:
        if (!ACCOUNT_PATTERN.test(identity)) return null;
        return (await system.authenticate(identity, password, ip)) ? { account: identity, fullname: "", email: "" } : null;
      case AUTH_WAYS.Http:
        if (!ACCOUNT_PATTERN.test(identity) || s.httpAuthUrl === "") return null;
        return (await askHttpWay(s.httpAuthUrl, identity, password, { timeoutMs: s.httpTimeout * 1000, allowPrivate: config.authHttpAllowPrivate, ca: trust?.ca() }))
          ? { account: identity, fullname: "", email: "" }
          : null;
    }
  }

  /** A free account name for an e-mail address: its local part in account characters, numbered when taken. */
  async function accountForEmail(address: string): Promise<string> {
    let base = address.split("@")[0]!.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 26);
    if (base.length < 3) base = base.padEnd(3, "_");
    for (let n = 1; n < 100; n++) {
      const name = n === 1 ? base : `${base}_${n}`;
      if (!(await users.findByAccount(name))) return name;
    }
    return fail("AccountNotAllowed", { reason: "no-free-name" });
  }

  /** Creates the account a way proved (or finds it, when a parallel sign-in made it first). */
  async function provision(source: Exclude<AuthSource, "local">, proven: Proven): Promise<UserRow> {
    const account = source === "email" ? await accountForEmail(proven.email) : proven.account;
    if (!ACCOUNT_PATTERN.test(account)) fail("AccountNotAllowed", { reason: "name-format" });
    // An address another account holds stays with it.
    const email = proven.email && !(await users.findByEmail(proven.email)) ? proven.email : "";
    try {
      await users.createUser(
        { account, password: "", fullname: personName(proven.fullname), email, accountType: TYPE_OF_SOURCE[source] as 2 | 4 | 5 | 6, needUpdatePwd: false },
        "user",
        source,
      );
    } catch (error) {
      if (!(error instanceof FerryError && error.errorName === "AccountExists")) throw error;
    }
    const row = (await users.findByAccount(account)) ?? fail("ServerError");
    if (row.auth_source !== source) fail("AccountNotAllowed", { reason: "name-taken" });
    return row;
  }

  async function importOne(s: LdapServer, name: string, permission: number): Promise<{ id: number; account: string } | LdapImportData["skipped"][number]> {
    const found = await ldap.find(s, name);
    if (found === null) return { account: name, reason: "not-found" };
    if (found === "ambiguous") return { account: name, reason: "ambiguous" };
    if (!isImportableName(found.account)) return { account: found.account, reason: "name-format" };
    if (await users.findByAccount(found.account)) return { account: found.account, reason: "exists" };
    const email = found.email && !(await users.findByEmail(found.email)) ? found.email : "";
    try {
      const user = await users.createUser(
        { account: found.account, password: "", fullname: personName(found.fullname), email, accountType: ACCOUNT_TYPES.Domain, permission, needUpdatePwd: false },
        "user",
        "ldap",
      );
      return { id: user.id, account: user.account };
    } catch (error) {
      if (error instanceof FerryError && error.errorName === "AccountExists") return { account: found.account, reason: "exists" };
      throw error;
    }
  }

  return {
    info,

    /** PATCH: the fields given over the stored ones; a way is refused while what it needs is missing. */
    async patch(body: AuthenticationPatch): Promise<AuthenticationInfo> {
      const { ldapTestPassword, defaultPermission, ...fields } = body;
      const current = await settings.get("authentication");
      const next = { ...current, ...fields };
      if (ldapTestPassword) next.ldapTestPasswordSealed = box().seal(decodePassword(ldapTestPassword, "ldapTestPassword"), "ldap");
      if (next.way === AUTH_WAYS.Ldap && (next.ldapServer === "" || next.ldapBase === "")) fail("ParameterError", { field: next.ldapServer === "" ? "ldapServer" : "ldapBase", reason: "required" });
      if (next.way === AUTH_WAYS.Email && !(await mail.serverConfigured())) fail("EmailNotConfigured");
      if (next.way === AUTH_WAYS.System) {
        const problem = systemWayProblem();
        if (problem) throw problem;
      }
      if (next.way === AUTH_WAYS.Http && next.httpAuthUrl === "") fail("ParameterError", { field: "httpAuthUrl", reason: "required" });
      if (fields.httpAuthUrl) await checkAuthUrlOnSave(fields.httpAuthUrl, config.authHttpAllowPrivate);
      await settings.update("authentication", next);
      if (defaultPermission !== undefined) {
        await settings.update("security", { defaultPermission });
        await applyDefaultPermission(defaultPermission);
      }
      return info();
    },

    /** The Test button: 1056 when the server cannot be reached, 1057 when the test account is refused. */
    async testLdap(body: { ldapServer?: string; ldapDomain?: string; ldapBase?: string; ldapTestAccount?: string; ldapTestPassword?: string }) {
      const s = await ldapServer({
        server: body.ldapServer,
        domain: body.ldapDomain,
        base: body.ldapBase,
        testAccount: body.ldapTestAccount,
        testPassword: body.ldapTestPassword ? decodePassword(body.ldapTestPassword, "ldapTestPassword") : undefined,
      });
      await ldap.test(s);
      return { connected: true as const, bound: true as const };
    },

    /** The import screen's search: directory accounts, with whether each can be and has been imported. */
    async searchLdap(search: string, limit: number): Promise<{ list: DirectoryAccount[]; truncated: boolean }> {
      const { entries, truncated } = await ldap.search(await ldapServer(), search, limit);
      const list = await Promise.all(
        entries.map(async (e: DirectoryEntry) => ({ ...e, importable: isImportableName(e.account), exists: (await users.findByAccount(e.account)) !== undefined })),
      );
      return { list, truncated };
    },

    /** Imports picked directory accounts as Domain accounts with the default permission. */
    async importLdap(names: string[]): Promise<LdapImportData> {
      const s = await ldapServer();
      const { defaultPermission } = await settings.get("security");
      const result: LdapImportData = { imported: [], skipped: [] };
      for (const name of new Set(names.map((n) => n.trim()))) {
        const outcome = await importOne(s, name, defaultPermission);
        if ("id" in outcome) result.imported.push(outcome);
        else result.skipped.push(outcome);
      }
      return result;
    },

    /**
     * Who a sign-in is, under the way in force: the account row when `password` proves it, null when
     * it does not. `local` checks a stored hash (the dummy one for undefined, so every refusal costs
     * a hash). The administrator always signs in locally; manually created accounts do under none,
     * LDAP/AD and e-mail, and never under system or HTTP (1018 when the way proves a name they hold);
     * an account a way created signs in only under that way; a name a way proves for the first time
     * becomes an account. A way that cannot be asked throws (1056, 4114, 4139, 4109, ...).
     */
    async verify(user: UserRow | undefined, typed: string, password: string, ip: string | null, local: (hash: string | undefined) => Promise<boolean>): Promise<UserRow | null> {
      const { way } = await settings.get("authentication");
      const source = user?.auth_source as AuthSource | undefined;
      const refuse = async () => {
        await local(undefined);
        return null;
      };
      if (user && (user.role === "admin" || (source === "local" && !EXCLUSIVE_WAYS.includes(way)))) return (await local(user.password_hash)) ? user : null;
      if (way === AUTH_WAYS.None) return refuse();
      const wayName = SOURCE_OF_WAY[way];
      if (user && source !== "local" && source !== wayName) return refuse();
      const identity = !user ? typed : wayName === "email" ? (user.email ?? "") : user.account;
      const proven = await ask(way, identity, password, ip);
      if (!proven) return null;
      if (user) {
        if (source === "local") fail("AccountNotAllowed", { reason: "manually-created" });
        if (UNLISTED_SOURCES.includes(wayName)) {
          const { defaultPermission } = await settings.get("security");
          await k.updateTable("users").set({ permission: normalizePermission(defaultPermission) }).where("id", "=", user.id).execute();
        }
        return (await users.findByAccount(user.account)) ?? null;
      }
      return provision(wayName, proven);
    },
  };
}

export type Authentication = ReturnType<typeof createAuthentication>;
