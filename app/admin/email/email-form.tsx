import type { SubmissionResult } from "@conform-to/react";
import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { SmtpAccountForm, smtpDefaults } from "~/components/shell/smtp-form";
import { Button } from "~/components/ui/button";
import { TextInput } from "~/components/ui/text-input";
import type { SmtpSettingsInfo } from "../../../contract/mail";
import type { TestOutcome } from "./save.server";

export const EMAIL_PAGE = "/admin/shares/email";

/** The server's mail account (admin document section 3, "Email settings"): the same form as a user's own account, the port empty until one is saved. */
export function EmailSettingsForm({ settings, lastResult }: { settings: SmtpSettingsInfo; lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const defaultValue = { ...smtpDefaults(settings), intent: "save", emailSmtpPort: settings.configured ? String(settings.emailSmtpPort) : "" };
  const saving = navigation.state !== "idle" && navigation.formData?.get("intent") === "save";
  return (
    <section aria-labelledby="email-account-title" className="max-w-3xl rounded border border-gray-200 bg-white p-6">
      <h2 id="email-account-title" className="mb-1 text-base font-semibold text-gray-900">
        {t("admin.email.account.title")}
      </h2>
      <p className="mb-4 text-sm text-gray-600">{t("admin.email.account.intro")}</p>
      <SmtpAccountForm id="server-mail" settings={settings} defaultValue={defaultValue} lastResult={lastResult} as={Form} action={EMAIL_PAGE}>
        <input type="hidden" name="intent" value="save" />
        <Button type="submit" loading={saving}>
          {t("admin.email.save")}
        </Button>
      </SmtpAccountForm>
    </section>
  );
}

/** "Send test mail": through the saved account, to an address (the administrator's own by default); the mail server's real answer is shown. */
export function TestMailForm({ defaultTo, configured, outcome }: { defaultTo: string; configured: boolean; outcome: TestOutcome | null }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const sending = navigation.state !== "idle" && navigation.formData?.get("intent") === "test";
  const fieldError = outcome && !outcome.ok && outcome.field === "to" ? "admin.email.test.to.invalid" : undefined;
  return (
    <section aria-labelledby="email-test-title" className="max-w-3xl rounded border border-gray-200 bg-white p-6">
      <h2 id="email-test-title" className="mb-1 text-base font-semibold text-gray-900">
        {t("admin.email.test.title")}
      </h2>
      <p className="mb-4 text-sm text-gray-600">{configured ? t("admin.email.test.hint") : t("admin.email.test.not-saved")}</p>
      <Form method="post" action={EMAIL_PAGE} className="flex items-start gap-2">
        <input type="hidden" name="intent" value="test" />
        <TextInput type="email" name="to" label={t("admin.email.test.to")} defaultValue={defaultTo} maxLength={255} required className="w-96" error={fieldError} />
        <Button type="submit" variant="outlined" loading={sending} disabled={!configured} className="mt-6">
          {t("admin.email.test.send")}
        </Button>
      </Form>
      {outcome?.ok && (
        <p role="status" className="mt-4 rounded border border-green-200 bg-green-50 p-3 text-sm text-green-800 [overflow-wrap:anywhere]">
          {t("admin.email.test.ok", { to: outcome.to, response: outcome.response })}
        </p>
      )}
      {outcome && !outcome.ok && !outcome.field && (
        <p role="alert" className="mt-4 rounded border border-red-200 bg-red-50 p-3 text-sm text-red-700 [overflow-wrap:anywhere]">
          {t(`error.${outcome.code}`, { ...outcome.vars, defaultValue: t("global.error.unknown", { code: outcome.code }) })}
        </p>
      )}
    </section>
  );
}
