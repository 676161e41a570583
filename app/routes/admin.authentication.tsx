import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LdapImport } from "~/admin/authentication/ldap-import";
import { PermissionsForm } from "~/admin/authentication/permissions-form";
import {
  AUTHENTICATION_SETTINGS as SETTINGS,
  importAccounts,
  savePermissions,
  saveWay,
} from "~/admin/authentication/actions.server";
import { WayForm } from "~/admin/authentication/way-form";
import { Tabs } from "~/components/ui/tabs";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import type {
  AuthenticationInfo,
  DirectoryAccount,
} from "../../contract/authentication";

type Tab = "way" | "permissions";

/** Authentication (admin document, section 2): the way tab (with the LDAP/AD import) and the default permissions tab. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const tab: Tab = params.get("tab") === "permissions" ? "permissions" : "way";
  const settings = await admin.call<AuthenticationInfo>(SETTINGS);
  if (!settings.result || !settings.data)
    throw new Response(settings.message, { status: 502 });
  const search = params.get("ldapSearch");
  let directory: { list: DirectoryAccount[]; truncated: boolean } | null = null;
  let directoryError: number | null = null;
  if (tab === "way" && search !== null && settings.data.ldapServer) {
    const query = new URLSearchParams({ limit: "50" });
    if (search.trim()) query.set("search", search.trim().slice(0, 64));
    const found = await admin.call<{
      list: DirectoryAccount[];
      truncated: boolean;
    }>(`/api/admin/ldap/accounts?${query.toString()}`);
    if (found.result && found.data) directory = found.data;
    else directoryError = found.code;
  }
  return data(
    { tab, settings: settings.data, search, directory, directoryError },
    { headers: { "Set-Cookie": await admin.commit() } }
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const intent = form.get("intent");
  const answer =
    intent === "import"
      ? await importAccounts(admin, form)
      : intent === "save-permissions"
      ? await savePermissions(admin, form)
      : await saveWay(admin, form);
  return data(answer, { headers: { "Set-Cookie": await admin.commit() } });
}

export default function AuthenticationPage() {
  const { tab, settings, search, directory, directoryError } =
    useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const saved = answer && "saved" in answer && answer.saved;
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">
        {t("admin.auth.title")}
      </h1>
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
        hrefFor={(key) =>
          key === "way"
            ? "/admin/authentication"
            : `/admin/authentication?tab=${key}`
        }
        link={({ href, ...props }) => <Link to={href} {...props} />}
      >
        {tab === "way" ? (
          <div className="flex flex-col gap-6">
            <WayForm
              key={`${settings.way}`}
              settings={settings}
              lastResult={
                answer?.intent === "way" ? answer.submission : undefined
              }
              tested={
                answer?.intent === "way" &&
                "tested" in answer &&
                !!answer.tested
              }
            />
            {settings.ldapServer ? (
              <LdapImport
                search={search}
                directory={directory}
                errorCode={directoryError}
                result={answer?.intent === "import" ? answer.result : null}
              />
            ) : null}
          </div>
        ) : (
          <PermissionsForm
            mask={settings.defaultPermission}
            lastResult={
              answer?.intent === "permissions" ? answer.submission : undefined
            }
          />
        )}
      </Tabs>
    </div>
  );
}
