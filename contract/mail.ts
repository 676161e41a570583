import * as z from "zod";
import { EMAIL_PATTERN } from "./validation";

/*
 * SMTP settings: a user's own sender account (GET /api/user/smtp/info, POST /api/user/smtp/update)
 * and the server's account (admin "Email settings", /api/admin/settings/mail). One definition of the
 * providers, their presets and the rules, used by the engine's validation and the web's form.
 * See docs/mail.md.
 */

/** Provider enum of the admin document, section 3. */
export const EMAIL_PROVIDERS = { Gmail: 0, AOL: 1, iCloud: 2, MSN: 3, Microsoft365: 4, Outlook: 5, Hotmail: 6, Live: 7, Yahoo: 8, Other: 9 } as const;
export type EmailProvider = (typeof EMAIL_PROVIDERS)[keyof typeof EMAIL_PROVIDERS];

/** Encryption enum: none 0, SSL (TLS from the first byte, port 465 style) 1, STARTTLS 2. */
export const ENCRYPTIONS = { None: 0, SSL: 1, STARTTLS: 2 } as const;
export type Encryption = (typeof ENCRYPTIONS)[keyof typeof ENCRYPTIONS];
export const ENCRYPTION_NAMES: Record<Encryption, string> = { 0: "None", 1: "SSL", 2: "STARTTLS" };

export interface ProviderPreset {
  provider: EmailProvider;
  /** Display name (a brand: the same in both languages). */
  name: string;
  /** Empty for "Other": there is no host to guess. */
  host: string;
  /** null for "Other": the user's own server decides. */
  port: number | null;
  encryption: Encryption;
  /** The encryptions this provider accepts, the preset first. */
  allowed: readonly Encryption[];
}

const { None, SSL, STARTTLS } = ENCRYPTIONS;
const sslOnly = [SSL] as const;
const starttlsOnly = [STARTTLS] as const;
const any = [SSL, STARTTLS, None] as const;

/**
 * The presets table of the admin document. The spec leaves the host names out; these are the
 * providers' published submission hosts. "Other" presets no host and no port: any value there would
 * be a guess (a public provider's host, or the previously chosen provider's values left behind) that
 * the user could save without noticing (issue 13).
 */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { provider: 0, name: "Gmail", host: "smtp.gmail.com", port: 465, encryption: SSL, allowed: sslOnly },
  { provider: 1, name: "AOL", host: "smtp.aol.com", port: 465, encryption: SSL, allowed: sslOnly },
  { provider: 2, name: "iCloud", host: "smtp.mail.me.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 3, name: "MSN", host: "smtp-mail.outlook.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 4, name: "Microsoft 365", host: "smtp.office365.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 5, name: "Outlook", host: "smtp-mail.outlook.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 6, name: "Hotmail", host: "smtp-mail.outlook.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 7, name: "Live", host: "smtp-mail.outlook.com", port: 587, encryption: STARTTLS, allowed: starttlsOnly },
  { provider: 8, name: "Yahoo", host: "smtp.mail.yahoo.com", port: 465, encryption: SSL, allowed: any },
  { provider: 9, name: "Other", host: "", port: null, encryption: SSL, allowed: any },
];

export function presetOf(provider: number): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.provider === provider);
}

/** Whether `encryption` is one the provider accepts (Gmail and AOL SSL only; the Microsoft family and iCloud STARTTLS only). */
export function encryptionAllowed(provider: number, encryption: number): boolean {
  return !!presetOf(provider)?.allowed.includes(encryption as Encryption);
}

/**
 * users.email_sender_type (the admin's "Notification e-mail source"): whose SMTP account the user's
 * mails go out through: none (the user sends no mail), the server's, or the user's own (their
 * "E-mail settings"; only this type has them). docs/mail.md, "Whose account".
 */
export const EMAIL_SENDER = { none: 0, server: 1, own: 2 } as const;
export type EmailSender = (typeof EMAIL_SENDER)[keyof typeof EMAIL_SENDER];

export const FROM_NAME_MAX = 64;
export const SMTP_ACCOUNT_MAX = 255;
export const SMTP_PASSWORD_MAX = 128;
export const SMTP_HOST_MAX = 253;

/** Message keys of the rules (translated by the web; the engine maps the field to a code instead). */
export const SMTP_MESSAGES = {
  fromName: "mail.smtp.error.from-name",
  provider: "mail.smtp.error.provider",
  account: "mail.smtp.error.account",
  password: "mail.smtp.error.password",
  host: "mail.smtp.error.host",
  port: "mail.smtp.error.port",
  encryption: "mail.smtp.error.encryption",
} as const;

