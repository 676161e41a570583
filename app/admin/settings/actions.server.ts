import type { SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/components/ui/form";
import type { SignedIn } from "~/utils/session.server";
import type { SecuritySettings } from "../../../contract/admin";
import type { SpeedSettings } from "../../../contract/settings";
import { commonFormSchema, deletePeriodSchema, periodFormSchema, protocolFormSchema, securityFormSchema, toKB, transferFormSchema } from "./schema";

/** What a settings post answers when it is not a redirect: the form's errors (the engine's refusal as a form error). */
export interface SettingsAnswer {
  intent: string;
  submission?: SubmissionResult<string[]>;
  /** A refused delete's catalogue code. */
  code?: number;
}
type Done = { ok: true } | { ok: false; answer: SettingsAnswer };

async function patch(admin: SignedIn, group: string, body: unknown, intent: string, submission: { reply(o?: { formErrors: string[] }): SubmissionResult<string[]> }): Promise<Done> {
  const reply = await admin.call(`/api/admin/settings/${group}`, { method: "PATCH", body: JSON.stringify(body) });
  return reply.result ? { ok: true } : { ok: false, answer: { intent, submission: submission.reply({ formErrors: [`error.${reply.code}`] }) } };
}

const on = (v: string | undefined) => v === "on";

/** Runs the post named by `intent`; ok → the caller redirects with a toast. */
export async function saveSettings(admin: SignedIn, form: FormData): Promise<Done> {
  const intent = String(form.get("intent") ?? "");
  if (intent === "common") {
    const s = parseFormData(form, commonFormSchema);
    if (s.status !== "success") return { ok: false, answer: { intent, submission: s.reply() } };
    const v = s.value;
    const body: Record<string, boolean | number> = { bindFirstDevice: on(v.bindFirstDevice), eventNotifications: on(v.eventNotifications), userSpaceStatistics: on(v.userSpaceStatistics), groupSpaceStatistics: on(v.groupSpaceStatistics) };
    // A disabled switch (free edition) is not posted: the stored watermark stays.
    if (form.has("watermark") || form.get("watermarkShown") === "1") body.watermark = on(v.watermark);
    if (v.watermarkPosition !== undefined) body.watermarkPosition = v.watermarkPosition;
    if (v.watermarkOpacity !== undefined) body.watermarkOpacity = v.watermarkOpacity;
    return patch(admin, "general", body, intent, s);
  }
  if (intent === "security") {
    const s = parseFormData(form, securityFormSchema, ["lockTimes", "lockMinutes"]);
    if (s.status !== "success") return { ok: false, answer: { intent, submission: s.reply() } };
    const v = s.value;
    const weakPasswords = [...new Set(v.weakPasswords.split(";").map((w) => w.trim()).filter((w) => w !== ""))];
    const body: Partial<SecuritySettings> = { lockTimes: v.lockTimes, lockMinutes: v.lockMinutes, allowUserSetPassword: on(v.allowUserSetPassword), weakPasswords, fileFormatMode: Number(v.fileFormatMode) as 0 | 1 | 2, fileFormats: v.fileFormats.trim() };
    return patch(admin, "security", body, intent, s);
  }
  if (intent === "transfer") {
    const s = parseFormData(form, transferFormSchema, ["maxUploadSpeed", "maxDownloadSpeed", "clientPromptMB", "sizeLimitMB"]);
    if (s.status !== "success") return { ok: false, answer: { intent, submission: s.reply() } };
    const v = s.value;
    const speed = await patch(admin, "speed", { maxUploadSpeed: toKB(v.maxUploadSpeed, v.maxUploadUnit), maxDownloadSpeed: toKB(v.maxDownloadSpeed, v.maxDownloadUnit), clientPromptMB: v.clientPromptMB }, intent, s);
    if (!speed.ok) return speed;
    return patch(admin, "transfer", { tcpFileSizeLimitKB: v.sizeLimitMB * 1024 }, intent, s);
  }
  if (intent === "period") {
    const s = parseFormData(form, periodFormSchema, ["start", "end", "uploadSpeed", "downloadSpeed"]);
    if (s.status !== "success") return { ok: false, answer: { intent, submission: s.reply() } };
    const v = s.value;
    const current = await admin.call<SpeedSettings>("/api/admin/settings/speed");
    if (!current.result || !current.data) return { ok: false, answer: { intent, submission: s.reply({ formErrors: [`error.${current.code}`] }) } };
    const period = { start: v.start, end: v.end, repeat: v.repeat, uploadSpeed: toKB(v.uploadSpeed, v.uploadUnit), downloadSpeed: toKB(v.downloadSpeed, v.downloadUnit) };
    const periods = [...current.data.periods];
    if (v.index !== undefined && v.index < periods.length) periods[v.index] = period;
    else periods.push(period);
    return patch(admin, "speed", { periods }, intent, s);
  }
  if (intent === "delete-period") {
    const parsed = deletePeriodSchema.safeParse({ intent, index: form.get("index") });
    const current = await admin.call<SpeedSettings>("/api/admin/settings/speed");
    if (!parsed.success || !current.result || !current.data) return { ok: false, answer: { intent, code: parsed.success ? current.code : 400 } };
    const periods = current.data.periods.filter((_, i) => i !== parsed.data.index);
    const reply = await admin.call("/api/admin/settings/speed", { method: "PATCH", body: JSON.stringify({ periods }) });
    return reply.result ? { ok: true } : { ok: false, answer: { intent, code: reply.code } };
  }
  if (intent === "protocol") {
    const s = parseFormData(form, protocolFormSchema, ["parallelUploads", "uploadPartMB"]);
    if (s.status !== "success") return { ok: false, answer: { intent, submission: s.reply() } };
    const v = s.value;
    const transfer = await patch(admin, "transfer", { cHashVerifySwitch: on(v.cHashVerifySwitch) }, intent, s);
    if (!transfer.ok) return transfer;
    return patch(admin, "protocol", { parallelUploads: v.parallelUploads, uploadPartMB: v.uploadPartMB }, intent, s);
  }
  return { ok: false, answer: { intent, code: 400 } };
}
