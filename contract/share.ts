import * as z from "zod";
import { EMAIL_PATTERN, FILE_NAME_MAX, nameProblem } from "./validation";

/**
 * Share links and upload invitations (spec end-user sections 3, 5 and 7; docs/shares.md).
 * Field names are the spec's exactly. Everything the web's dialogs check is defined here, so the
 * engine refuses exactly what the forms refuse.
 */

/** shareUrlType: 0 an upload invitation, 1 a download link. */
export const ShareUrlType = { Upload: 0, Download: 1 } as const;
/** shareSrcType and the list item's `type`: 0 one file, 1 one folder, 2 several items. */
export const ShareSrcType = { File: 0, Folder: 1, Files: 2 } as const;
/** shareStatus: 1 in use, 2 expired (computed from shareExpireTime when read), 3 cancelled by the owner. */
export const ShareStatus = { Normal: 1, Expired: 2, Canceled: 3 } as const;
/** emailLanguage: 0 Chinese, 1 English. */
export const EmailLanguage = { zh: 0, en: 1 } as const;
/** orderBy of the list: 1 name, 2 create time, 3 expire time, 4 status. */
export const ShareOrderBy = { Name: 1, CreateTime: 2, ExpireTime: 3, Status: 4 } as const;

/** At most this many files in one share, counted recursively through shared folders (admin spec section 5). */
export const SHARE_MAX_FILES = 10_000;
/** Entries of shareFiles in one call (each may be a folder holding many files). */
export const SHARE_MAX_ENTRIES = 1000;
/** Share password: at most 6 characters once whitespace is removed; the dialogs preset 4 random letters. */
export const SHARE_PASSWORD_MAX = 6;
export const SHARE_PASSWORD_PRESET_LENGTH = 4;
/** Aliases: only when every shared item is a plain file and there are fewer than this many. */
export const SHARE_ALIAS_MAX_FILES = 10;
export const SHARE_ALIAS_MAX = FILE_NAME_MAX;
/** Expiry presets of the dialogs, in days (1 month = 30 days); the default is the first. */
export const SHARE_EXPIRY_PRESET_DAYS = [1, 3, 7, 30] as const;
export const SHARE_EXPIRY_DEFAULT_DAYS = 1;
/** E-mail recipients of one share, and the tag input's display cut. */
export const SHARE_EMAIL_MAX_RECIPIENTS = 50;
export const SHARE_EMAIL_TAG_CUT = 30;
export const SHARE_EMAIL_CONTENT_MAX = 2000;
/** Browser fingerprints: opaque strings from the page. */
export const SHARE_FINGERPRINT_MAX = 128;
/** Share-password attempts: wrong answers per link and per client address within the window lock further tries. */
export const SHARE_ATTEMPTS_PER_LINK = 20;
export const SHARE_ATTEMPTS_PER_ADDRESS = 10;
export const SHARE_ATTEMPT_WINDOW_SECONDS = 15 * 60;
/** A share token (from `info`) lasts this long at most; every use also re-checks the link. */
export const SHARE_TOKEN_TTL_SECONDS = 24 * 60 * 60;

/** The share password as stored and compared: whitespace removed. */
export const normaliseSharePassword = (text: string) => text.replace(/\s+/gu, "");

/** A random 4-letter password, as the dialogs preset (uses the Web Crypto API, present in browsers and Node). */
export function randomSharePassword(length = SHARE_PASSWORD_PRESET_LENGTH): string {
  const letters = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => letters[b % letters.length]).join("");
}

/** The `;`-joined recipient list split into addresses (empty parts dropped, duplicates ignored, case-insensitively). */
export function splitEmails(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of text.split(/[;,\s]+/)) {
    if (!part || seen.has(part.toLowerCase())) continue;
    seen.add(part.toLowerCase());
    out.push(part);
  }
  return out;
}

/** Why an alias set is refused (spec hints error1–error5), or null. `files` are the shared paths (or names). */
export type AliasProblem = "error1" | "error2" | "error3" | "error4" | "error5";
/** Whether aliases are possible for this selection at all, or why not (error1 a folder is selected, error2 ten files or more). */
export function aliasAvailability(items: readonly { isFolder: boolean }[]): "error1" | "error2" | null {
  if (items.some((i) => i.isFolder)) return "error1";
  if (items.length >= SHARE_ALIAS_MAX_FILES) return "error2";
  return null;
}

