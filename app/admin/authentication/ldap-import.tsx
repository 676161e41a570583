import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { Table, type Column } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import type { DirectoryAccount, LdapImportData } from "../../../contract/authentication";

const IMPORT_FORM = "ldap-import";

/**
 * The LDAP/AD import: search the directory (GET, `ldapSearch`), tick accounts in the table, import
 * them (POST /api/admin/ldap/import through the page's action) as Domain accounts.
 */
export function LdapImport({
  search,
  directory,
  errorCode,
  result,
}: {
  search: string | null;
  directory: { list: DirectoryAccount[]; truncated: boolean } | null;
  errorCode: number | null;
  result: (LdapImportData & { error?: undefined }) | { error: number } | null;
}) {
  const { t } = useTranslation();
  const columns: Column<DirectoryAccount>[] = [
    { type: "checkbox" },
    { title: t("admin.auth.import.account"), dataIndex: "account" },
    { title: t("admin.auth.import.fullname"), dataIndex: "fullname", type: "ellipsis" },
    { title: t("admin.auth.import.email"), dataIndex: "email", type: "ellipsis" },
    {
      key: "state",
      title: t("admin.auth.import.state"),
      type: "custom",
      render: (a) => t(a.exists ? "admin.auth.import.state.exists" : a.importable ? "admin.auth.import.state.new" : "admin.auth.import.state.name-format"),
    },
  ];
  return (
    <section aria-labelledby="ldap-import-title" className="flex flex-col gap-3 border-t border-gray-200 pt-4">
      <h2 id="ldap-import-title" className="text-base font-semibold text-gray-900">
        {t("admin.auth.import.title")}
      </h2>
      <Form method="get" action="/admin/authentication" role="search" className="flex items-end gap-2">
        <TextInput type="search" name="ldapSearch" label={t("admin.auth.import.search")} defaultValue={search ?? ""} maxLength={64} className="w-72" />
        <Button type="submit" variant="outlined">
          {t("global.search")}
        </Button>
      </Form>
      {errorCode !== null && (
        <p role="alert" className="text-sm text-red-700">
          {t(`error.${errorCode}`)}
        </p>
      )}
      {result && (
        <div role="status" className="flex flex-col gap-1 text-sm">
          {result.error !== undefined ? (
            <p className="text-red-700">{t(`error.${result.error}`)}</p>
          ) : (
            <>
              <p className="text-green-700">{t("admin.auth.import.done", { count: result.imported.length })}</p>
              {result.skipped.map((s) => (
                <p key={s.account} className="text-gray-700">
                  {t("admin.auth.import.skipped", { account: s.account, reason: t(`admin.auth.import.reason.${s.reason}`) })}
                </p>
              ))}
            </>
          )}
        </div>
      )}
      {directory && (
        <>
          <Table
            label={t("admin.auth.import.table")}
            columns={columns}
            data={directory.list}
            rowKey="account"
            rowLabel={(a) => a.account}
            selectionField={{ name: "account", form: IMPORT_FORM }}
          />
          {directory.truncated && <p className="text-sm text-gray-600">{t("admin.auth.import.truncated")}</p>}
          <Form id={IMPORT_FORM} method="post" action={`/admin/authentication?ldapSearch=${encodeURIComponent(search ?? "")}`}>
            <Button type="submit" name="intent" value="import">
              {t("admin.auth.import.button")}
            </Button>
          </Form>
        </>
      )}
    </section>
  );
}
