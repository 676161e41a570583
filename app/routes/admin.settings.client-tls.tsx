import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { CLIENT_TLS_API, loadTlsPage, tlsPageAction } from "~/admin/tls/actions.server";
import { useCertificateRows } from "~/admin/tls/certificate-details";
import { Facts } from "~/components/ui/facts";
import { pemField, TlsPage, TlsRemove, TlsSection, TlsUploadSection } from "~/admin/tls/page-parts";
import { CLIENT_TLS_FORM_LIMIT, clientTlsUploadSchema } from "~/admin/tls/schema";
import type { ClientTlsInfo } from "../../contract/tls";

const PAGE = "/admin/settings/client-tls";

/** Client TLS (admin document, section 2): the certificate authorities Ferry's outgoing TLS trusts (docs/admin-api.md, "Client TLS"). */
export async function loader({ request }: LoaderFunctionArgs) {
  return loadTlsPage<ClientTlsInfo>(request, CLIENT_TLS_API);
}

export async function action({ request }: ActionFunctionArgs) {
  return tlsPageAction(request, {
    page: PAGE,
    limit: CLIENT_TLS_FORM_LIMIT,
    change: (form) => (form.get("intent") === "remove" ? { ask: "remove", path: CLIENT_TLS_API, method: "DELETE", done: "admin.client-tls.removed" } : null),
    upload: { schema: clientTlsUploadSchema, path: CLIENT_TLS_API, body: async (value) => ({ authorities: await value.authorities.text() }), done: "admin.client-tls.upload.done" },
  });
}

export default function ClientTlsPage() {
  const { info: trust, confirm, now } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const rowsOf = useCertificateRows();
  return (
    <TlsPage title={t("admin.client-tls.title")} intro={t("admin.client-tls.intro")}>
      <TlsSection id="client-tls-covers" title={t("admin.client-tls.covers")} tight>
        <ul className="list-disc pl-5 text-sm text-gray-800">
          {trust.covers.map((c) => (
            <li key={c}>{t(`admin.client-tls.covers.${c}`)}</li>
          ))}
        </ul>
      </TlsSection>

      <TlsSection id="client-tls-current" title={t("admin.client-tls.current")}>
        {trust.authorities.length === 0 ? (
          <p className="text-sm text-gray-700">{t("admin.client-tls.none")}</p>
        ) : (
          <ul aria-label={t("admin.client-tls.table")} className="flex flex-col divide-y divide-gray-100">
            {trust.authorities.map((ca) => (
              <li key={ca.fingerprint} className="py-3 first:pt-0">
                <Facts rows={[[t("admin.client-tls.subject"), ca.subject.replace(/\n/g, ", ")], ...rowsOf(ca, now).filter(([term]) => term !== t("admin.tls.key"))]} />
              </li>
            ))}
          </ul>
        )}
        {trust.authorities.length > 0 && (
          <TlsRemove page={PAGE} label={t("admin.client-tls.remove")} message={t("admin.client-tls.remove.confirm")} confirmLabel={t("admin.tls.remove.confirm-label")} asking={confirm === "remove"} />
        )}
      </TlsSection>

      <TlsUploadSection screen="client-tls" page={PAGE} schema={clientTlsUploadSchema} fields={[pemField("authorities", t("admin.client-tls.upload.file"))]} answer={answer} />
    </TlsPage>
  );
}