export function aliasProblem(
  items: readonly { name: string; isFolder: boolean }[],
  aliases: readonly { file: string; alias: string }[],
): AliasProblem | null {
  if (aliases.length === 0) return null;
  const unavailable = aliasAvailability(items);
  if (unavailable) return unavailable;
  const names = items.map((i) => i.name);
  const seen = new Set<string>();
  for (const { file, alias } of aliases) {
    if (nameProblem(alias, SHARE_ALIAS_MAX) !== null || alias.trim() === "") return "error3";
    const own = baseOf(file);
    if (names.some((n) => n === alias && n !== own)) return "error4";
    if (seen.has(alias)) return "error5";
    seen.add(alias);
  }
  return null;
}
const baseOf = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/** 0/1 or false/true, as the original's clients send either; read as a boolean. */
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => v === true || v === 1);
/** The latest expiry a link may have: 9999-12-31 23:59:59 UTC (the date pickers offer no later day). */
export const SHARE_EXPIRE_MAX = 253_402_300_799;
const unixSeconds = z.number().int().min(0).max(SHARE_EXPIRE_MAX);

export const fileAlias = z.object({ file: z.string().min(1).max(4096), alias: z.string().max(SHARE_ALIAS_MAX * 2) }).strict();

/**
 * POST /api/share/link/create. Paths are in the caller's personal space: an entry of shareFiles
 * starting with "/" is a full path; one without is a name inside shareServerPath. For a download
 * link shareServerPath may be left out (the folder holding the items is stored). An invitation
 * names its target folder in shareServerPath (or as its single shareFiles entry) and always carries
 * a password. `bindSwitch` (Ferry's addition, default 0) binds the link to the first visitor's device.
 */
export const shareCreateBody = z
  .object({
    shareUrlType: z.union([z.literal(0), z.literal(1)]),
    shareFiles: z.array(z.string().min(1).max(4096)).max(SHARE_MAX_ENTRIES).default([]),
    shareServerPath: z.string().max(4096).default(""),
    shareSrcType: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
    needPassword: flag.default(false),
    shareUrlPasswd: z.string().max(64).default(""),
    shareExpireTime: unixSeconds.default(0),
    shareAllowDownload: z.union([z.literal(0), z.literal(1)]).default(1),
    shareBaseUrl: z.string().max(1024).default(""),
    shareEmail: z.string().max(8192).default(""),
    shareEmailContent: z.string().max(SHARE_EMAIL_CONTENT_MAX).default(""),
    notifyEmail: flag.default(false),
    emailLanguage: z.union([z.literal(0), z.literal(1)]).optional(),
    accountType: z.number().int().optional().describe("Accepted for compatibility; the engine uses the caller's own."),
    fileAlias: z.array(fileAlias).max(SHARE_ALIAS_MAX_FILES).default([]),
    bindSwitch: flag.optional().describe("Bind the first visitor's device; absent: the General settings' bindFirstDevice."),
    shareShowContents: z
      .union([z.literal(0), z.literal(1)])
      .default(0)
      .describe(
        "Invitations only (Ferry's addition): 1 lets visitors see the folder's contents; 0 (default) makes it a file drop where a visitor sees only what they uploaded with their own share token.",
      ),
  })
  .strict();
export type ShareCreateBody = z.input<typeof shareCreateBody>;
export const shareCreateData = z.object({ shareUrl: z.string(), shareId: z.string(), sharePassword: z.string(), mailError: z.number().int().optional() });

const listOrder = z.enum(["asc", "desc", "ascend", "descend"]).transform((v) => (v.startsWith("asc") ? "asc" : "desc"));

/** GET /api/share/link/list: the caller's own links of one kind, with search fields name, shareStatus and a create-time range. */
export const shareListQuery = z
  .object({
    shareUrlType: z.coerce.number().pipe(z.union([z.literal(0), z.literal(1)])).default(1),
    pageNum: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
    order: listOrder.default("desc"),
    orderBy: z.coerce.number().pipe(z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)])).default(2),
    name: z.string().max(255).optional().describe("Part of a shared item's name or alias."),
    shareStatus: z.coerce.number().pipe(z.union([z.literal(1), z.literal(2), z.literal(3)])).optional(),
    StartTime: z.coerce.number().pipe(unixSeconds).optional().describe("Created at or after (unix seconds)."),
    EndTime: z.coerce.number().pipe(unixSeconds).optional().describe("Created at or before (unix seconds)."),
  })
  .strict();