// eslint-disable-next-line no-control-regex -- control characters (CR/LF above all) never reach a mail header
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A DNS name (letters, digits, hyphens; dot-separated labels) or an IPv4 / bracket-less IPv6 literal. */
const HOST_PATTERN = /^(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

/** The wire shape: every field present with its type (a missing one is 401, a wrong type 402). */
export const smtpSettingsBody = z.object({
  emailFromName: z.string().describe("Sender display name."),
  emailType: z.number().int().describe("Provider: Gmail 0, AOL 1, iCloud 2, MSN 3, Microsoft365 4, Outlook 5, Hotmail 6, Live 7, Yahoo 8, Other 9."),
  emailAccount: z.string().describe("SMTP account, also the sender address."),
  emailPassword: z
    .string()
    .describe("SMTP password, credential-encoded (docs/credential-encoding.md). Empty keeps the stored password (refused with 4132 when none is stored)."),
  emailSmtpHost: z.string().describe("SMTP host name or IP address."),
  emailSmtpPort: z.number().int().describe("SMTP port, 1–65535."),
  emailEncryptType: z.number().int().describe("Encryption: none 0, SSL 1, STARTTLS 2; limited per provider."),
});
export type SmtpSettingsBody = z.infer<typeof smtpSettingsBody>;

/**
 * The rules on the plain (decoded) values; messages are the keys of SMTP_MESSAGES. The password may be
 * empty here (keep the stored one); the form makes it required when nothing is stored.
 */
export const smtpSettingsSchema = z
  .object({
    emailFromName: z
      .string()
      .trim()
      .min(1, SMTP_MESSAGES.fromName)
      .max(FROM_NAME_MAX, SMTP_MESSAGES.fromName)
      .refine((s) => !CONTROL.test(s) && !/["<>]/.test(s), SMTP_MESSAGES.fromName),
    emailType: z.number(SMTP_MESSAGES.provider).int(SMTP_MESSAGES.provider).refine((n) => !!presetOf(n), SMTP_MESSAGES.provider),
    emailAccount: z.string().trim().max(SMTP_ACCOUNT_MAX, SMTP_MESSAGES.account).regex(EMAIL_PATTERN, SMTP_MESSAGES.account),
    // An empty form field arrives as undefined: that is "keep the stored password" (default "").
    emailPassword: z
      .string()
      .max(SMTP_PASSWORD_MAX, SMTP_MESSAGES.password)
      .refine((s) => !CONTROL.test(s), SMTP_MESSAGES.password)
      .default(""),
    emailSmtpHost: z.string().trim().min(1, SMTP_MESSAGES.host).max(SMTP_HOST_MAX, SMTP_MESSAGES.host).regex(HOST_PATTERN, SMTP_MESSAGES.host),
    emailSmtpPort: z.number(SMTP_MESSAGES.port).int(SMTP_MESSAGES.port).min(1, SMTP_MESSAGES.port).max(65535, SMTP_MESSAGES.port),
    emailEncryptType: z.number(SMTP_MESSAGES.encryption).int(SMTP_MESSAGES.encryption),
  })
  .superRefine((v, ctx) => {
    if (!encryptionAllowed(v.emailType, v.emailEncryptType)) {
      ctx.addIssue({ code: "custom", path: ["emailEncryptType"], message: SMTP_MESSAGES.encryption });
    }
  });
export type SmtpSettings = z.output<typeof smtpSettingsSchema>;

/** The spec's defaults (end-user section 9): type Other, port 465, SSL; no host (Other presets none). */
export const SMTP_DEFAULTS: SmtpSettings = {
  emailFromName: "",
  emailType: EMAIL_PROVIDERS.Other,
  emailAccount: "",
  emailPassword: "",
  emailSmtpHost: "",
  emailSmtpPort: 465,
  emailEncryptType: ENCRYPTIONS.SSL,
};

/** GET /api/user/smtp/info and GET /api/admin/settings/mail → data. The password never leaves the engine. */
export const smtpSettingsInfo = smtpSettingsBody.extend({
  emailPassword: z.literal("").describe("Always empty: the stored password is never returned."),
  hasPassword: z.boolean().describe("Whether a password is stored (an update may then leave emailPassword empty to keep it)."),
  configured: z.boolean().describe("Whether these settings were saved; false: the defaults are shown."),
});
export type SmtpSettingsInfo = z.infer<typeof smtpSettingsInfo>;

/** PATCH /api/admin/settings/mail: any of the fields, merged over the stored ones, then the same rules. */
export const smtpSettingsPatch = smtpSettingsBody.partial().strict();
