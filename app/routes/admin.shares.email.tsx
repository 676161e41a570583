import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EmailSettingsForm, TestMailForm } from "~/admin/email/email-form";
import { saveServerAccount, sendTestMail } from "~/admin/email/save.server";
import { getLanguage } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import type { SmtpSettingsInfo } from "../../contract/mail";

/** Email setting (admin document section 3): the server's SMTP account and a test mail that reports the mail server's answer. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const settings = await admin.call<SmtpSettingsInfo>("/api/admin/settings/mail");
  if (!settings.result || !settings.data) throw new Response(settings.message, { status: 502 });
  // The test goes to the administrator's own address unless another is typed.
  const me = await admin.call<{ user?: { email?: string | null } }>("/api/user/info");
  return data({ settings: settings.data, adminEmail: me.data?.user?.email ?? "" }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const answer = form.get("intent") === "test" ? await sendTestMail(admin, form, await getLanguage(request)) : await saveServerAccount(admin, form);
  return data(answer, { headers: { "Set-Cookie": await admin.commit() } });
}

export default function SharesEmailPage() {
  const { settings, adminEmail } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const saved = answer?.intent === "save" && answer.saved;
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.email.title")}</h1>
      {saved && (
        <p role="status" className="max-w-3xl rounded border border-green-200 bg-green-50 p-3 text-sm text-green-800">
          {t("admin.email.saved")}
        </p>
      )}
      <EmailSettingsForm key={saved ? "saved" : "form"} settings={settings} lastResult={answer?.intent === "save" && !answer.saved ? answer.submission : undefined} />
      <TestMailForm defaultTo={adminEmail} configured={settings.configured} outcome={answer?.intent === "test" ? answer.outcome : null} />
    </div>
  );
}
