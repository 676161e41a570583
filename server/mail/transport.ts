import { ENCRYPTIONS } from "../../contract/mail";
import { EMAIL_PATTERN } from "../../contract/validation";
import { FerryError, fail } from "../errors";
import { resolveSmtpTarget } from "./address";
import type { MailAccount } from "./service";

export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Time-outs and caps of one SMTP conversation (docs/mail.md). */
export const SMTP_LIMITS = {
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 10_000,
  socketTimeoutMs: 30_000,
  dnsTimeoutMs: 10_000,
  /** Largest single server response accepted. */
  maxResponseBytes: 64 * 1024,
  maxRecipients: 100,
} as const;

// eslint-disable-next-line no-control-regex -- CR, LF and other controls would let a value add headers
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Refuses header values that could start a new header line, and recipients that are not plain addresses. */
export function checkHeaders(mail: Pick<OutgoingMail, "to" | "subject">, fromName: string) {
  if (mail.to.length === 0 || mail.to.length > SMTP_LIMITS.maxRecipients) fail("ParameterError", { field: "to" });
  for (const address of mail.to) {
    if (CONTROL.test(address) || !EMAIL_PATTERN.test(address)) fail("EmailFormat", { field: "to" });
  }
  if (CONTROL.test(mail.subject)) fail("ParameterError", { field: "subject", reason: "control-characters" });
  if (CONTROL.test(fromName)) fail("ParameterError", { field: "emailFromName", reason: "control-characters" });
}

/** nodemailer's error codes mapped to the catalogue: wrong credentials 1068, anything on the way 4139. */
function sendFailure(error: unknown): FerryError {
  if (error instanceof FerryError) return error;
  const code = (error as { code?: string }).code ?? "";
  if (code === "EAUTH" || code === "ENOAUTH") return new FerryError("EmailAuthError", { reason: code });
  if (code === "EENVELOPE") return new FerryError("EmailFormat", { reason: code });
  return new FerryError("ConnectServerFailed", { reason: code || "send" });
}

/** Where and how to reach an SMTP server (a stored account, or the server's with another user's credentials). */
export type SmtpServer = Pick<MailAccount, "host" | "port" | "encryption">;

/**
 * A fresh SMTP connection to the checked address of `server`: SSL is TLS from the first byte (465
 * style), STARTTLS is required (never a silent plain fallback), none is plain. Certificates are
 * always verified (rejectUnauthorized stays true); FERRY_SMTP_CA adds trusted authorities for
 * internal relays.
 */
