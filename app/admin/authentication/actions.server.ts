import { parseWithZod } from "@conform-to/zod/v4";
import { codec } from "~/utils/credentials.server";
import type { SignedIn } from "~/utils/session.server";
import type { LdapImportData } from "../../../contract/authentication";
import { Permission } from "../../../contract/permissions";
import { importSchema, permissionFormSchema, wayFormSchema } from "./schema";

/** The authentication screen's posts (routes/admin.authentication.tsx): the way, the default permissions, the LDAP/AD import. */
export const AUTHENTICATION_SETTINGS = "/api/admin/settings/authentication";
const SETTINGS = AUTHENTICATION_SETTINGS;

export async function saveWay(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: wayFormSchema });
  if (submission.status !== "success")
    return { intent: "way" as const, submission: submission.reply() };
  const v = submission.value;
  const password = v.ldapTestPassword
    ? { ldapTestPassword: codec.encode(v.ldapTestPassword) }
    : {};
  const ldap = {
    ldapServer: v.ldapServer,
    ldapDomain: v.ldapDomain,
    ldapBase: v.ldapBase,
    ldapTestAccount: v.ldapTestAccount,
    ...password,
  };
  if (v.intent === "test-ldap") {
    const reply = await admin.call(`${SETTINGS}/ldap/test`, {
      method: "POST",
      body: JSON.stringify(ldap),
    });
    if (!reply.result)
      return {
        intent: "way" as const,
        submission: submission.reply({ formErrors: [`error.${reply.code}`] }),
      };
    return {
      intent: "way" as const,
      tested: true,
      submission: submission.reply(),
    };
  }
  // Only the chosen way's fields are on the page (with JavaScript): the others stay as stored.
  const body = {
    way: v.way,
    ...(form.has("ldapServer") ? ldap : {}),
    ...(form.has("httpAuthUrl") ? { httpAuthUrl: v.httpAuthUrl } : {}),
    ...(v.httpTimeout !== undefined ? { httpTimeout: v.httpTimeout } : {}),
  };
  const reply = await admin.call(SETTINGS, {
    method: "PATCH",
    body: JSON.stringify(body),
  });
  if (!reply.result)
    return {
      intent: "way" as const,
      submission: submission.reply({ formErrors: [`error.${reply.code}`] }),
    };
  return {
    intent: "way" as const,
    saved: true,
    submission: submission.reply(),
  };
}

export async function savePermissions(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: permissionFormSchema });
  if (submission.status !== "success")
    return { intent: "permissions" as const, submission: submission.reply() };
  const defaultPermission = submission.value.permission.reduce(
    (mask, name) => mask | Permission[name],
    0
  );
  const reply = await admin.call(SETTINGS, {
    method: "PATCH",
    body: JSON.stringify({ defaultPermission }),
  });
  if (!reply.result)
    return {
      intent: "permissions" as const,
      submission: submission.reply({ formErrors: [`error.${reply.code}`] }),
    };
  return {
    intent: "permissions" as const,
    saved: true,
    submission: submission.reply(),
  };
}

export async function importAccounts(admin: SignedIn, form: FormData) {
  const parsed = importSchema.safeParse({
    intent: form.get("intent"),
    account: form.getAll("account"),
  });
  if (!parsed.success)
    return { intent: "import" as const, result: { error: 400 } };
  const reply = await admin.call<LdapImportData>("/api/admin/ldap/import", {
    method: "POST",
    body: JSON.stringify({ accounts: parsed.data.account }),
  });
  return {
    intent: "import" as const,
    result: reply.result && reply.data ? reply.data : { error: reply.code },
  };
}
