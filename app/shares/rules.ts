import * as z from "zod";
import {
  aliasProblem,
  isEmail,
  normaliseSharePassword,
  SHARE_EMAIL_CONTENT_MAX,
  SHARE_EMAIL_MAX_RECIPIENTS,
  SHARE_EMAIL_TAG_CUT,
  SHARE_EXPIRE_MAX,
  SHARE_EXPIRY_PRESET_DAYS,
  SHARE_PASSWORD_MAX,
  splitEmails,
  type AliasProblem,
} from "../../contract/share";

/**
 * The share and invite dialogs' rules (spec end-user section 5), pure so the dialog, the action and
 * the unit tests share them. Message values are translation keys.
 */

export type ExpiryChoice = "1" | "3" | "7" | "30" | "date" | "never";
export const EXPIRY_CHOICES: readonly ExpiryChoice[] = [...SHARE_EXPIRY_PRESET_DAYS.map((d) => String(d) as ExpiryChoice), "date", "never"];
export const DEFAULT_EXPIRY: ExpiryChoice = "1";
const DAY_SECONDS = 24 * 60 * 60;

/** A date input's value (YYYY-MM-DD) of the day `offsetDays` from `now` in the browser's calendar. */
export function localDate(now: Date, offsetDays = 0): string {
  const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offsetDays);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/**
 * The earliest date the picker offers: today. The spec's picker started at yesterday, but a link
 * lasts to the end of the picked day and the engine refuses an expiry that has passed (4232), so
 * yesterday could only be refused.
 */
export const minExpiryDate = (now: Date) => localDate(now, 0);

/**
 * The latest date the picker offers: the last day that ends, in the browser's zone (`tzOffset` as
 * Date#getTimezoneOffset), no later than the engine's SHARE_EXPIRE_MAX.
 */
export function maxExpiryDate(tzOffset: number): string {
  for (const day of ["9999-12-31", "9999-12-30"]) {
    const at = expiryUnixSeconds("date", { nowMs: 0, date: day, tzOffset });
    if (at !== null && at <= SHARE_EXPIRE_MAX) return day;
  }
  return "9999-12-29";
}

/**
 * shareExpireTime in unix seconds: 0 for never; a preset counts whole days from now; a picked date
 * lasts to the end of that day in the browser's zone (`tzOffset` = Date#getTimezoneOffset, minutes).
 * Null when the date is missing or malformed.
 */
export function expiryUnixSeconds(choice: ExpiryChoice, options: { nowMs: number; date?: string; tzOffset?: number }): number | null {
  if (choice === "never") return 0;
  if (choice !== "date") return Math.floor(options.nowMs / 1000) + Number(choice) * DAY_SECONDS;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(options.date ?? "");
  if (!match) return null;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const endOfDayUtc = Date.UTC(y, m - 1, d, 23, 59, 59);
  if (Number.isNaN(endOfDayUtc) || new Date(endOfDayUtc).getUTCDate() !== d) return null;
  return Math.floor(endOfDayUtc / 1000) + (options.tzOffset ?? 0) * 60;
}

/** What is wrong with the share password as typed (whitespace is removed first), or null. */
export function passwordProblem(text: string, required: boolean): "share.password.required" | "share.password.max" | null {
  if (!required) return null;
  const password = normaliseSharePassword(text);
  if (password.length === 0) return "share.password.required";
  return [...password].length > SHARE_PASSWORD_MAX ? "share.password.max" : null;
}

/** The tag input: adds an address (trimmed) unless it is malformed; a duplicate (any case) is ignored. */
export function addEmailTag(tags: readonly string[], text: string): { tags: string[]; problem: "error.1022" | null } {
  const address = text.trim().replace(/[;,]+$/, "").trim();
  if (address === "") return { tags: [...tags], problem: null };
  if (!isEmail(address) || address.length > 254) return { tags: [...tags], problem: "error.1022" };
  if (tags.some((t) => t.toLowerCase() === address.toLowerCase())) return { tags: [...tags], problem: null };
  return { tags: [...tags, address], problem: null };
}

/** A tag shows at most 30 characters of its address (the full address is its title). */
export const tagLabel = (address: string) => (address.length > SHARE_EMAIL_TAG_CUT ? `${address.slice(0, SHARE_EMAIL_TAG_CUT)}…` : address);

/** The recipients as sent: `;`-joined, duplicates ignored. */
export const joinEmails = (tags: readonly string[]) => splitEmails(tags.join(";")).join(";");

export const aliasMessage = (problem: AliasProblem) => `app.share.alias.${problem}`;

/** The text the copy button puts on the clipboard: the link and the password, or only the link. */
export function copyText(url: string, password: string, labels: { link: string; password: string }): string {
  return password ? `${labels.link}: ${url}\n${labels.password}: ${password}` : url;
}