export const shareListItem = z.object({
  shareId: z.string(),
  shareLink: z.string(),
  sharePassword: z.string().describe("The link password, for its owner only; empty when none and in the administrator's views."),
  needPassword: z.boolean(),
  filename: z.array(z.string()).describe("Names shown for the shared items: the alias when set, else the base name."),
  shareFiles: z.array(z.string()).describe("Full paths of the shared items in the owner's personal space."),
  shareServerPath: z.string(),
  type: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  shareUrlType: z.union([z.literal(0), z.literal(1)]),
  shareAllowDownload: z.union([z.literal(0), z.literal(1)]),
  shareCreateTime: z.number().int(),
  shareExpireTime: z.number().int(),
  shareEmail: z.string(),
  notifyEmail: z.union([z.literal(0), z.literal(1)]),
  shareStatus: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  bindSwitch: z.union([z.literal(0), z.literal(1)]),
  bindDevice: z.string().describe("The bound device's fingerprint, empty when none."),
  shareShowContents: z.union([z.literal(0), z.literal(1)]).describe("Invitations: 1 when visitors see the folder's contents, 0 for a file drop. Always 0 for download links."),
  downloadCount: z.number().int(),
});
export type ShareListItem = z.infer<typeof shareListItem>;

/** `pages` is the page count; some of the original's clients read it as the current page, which `current` carries. */
export const shareListData = z.object({
  sharelinkinfo: z.array(shareListItem),
  total: z.number().int(),
  size: z.number().int(),
  current: z.number().int(),
  pages: z.number().int(),
});

/** Entries are share URLs (`<base>/share/<id>`) or bare ids. */
const shareRef = z.string().min(1).max(2048);
export const shareUrlListBody = z.object({ shareUrlList: z.array(shareRef).min(1).max(1000) }).strict();
export const shareUrlListData = z.object({ affected: z.number().int() });
export const shareUnbindBody = z.object({ urls: z.array(shareRef).length(1) }).strict();

/** GET download count: `sid` is the share id (or URL); the owner's user token or that link's share token. */
export const shareDownloadCountQuery = z.object({ sid: shareRef }).strict();
export const shareDownloadRecord = z.object({ ip: z.string(), files: z.array(z.string()), time: z.number().int() });
export const shareDownloadCountData = z.object({
  count: z.number().int(),
  records: z.array(shareDownloadRecord).optional().describe("The latest 100 downloads; owner only."),
});
/** POST download count, bearer = the visitor's share token; paths are as the visitor sees them ("/" = the share's root). */
export const shareDownloadRecordBody = z.object({ accessDest: z.array(z.string().min(1).max(4096)).min(1).max(SHARE_MAX_ENTRIES) }).strict();

const fingerprint = z.string().min(1).max(SHARE_FINGERPRINT_MAX);
export const shareVerifyBody = z.object({ url: shareRef, fingerprint, passwd: z.string().max(64).optional() }).strict();
/**
 * `bindSwitch` (Ferry's addition) tells a page that the link binds the first device that gets in:
 * verify/url binds only on a password login; a link without password binds at `info`, which a page
 * should call on the visitor's explicit action (a POST), never on a GET.
 */
export const shareVerifyData = z.object({ account: z.string(), needPassword: z.boolean(), bindSwitch: z.union([z.literal(0), z.literal(1)]) });

/**
 * GET /api/share/link/info: issues the share token. Either the link's password (`passwd`) or a
 * still-valid share token of the same link as bearer. `fingerprint` is required when the link binds
 * the first device.
 */
