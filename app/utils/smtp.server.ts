import { SMTP_MESSAGES, type SmtpSettings } from "../../contract/mail";
import { REQUIRED_MESSAGE } from "~/components/ui/form";
import { codec } from "./credentials.server";

/** Which form field an engine refusal of an SMTP account belongs to (a user's own or the server's). */
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

/** The save's body: the password credential-encoded (empty keeps the saved one). */
export const smtpSaveBody = (v: SmtpSettings) => JSON.stringify({ ...v, emailPassword: v.emailPassword ? codec.encode(v.emailPassword) : "" });

/**
 * The field an engine refusal of a save belongs to and its message key (`known`: a field of the
 * form's, with a message of its own); null: a refusal of the whole form.
 */
export function smtpFieldError(reply: { code: number; data?: unknown }): { field: string; message: string | undefined; known: boolean } | null {
  const details = (reply.data ?? {}) as { field?: string; reason?: string };
  const field = FIELD_OF_CODE[reply.code] ?? (reply.code === 400 ? details.field : undefined);
  if (!field) return null;
  const message = details.reason === "required" ? REQUIRED_MESSAGE : details.reason === "private-address" ? "mail.smtp.error.host-private" : MESSAGE_OF_FIELD[field];
  return { field, message, known: MESSAGE_OF_FIELD[field] !== undefined };
}
