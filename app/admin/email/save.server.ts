import { SMTP_MESSAGES, type SmtpSettingsInfo, smtpSettingsSchema } from "../../../contract/mail";
import type { MailTestData } from "../../../contract/notifications";
import { SMTP_REQUIRED_ON_SERVER } from "~/components/shell/smtp-dialog";
import { parseFormData, REQUIRED_MESSAGE } from "~/components/ui/form";
import { codec } from "~/utils/credentials.server";
import type { SignedIn } from "~/utils/session.server";
import { testMailSchema } from "./schema";

/** Which form field an engine refusal belongs to. */
const FIELD_OF_CODE: Record<number, string> = { 4131: "emailAccount", 4132: "emailPassword", 4133: "emailSmtpHost", 4134: "emailSmtpPort" };
const MESSAGE_OF_FIELD: Record<string, string> = {
  emailFromName: SMTP_MESSAGES.fromName,
  emailType: SMTP_MESSAGES.provider,
  emailAccount: SMTP_MESSAGES.account,
  emailPassword: SMTP_MESSAGES.password,
  emailSmtpHost: SMTP_MESSAGES.host,
  emailSmtpPort: SMTP_MESSAGES.port,
  emailEncryptType: SMTP_MESSAGES.encryption,
};

/** Save: the form's rules (the contract's), then PATCH /api/admin/settings/mail, whose refusals go under their field. */
export async function saveServerAccount(admin: SignedIn, form: FormData) {
  const submission = parseFormData(form, smtpSettingsSchema, SMTP_REQUIRED_ON_SERVER);
  const hideFields = ["emailPassword"];
  if (submission.status !== "success") return { intent: "save" as const, saved: false, submission: submission.reply({ hideFields }) };
  const v = submission.value;
  const reply = await admin.call<SmtpSettingsInfo>("/api/admin/settings/mail", {
    method: "PATCH",
    body: JSON.stringify({ ...v, emailPassword: v.emailPassword ? codec.encode(v.emailPassword) : "" }),
  });
  if (reply.result) return { intent: "save" as const, saved: true, submission: submission.reply({ hideFields, resetForm: true }) };
  const details = (reply.data ?? {}) as { field?: string; reason?: string };
  const field = FIELD_OF_CODE[reply.code] ?? (reply.code === 400 ? details.field : undefined);
  if (field && MESSAGE_OF_FIELD[field]) {
    const message = details.reason === "required" ? REQUIRED_MESSAGE : details.reason === "private-address" ? "mail.smtp.error.host-private" : MESSAGE_OF_FIELD[field]!;
    return { intent: "save" as const, saved: false, submission: submission.reply({ fieldErrors: { [field]: [message] }, hideFields }) };
  }
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
