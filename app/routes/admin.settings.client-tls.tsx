import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { CLIENT_TLS_API, confirmedCall, uploadAuthorities } from "~/admin/tls/actions.server";
import { Facts, useCertificateRows } from "~/admin/tls/certificate-details";
import { ConfirmedAction } from "~/admin/tls/confirmed-action";
import { CLIENT_TLS_FORM_LIMIT, clientTlsUploadSchema, confirmSchema } from "~/admin/tls/schema";
import { Button } from "~/components/ui/button";
import { FormBuilder } from "~/components/ui/form";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import type { ClientTlsInfo } from "../../contract/tls";

const PAGE = "/admin/settings/client-tls";

/** Client TLS (admin document, section 2): the certificate authorities Ferry's outgoing TLS trusts (docs/admin-api.md, "Client TLS"). */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const reply = await admin.call<ClientTlsInfo>(CLIENT_TLS_API);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  const confirm = confirmSchema.parse(new URL(request.url).searchParams.get("confirm"));
  return data({ trust: reply.data, confirm, now: Date.now() }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request, { limit: CLIENT_TLS_FORM_LIMIT });
  const admin = await requireAdmin(request);
  const init = { headers: { "Set-Cookie": await admin.commit() } };
  if (form.get("intent") === "remove") return confirmedCall(request, admin, form, { page: PAGE, ask: "remove", path: CLIENT_TLS_API, method: "DELETE", done: "admin.client-tls.removed" }, init);
  const answer = await uploadAuthorities(request, admin, form, PAGE, init);
  // Uploaded: a redirect with its toast; refused: the form's errors.
  return answer instanceof Response ? answer : data(answer, init);
}

export default function ClientTlsPage() {
  const { trust, confirm, now } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const rowsOf = useCertificateRows();
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{t("admin.client-tls.title")}</h1>
        <p className="text-sm text-gray-600">{t("admin.client-tls.intro")}</p>
      </div>

      <section aria-labelledby="client-tls-covers" className="flex flex-col gap-2 rounded border border-gray-200 bg-white p-4">
        <h2 id="client-tls-covers" className="text-base font-semibold text-gray-900">
          {t("admin.client-tls.covers")}
        </h2>
        <ul className="list-disc pl-5 text-sm text-gray-800">
          {trust.covers.map((c) => (
            <li key={c}>{t(`admin.client-tls.covers.${c}`)}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="client-tls-current" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="client-tls-current" className="text-base font-semibold text-gray-900">
          {t("admin.client-tls.current")}
        </h2>
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
          <div>
            <ConfirmedAction
              action={PAGE}
              fields={{ intent: "remove" }}
              label={t("admin.client-tls.remove")}
              title={t("admin.client-tls.remove")}
              message={t("admin.client-tls.remove.confirm")}
              confirmLabel={t("admin.tls.remove.confirm-label")}
              danger
              asking={confirm === "remove"}
              cancelHref={PAGE}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="client-tls-upload" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="client-tls-upload" className="text-base font-semibold text-gray-900">
          {t("admin.client-tls.upload")}
        </h2>
        <p className="text-sm text-gray-600">{t("admin.client-tls.upload.rules")}</p>
        <FormBuilder
          id="client-tls-upload-form"
          schema={clientTlsUploadSchema}
          as={Form}
          method="post"
          action={PAGE}
          encType="multipart/form-data"
          lastResult={answer && "submission" in answer ? answer.submission : undefined}
          fields={[{ name: "authorities", label: t("admin.client-tls.upload.file"), type: "file", accept: ".pem,.crt,.cer,application/x-pem-file", required: true }]}
        >
          <Button type="submit" name="intent" value="upload">
            {t("admin.client-tls.upload.submit")}
          </Button>
        </FormBuilder>
      </section>
    </div>
  );
}
