import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LdapImport } from "~/admin/authentication/ldap-import";
import { PermissionsForm } from "~/admin/authentication/permissions-form";
import { importSchema, permissionFormSchema, wayFormSchema } from "~/admin/authentication/schema";
import { WayForm } from "~/admin/authentication/way-form";
import { Tabs } from "~/components/ui/tabs";
import { codec } from "~/utils/credentials.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import type { AuthenticationInfo, DirectoryAccount, LdapImportData } from "../../contract/authentication";
import { Permission } from "../../contract/permissions";

type Tab = "way" | "permissions";
const SETTINGS = "/api/admin/settings/authentication";

/** Authentication (admin document, section 2): the way tab (with the LDAP/AD import) and the default permissions tab. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const tab: Tab = params.get("tab") === "permissions" ? "permissions" : "way";
  const settings = await admin.call<AuthenticationInfo>(SETTINGS);
  if (!settings.result || !settings.data) throw new Response(settings.message, { status: 502 });
  const search = params.get("ldapSearch");
  let directory: { list: DirectoryAccount[]; truncated: boolean } | null = null;
  let directoryError: number | null = null;
  if (tab === "way" && search !== null && settings.data.ldapServer) {
    const query = new URLSearchParams({ limit: "50" });
    if (search.trim()) query.set("search", search.trim().slice(0, 64));
    const found = await admin.call<{ list: DirectoryAccount[]; truncated: boolean }>(`/api/admin/ldap/accounts?${query.toString()}`);
    if (found.result && found.data) directory = found.data;
    else directoryError = found.code;
  }
  return data({ tab, settings: settings.data, search, directory, directoryError }, { headers: { "Set-Cookie": await admin.commit() } });
}

async function saveWay(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: wayFormSchema });
  if (submission.status !== "success") return { intent: "way" as const, submission: submission.reply() };
  const v = submission.value;
  const password = v.ldapTestPassword ? { ldapTestPassword: codec.encode(v.ldapTestPassword) } : {};
  const ldap = { ldapServer: v.ldapServer, ldapDomain: v.ldapDomain, ldapBase: v.ldapBase, ldapTestAccount: v.ldapTestAccount, ...password };
  if (v.intent === "test-ldap") {
    const reply = await admin.call(`${SETTINGS}/ldap/test`, { method: "POST", body: JSON.stringify(ldap) });
    if (!reply.result) return { intent: "way" as const, submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
    return { intent: "way" as const, tested: true, submission: submission.reply() };
  }
  // Only the chosen way's fields are on the page (with JavaScript): the others stay as stored.
  const body = {
    way: v.way,
    ...(form.has("ldapServer") ? ldap : {}),
    ...(form.has("httpAuthUrl") ? { httpAuthUrl: v.httpAuthUrl } : {}),
    ...(v.httpTimeout !== undefined ? { httpTimeout: v.httpTimeout } : {}),
  };
  const reply = await admin.call(SETTINGS, { method: "PATCH", body: JSON.stringify(body) });
  if (!reply.result) return { intent: "way" as const, submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
  return { intent: "way" as const, saved: true, submission: submission.reply() };
}

async function savePermissions(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: permissionFormSchema });
  if (submission.status !== "success") return { intent: "permissions" as const, submission: submission.reply() };
  const defaultPermission = submission.value.permission.reduce((mask, name) => mask | Permission[name], 0);
  const reply = await admin.call(SETTINGS, { method: "PATCH", body: JSON.stringify({ defaultPermission }) });
  if (!reply.result) return { intent: "permissions" as const, submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
  return { intent: "permissions" as const, saved: true, submission: submission.reply() };
}

async function importAccounts(admin: SignedIn, form: FormData) {
  const parsed = importSchema.safeParse({ intent: form.get("intent"), account: form.getAll("account") });
  if (!parsed.success) return { intent: "import" as const, result: { error: 400 } };
  const reply = await admin.call<LdapImportData>("/api/admin/ldap/import", { method: "POST", body: JSON.stringify({ accounts: parsed.data.account }) });
  return { intent: "import" as const, result: reply.result && reply.data ? reply.data : { error: reply.code } };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const intent = form.get("intent");
  const answer =
    intent === "import" ? await importAccounts(admin, form) : intent === "save-permissions" ? await savePermissions(admin, form) : await saveWay(admin, form);
  return data(answer, { headers: { "Set-Cookie": await admin.commit() } });
}

export default function AuthenticationPage() {
  const { tab, settings, search, directory, directoryError } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const saved = answer && "saved" in answer && answer.saved;
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.auth.title")}</h1>
      {saved && (
        <p role="status" className="text-sm text-green-700">
          {t("admin.auth.saved")}
        </p>
      )}
      <Tabs
        label={t("admin.auth.tabs")}
        items={[
          { key: "way", label: t("admin.auth.tab.way") },
          { key: "permissions", label: t("admin.auth.tab.permissions") },
        ]}
        selected={tab}
        hrefFor={(key) => (key === "way" ? "/admin/authentication" : `/admin/authentication?tab=${key}`)}
        link={({ href, ...props }) => <Link to={href} {...props} />}
      >
        {tab === "way" ? (
          <div className="flex flex-col gap-6">
            <WayForm
              key={`${settings.way}`}
              settings={settings}
              lastResult={answer?.intent === "way" ? answer.submission : undefined}
              tested={answer?.intent === "way" && "tested" in answer && !!answer.tested}
            />
            {settings.ldapServer ? (
              <LdapImport search={search} directory={directory} errorCode={directoryError} result={answer?.intent === "import" ? answer.result : null} />
            ) : null}
          </div>
        ) : (
          <PermissionsForm mask={settings.defaultPermission} lastResult={answer?.intent === "permissions" ? answer.submission : undefined} />
        )}
      </Tabs>
    </div>
  );
}
