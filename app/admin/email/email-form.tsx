import type { SubmissionResult } from "@conform-to/react";
import { Form, useNavigation } from "@remix-run/react";
import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ProviderPresets } from "~/components/shell/smtp-dialog";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { TextInput } from "~/components/ui/text-input";
import { EMAIL_PROVIDERS, PROVIDER_PRESETS, presetOf, type SmtpSettingsInfo, smtpSettingsSchema } from "../../../contract/mail";
import type { TestOutcome } from "./save.server";

export const EMAIL_PAGE = "/admin/shares/email";

/**
 * The server's mail account (admin document section 3, "Email settings"): sender name, provider
 * (which presets host, port and encryption and limits the encryptions, as the engine does too),
 * account, password (never shown; empty keeps the saved one), host, port, encryption.
 */
export function EmailSettingsForm({ settings, lastResult }: { settings: SmtpSettingsInfo; lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const [provider, setProvider] = useState<number>(settings.emailType);
  const onProvider = useCallback((p: number) => setProvider(p), []);
  const fields = useMemo<FormField[]>(() => {
    const allowed = presetOf(provider)?.allowed ?? [];
    return [
      { name: "emailFromName", label: t("mail.smtp.from-name"), type: "input", required: true },
      {
        name: "emailType",
        label: t("mail.smtp.provider"),
        type: "select",
        required: true,
        options: PROVIDER_PRESETS.map((p) => ({ value: String(p.provider), label: p.provider === EMAIL_PROVIDERS.Other ? t("mail.smtp.provider.other") : p.name })),
      },
      { name: "emailAccount", label: t("mail.smtp.account"), type: "input", required: true },
      {
        name: "emailPassword",
        label: t("mail.smtp.password"),
        type: "password",
        required: !settings.hasPassword,
        placeholder: settings.hasPassword ? t("mail.smtp.password.keep") : undefined,
      },
      { name: "emailSmtpHost", label: t("mail.smtp.host"), type: "input", required: true },
      { name: "emailSmtpPort", label: t("mail.smtp.port"), type: "positive", required: true },
      {
        name: "emailEncryptType",
        label: t("mail.smtp.encryption"),
        type: "select",
        required: true,
        options: [...allowed].sort().map((e) => ({ value: String(e), label: t(`mail.smtp.encryption.${e}`) })),
      },
    ];
  }, [provider, settings.hasPassword, t]);
  const defaultValue = {
    intent: "save",
    emailFromName: settings.emailFromName,
    emailType: String(settings.emailType),
    emailAccount: settings.emailAccount,
    emailPassword: "",
    emailSmtpHost: settings.emailSmtpHost,
    emailSmtpPort: settings.configured ? String(settings.emailSmtpPort) : "",
    emailEncryptType: String(settings.emailEncryptType),
  };
  const saving = navigation.state !== "idle" && navigation.formData?.get("intent") === "save";
  return (
    <section aria-labelledby="email-account-title" className="max-w-3xl rounded border border-gray-200 bg-white p-6">
      <h2 id="email-account-title" className="mb-1 text-base font-semibold text-gray-900">
        {t("admin.email.account.title")}
      </h2>
      <p className="mb-4 text-sm text-gray-600">{t("admin.email.account.intro")}</p>
      <FormBuilder id="server-mail" schema={smtpSettingsSchema} fields={fields} defaultValue={defaultValue} lastResult={lastResult} as={Form} method="post" action={EMAIL_PAGE}>
        <input type="hidden" name="intent" value="save" />
        <ProviderPresets shown={provider} onProvider={onProvider} />
        <Button type="submit" loading={saving}>
          {t("admin.email.save")}
        </Button>
      </FormBuilder>
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
