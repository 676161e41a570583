import { fail } from "../errors";
import type { OutgoingMail } from "./transport";

export type MailLanguage = "zh" | "en";

/** Text for HTML: every value from users (file names, messages, addresses) goes through this. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Unix seconds (or milliseconds, accepted for convenience) as "2026-05-01 12:00 UTC". */
export function formatExpiry(expiresAt: number): string {
  const ms = expiresAt > 1e11 ? expiresAt : expiresAt * 1000;
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const texts = {
  en: {
    shareSubject: (from: string) => `${from} shared files with you`,
    inviteSubject: (from: string) => `${from} invites you to upload files`,
    shareIntro: (from: string) => `${from} shared these files with you:`,
    inviteIntro: (from: string) => `${from} invites you to upload files. The request is about:`,
    message: "Message:",
    link: "Link:",
    password: "Password:",
    expires: "Expires:",
    never: "Never expires",
    open: "Open the link",
    downloadSubject: "Your shared files were downloaded",
    uploadSubject: "Files were uploaded through your invitation",
    downloadIntro: "Someone downloaded files from your share link:",
    uploadIntro: "Someone uploaded files through your upload invitation:",
    visitor: "Visitor address:",
    files: "Files:",
    footer: "This message was sent automatically by Ferry.",
  },
  zh: {
    shareSubject: (from: string) => `${from} 向您分享了文件`,
    inviteSubject: (from: string) => `${from} 邀请您上传文件`,
    shareIntro: (from: string) => `${from} 向您分享了以下文件：`,
    inviteIntro: (from: string) => `${from} 邀请您上传文件，相关内容：`,
    message: "留言：",
    link: "链接：",
    password: "提取密码：",
    expires: "有效期至：",
    never: "永久有效",
    open: "打开链接",
    downloadSubject: "您分享的文件已被下载",
    uploadSubject: "有人通过您的邀请链接上传了文件",
    downloadIntro: "有人从您的分享链接下载了文件：",
    uploadIntro: "有人通过您的上传邀请上传了文件：",
    visitor: "访问者地址：",
    files: "文件：",
    footer: "此邮件由 Ferry 自动发送。",
  },
} as const;

/** Only http(s) links go into a mail (an href of javascript: or data: never does). */
function safeUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // refused below
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return fail("ParameterError", { field: "url" });
  return parsed.toString();
}

interface Row {
  label: string;
  value: string;
  /** The value is the link (an anchor in HTML). */
  link?: boolean;
  strong?: boolean;
}

function render(lines: { intro: string; list: string[]; message?: string; rows: Row[]; footer: string; subject: string; to: string[] }): OutgoingMail {
  const text = [
    lines.intro,
    ...lines.list.map((name) => `  - ${name}`),
    "",
    ...(lines.message ? [lines.message, ""] : []),
    ...lines.rows.map((r) => `${r.label} ${r.value}`),
    "",
    lines.footer,
  ].join("\n");
  const cell = (r: Row) =>
    r.link
      ? `<a href="${escapeHtml(r.value)}">${escapeHtml(r.value)}</a>`
      : r.strong
        ? `<strong>${escapeHtml(r.value)}</strong>`
        : escapeHtml(r.value);
  const html = [
    '<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">',
    `<p>${escapeHtml(lines.intro)}</p>`,
    `<ul>${lines.list.map((name) => `<li>${escapeHtml(name)}</li>`).join("")}</ul>`,
    lines.message ? `<p style="white-space:pre-wrap">${escapeHtml(lines.message)}</p>` : "",
    `<table cellpadding="4">${lines.rows.map((r) => `<tr><td>${escapeHtml(r.label)}</td><td>${cell(r)}</td></tr>`).join("")}</table>`,
    `<p style="color:#888;font-size:12px">${escapeHtml(lines.footer)}</p>`,
    "</body></html>",
  ].join("");
  return { to: lines.to, subject: lines.subject, text, html };
}

/** The mail to share recipients: a download link, or an upload invitation. */
export function shareLinkMail(i: {
  fromName: string;
  to: string[];
  language: MailLanguage;
  url: string;
  password: string | null;
  fileNames: string[];
  message: string;
  kind: "download" | "upload";
  expiresAt: number | null;
}): OutgoingMail {
  const t = texts[i.language];
  const url = safeUrl(i.url);
  const message = i.message.trim();
  const rows: Row[] = [{ label: t.link, value: url, link: true }];
  if (i.password) rows.push({ label: t.password, value: i.password, strong: true });
  rows.push({ label: t.expires, value: i.expiresAt ? formatExpiry(i.expiresAt) : t.never });
  return render({
    to: i.to,
    subject: i.kind === "download" ? t.shareSubject(i.fromName) : t.inviteSubject(i.fromName),
    intro: i.kind === "download" ? t.shareIntro(i.fromName) : t.inviteIntro(i.fromName),
    list: i.fileNames,
    message: message ? `${t.message}\n${message}` : undefined,
    rows,
    footer: t.footer,
  });
}

