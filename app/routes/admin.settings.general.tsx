import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { saveSettings } from "~/admin/settings/actions.server";
import { commonFormSchema, periodFormSchema, securityFormSchema, speedField, transferFormSchema } from "~/admin/settings/schema";
import { SpeedInput } from "~/admin/settings/speed-input";
import { placementFields } from "~/admin/site-design/position-grid";
import { Button, ButtonLink } from "~/components/ui/button";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { SecuritySettings } from "../../contract/admin";
import { SPEED_REPEATS, type GeneralSettings, type SpeedPeriod, type SpeedSettings, type TransferSettings } from "../../contract/settings";

type Tab = "common" | "security" | "transfer";
const TABS: readonly Tab[] = ["common", "security", "transfer"];
const PAGE = "/admin/settings/general";
const tabHref = (tab: Tab) => (tab === "common" ? PAGE : `${PAGE}?tab=${tab}`);

/** General settings (admin document, section 3 "Settings groups"): common, security and transfer, each a plain form. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const tab: Tab = TABS.find((k) => k === params.get("tab")) ?? "common";
  const [general, security, speed, transfer, licence] = await Promise.all([
    admin.call<GeneralSettings>("/api/admin/settings/general"),
    admin.call<SecuritySettings>("/api/admin/settings/security"),
    admin.call<SpeedSettings>("/api/admin/settings/speed"),
    admin.call<TransferSettings>("/api/admin/settings/transfer"),
    admin.call<{ edition: string }>("/api/admin/licence"),
  ]);
  if (!general.data || !security.data || !speed.data || !transfer.data) throw new Response(general.message, { status: 502 });
  // ?period=new or ?period=<n> shows the period form; ?remove=<n> asks before a delete.
  const periodParam = params.get("period");
  const period = periodParam === "new" ? ("new" as const) : periodParam !== null && Number(periodParam) < speed.data.periods.length ? Number(periodParam) : null;
  const removeParam = Number(params.get("remove") ?? NaN);
  const remove = Number.isInteger(removeParam) && removeParam >= 0 && removeParam < speed.data.periods.length ? removeParam : null;
  return data(
    { tab, general: general.data, security: security.data, speed: speed.data, sizeLimitKB: transfer.data.tcpFileSizeLimitKB, enterprise: licence.data?.edition === "enterprise", period, remove },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const t = await getT(request);
  const headers = { "Set-Cookie": await admin.commit() };
  const intent = String(form.get("intent") ?? "");
  // A period is deleted only when confirmed; without JavaScript the unconfirmed post comes back as the question in the page.
  if (intent === "delete-period" && form.get("confirmed") !== "1") {
    const index = Number(form.get("index"));
    throw redirect(Number.isInteger(index) && index >= 0 ? `${PAGE}?tab=transfer&remove=${index}` : `${PAGE}?tab=transfer`, { headers });
  }
  const done = await saveSettings(admin, form);
  const tab: Tab = intent === "common" ? "common" : intent === "security" ? "security" : "transfer";
  if (done.ok) return redirectWithToast(tabHref(tab), { type: "success", message: t(intent === "delete-period" ? "admin.settings.periods.deleted" : "admin.settings.saved") }, { headers });
  if (done.answer.code !== undefined) return redirectWithToast(tabHref(tab), { type: "error", message: t(`error.${done.answer.code}`) }, { headers });
  return data(done.answer, { headers });
}

export default function SettingsGeneralPage() {
  const { tab } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.settings.general.title")}</h1>
      <Tabs
        label={t("admin.settings.tabs")}
        items={TABS.map((key) => ({ key, label: t(`admin.settings.tab.${key}`) }))}
        selected={tab}
        hrefFor={tabHref}
        link={({ href, ...props }) => <Link to={href} {...props} />}
      >
        {tab === "common" ? <CommonForm /> : tab === "security" ? <SecurityForm /> : <TransferSection />}
      </Tabs>
    </div>
  );
}

const onOff = (v: boolean) => (v ? "on" : undefined);
const help = (text: string) => <span className="text-xs text-gray-600">{text}</span>;

function useLastResult(intent: string) {
  const answer = useActionData<typeof action>();
  return answer && "intent" in answer && answer.intent === intent ? answer.submission : undefined;
}

function CommonForm() {
  const { general, enterprise } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const lastResult = useLastResult("common");
  const [position, setPosition] = useState(general.watermarkPosition);
  const [opacity, setOpacity] = useState(general.watermarkOpacity);
  const sw = (name: keyof GeneralSettings): FormField => ({ name, label: t(`admin.settings.${name}`), type: "switch", description: help(t(`admin.settings.${name}.help`)) });
  const locked = !enterprise;
  const watermarkHelp = (
    <span className="flex flex-col gap-1 text-xs text-gray-600">
      {locked && <span>{t("admin.settings.watermark.enterprise")}</span>}
      <span>{t("admin.settings.watermark.help")}</span>
      <span>
        {t("admin.settings.watermark.image")}{" "}
        <Link to="/admin/site-design#site-watermark" className="font-medium text-gray-900 underline">
          {t("admin.settings.watermark.image-link")}
        </Link>
      </span>
    </span>
  );
  const fields: FormField[] = [
    sw("bindFirstDevice"),
    sw("eventNotifications"),
    sw("userSpaceStatistics"),
    sw("groupSpaceStatistics"),
    { name: "watermark", label: t("admin.settings.watermark"), type: "switch", disabled: locked, description: watermarkHelp },
    ...placementFields({
      locked,
      position: { name: "watermarkPosition", label: t("admin.settings.watermarkPosition"), value: position, onChange: setPosition },
      opacity: { name: "watermarkOpacity", label: t("admin.settings.watermarkOpacity"), min: 10, value: opacity, onChange: setOpacity },
    }),
  ];
  return (
    <FormBuilder
      id="settings-common"
      schema={commonFormSchema}
      fields={fields}
      as={Form}
      method="post"
      action={PAGE}
      lastResult={lastResult}
      defaultValue={{ bindFirstDevice: onOff(general.bindFirstDevice), eventNotifications: onOff(general.eventNotifications), userSpaceStatistics: onOff(general.userSpaceStatistics), groupSpaceStatistics: onOff(general.groupSpaceStatistics), watermark: onOff(general.watermark) }}
    >
      {enterprise && <input type="hidden" name="watermarkShown" value="1" />}
      <Button type="submit" name="intent" value="common">
        {t("admin.settings.save")}
      </Button>
    </FormBuilder>
  );
}

function SecurityForm() {
  const { security } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const lastResult = useLastResult("security");
  const fields: FormField[] = [
    { name: "lockTimes", label: t("admin.settings.lockTimes"), type: "inputNumber", required: true, description: help(t("admin.settings.lockTimes.help")) },
    { name: "lockMinutes", label: t("admin.settings.lockMinutes"), type: "inputNumber", required: true, description: help(t("admin.settings.lockMinutes.help")) },
    { name: "allowUserSetPassword", label: t("admin.settings.allowUserSetPassword"), type: "switch", description: help(t("admin.settings.allowUserSetPassword.help")) },
    { name: "weakPasswords", label: t("admin.settings.weakPasswords"), type: "textarea", description: help(t("admin.settings.weakPasswords.help")) },
    {
      name: "fileFormatMode",
      label: t("admin.settings.fileFormatMode"),
      type: "radioGroup",
      options: [
        { value: "0", label: t("admin.settings.fileFormatMode.off") },
        { value: "1", label: t("admin.settings.fileFormatMode.whitelist") },
        { value: "2", label: t("admin.settings.fileFormatMode.blacklist") },
      ],
    },
    { name: "fileFormats", label: t("admin.settings.fileFormats"), type: "input", description: help(t("admin.settings.fileFormats.help")) },
  ];
  return (
    <FormBuilder
      id="settings-security"
      schema={securityFormSchema}
      fields={fields}
      as={Form}
      method="post"
      action={`${PAGE}?tab=security`}
      lastResult={lastResult}
      defaultValue={{
        lockTimes: String(security.lockTimes),
        lockMinutes: String(security.lockMinutes),
        allowUserSetPassword: onOff(security.allowUserSetPassword),
        weakPasswords: security.weakPasswords.join(";"),
        fileFormatMode: String(security.fileFormatMode),
        fileFormats: security.fileFormats,
      }}
    >
      <Button type="submit" name="intent" value="security">
        {t("admin.settings.save")}
      </Button>
    </FormBuilder>
  );
}

function speedText(kb: number, unlimited: string): string {
  if (kb === 0) return unlimited;
  const { value, unit } = speedField(kb);
  return `${value} ${unit}/s`;
}

function TransferSection() {
  const { speed, sizeLimitKB, period, remove } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const lastResult = useLastResult("transfer");
  const up = speedField(speed.maxUploadSpeed);
  const down = speedField(speed.maxDownloadSpeed);
  const fields: FormField[] = [
    { name: "maxUploadSpeed", label: t("admin.settings.maxUploadSpeed"), type: "custom", required: true, render: (p) => <SpeedInput {...p} unitName="maxUploadUnit" unit={up.unit} unitLabel={t("admin.settings.unit", { field: t("admin.settings.maxUploadSpeed") })} /> },
    { name: "maxDownloadSpeed", label: t("admin.settings.maxDownloadSpeed"), type: "custom", required: true, description: help(t("admin.settings.speed.help")), render: (p) => <SpeedInput {...p} unitName="maxDownloadUnit" unit={down.unit} unitLabel={t("admin.settings.unit", { field: t("admin.settings.maxDownloadSpeed") })} /> },
    { name: "clientPromptMB", label: t("admin.settings.clientPromptMB"), type: "inputNumber", required: true, description: help(t("admin.settings.clientPromptMB.help")) },
    { name: "sizeLimitMB", label: t("admin.settings.sizeLimit"), type: "inputNumber", required: true, description: help(t("admin.settings.sizeLimit.help")) },
  ];
  const unlimited = t("admin.settings.period.unlimited");
  type Row = SpeedPeriod & { index: number };
  const rows: Row[] = speed.periods.map((p, index) => ({ ...p, index }));
  const columns: Column<Row>[] = [
    { key: "number", title: "#", type: "custom", width: 48, render: (r) => String(r.index + 1) },
    { key: "start", title: t("admin.settings.period.start"), dataIndex: "start" },
    { key: "end", title: t("admin.settings.period.end"), dataIndex: "end" },
    { key: "repeat", title: t("admin.settings.period.repeat"), type: "custom", render: (r) => t(`admin.settings.repeat.${r.repeat}`) },
    { key: "up", title: t("admin.settings.period.uploadSpeed"), type: "custom", render: (r) => speedText(r.uploadSpeed, unlimited) },
    { key: "down", title: t("admin.settings.period.downloadSpeed"), type: "custom", render: (r) => speedText(r.downloadSpeed, unlimited) },
    {
      key: "actions",
      title: "",
      type: "custom",
      render: (r) => (
        <span className="flex gap-3">
          <Link className="text-primary underline" to={`${PAGE}?tab=transfer&period=${r.index}`} aria-label={t("admin.settings.periods.edit-row", { number: r.index + 1 })}>
            {t("admin.settings.periods.edit")}
          </Link>
          <ConfirmedAction
            action={`${PAGE}?tab=transfer`}
            fields={{ intent: "delete-period", index: String(r.index) }}
            label={t("global.delete")}
            aria-label={t("admin.settings.periods.delete-row", { number: r.index + 1 })}
            title={t("admin.settings.periods.delete-row", { number: r.index + 1 })}
            message={t("admin.settings.periods.delete-confirm", { number: r.index + 1, start: r.start, end: r.end })}
            confirmLabel={t("global.delete")}
            danger
            variant="text"
            size="small"
          />
        </span>
      ),
    },
  ];
  const removing = remove === null ? null : speed.periods[remove];
  return (
    <div className="flex flex-col gap-8">
      <FormBuilder
        id="settings-transfer"
        schema={transferFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action={`${PAGE}?tab=transfer`}
        lastResult={lastResult}
        defaultValue={{ maxUploadSpeed: String(up.value), maxDownloadSpeed: String(down.value), clientPromptMB: String(speed.clientPromptMB), sizeLimitMB: String(Math.max(1, Math.floor(sizeLimitKB / 1024))) }}
      >
        <Button type="submit" name="intent" value="transfer">
          {t("admin.settings.save")}
        </Button>
      </FormBuilder>
      <section aria-labelledby="speed-periods" className="flex flex-col gap-3">
        <div className="flex items-center justify-between">
          <h2 id="speed-periods" className="text-base font-semibold text-gray-900">
            {t("admin.settings.periods")}
          </h2>
          <ButtonLink href={`${PAGE}?tab=transfer&period=new`}>{t("admin.settings.periods.add")}</ButtonLink>
        </div>
        <p className="text-sm text-gray-600">{t("admin.settings.periods.help")}</p>
        {removing && remove !== null && (
          <InlineConfirm
            message={t("admin.settings.periods.delete-confirm", { number: remove + 1, start: removing.start, end: removing.end })}
            action={`${PAGE}?tab=transfer`}
            fields={{ intent: "delete-period", index: remove, confirmed: "1" }}
            cancelHref={`${PAGE}?tab=transfer`}
          />
        )}
        <Table label={t("admin.settings.periods")} columns={columns} data={rows} rowKey={(r) => r.index} rowLabel={(r) => `${r.index + 1}`} />
        {period !== null && <PeriodForm key={String(period)} index={period === "new" ? null : period} />}
      </section>
    </div>
  );
}

function PeriodForm({ index }: { index: number | null }) {
  const { speed } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const lastResult = useLastResult("period");
  const current = index === null ? null : speed.periods[index];
  const up = speedField(current?.uploadSpeed ?? 0);
  const down = speedField(current?.downloadSpeed ?? 0);
  const fields: FormField[] = [
    { name: "start", label: t("admin.settings.period.start"), type: "timePicker", required: true },
    { name: "end", label: t("admin.settings.period.end"), type: "timePicker", required: true },
    { name: "repeat", label: t("admin.settings.period.repeat"), type: "select", required: true, options: SPEED_REPEATS.map((r) => ({ value: r, label: t(`admin.settings.repeat.${r}`) })) },
    { name: "uploadSpeed", label: t("admin.settings.period.uploadSpeed"), type: "custom", required: true, render: (p) => <SpeedInput {...p} unitName="uploadUnit" unit={up.unit} unitLabel={t("admin.settings.unit", { field: t("admin.settings.period.uploadSpeed") })} /> },
    { name: "downloadSpeed", label: t("admin.settings.period.downloadSpeed"), type: "custom", required: true, description: help(t("admin.settings.speed.help")), render: (p) => <SpeedInput {...p} unitName="downloadUnit" unit={down.unit} unitLabel={t("admin.settings.unit", { field: t("admin.settings.period.downloadSpeed") })} /> },
  ];
  const title = index === null ? t("admin.settings.periods.add") : t("admin.settings.periods.edit-row", { number: index + 1 });
  return (
    <section aria-label={title} className="flex flex-col gap-3 rounded border border-gray-200 p-4">
      <h3 className="text-sm font-semibold text-gray-900">{title}</h3>
      <FormBuilder
        id={`settings-period-${index ?? "new"}`}
        schema={periodFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action={`${PAGE}?tab=transfer`}
        lastResult={lastResult}
        defaultValue={{ start: current?.start ?? "", end: current?.end ?? "", repeat: current?.repeat ?? "everyday", uploadSpeed: String(up.value), downloadSpeed: String(down.value) }}
      >
        <span className="flex gap-2">
          {index !== null && <input type="hidden" name="index" value={index} />}
          <Button type="submit" name="intent" value="period">
            {t("admin.settings.save")}
          </Button>
          <ButtonLink href={`${PAGE}?tab=transfer`} variant="outlined">
            {t("global.cancel")}
          </ButtonLink>
        </span>
      </FormBuilder>
    </section>
  );
}
