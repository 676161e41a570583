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
