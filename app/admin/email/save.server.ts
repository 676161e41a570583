import { type SmtpSettingsInfo, smtpSettingsSchema } from "../../../contract/mail";
import type { MailTestData } from "../../../contract/notifications";
import { SMTP_REQUIRED_ON_SERVER } from "~/components/shell/smtp-form";
import { parseFormData } from "~/components/ui/form";
import type { SignedIn } from "~/utils/session.server";
import { smtpFieldError, smtpSaveBody } from "~/utils/smtp.server";
import { testMailSchema } from "./schema";

/** Save: the form's rules (the contract's), then PATCH /api/admin/settings/mail, whose refusals go under their field. */
export async function saveServerAccount(admin: SignedIn, form: FormData) {
  const submission = parseFormData(form, smtpSettingsSchema, SMTP_REQUIRED_ON_SERVER);
  const hideFields = ["emailPassword"];
  if (submission.status !== "success") return { intent: "save" as const, saved: false, submission: submission.reply({ hideFields }) };
  const v = submission.value;
  const reply = await admin.call<SmtpSettingsInfo>("/api/admin/settings/mail", {
    method: "PATCH",
    body: smtpSaveBody(v),
  });
  if (reply.result) return { intent: "save" as const, saved: true, submission: submission.reply({ hideFields, resetForm: true }) };
  const refused = smtpFieldError(reply);
  if (refused?.known) return { intent: "save" as const, saved: false, submission: submission.reply({ fieldErrors: { [refused.field]: [refused.message!] }, hideFields }) };
  return { intent: "save" as const, saved: false, submission: submission.reply({ formErrors: [`error.${reply.code}`], hideFields }) };
}

/** The test mail's outcome as the page shows it: the server's answer, or the refusal with what the server (or the connection) said. */
export type TestOutcome =
  | { ok: true; to: string; response: string }
  | { ok: false; code: number; vars: Record<string, string>; field?: "to" };

export async function sendTestMail(admin: SignedIn, form: FormData, language: "en" | "zh"): Promise<{ intent: "test"; outcome: TestOutcome }> {
  const parsed = testMailSchema.safeParse({ intent: form.get("intent"), to: form.get("to") ?? "" });
  if (!parsed.success) return { intent: "test", outcome: { ok: false, code: 1022, vars: {}, field: "to" } };
  const reply = await admin.call<MailTestData>("/api/admin/settings/mail/test", { method: "POST", body: JSON.stringify({ to: parsed.data.to, language }) });
  if (reply.result && reply.data) return { intent: "test", outcome: { ok: true, to: reply.data.to, response: reply.data.response } };
  const data = (reply.data ?? {}) as { response?: unknown; reason?: unknown };
  const vars: Record<string, string> = {};
  if (typeof data.response === "string") vars.response = data.response;
  if (typeof data.reason === "string") vars.reason = data.reason;
  return { intent: "test", outcome: { ok: false, code: reply.code, vars, ...(reply.code === 1022 ? { field: "to" as const } : {}) } };
}
