import * as z from "zod";
import { ENCODED_PASSWORD_MAX } from "./auth";
import { PERMISSION_MAX } from "./permissions";
import { isWebLink } from "./settings";

/*
 * Authentication settings (admin document section 3, "Authentication settings"; the Authentication
 * screen of section 2) and the LDAP/AD import of the Users screen. docs/authentication.md.
 */

/** The way users sign in besides their local password: the spec's none, LDAP/AD, email, system/Unix, external http. */
export const AUTH_WAYS = { None: 0, Ldap: 1, Email: 2, System: 3, Http: 4 } as const;
export type AuthWay = (typeof AUTH_WAYS)[keyof typeof AUTH_WAYS];
export const authWay = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);

/** Where an account's password is checked: its own hash (local) or one of the ways. Stored per account. */
export const AUTH_SOURCES = ["local", "ldap", "email", "system", "http"] as const;
export type AuthSource = (typeof AUTH_SOURCES)[number];
/** The source of the accounts a way creates. */
export const SOURCE_OF_WAY: Record<Exclude<AuthWay, 0>, Exclude<AuthSource, "local">> = { 1: "ldap", 2: "email", 3: "system", 4: "http" };
/** Accounts of these sources have no entry in the users list and take the default permission (admin document section 6). */
export const UNLISTED_SOURCES: readonly AuthSource[] = ["system", "http"];

/** `ldap://host[:port]`, `ldaps://host[:port]` or a bare `host[:port]` (ldap:// assumed). */
export const LDAP_SERVER_PATTERN = /^(?:ldaps?:\/\/)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?\/?$/;
const ldapServer = z.string().max(255).refine((v) => v === "" || LDAP_SERVER_PATTERN.test(v), "must be ldap://host[:port], ldaps://host[:port] or host[:port]");
// eslint-disable-next-line no-control-regex -- control characters never belong in a DN or an account
const noControls = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");
const httpAuthUrl = z.string().max(2048).refine((v) => v === "" || isWebLink(v), "must be empty or an http: or https: address");

/** The settings as stored (the LDAP test password sealed with the engine secret, never in clear). */
export const authenticationSettings = z.object({
  way: authWay,
  ldapServer,
  ldapDomain: noControls(255).describe("AD domain (example.com): a bare account binds as account@domain."),
  ldapBase: noControls(1024).describe("Base DN searched for accounts (dc=example,dc=com)."),
  ldapTestAccount: noControls(255).describe("The account that binds to search the directory: a DN, account@domain, or a bare name (with the domain)."),
  ldapTestPasswordSealed: z.string().max(2048),
  httpAuthUrl,
  httpTimeout: z.number().int().min(1).max(60).describe("Seconds the HTTP way waits for its answer."),
});
export type AuthenticationSettings = z.infer<typeof authenticationSettings>;

export const AUTHENTICATION_DEFAULTS: AuthenticationSettings = {
  way: AUTH_WAYS.None,
  ldapServer: "",
  ldapDomain: "",
  ldapBase: "",
  ldapTestAccount: "",
  ldapTestPasswordSealed: "",
  httpAuthUrl: "",
  httpTimeout: 10,
};

const permission = z.number().int().min(0).max(PERMISSION_MAX);

/** GET /api/admin/settings/authentication → data. */
export const authenticationInfo = authenticationSettings.omit({ ldapTestPasswordSealed: true }).extend({
  hasLdapTestPassword: z.boolean().describe("Whether a test password is stored (it is never returned)."),
  defaultPermission: permission.describe("The default permissions tab: what accounts from the system and HTTP ways get (the security settings' defaultPermission)."),
});
export type AuthenticationInfo = z.infer<typeof authenticationInfo>;

const ldapTestPassword = z.string().max(ENCODED_PASSWORD_MAX).describe("Credential-encoded; empty keeps the stored one.");

/** PATCH /api/admin/settings/authentication: the given fields over the stored ones. */
export const authenticationPatch = authenticationSettings
  .omit({ ldapTestPasswordSealed: true })
  .extend({ ldapTestPassword, defaultPermission: permission })
  .partial()
  .strict();
export type AuthenticationPatch = z.infer<typeof authenticationPatch>;

/** POST /api/admin/settings/authentication/ldap/test: the form's values (absent ones: the stored). */
export const ldapTestBody = z
  .object({ ldapServer, ldapDomain: noControls(255), ldapBase: noControls(1024), ldapTestAccount: noControls(255), ldapTestPassword })
  .partial()
  .strict();
export const ldapTestData = z.object({ connected: z.literal(true), bound: z.literal(true) });

/** An account found in the directory. */
export const directoryAccount = z.object({
  account: z.string().describe("uid or sAMAccountName: the Ferry account name."),
  fullname: z.string(),
  email: z.string(),
  dn: z.string(),
  importable: z.boolean().describe("false when the name is not a valid Ferry account name (3–30 letters, digits, _)."),
  exists: z.boolean().describe("A Ferry account of this name exists already."),
});
export type DirectoryAccount = z.infer<typeof directoryAccount>;

export const LDAP_SEARCH_MAX = 200;
/** GET /api/admin/ldap/accounts. */
export const ldapSearchQuery = z
  .object({
    search: noControls(64).optional().describe("Part of the account, name or e-mail; empty lists every account."),
    limit: z.coerce.number().int().min(1).max(LDAP_SEARCH_MAX).default(50),
  })
  .strict();
export const ldapSearchData = z.object({ list: z.array(directoryAccount), truncated: z.boolean() });

export const LDAP_IMPORT_MAX = 100;
/** POST /api/admin/ldap/import: accounts picked from the search. */
export const ldapImportBody = z.object({ accounts: z.array(noControls(255).min(1)).min(1).max(LDAP_IMPORT_MAX) }).strict();
export const ldapImportData = z.object({
  imported: z.array(z.object({ id: z.number().int(), account: z.string() })),
  skipped: z.array(z.object({ account: z.string(), reason: z.enum(["exists", "not-found", "name-format", "ambiguous"]) })),
});
export type LdapImportData = z.infer<typeof ldapImportData>;