const onOff = z.boolean().optional();

/** One form for both dialogs (kind download = share, upload = invite), used by the dialog and by the action. */
export const shareFormSchema = z
  .object({
    kind: z.enum(["download", "upload"]),
    serverPath: z.string().max(4096).default("/"),
    items: z
      .array(z.object({ path: z.string().min(1).max(4096), folder: z.enum(["0", "1"]), alias: z.string().max(512).optional() }))
      .min(1)
      .max(1000),
    needPassword: onOff,
    password: z.string().max(64).optional(),
    expiry: z.enum(EXPIRY_CHOICES as [ExpiryChoice, ...ExpiryChoice[]]).default(DEFAULT_EXPIRY),
    expireDate: z.string().max(10).optional(),
    tzOffset: z.number().int().min(-900).max(900).optional(),
    emailOn: onOff,
    shareEmail: z.string().max(8192).optional(),
    message: z.string().max(SHARE_EMAIL_CONTENT_MAX).optional(),
    notify: onOff,
    allowDownload: onOff,
    bind: onOff,
    /** Invitations: visitors see the folder's contents; off (default) makes the invitation a file drop. */
    showContents: onOff,
  })
  .superRefine((v, ctx) => {
    // Invitations always carry a password.
    const problem = passwordProblem(v.password ?? "", v.kind === "upload" || v.needPassword === true);
    if (problem) ctx.addIssue({ code: "custom", path: ["password"], message: problem });
    if (v.expiry === "date") {
      const at = expiryUnixSeconds("date", { nowMs: Date.now(), date: v.expireDate, tzOffset: v.tzOffset });
      if (at === null) ctx.addIssue({ code: "custom", path: ["expireDate"], message: "global.field.required" });
      else if (at * 1000 <= Date.now()) ctx.addIssue({ code: "custom", path: ["expireDate"], message: "error.4232" });
      else if (at > SHARE_EXPIRE_MAX) ctx.addIssue({ code: "custom", path: ["expireDate"], message: "share.expiry.date.too-late" });
    }
    if (v.emailOn) {
      const recipients = splitEmails(v.shareEmail ?? "");
      if (recipients.length === 0) ctx.addIssue({ code: "custom", path: ["shareEmail"], message: "global.field.required" });
      else if (recipients.some((r) => !isEmail(r))) ctx.addIssue({ code: "custom", path: ["shareEmail"], message: "error.1022" });
      else if (recipients.length > SHARE_EMAIL_MAX_RECIPIENTS) ctx.addIssue({ code: "custom", path: ["shareEmail"], message: "share.email.too-many" });
    }
    if (v.kind === "download") {
      const items = v.items.map((i) => ({ name: baseOf(i.path), isFolder: i.folder === "1" }));
      const aliases = v.items.filter((i) => (i.alias ?? "") !== "").map((i) => ({ file: i.path, alias: i.alias!.normalize("NFC") }));
      const alias = aliasProblem(items, aliases);
      if (alias) ctx.addIssue({ code: "custom", path: ["aliases"], message: aliasMessage(alias) });
    }
  });
export type ShareFormValue = z.output<typeof shareFormSchema>;

const baseOf = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/** The engine's create payload for a checked form (shareBaseUrl: the web's own origin). */
export function createPayload(v: ShareFormValue, options: { baseUrl: string; nowMs: number; language: "en" | "zh" }) {
  const upload = v.kind === "upload";
  const expire = expiryUnixSeconds(v.expiry, { nowMs: options.nowMs, date: v.expireDate, tzOffset: v.tzOffset }) ?? 0;
  const needPassword = upload || v.needPassword === true;
  return {
    shareUrlType: upload ? (0 as const) : (1 as const),
    shareFiles: v.items.map((i) => i.path),
    shareServerPath: v.serverPath,
    needPassword,
    shareUrlPasswd: needPassword ? normaliseSharePassword(v.password ?? "") : "",
    shareExpireTime: expire,
    shareAllowDownload: upload || v.allowDownload ? (1 as const) : (0 as const),
    shareBaseUrl: options.baseUrl,
    shareEmail: v.emailOn ? joinEmails(splitEmails(v.shareEmail ?? "")) : "",
    shareEmailContent: v.emailOn ? (v.message ?? "") : "",
    notifyEmail: v.notify === true,
    emailLanguage: options.language === "en" ? (1 as const) : (0 as const),
    fileAlias: upload ? [] : v.items.filter((i) => (i.alias ?? "") !== "").map((i) => ({ file: i.path, alias: i.alias!.normalize("NFC") })),
    bindSwitch: !upload && v.bind === true,
    shareShowContents: upload && v.showContents === true ? (1 as const) : (0 as const),
  };
}