/** The notice to a link's owner after a download (share link) or an upload (invitation). */
export function ownerNoticeMail(i: {
  to: string;
  language: MailLanguage;
  event: "download" | "upload";
  url: string;
  fileNames: string[];
  visitorAddress: string;
  at: number;
}): OutgoingMail {
  const t = texts[i.language];
  return render({
    to: [i.to],
    subject: i.event === "download" ? t.downloadSubject : t.uploadSubject,
    intro: i.event === "download" ? t.downloadIntro : t.uploadIntro,
    list: i.fileNames,
    rows: [
      { label: t.link, value: safeUrl(i.url), link: true },
      { label: t.visitor, value: i.visitorAddress || "-" },
      { label: i.language === "zh" ? "时间：" : "Time:", value: formatExpiry(i.at) },
    ],
    footer: t.footer,
  });
}

/** What a notify-admin user transferred within one window (server/notices/transfers.ts). */
export interface TransferSummary {
  account: string;
  fullname: string;
  /** Up to TRANSFER_NAMES_LISTED names each (a name once); `…More` counts the names left out. */
  uploads: string[];
  downloads: string[];
  uploadsMore: number;
  downloadsMore: number;
  /** Committed uploads; downloads (a zip is one). */
  uploadCount: number;
  downloadCount: number;
  /** Unix seconds of the notice. */
  at: number;
}

const transferTexts = {
  zh: {
    subject: (who: string) => `传输通知：${who}`,
    intro: (who: string) => `用户 ${who} 的传输：`,
    uploaded: (n: number) => `上传了 ${n} 个文件：`,
    downloaded: (n: number) => `下载了 ${n} 次：`,
    more: (n: number) => `……等另外 ${n} 项`,
    time: "时间：",
  },
  en: {
    subject: (who: string) => `Transfer notice: ${who}`,
    intro: (who: string) => `Transfers of user ${who}:`,
    uploaded: (n: number) => `Uploaded ${n} file${n === 1 ? "" : "s"}:`,
    downloaded: (n: number) => `Downloaded ${n} time${n === 1 ? "" : "s"}:`,
    more: (n: number) => `… and ${n} more`,
    time: "Time:",
  },
} as const;

/** Text lines of a transfer summary in one language, as [kind of line, text]. */
function transferLines(s: TransferSummary, language: MailLanguage): ["p" | "li", string][] {
  const t = transferTexts[language];
  const who = s.fullname ? (language === "zh" ? `${s.account}（${s.fullname}）` : `${s.account} (${s.fullname})`) : s.account;
  const lines: ["p" | "li", string][] = [["p", t.intro(who)]];
  const part = (count: number, names: string[], more: number, head: string) => {
    if (count === 0) return;
    lines.push(["p", head], ...names.map((n): ["li", string] => ["li", n]));
    if (more > 0) lines.push(["li", t.more(more)]);
  };
  part(s.uploadCount, s.uploads, s.uploadsMore, t.uploaded(s.uploadCount));
  part(s.downloadCount, s.downloads, s.downloadsMore, t.downloaded(s.downloadCount));
  lines.push(["p", `${t.time} ${formatExpiry(s.at)}`]);
  return lines;
}

/** Subject and plain text of a transfer notice, Chinese first, then English (the administrator has no language of their own). */
export function adminTransferNotice(s: TransferSummary): { subject: string; text: string } {
  const subject = `${transferTexts.zh.subject(s.account)} / ${transferTexts.en.subject(s.account)}`;
  const block = (language: MailLanguage) => transferLines(s, language).map(([kind, text]) => (kind === "li" ? `  - ${text}` : text)).join("\n");
  return { subject, text: `${block("zh")}\n\n${block("en")}` };
}

/** The administrator's transfer notice as a mail: both languages, names HTML-escaped. */
export function adminTransferMail(s: TransferSummary & { to: string }): OutgoingMail {
  const { subject, text } = adminTransferNotice(s);
  const footer = `${texts.zh.footer} / ${texts.en.footer}`;
  const htmlBlock = (language: MailLanguage) => {
    const out: string[] = [];
    let list: string[] = [];
    const close = () => {
      if (list.length) out.push(`<ul>${list.join("")}</ul>`);
      list = [];
    };
    for (const [kind, line] of transferLines(s, language)) {
      if (kind === "li") list.push(`<li>${escapeHtml(line)}</li>`);
      else {
        close();
        out.push(`<p>${escapeHtml(line)}</p>`);
      }
    }
    close();
    return out.join("");
  };
  const html = [
    '<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">',
    htmlBlock("zh"),
    '<hr style="border:none;border-top:1px solid #ddd">',
    htmlBlock("en"),
    `<p style="color:#888;font-size:12px">${escapeHtml(footer)}</p>`,
    "</body></html>",
  ].join("");
  return { to: [s.to], subject, text: `${text}\n\n${footer}`, html };
}
