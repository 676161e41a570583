import * as z from "zod";

/** A link an administrator types (company link, official site): empty, or an absolute http: or https: URL, nothing else. */
export function isWebLink(text: string): boolean {
  // No white space or control character anywhere: the URL parser would drop some of them silently.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (!/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
const webLink = z.string().max(255).refine((v) => v === "" || isWebLink(v), "must be empty or an http: or https: address");

/** The desktop client's launch scheme (`urlName`): a custom URL scheme name (RFC 3986 scheme characters). */
export const LAUNCH_SCHEME_PATTERN = /^[a-z][a-z0-9+.-]*$/i;
/** Schemes the launch scheme may never be: they would open a page, run script or read files instead of the client. */
export const RESERVED_SCHEMES: readonly string[] = ["javascript", "data", "file", "http", "https", "vbscript", "blob", "about", "ws", "wss", "ftp", "filesystem"];
export const isLaunchScheme = (text: string) => LAUNCH_SCHEME_PATTERN.test(text) && !RESERVED_SCHEMES.includes(text.toLowerCase());

/** Site branding an administrator can change (the rest of site info derives from configuration). */
export const siteSettings = z.object({
  primaryColor: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
  backgroundColor: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
  position: z.number().int().min(1).max(9),
  /** The sign-in box's opacity in percent (site design); 100 opaque. */
  opacity: z.number().int().min(30).max(100),
  productNameZH: z.string().min(1).max(64),
  productNameEN: z.string().min(1).max(64),
  companyLink: webLink,
  companyLinkEN: webLink,
  urlName: z
    .string()
    .max(64)
    .regex(LAUNCH_SCHEME_PATTERN, "must be a URL scheme name: a letter, then letters, digits, + - or .")
    .refine((v) => !RESERVED_SCHEMES.includes(v.toLowerCase()), "must be the desktop client's own scheme, not a web or script scheme"),
  clientText: z.string().max(255),
});
export type SiteSettings = z.infer<typeof siteSettings>;

/** The spec's branding defaults (primary FD5C1F, background F7F7F7, position 5, product names). */
export const SITE_DEFAULTS: SiteSettings = {
  primaryColor: "#FD5C1F",
  backgroundColor: "#F7F7F7",
  position: 5,
  opacity: 100,
  productNameZH: "飞渡",
  productNameEN: "Ferry",
  companyLink: "",
  companyLinkEN: "",
  urlName: "ferry",
  clientText: "",
};

/** Server switches and limits the clients read from /api/service/info. */
export const transferSettings = z.object({
  host: z.string().max(255),
  proxyPort: z.number().int().min(0).max(65535),
  enableFTPS: z.boolean(),
  tcpEnable: z.boolean(),
  tcpDelay: z.number().int().min(0),
  cTransEncryptSwitch: z.boolean(),
  cHashVerifySwitch: z.boolean(),
  autoUpdateSwitch: z.boolean(),
  syncSwitch: z.boolean(),
  emailAccount: z.string().max(255),
  certSelect: z.number().int().min(0),
  tcpFileSizeLimitKB: z.number().int().min(1),
});
export type TransferSettings = z.infer<typeof transferSettings>;

export const siteSettingsBody = siteSettings.partial().strict();
export const transferSettingsBody = transferSettings.partial().strict();

/**
 * The console's General settings, common part (docs/admin-api.md, "Settings"). Each switch changes
 * what the engine does: `bindFirstDevice` is the bind-first-device default of a new share link that
 * does not say (bindSwitch), `eventNotifications` whether the administrator is sent the transfer
 * notices of users followed (notifyAdmin), `userSpaceStatistics` / `groupSpaceStatistics` whether the
 * console's Users / Group spaces answers measure each personal / group space (a walk of its folder;
 * quotas are measured for enforcement either way), `watermark` (enterprise edition only): every
 * image preview and thumbnail the engine serves is drawn over with the watermark image of the site
 * design (or, without one, the viewer's account and the time) at `watermarkPosition` with
 * `watermarkOpacity` (docs/file-server.md, "Watermark").
 */
export const generalSettings = z.object({
  bindFirstDevice: z.boolean().describe("New share links bind the first visitor's device unless the request says bindSwitch."),
  eventNotifications: z.boolean().describe("The administrator gets the gathered transfer notices (and mails) of users with notifyAdmin."),
  userSpaceStatistics: z.boolean().describe("GET /api/admin/users answers each user's measured personal space (space); off: space is null and no home is walked."),
  groupSpaceStatistics: z.boolean().describe("GET /api/admin/groups answers each group space's measured size (space); off: space is null."),
  watermark: z.boolean().describe("Enterprise edition only (4381 otherwise): image previews and thumbnails are served with the watermark drawn in by the engine; downloads stay the original bytes."),
  watermarkPosition: z.number().int().min(1).max(9).describe("Where the watermark sits: 1 top left, 2 top, 3 top right … 9 bottom right (like the login box)."),
  watermarkOpacity: z.number().int().min(10).max(100).describe("The watermark's opacity in percent (100 opaque)."),
});
export type GeneralSettings = z.infer<typeof generalSettings>;
export const GENERAL_DEFAULTS: GeneralSettings = { bindFirstDevice: false, eventNotifications: true, userSpaceStatistics: true, groupSpaceStatistics: true, watermark: false, watermarkPosition: 9, watermarkOpacity: 50 };
export const generalSettingsBody = generalSettings.partial().strict();

/** "HH:MM" on a 24-hour clock. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/** A speed period's repeat: every day, Monday to Friday, Saturday and Sunday, or one weekday. */
export const SPEED_REPEATS = ["everyday", "weekdays", "weekend", "mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type SpeedRepeat = (typeof SPEED_REPEATS)[number];
/** Highest server-wide speed, KB/s (about 100 Gbit/s). */
export const MAX_SPEED_KB = 12_500_000;
const speedKB = z.number().int().min(0).max(MAX_SPEED_KB);

/** Minutes since midnight of "HH:MM". */
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * A speed period (spec section 3): from `start` to `end` (HH:MM in the engine's time zone,
 * FERRY_TIME_ZONE; end after start, so a period never runs over midnight: split it in two) on the
 * days of `repeat`, the server-wide limits are `uploadSpeed` / `downloadSpeed` (KB/s, 0 unlimited)
 * instead of the transfer settings' maxUploadSpeed / maxDownloadSpeed.
 */
export const speedPeriod = z.object({
  start: z.string().regex(CLOCK_TIME, "must be HH:MM"),
  end: z.string().regex(CLOCK_TIME, "must be HH:MM"),
  repeat: z.enum(SPEED_REPEATS),
  uploadSpeed: speedKB.describe("KB/s during the period; 0 unlimited."),
  downloadSpeed: speedKB.describe("KB/s during the period; 0 unlimited."),
});
export type SpeedPeriod = z.infer<typeof speedPeriod>;
/** Most speed periods the server keeps. */
export const MAX_SPEED_PERIODS = 50;

/**
 * Server-wide speeds (docs/file-server.md, "Speed periods"): one limit per direction over every
 * transfer of this engine process together, on top of the users' and group spaces' own; a speed
 * period that applies now replaces the max speeds while it lasts. `clientPromptMB`: a web transfer
 * of more than this many MB suggests the desktop client (0 never).
 */
export const speedSettings = z.object({
  maxUploadSpeed: speedKB.describe("KB/s over all uploads together; 0 unlimited."),
  maxDownloadSpeed: speedKB.describe("KB/s over all downloads together; 0 unlimited."),
  periods: z.array(speedPeriod).max(MAX_SPEED_PERIODS).describe("Periods in effect at their times; end must be after start (4380 otherwise)."),
  clientPromptMB: z.number().int().min(0).max(100 * 1024 * 1024).describe("A web upload batch larger than this (MB) suggests the desktop client; 0 never."),
});
export type SpeedSettings = z.infer<typeof speedSettings>;
export const SPEED_DEFAULTS: SpeedSettings = { maxUploadSpeed: 0, maxDownloadSpeed: 0, periods: [], clientPromptMB: 0 };
export const speedSettingsBody = speedSettings.partial().strict();

/** The index of the first period whose end is not after its start, or -1. */
export const badPeriodIndex = (periods: readonly SpeedPeriod[]) => periods.findIndex((p) => minutesOf(p.end) <= minutesOf(p.start));

/** Weekday numbers (0 Sunday … 6 Saturday) a repeat covers. */
export function repeatDays(repeat: SpeedRepeat): number[] {
  if (repeat === "everyday") return [0, 1, 2, 3, 4, 5, 6];
  if (repeat === "weekdays") return [1, 2, 3, 4, 5];
  if (repeat === "weekend") return [0, 6];
  return [["sun", "mon", "tue", "wed", "thu", "fri", "sat"].indexOf(repeat)];
}

/** The periods in effect at weekday `day` (0 Sunday), `minute` since midnight: start ≤ minute < end. */
export const periodsAt = (periods: readonly SpeedPeriod[], day: number, minute: number) =>
  periods.filter((p) => repeatDays(p.repeat).includes(day) && minutesOf(p.start) <= minute && minute < minutesOf(p.end));

/**
 * The web uploader's protocol settings (the admin's Transfer protocol page), served to the web in
 * /api/service/info: uploads running at once per page, and the bytes of one PATCH (0 = the whole
 * file in one request, Ferry's default: resumes start from the server's offset anyway).
 */
export const protocolSettings = z.object({
  parallelUploads: z.number().int().min(1).max(10).describe("Files one sign-in uploads at once: the web's queue; the file server refuses more with 4210 (429)."),
  uploadPartMB: z.number().int().min(0).max(4096).describe("MB sent per upload request (tus PATCH); 0 the whole file in one request. The file server refuses a larger body with 4209 (413)."),
});
export type ProtocolSettings = z.infer<typeof protocolSettings>;
export const PROTOCOL_DEFAULTS: ProtocolSettings = { parallelUploads: 3, uploadPartMB: 0 };
export const protocolSettingsBody = protocolSettings.partial().strict();
