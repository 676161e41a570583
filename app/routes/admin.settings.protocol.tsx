import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { readAdminPost } from "~/admin/list-page.server";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { saveSettings } from "~/admin/settings/actions.server";
import { protocolFormSchema } from "~/admin/settings/schema";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { ProtocolSettings, TransferSettings } from "../../contract/settings";

const PAGE = "/admin/settings/protocol";

/**
 * Transfer protocol (admin document, section 3 "Client app"): what a browser product can honour —
 * the hash check, parallel uploads and part size; encryption is TLS (its own page). UDP settings are
 * not offered (docs/admin-api.md, "Settings").
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const [transfer, protocol] = await Promise.all([admin.call<TransferSettings>("/api/admin/settings/transfer"), admin.call<ProtocolSettings>("/api/admin/settings/protocol")]);
  if (!transfer.data || !protocol.data) throw new Response(transfer.message, { status: 502 });
  return data({ hashCheck: transfer.data.cHashVerifySwitch, protocol: protocol.data }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  if (form.get("intent") !== "protocol") return redirectWithToast(PAGE, { type: "error", message: t("error.400") }, { headers });
  const done = await saveSettings(admin, form);
  if (done.ok) return redirectWithToast(PAGE, { type: "success", message: t("admin.settings.saved") }, { headers });
  return data(done.answer, { headers });
}

export default function SettingsProtocolPage() {
  const { hashCheck, protocol } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const help = (key: string) => <span className="text-xs text-gray-600">{t(key)}</span>;
  const fields: FormField[] = [
    { name: "cHashVerifySwitch", label: t("admin.settings.hashCheck"), type: "switch", description: help("admin.settings.hashCheck.help") },
    { name: "parallelUploads", label: t("admin.settings.parallelUploads"), type: "inputNumber", required: true, description: help("admin.settings.parallelUploads.help") },
    { name: "uploadPartMB", label: t("admin.settings.uploadPartMB"), type: "inputNumber", required: true, description: help("admin.settings.uploadPartMB.help") },
  ];
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.settings.protocol.title")}</h1>
      <p className="text-sm text-gray-600">{t("admin.settings.protocol.intro")}</p>
      <FormBuilder
        id="settings-protocol"
        schema={protocolFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action={PAGE}
        lastResult={answer && "submission" in answer ? answer.submission : undefined}
        defaultValue={{ cHashVerifySwitch: hashCheck ? "on" : undefined, parallelUploads: String(protocol.parallelUploads), uploadPartMB: String(protocol.uploadPartMB) }}
      >
        <Button type="submit" name="intent" value="protocol">
          {t("admin.settings.save")}
        </Button>
      </FormBuilder>
      <section aria-labelledby="protocol-encryption" className="flex flex-col gap-1 text-sm">
        <h2 id="protocol-encryption" className="font-semibold text-gray-900">
          {t("admin.settings.encryption")}
        </h2>
        <p className="text-gray-600">{t("admin.settings.encryption.help")}</p>
        <Link to="/admin/settings/tls" className="text-primary underline">
          {t("admin.settings.encryption.link")}
        </Link>
        <p className="text-gray-600">{t("admin.settings.downloads.note")}</p>
      </section>
    </div>
  );
}
