import * as z from "zod";
import { authenticationSettings, authWay, LDAP_IMPORT_MAX } from "../../../contract/authentication";
import { USED_PERMISSIONS } from "../../../contract/permissions";

const text = (max: number) => z.string().max(max).optional().default("");

/** The way tab's form: the way, the LDAP/AD fields and the HTTP fields (the contract's rules). Save or Test. */
export const wayFormSchema = z.object({
  intent: z.enum(["save-way", "test-ldap"]),
  way: z.coerce.number().pipe(authWay),
  ldapServer: authenticationSettings.shape.ldapServer.optional().default(""),
  ldapDomain: text(255),
  ldapBase: text(1024),
  ldapTestAccount: text(255),
  ldapTestPassword: text(256),
  httpAuthUrl: authenticationSettings.shape.httpAuthUrl.optional().default(""),
  httpTimeout: z.coerce.number().int().min(1).max(60).optional(),
});

/** The default-permissions tab: the ticked bits. */
export const permissionFormSchema = z.object({
  intent: z.literal("save-permissions"),
  permission: z.array(z.enum(USED_PERMISSIONS)).max(USED_PERMISSIONS.length).default([]),
});

/** The import: the accounts ticked in the directory search. */
export const importSchema = z.object({
  intent: z.literal("import"),
  account: z.array(z.string().min(1).max(255)).min(1).max(LDAP_IMPORT_MAX),
});
