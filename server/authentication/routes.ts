import {
  authenticationInfo,
  authenticationPatch,
  ldapImportBody,
  ldapImportData,
  ldapSearchData,
  ldapSearchQuery,
  ldapTestBody,
  ldapTestData,
} from "../../contract/authentication";
import { route } from "../http/route";
import type { Authentication } from "./service";

/** The Authentication screen and the LDAP/AD import of the Users screen (docs/authentication.md). Administrator only. */
export function authenticationRoutes(authentication: Authentication) {
  return [
    route({
      method: "GET",
      url: "/api/admin/settings/authentication",
      tag: "admin",
      summary: "The authentication way (0 none, 1 LDAP/AD, 2 e-mail, 3 system, 4 external HTTP), its settings and the default permission. The LDAP test password is never returned.",
      auth: "admin",
      response: authenticationInfo,
      handler: () => authentication.info(),
    }),
    route({
      method: "PATCH",
      url: "/api/admin/settings/authentication",
      tag: "admin",
      summary:
        "Change the way and its settings (ldapTestPassword credential-encoded; empty keeps it). 4135 e-mail way without a server mail account, 4109 system way without PAM here, 4360 HTTP URL on a private address, 400 a way without its server/URL. defaultPermission also applies at once to system and HTTP accounts.",
      auth: "admin",
      body: authenticationPatch,
      response: authenticationInfo,
      handler: ({ body }) => authentication.patch(body),
    }),
    route({
      method: "POST",
      url: "/api/admin/settings/authentication/ldap/test",
      tag: "admin",
      summary: "The Test button: connect to the LDAP/AD server and bind the test account (fields given over the stored ones). 1056 cannot connect, 1057 test account or password wrong.",
      auth: "admin",
      body: ldapTestBody,
      response: ldapTestData,
      handler: ({ body }) => authentication.testLdap(body),
    }),
    route({
      method: "GET",
      url: "/api/admin/ldap/accounts",
      tag: "admin",
      summary: "Search the directory for accounts to import (account, name or e-mail containing `search`). 1056 / 1057 as the Test button.",
      auth: "admin",
      query: ldapSearchQuery,
      response: ldapSearchData,
      handler: ({ query }) => authentication.searchLdap(query.search ?? "", query.limit),
    }),
    route({
      method: "POST",
      url: "/api/admin/ldap/import",
      tag: "admin",
      summary: "Import picked directory accounts as Domain accounts (type 4) with the default permission; each one found again in the directory first. Existing, missing or badly named ones are skipped with the reason.",
      auth: "admin",
      body: ldapImportBody,
      response: ldapImportData,
      handler: ({ body }) => authentication.importLdap(body.accounts),
    }),
  ];
}
