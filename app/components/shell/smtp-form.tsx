import type { SubmissionResult } from "@conform-to/react";
import { useField } from "@conform-to/react";
import { type ElementType, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { EMAIL_PROVIDERS, PROVIDER_PRESETS, type ProviderPreset, presetOf, type SmtpSettingsInfo, smtpSettingsSchema } from "../../../contract/mail";
import { FormBuilder, type FormField, type FormLayout } from "../ui/form";

const ALL_FIELDS = ["emailFromName", "emailType", "emailAccount", "emailPassword", "emailSmtpHost", "emailSmtpPort", "emailEncryptType"] as const;
/**
 * What the action requires itself. The password is left to the engine: it may stay empty when one
 * is stored (kept), and the engine answers 4132 "required" when none is.
 */
export const SMTP_REQUIRED_ON_SERVER = ALL_FIELDS.filter((f) => f !== "emailPassword");

/** The form's starting values: the saved settings, the password never shown. */
export const smtpDefaults = (settings: SmtpSettingsInfo): Record<string, string> => ({
  emailFromName: settings.emailFromName,
  emailType: String(settings.emailType),
  emailAccount: settings.emailAccount,
  emailPassword: "",
  emailSmtpHost: settings.emailSmtpHost,
  emailSmtpPort: String(settings.emailSmtpPort),
  emailEncryptType: String(settings.emailEncryptType),
});

/**
 * Watches the provider select: choosing one makes the form offer that provider's encryptions and
 * then fills host, port and encryption with its preset (once the options are there, so the preset
 * encryption is one of them). "Other" has no host or port: choosing it empties them rather than
 * leaving the previous provider's. The values the form starts with (the saved ones) stay.
 */
function ProviderPresets({ shown, onProvider }: { shown: number; onProvider: (provider: number) => void }) {
  const [provider, form] = useField<string>("emailType");
  const previous = useRef(provider.value);
  const pending = useRef<ProviderPreset | null>(null);
  const fill = useCallback(
    (preset: ProviderPreset) => {
      form.update({ name: "emailSmtpHost", value: preset.host });
      form.update({ name: "emailSmtpPort", value: preset.port === null ? "" : String(preset.port) });
      form.update({ name: "emailEncryptType", value: String(preset.encryption) });
    },
    [form],
  );
  useEffect(() => {
    if (provider.value === previous.current) return;
    previous.current = provider.value;
    const preset = provider.value ? presetOf(Number(provider.value)) : undefined;
    if (!preset) return;
    if (preset.provider === shown) return fill(preset);
    pending.current = preset;
    onProvider(preset.provider);
  }, [provider.value, shown, onProvider, fill]);
  useEffect(() => {
    const preset = pending.current;
    if (!preset || preset.provider !== shown) return;
    pending.current = null;
    fill(preset);
  }, [shown, fill]);
  return null;
}

/**
 * An SMTP sender account, the user's own (account menu dialog) or the server's (console, Email
 * setting): sender name, provider (which presets host, port and encryption and limits the
 * encryptions, as the engine does too), account, password (never shown; empty keeps the saved one),
 * host, port, encryption. `children` go after the fields (the submit button, hidden fields).
 */
export function SmtpAccountForm({
  id,
  settings,
  defaultValue = smtpDefaults(settings),
  lastResult,
  as,
  action,
  layout,
  children,
}: {
  id: string;
  settings: SmtpSettingsInfo;
  defaultValue?: Record<string, string>;
  lastResult?: SubmissionResult<string[]>;
  as: ElementType;
  action: string;
  layout?: FormLayout;
  children: ReactNode;
}) {
  const { t } = useTranslation();
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
  return (
    <FormBuilder id={id} schema={smtpSettingsSchema} fields={fields} defaultValue={defaultValue} lastResult={lastResult} as={as} method="post" action={action} layout={layout}>
      <ProviderPresets shown={provider} onProvider={onProvider} />
      {children}
    </FormBuilder>
  );
}
