import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Facts } from "~/components/ui/facts";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { Button } from "~/components/ui/button";
import { FormBuilder } from "~/components/ui/form";
import { useFormatTime } from "~/admin/dashboard/format";
import type { LicenceState } from "../../../contract/licence";
import { licenceSchema, PAGE } from "./schema";

/** The licence in effect and its upload (docs/licence.md); the dashboard's licence panel links here. */
export function LicenceSection({ licence, lastResult, asking }: { licence: LicenceState; lastResult: Parameters<typeof FormBuilder>[0]["lastResult"]; asking: boolean }) {
  const { t } = useTranslation();
  const date = useFormatTime("date");
  const terms = licence.licence;
  const rows: [string, React.ReactNode][] = [
    [t("dashboard.license.edition"), `${t(`dashboard.license.edition.${licence.edition}`)} — ${t(`admin.licence.source.${licence.source}`)}`],
    [t("dashboard.license.status"), t(`dashboard.license.status.${licence.status}`)],
  ];
  if (terms) {
    rows.push(
      [t("admin.licence.licensee"), terms.licensee],
      [t("dashboard.license.users"), licence.userLimit === null ? t("dashboard.license.users.unlimited", { count: licence.userCount }) : t("dashboard.license.users.limited", { count: licence.userCount, limit: licence.userLimit })],
      [t("admin.licence.issued"), date(terms.issuedAt * 1000)],
      [t("dashboard.license.expiry"), terms.expiresAt === null ? t("dashboard.license.never") : date(terms.expiresAt * 1000)],
    );
  }
  return (
    <section id="licence" aria-labelledby="site-licence" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <h2 id="site-licence" className="text-base font-semibold text-gray-900">
        {t("admin.licence.title")}
      </h2>
      <Facts label={t("admin.licence.title")} rows={rows} />
      {licence.problem && (
        <p role="alert" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800">
          {t(`error.${licence.problem.code}`)}
        </p>
      )}
      <FormBuilder
        id="licence-form"
        schema={licenceSchema}
        as={Form}
        method="post"
        action={PAGE}
        encType="multipart/form-data"
        lastResult={lastResult}
        fields={[{ name: "licence", label: t("admin.licence.file"), type: "file", accept: ".lic,.json,.txt", required: true, description: t("admin.licence.help") }]}
      >
        <Button type="submit" name="intent" value="licence">
          {t("admin.licence.upload")}
        </Button>
      </FormBuilder>
      {terms && (
        <div>
          <ConfirmedAction
            action={PAGE}
            fields={{ intent: "licence-remove" }}
            label={t("admin.licence.remove")}
            title={t("admin.licence.remove")}
            message={t("admin.licence.remove.confirm")}
            confirmLabel={t("admin.licence.remove.confirm-label")}
            danger
            asking={asking}
            cancelHref={PAGE}
          />
        </div>
      )}
    </section>
  );
}
