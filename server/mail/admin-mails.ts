import { escapeHtml, type MailLanguage } from "./templates";
import type { OutgoingMail } from "./transport";

const page = (body: string) => `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">${body}</body></html>`;
const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`)
    .join("");

/**
 * An administrator's notification by e-mail: the subject is its title, the body its content (line
 * breaks kept, everything HTML-escaped), and a footer in both languages (the engine does not know a
 * receiver's language).
 */
export function noticeMail(i: { to: string; title: string; content: string }): OutgoingMail {
  const footer = "此通知由管理员通过 Ferry 发送。 / This notification was sent by the administrator through Ferry.";
  return {
    to: [i.to],
    subject: i.title,
    text: `${i.content}\n\n-- \n${footer}`,
    html: page(`${paragraphs(i.content)}<hr style="border:none;border-top:1px solid #ddd"><p style="color:#888;font-size:12px">${escapeHtml(footer)}</p>`),
  };
}

const testTexts = {
  en: {
    subject: "Ferry test mail",
    body: "This is a test mail from Ferry's Email setting. The server's mail account works: it sent this message.",
  },
  zh: {
    subject: "Ferry 测试邮件",
    body: "这是 Ferry“邮箱设置”发送的测试邮件。服务器的发件邮箱工作正常：本邮件即由它发出。",
  },
} as const;

/** The Email setting's test mail. */
export function testMail(i: { to: string; language: MailLanguage; host: string; at: Date }): OutgoingMail {
  const t = testTexts[i.language];
  const detail = `${i.host} · ${i.at.toISOString().replace("T", " ").slice(0, 16)} UTC`;
  return { to: [i.to], subject: t.subject, text: `${t.body}\n\n${detail}`, html: page(`<p>${escapeHtml(t.body)}</p><p style="color:#888;font-size:12px">${escapeHtml(detail)}</p>`) };
}
