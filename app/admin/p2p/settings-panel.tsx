import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { P2pSettings } from "../../../contract/p2p";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { formOfSettings, p2pFormSchema } from "./schema";

/**
 * The Point to point settings (docs/p2p.md, "Settings"): a plain form post to the screen's action,
 * checked by the same schema in the browser (errors under the fields as they are typed) and on the
 * server (the same errors without JavaScript); saved → back to this tab with a toast.
 */
export function P2pSettingsPanel({ settings, lastResult }: { settings: P2pSettings; lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const help = (key: string) => <span className="text-xs text-gray-600">{t(key)}</span>;
  const fields: FormField[] = [
    { name: "enabled", label: t("admin.p2p.settings.enabled"), type: "switch", description: help("admin.p2p.settings.enabled.help") },
    { name: "direct", label: t("admin.p2p.settings.direct"), type: "switch", description: help("admin.p2p.settings.direct.help") },
    { name: "relay", label: t("admin.p2p.settings.relay"), type: "switch", description: help("admin.p2p.settings.relay.help") },
    { name: "holdHours", label: t("admin.p2p.settings.holdHours"), type: "inputNumber", required: true, description: help("admin.p2p.settings.holdHours.help") },
    { name: "maxTransferMiB", label: t("admin.p2p.settings.maxTransfer"), type: "inputNumber", required: true, description: help("admin.p2p.settings.maxTransfer.help") },
    { name: "iceServers", label: t("admin.p2p.settings.ice"), type: "textarea", placeholder: "stun:stun.example.org:3478", description: help("admin.p2p.settings.ice.help") },
  ];
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-gray-600">{t("admin.p2p.settings.intro")}</p>
      <FormBuilder id="settings-p2p" schema={p2pFormSchema} fields={fields} as={Form} method="post" action="/admin/transfer/p2p?tab=settings" lastResult={lastResult} defaultValue={formOfSettings(settings)}>
        <Button type="submit" name="intent" value="p2p">
          {t("admin.p2p.settings.save")}
        </Button>
      </FormBuilder>
    </div>
  );
}