export const shareInfoQuery = z.object({ url: shareRef, passwd: z.string().max(64).optional(), fingerprint: fingerprint.optional() }).strict();
export const shareInfoData = z.object({
  token: z.string(),
  shareAccount: z.string().describe("The owner's account."),
  account: z.string().describe("The owner's account (the account the token is for)."),
  sharePasswd: z.string().describe("The password this caller sent (never a stored one); empty when none."),
  needPassword: z.boolean(),
  bindSwitch: z.union([z.literal(0), z.literal(1)]),
  bindDevice: z.string().describe("The caller's own fingerprint when the link is bound to it; else empty."),
  shareUrlType: z.union([z.literal(0), z.literal(1)]),
  shareAllowDownload: z.union([z.literal(0), z.literal(1)]),
  shareShowContents: z.union([z.literal(0), z.literal(1)]).describe("Invitations: 1 when the visitor sees the folder's contents, 0 for a file drop (only the visitor's own uploads)."),
  shareId: z.string(),
  expiresIn: z.number().int().describe("Seconds the token lasts at most."),
});

/** The id in a share URL or a bare id: lowercase uuid. */
export const SHARE_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export function shareIdOf(ref: string): string | null {
  const trimmed = ref.trim().replace(/[?#].*$/, "").replace(/\/+$/, "");
  const id = trimmed.slice(trimmed.lastIndexOf("/") + 1).toLowerCase();
  return SHARE_ID_PATTERN.test(id) ? id : null;
}

export const isEmail = (text: string) => EMAIL_PATTERN.test(text);

// ---- The administrator's view of share links (admin spec section 3 "Share link (admin view)"; docs/admin-api.md) ----

/** GET /api/admin/shares: every user's links and invitations; orderBy as the owner's list plus 5 the owner's account. */
export const adminShareListQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
    shareUrlType: z.coerce.number().pipe(z.union([z.literal(0), z.literal(1)])).optional().describe("0 invitations, 1 download links; both when absent."),
    userId: z.coerce.number().int().positive().optional().describe("Only this owner's links."),
    account: z.string().max(64).optional().describe("Part of the owner's account, any case."),
    shareStatus: z.coerce.number().pipe(z.union([z.literal(1), z.literal(2), z.literal(3)])).optional().describe("1 normal, 2 expired, 3 disabled (cancelled)."),
    name: z.string().max(255).optional().describe("Part of a shared item's name, alias or path, or of an invitation's directory; any case."),
    StartTime: z.coerce.number().pipe(unixSeconds).optional().describe("Created at or after (unix seconds)."),
    EndTime: z.coerce.number().pipe(unixSeconds).optional().describe("Created at or before (unix seconds)."),
    order: listOrder.default("desc"),
    orderBy: z.coerce
      .number()
      .pipe(z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6)]))
      .default(2)
      .describe("1 name, 2 create time, 3 expire time, 4 status, 5 owner account, 6 downloads."),
  })
  .strict();

/**
 * A link as the administrator sees it: the owner's list item plus its owner. sharePassword is
 * always empty here: a link's password is shown to its owner only (needPassword tells that it has one). For an invitation, shareServerPath is the directory, shareCreateTime the
 * invite (start) time and shareExpireTime the end time.
 */
export const adminShareItem = shareListItem.extend({
  userId: z.number().int(),
  account: z.string().describe("The owner's account."),
  ownerLocked: z.boolean().describe("The owner is locked: the link answers 1055 whatever its status."),
  disabled: z.boolean().describe("Disabled by the administrator (shareStatus 3; visitors get 1055); POST /api/admin/shares/enable undoes it. A status 3 link that is not disabled was cancelled by its owner (1041)."),
  disabledTime: z.number().int().describe("When the administrator disabled it (unix seconds), 0 when not disabled."),
});
export type AdminShareItem = z.infer<typeof adminShareItem>;
export const adminShareList = z.object({ list: z.array(adminShareItem), total: z.number().int(), size: z.number().int(), current: z.number().int() });
export const adminShareParams = z.object({ id: shareRef }).strict();
export const adminShareDetail = adminShareItem.extend({ downloads: z.array(shareDownloadRecord).describe("The latest 100 downloads: address, paths as the visitor saw them, time.") });

/** GET /api/admin/shares/:id/downloads: one link's download statistics, newest first. */
export const adminShareDownloadsQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
  })
  .strict();
export const adminShareDownload = shareDownloadRecord.extend({
  bytes: z.number().int().describe("Bytes the download served: the file's size, or a zip's files added up (0 for downloads before Ferry recorded it)."),
});
export type AdminShareDownload = z.infer<typeof adminShareDownload>;
export const adminShareDownloads = z.object({ list: z.array(adminShareDownload), total: z.number().int(), size: z.number().int(), current: z.number().int() });