async function openTransport(server: SmtpServer, auth: { user: string; pass: string }, options: { allowPrivate: boolean; ca?: string[]; pool?: boolean }) {
  const target = await resolveSmtpTarget(server.host, options.allowPrivate);
  // Loaded on first use, so the operator CLI (which opens the same services) does not load it.
  const { createTransport } = await import("nodemailer");
  return createTransport({
    // A batch (notifications by e-mail) goes over one connection, one message after the other.
    ...(options.pool ? { pool: true, maxConnections: 1, maxMessages: Infinity } : {}),
    host: target.address,
    port: server.port,
    secure: server.encryption === ENCRYPTIONS.SSL,
    requireTLS: server.encryption === ENCRYPTIONS.STARTTLS,
    ignoreTLS: server.encryption === ENCRYPTIONS.None,
    auth,
    connectionTimeout: SMTP_LIMITS.connectionTimeoutMs,
    greetingTimeout: SMTP_LIMITS.greetingTimeoutMs,
    socketTimeout: SMTP_LIMITS.socketTimeoutMs,
    dnsTimeout: SMTP_LIMITS.dnsTimeoutMs,
    maxResponseSize: SMTP_LIMITS.maxResponseBytes,
    ...(target.servername ? { servername: target.servername } : {}),
    tls: {
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
      ...(target.servername ? { servername: target.servername } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    },
  });
}

const messageOf = (from: MailAccount, mail: OutgoingMail) => ({
  from: { name: from.fromName, address: from.account },
  to: mail.to,
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
  // No remote content is fetched for a message: text and HTML are given in full.
  disableFileAccess: true,
  disableUrlAccess: true,
});

/** One message over a fresh SMTP connection through `from` (see openTransport); the server's answer to it. */
export async function deliver(from: MailAccount, mail: OutgoingMail, options: { allowPrivate: boolean; ca?: string[] }): Promise<string> {
  checkHeaders(mail, from.fromName);
  const transport = await openTransport(from, { user: from.account, pass: from.password }, options);
  try {
    const info = (await transport.sendMail(messageOf(from, mail))) as { response?: string };
    return info.response ?? "";
  } catch (error) {
    throw sendFailure(error);
  } finally {
    transport.close();
  }
}

/** What the mail server said, or what went wrong on the way (one line, at most 255 characters). */
export interface SmtpAnswer {
  /** The server's SMTP reply (e.g. "535 5.7.8 Authentication failed"), empty when there was none. */
  response: string;
  /** The reply code, 0 when there was none. */
  responseCode: number;
  /** The connection or TLS error when the server gave no reply. */
  reason: string;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 255);

export function smtpAnswerOf(error: unknown): SmtpAnswer {
  const e = error as { response?: unknown; responseCode?: unknown; message?: unknown; code?: unknown };
  const response = typeof e.response === "string" ? oneLine(e.response) : "";
  const responseCode = typeof e.responseCode === "number" ? e.responseCode : 0;
  const reason = response ? "" : oneLine(typeof e.message === "string" && e.message ? e.message : String(e.code ?? "send failed"));
  return { response, responseCode, reason };
}

/**
 * The test mail of the admin Email setting: the server's own answer when it takes the message; when
 * it does not, 4443 with its reply (`{{response}}`, data.responseCode) or 4444 with the connection
 * error (`{{reason}}`) — what the administrator needs to fix the settings.
 */
export async function deliverTest(from: MailAccount, mail: OutgoingMail, options: { allowPrivate: boolean; ca?: string[] }): Promise<{ response: string; messageId: string }> {
  checkHeaders(mail, from.fromName);
  const transport = await openTransport(from, { user: from.account, pass: from.password }, options);
  try {
    const info = (await transport.sendMail(messageOf(from, mail))) as { response?: string; messageId?: string };
    return { response: oneLine(info.response ?? ""), messageId: info.messageId ?? "" };
  } catch (error) {
    if (error instanceof FerryError) throw error;
    const answer = smtpAnswerOf(error);
    if (answer.response) throw new FerryError("SmtpRejected", { ...answer }, { response: answer.response });
    throw new FerryError("SmtpUnreachable", { ...answer }, { reason: answer.reason });
  } finally {
    transport.close();
  }
}

/**
 * Several messages over one connection through `from`, one after the other; each one's outcome
 * (a failed one does not stop the rest; a broken connection is opened again for the next).
 */
export async function deliverEach(
  from: MailAccount,
  mails: OutgoingMail[],
  options: { allowPrivate: boolean; ca?: string[] },
): Promise<Array<{ ok: true; response: string } | { ok: false; error: string }>> {
  const results: Array<{ ok: true; response: string } | { ok: false; error: string }> = [];
  let transport: Awaited<ReturnType<typeof openTransport>> | null = null;
  try {
    for (const mail of mails) {
      try {
        checkHeaders(mail, from.fromName);
        transport ??= await openTransport(from, { user: from.account, pass: from.password }, { ...options, pool: true });
        const info = (await transport.sendMail(messageOf(from, mail))) as { response?: string };
        results.push({ ok: true, response: oneLine(info.response ?? "") });
      } catch (error) {
        if (error instanceof FerryError) {
          results.push({ ok: false, error: oneLine(`${error.code} ${error.errorName}`) });
          continue;
        }
        const answer = smtpAnswerOf(error);
        results.push({ ok: false, error: answer.response || answer.reason });
      }
    }
  } finally {
    transport?.close();
  }
  return results;
}

/**
 * SMTP AUTH of `user` with `password` on `server` (the e-mail way of signing in): true when the
 * server accepts them, false when it refuses them; 4139 (or 4133 for a refused address) when it
 * cannot be asked.
 */
export async function smtpAuthenticates(server: SmtpServer, user: string, password: string, options: { allowPrivate: boolean; ca?: string[] }): Promise<boolean> {
  const transport = await openTransport(server, { user, pass: password }, options);
  try {
    await transport.verify();
    return true;
  } catch (error) {
    const failure = sendFailure(error);
    if (failure.errorName === "EmailAuthError") return false;
    throw failure;
  } finally {
    transport.close();
  }
}
