import { parseWithZod } from "@conform-to/zod/v4";
import { codec } from "~/utils/credentials.server";
import type { SignedIn } from "~/utils/session.server";
import type { LdapImportData } from "../../../contract/authentication";
import { Permission } from "../../../contract/permissions";
import { importSchema, permissionFormSchema, wayFormSchema } from "./schema";

/** The authentication screen's posts (routes/admin.authentication.tsx): the way, the default permissions, the LDAP/AD import. */
export const AUTHENTICATION_SETTINGS = "/api/admin/settings/authentication";
const SETTINGS = AUTHENTICATION_SETTINGS;

/** Sends one engine call of a form's post; the answer carries the engine's refusal as a form error, or `done` (saved / tested). */
async function send<I extends string, R>(admin: SignedIn, intent: I, submission: { reply(options?: { formErrors: string[] }): R }, done: "saved" | "tested", path: string, method: string, body: unknown) {
  const reply = await admin.call(path, { method, body: JSON.stringify(body) });
  const answer: { intent: I; submission: R; saved?: boolean; tested?: boolean } = {
    intent,
    submission: reply.result ? submission.reply() : submission.reply({ formErrors: [`error.${reply.code}`] }),
  };
  if (reply.result) answer[done] = true;
  return answer;
}

export async function saveWay(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: wayFormSchema });
  if (submission.status !== "success") return { intent: "way" as const, submission: submission.reply() };
  const v = submission.value;
  const password = v.ldapTestPassword ? { ldapTestPassword: codec.encode(v.ldapTestPassword) } : {};
  const ldap = { ldapServer: v.ldapServer, ldapDomain: v.ldapDomain, ldapBase: v.ldapBase, ldapTestAccount: v.ldapTestAccount, ...password };
  if (v.intent === "test-ldap") return send(admin, "way", submission, "tested", `${SETTINGS}/ldap/test`, "POST", ldap);
  // Only the chosen way's fields are on the page (with JavaScript): the others stay as stored.
  const body = {
    way: v.way,
    ...(form.has("ldapServer") ? ldap : {}),
    ...(form.has("httpAuthUrl") ? { httpAuthUrl: v.httpAuthUrl } : {}),
    ...(v.httpTimeout !== undefined ? { httpTimeout: v.httpTimeout } : {}),
  };
  return send(admin, "way", submission, "saved", SETTINGS, "PATCH", body);
}

export async function savePermissions(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: permissionFormSchema });
  if (submission.status !== "success") return { intent: "permissions" as const, submission: submission.reply() };
  const defaultPermission = submission.value.permission.reduce((mask, name) => mask | Permission[name], 0);
  return send(admin, "permissions", submission, "saved", SETTINGS, "PATCH", { defaultPermission });
}

export async function importAccounts(admin: SignedIn, form: FormData) {
  const parsed = importSchema.safeParse({ intent: form.get("intent"), account: form.getAll("account") });
  if (!parsed.success) return { intent: "import" as const, result: { error: 400 } };
  const reply = await admin.call<LdapImportData>("/api/admin/ldap/import", { method: "POST", body: JSON.stringify({ accounts: parsed.data.account }) });
  return { intent: "import" as const, result: reply.result && reply.data ? reply.data : { error: reply.code } };
}
