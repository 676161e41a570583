import { Client, escapeFilter, InvalidCredentialsError, ResultCodeError } from "ldapts";
import { ACCOUNT_PATTERN } from "../../contract/validation";
import { FerryError } from "../errors";

/*
 * The LDAP/AD way (docs/authentication.md, "LDAP/AD"): the test account binds and searches the base
 * for the account (uid, sAMAccountName, userPrincipalName or mail), then the account's own entry
 * binds with the password typed. Every value typed goes into a filter escaped (RFC 4515).
 */

export interface LdapServer {
  server: string;
  domain: string;
  base: string;
  testAccount: string;
  testPassword: string;
  /** Certificate authorities an ldaps:// server is checked against (client TLS); undefined: the system's roots. */
  ca?: string[];
}

/** An entry of the directory as Ferry reads it. */
export interface DirectoryEntry {
  dn: string;
  account: string;
  fullname: string;
  email: string;
}

export const LDAP_LIMITS = { connectTimeoutMs: 10_000, operationTimeoutMs: 15_000 } as const;

const ATTRIBUTES = ["uid", "sAMAccountName", "cn", "displayName", "mail", "userPrincipalName"];
/** People, not groups or machines: inetOrgPerson/posixAccount in OpenLDAP, user in AD. */
const PEOPLE = "(|(objectClass=inetOrgPerson)(objectClass=posixAccount)(objectClass=user)(objectClass=person))";

export function ldapUrl(server: string): string {
  const url = /^ldaps?:\/\//i.test(server) ? server : `ldap://${server}`;
  return url.replace(/\/$/, "");
}

/** The name the test account binds as: a DN as it is, account@domain for a bare name when a domain is set. */
export function bindName(account: string, domain: string): string {
  if (account === "" || account.includes("=") || account.includes("@") || account.includes("\\") || domain === "") return account;
  return `${account}@${domain}`;
}

const first = (value: Buffer | Buffer[] | string[] | string | undefined): string => {
  if (value === undefined) return "";
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined ? "" : v.toString();
};

function toEntry(raw: Record<string, Buffer | Buffer[] | string[] | string> & { dn: string }): DirectoryEntry {
  const upn = first(raw.userPrincipalName);
  return {
    dn: raw.dn,
    account: first(raw.uid) || first(raw.sAMAccountName) || upn.split("@")[0] || "",
    fullname: first(raw.displayName) || first(raw.cn),
    email: first(raw.mail),
  };
}

/** A value escaped for a filter (RFC 4515): * ( ) \ and NUL lose their meaning. */
const esc = (value: string) => escapeFilter`${value}`;

export const isImportableName = (account: string) => ACCOUNT_PATTERN.test(account);

/** 1056 when the server cannot be reached (or answers with something other than a bind result). */
const connectFailure = (error: unknown) => new FerryError("LdapConnectFailed", { reason: (error as { code?: string }).code ?? (error as Error).name ?? "connect" });

function isBadCredentials(error: unknown) {
  return error instanceof InvalidCredentialsError;
}

const clientFor = (s: Pick<LdapServer, "server" | "ca">) =>
  new Client({ url: ldapUrl(s.server), connectTimeout: LDAP_LIMITS.connectTimeoutMs, timeout: LDAP_LIMITS.operationTimeoutMs, strictDN: false, ...(s.ca ? { tlsOptions: { ca: s.ca } } : {}) });

/** Runs `work` on a connection bound as the test account; 1056 unreachable, 1057 the test account is refused. */
async function withTestBind<T>(s: LdapServer, work: (client: Client) => Promise<T>): Promise<T> {
  const client = clientFor(s);
  try {
    try {
      // No test account: an anonymous bind (directories that allow anonymous search).
      if (s.testAccount !== "") {
        if (s.testPassword === "") throw new FerryError("LdapAuthFailed", { reason: "no-password" });
        await client.bind(bindName(s.testAccount, s.domain), s.testPassword);
      }
    } catch (error) {
      if (error instanceof FerryError) throw error;
      if (isBadCredentials(error)) throw new FerryError("LdapAuthFailed", { reason: "test-account" });
      throw connectFailure(error);
    }
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof FerryError) throw error;
      if (error instanceof ResultCodeError) throw new FerryError("LdapConnectFailed", { reason: "search", ldapCode: error.code });
      throw connectFailure(error);
    }
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

async function searchPeople(client: Client, base: string, filter: string, sizeLimit: number) {
  const { searchEntries } = await client.search(base, { scope: "sub", filter: `(&${PEOPLE}${filter})`, attributes: ATTRIBUTES, sizeLimit });
  return searchEntries.map(toEntry);
}

/** The entries whose account, UPN or e-mail is exactly `name`. */
function findExact(client: Client, s: LdapServer, name: string) {
  const v = esc(name);
  return searchPeople(client, s.base, `(|(uid=${v})(sAMAccountName=${v})(userPrincipalName=${v})(mail=${v}))`, 2);
}

export function createLdapWay() {
  return {
    /** The Test button: connects and binds the test account (1056 / 1057), then reads the base. */
    async test(s: LdapServer): Promise<void> {
      await withTestBind(s, async (client) => {
        await client.search(s.base, { scope: "base", attributes: ["dn"], sizeLimit: 1 });
      });
    },

    /** Accounts whose account, name or e-mail contains `text` (all when empty), at most `limit`. */
    async search(s: LdapServer, text: string, limit: number): Promise<{ entries: DirectoryEntry[]; truncated: boolean }> {
      const v = esc(text);
      const filter = text === "" ? "(|(uid=*)(sAMAccountName=*))" : `(|(uid=*${v}*)(sAMAccountName=*${v}*)(cn=*${v}*)(displayName=*${v}*)(mail=*${v}*))`;
      const entries = await withTestBind(s, (client) => searchPeople(client, s.base, filter, limit + 1));
      const withNames = entries.filter((e) => e.account !== "");
      return { entries: withNames.slice(0, limit), truncated: withNames.length > limit };
    },

    /** One account by its exact name; null when none or more than one match. */
    async find(s: LdapServer, name: string): Promise<DirectoryEntry | "ambiguous" | null> {
      const found = await withTestBind(s, (client) => findExact(client, s, name));
      if (found.length > 1) return "ambiguous";
      return found[0] ?? null;
    },

    /**
     * Sign-in: the entry of `name` binds with `password`. Its entry when the directory takes the
     * password, null when it refuses it or knows no such account; 1056 when it cannot be reached.
     */
    async authenticate(s: LdapServer, name: string, password: string): Promise<DirectoryEntry | null> {
      // An empty password would be an unauthenticated bind, which a directory accepts for anyone.
      if (password === "") return null;
      // The user's password was not what the directory refused: a broken test account is the service's fault.
      const found = await withTestBind(s, (client) => findExact(client, s, name)).catch((error: unknown) => {
        if (error instanceof FerryError && error.errorName === "LdapAuthFailed") throw new FerryError("AuthServiceError", { reason: "ldap-test-account" });
        throw error;
      });
      if (found.length !== 1) return null;
      const entry = found[0]!;
      const client = clientFor(s);
      try {
        await client.bind(entry.dn, password);
        return entry;
      } catch (error) {
        if (isBadCredentials(error)) return null;
        throw connectFailure(error);
      } finally {
        await client.unbind().catch(() => undefined);
      }
    },
  };
}

export type LdapWay = ReturnType<typeof createLdapWay>;
