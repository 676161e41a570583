import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { loadTlsPage, TLS_API, tlsPageAction } from "~/admin/tls/actions.server";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { useCertificateRows } from "~/admin/tls/certificate-details";
import { Facts } from "~/components/ui/facts";
import { pemField, TlsPage, TlsRemove, TlsSection, TlsUploadSection } from "~/admin/tls/page-parts";
import { TLS_FORM_LIMIT, tlsUploadSchema } from "~/admin/tls/schema";
import type { TlsInfo } from "../../contract/tls";

const PAGE = "/admin/settings/tls";

/** TLS certificate (admin document, sections 2, 3 "TLS", 4, 5): the certificate in use, its upload, and "disable non-TLS". */
export async function loader({ request }: LoaderFunctionArgs) {
  return loadTlsPage<TlsInfo>(request, TLS_API);
}

export async function action({ request }: ActionFunctionArgs) {
  return tlsPageAction(request, {
    page: PAGE,
    limit: TLS_FORM_LIMIT,
    change: (form) => {
      if (form.get("intent") === "remove") return { ask: "remove", path: `${TLS_API}/certificate`, method: "DELETE", done: "admin.tls.removed" };
      if (form.get("intent") !== "plain") return null;
      const off = form.get("plainDisabled") === "1";
      return { ask: off ? "plain-off" : "plain-on", path: `${TLS_API}/plain`, method: "PUT", body: { plainDisabled: off }, done: off ? "admin.tls.plain.disabled-done" : "admin.tls.plain.enabled-done" };
    },
    upload: {
      schema: tlsUploadSchema,
      path: `${TLS_API}/certificate`,
      body: async (value) => {
        const [certificate, privateKey] = await Promise.all([value.certificate.text(), value.privateKey.text()]);
        return { certificate, privateKey };
      },
      done: "admin.tls.upload.done",
    },
  });
}

export default function TlsCertificatePage() {
  const { info: tls, confirm, now } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const rowsOf = useCertificateRows();
  const cert = tls.certificate;
  const ports = [tls.tlsPort ? t("admin.tls.port.tls", { port: tls.tlsPort }) : t("admin.tls.port.tls-off"), tls.plainPort ? t("admin.tls.port.plain", { port: tls.plainPort }) : t("admin.tls.port.plain-off")].join(" · ");
  const canDisable = cert?.state === "valid" && tls.tlsPort !== null;
  return (
    <TlsPage title={t("admin.tls.title")} intro={t("admin.tls.intro")}>
      <TlsSection id="tls-current" title={t("admin.tls.current")}>
        {cert ? (
          <Facts
            label={t("admin.tls.current")}
            rows={[
              ...rowsOf(cert, now),
              [t("admin.tls.source"), `${t(`admin.tls.source.${tls.source ?? "uploaded"}`)} — ${t("admin.tls.chain", { count: tls.chainLength })}`],
              [t("admin.tls.ports"), ports],
            ]}
          />
        ) : (
          <p className="text-sm text-gray-700">
            {t("admin.tls.none")} {ports}
          </p>
        )}
        {tls.source === "uploaded" && (
          <TlsRemove page={PAGE} label={t("admin.tls.remove")} message={t("admin.tls.remove.confirm")} confirmLabel={t("admin.tls.remove.confirm-label")} asking={confirm === "remove"} />
        )}
      </TlsSection>

      <TlsUploadSection
        screen="tls"
        page={PAGE}
        schema={tlsUploadSchema}
        fields={[pemField("certificate", t("admin.tls.upload.certificate")), pemField("privateKey", t("admin.tls.upload.key"), ".pem,.key,application/x-pem-file")]}
        answer={answer}
      />

      <TlsSection id="tls-plain" title={t("admin.tls.plain")}>
        <p className="text-sm text-gray-700">{tls.plainDisabled ? t("admin.tls.plain.disabled") : t("admin.tls.plain.allowed", { port: tls.plainPort ?? "" })}</p>
        {tls.plainDisabled ? (
          <div>
            <ConfirmedAction
              action={PAGE}
              fields={{ intent: "plain", plainDisabled: "0" }}
              label={t("admin.tls.plain.enable")}
              title={t("admin.tls.plain.enable.confirm.title")}
              message={t("admin.tls.plain.enable.confirm")}
              confirmLabel={t("admin.tls.plain.enable.confirm-label")}
              asking={confirm === "plain-on"}
              cancelHref={PAGE}
            />
          </div>
        ) : (
          <div className="flex flex-col items-start gap-2">
            <ConfirmedAction
              action={PAGE}
              fields={{ intent: "plain", plainDisabled: "1" }}
              label={t("admin.tls.plain.disable")}
              title={t("admin.tls.plain.confirm.title")}
              message={t("admin.tls.plain.confirm")}
              confirmLabel={t("admin.tls.plain.confirm-label")}
              danger
              disabled={!canDisable}
              asking={confirm === "plain-off" && canDisable}
              cancelHref={PAGE}
            />
            {!canDisable && <p className="text-xs text-gray-600">{t("admin.tls.plain.needs-certificate")}</p>}
          </div>
        )}
      </TlsSection>
    </TlsPage>
  );
}
