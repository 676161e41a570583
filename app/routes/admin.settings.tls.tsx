import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { confirmedCall, TLS_API, uploadCertificate } from "~/admin/tls/actions.server";
import { ConfirmedAction } from "~/admin/tls/confirmed-action";
import { Facts, useCertificateRows } from "~/admin/tls/certificate-details";
import { confirmSchema, TLS_FORM_LIMIT, tlsUploadSchema } from "~/admin/tls/schema";
import { Button } from "~/components/ui/button";
import { FormBuilder } from "~/components/ui/form";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import type { TlsInfo } from "../../contract/tls";

const PAGE = "/admin/settings/tls";

/** TLS certificate (admin document, sections 2, 3 "TLS", 4, 5): the certificate in use, its upload, and "disable non-TLS". */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const reply = await admin.call<TlsInfo>(TLS_API);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  const confirm = confirmSchema.parse(new URL(request.url).searchParams.get("confirm"));
  return data({ tls: reply.data, confirm, now: Date.now() }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request, { limit: TLS_FORM_LIMIT });
  const admin = await requireAdmin(request);
  const init = { headers: { "Set-Cookie": await admin.commit() } };
  const intent = form.get("intent");
  if (intent === "remove") return confirmedCall(request, admin, form, { page: PAGE, ask: "remove", path: `${TLS_API}/certificate`, method: "DELETE", done: "admin.tls.removed" }, init);
  if (intent === "plain") {
    const off = form.get("plainDisabled") === "1";
    return confirmedCall(request, admin, form, { page: PAGE, ask: off ? "plain-off" : "plain-on", path: `${TLS_API}/plain`, method: "PUT", body: { plainDisabled: off }, done: off ? "admin.tls.plain.disabled-done" : "admin.tls.plain.enabled-done" }, init);
  }
  const answer = await uploadCertificate(request, admin, form, PAGE, init);
  // Uploaded: a redirect with its toast; refused: the form's errors.
  return answer instanceof Response ? answer : data(answer, init);
}

export default function TlsCertificatePage() {
  const { tls, confirm, now } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const rowsOf = useCertificateRows();
  const cert = tls.certificate;
  const ports = [tls.tlsPort ? t("admin.tls.port.tls", { port: tls.tlsPort }) : t("admin.tls.port.tls-off"), tls.plainPort ? t("admin.tls.port.plain", { port: tls.plainPort }) : t("admin.tls.port.plain-off")].join(" · ");
  const canDisable = cert?.state === "valid" && tls.tlsPort !== null;
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{t("admin.tls.title")}</h1>
        <p className="text-sm text-gray-600">{t("admin.tls.intro")}</p>
      </div>

      <section aria-labelledby="tls-current" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="tls-current" className="text-base font-semibold text-gray-900">
          {t("admin.tls.current")}
        </h2>
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
          <div>
            <ConfirmedAction
              action={PAGE}
              fields={{ intent: "remove" }}
              label={t("admin.tls.remove")}
              title={t("admin.tls.remove")}
              message={t("admin.tls.remove.confirm")}
              confirmLabel={t("admin.tls.remove.confirm-label")}
              danger
              asking={confirm === "remove"}
              cancelHref={PAGE}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="tls-upload" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="tls-upload" className="text-base font-semibold text-gray-900">
          {t("admin.tls.upload")}
        </h2>
        <p className="text-sm text-gray-600">{t("admin.tls.upload.rules")}</p>
        <FormBuilder
          id="tls-upload-form"
          schema={tlsUploadSchema}
          as={Form}
          method="post"
          action={PAGE}
          encType="multipart/form-data"
          lastResult={answer && "submission" in answer ? answer.submission : undefined}
          fields={[
            { name: "certificate", label: t("admin.tls.upload.certificate"), type: "file", accept: ".pem,.crt,.cer,application/x-pem-file", required: true },
            { name: "privateKey", label: t("admin.tls.upload.key"), type: "file", accept: ".pem,.key,application/x-pem-file", required: true },
          ]}
        >
          <Button type="submit" name="intent" value="upload">
            {t("admin.tls.upload.submit")}
          </Button>
        </FormBuilder>
      </section>

      <section aria-labelledby="tls-plain" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="tls-plain" className="text-base font-semibold text-gray-900">
          {t("admin.tls.plain")}
        </h2>
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
      </section>
    </div>
  );
}
