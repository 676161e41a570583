import { useField } from "@conform-to/react";
import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { EMAIL_PROVIDERS, PROVIDER_PRESETS, type ProviderPreset, presetOf, type SmtpSettingsInfo, smtpSettingsSchema } from "../../../contract/mail";
import type { action, loader } from "~/routes/account.smtp";
import { Button } from "../ui/button";
import { FormBuilder, type FormField } from "../ui/form";
import { Modal } from "../ui/modal";
import { Spinner } from "../ui/spinner";
import { useToast } from "../ui/toast";

/** Spec: the e-mail settings dialog is 600 px wide. */
export const SMTP_DIALOG_WIDTH = 600;

const ALL_FIELDS = ["emailFromName", "emailType", "emailAccount", "emailPassword", "emailSmtpHost", "emailSmtpPort", "emailEncryptType"] as const;
/**
 * What the action requires itself. The password is left to the engine: it may stay empty when one
 * is stored (kept), and the engine answers 4132 "required" when none is.
 */
export const SMTP_REQUIRED_ON_SERVER = ALL_FIELDS.filter((f) => f !== "emailPassword");

/**
 * Watches the provider select: choosing one makes the dialog offer that provider's encryptions and
 * then fills host, port and encryption with its preset (once the options are there, so the preset
 * encryption is one of them). "Other" has no host or port: choosing it empties them rather than
 * leaving the previous provider's. The values the form starts with (the saved ones) stay.
 */
export function ProviderPresets({ shown, onProvider }: { shown: number; onProvider: (provider: number) => void }) {
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

function SmtpForm({ settings, onSaved }: { settings: SmtpSettingsInfo; onSaved: () => void }) {
  const { t } = useTranslation();
  const save = useFetcher<typeof action>();
  const [provider, setProvider] = useState<number>(settings.emailType);
  const onProvider = useCallback((p: number) => setProvider(p), []);

  useEffect(() => {
    if (save.state === "idle" && save.data?.saved) onSaved();
  }, [save.state, save.data, onSaved]);

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
    emailFromName: settings.emailFromName,
    emailType: String(settings.emailType),
    emailAccount: settings.emailAccount,
    emailPassword: "",
    emailSmtpHost: settings.emailSmtpHost,
    emailSmtpPort: String(settings.emailSmtpPort),
    emailEncryptType: String(settings.emailEncryptType),
  };

  return (
    <FormBuilder
      id="smtp-settings"
      schema={smtpSettingsSchema}
      fields={fields}
      defaultValue={defaultValue}
      lastResult={save.data?.result}
      as={save.Form}
      method="post"
      action="/account/smtp"
      layout="vertical"
    >
      <ProviderPresets shown={provider} onProvider={onProvider} />
      <div className="flex justify-end">
        <Button type="submit" loading={save.state !== "idle"}>
          {t("mail.smtp.save")}
        </Button>
      </div>
    </FormBuilder>
  );
}

/** The account menu's e-mail settings: the user's own SMTP sender (spec sections 3, 5 and 7). */
export function SmtpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const load = useFetcher<typeof loader>();
  // Each opening reads the settings afresh (and the form starts from them).
  const [opening, setOpening] = useState(0);
  useEffect(() => {
    if (!open) return;
    setOpening((n) => n + 1);
    load.load("/account/smtp");
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load once per opening
  }, [open]);

  const onSaved = useCallback(() => {
    toast.success(t("mail.smtp.saved"));
    onClose();
  }, [toast, t, onClose]);

  const settings = load.state === "idle" ? load.data?.settings : undefined;
  return (
    <Modal open={open} onClose={onClose} title={t("mail.smtp.title")} width={SMTP_DIALOG_WIDTH} footer={null}>
      {settings ? <SmtpForm key={opening} settings={settings} onSaved={onSaved} /> : <Spinner />}
    </Modal>
  );
}
