import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { SmtpSettingsInfo } from "../../../contract/mail";
import type { action, loader } from "~/routes/account.smtp";
import { Button } from "../ui/button";
import { Modal } from "../ui/modal";
import { Spinner } from "../ui/spinner";
import { useToast } from "../ui/toast";
import { SmtpAccountForm } from "./smtp-form";

/** Spec: the e-mail settings dialog is 600 px wide. */
export const SMTP_DIALOG_WIDTH = 600;

function SmtpForm({ settings, onSaved }: { settings: SmtpSettingsInfo; onSaved: () => void }) {
  const { t } = useTranslation();
  const save = useFetcher<typeof action>();
  useEffect(() => {
    if (save.state === "idle" && save.data?.saved) onSaved();
  }, [save.state, save.data, onSaved]);

  return (
    <SmtpAccountForm id="smtp-settings" settings={settings} lastResult={save.data?.result} as={save.Form} action="/account/smtp" layout="vertical">
      <div className="flex justify-end">
        <Button type="submit" loading={save.state !== "idle"}>
          {t("mail.smtp.save")}
        </Button>
      </div>
    </SmtpAccountForm>
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
