import * as z from "zod";

/** Site branding an administrator can change (the rest of site info derives from configuration). */
export const siteSettings = z.object({
  primaryColor: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
  backgroundColor: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
  position: z.number().int().min(1).max(9),
  productNameZH: z.string().min(1).max(64),
  productNameEN: z.string().min(1).max(64),
  companyLink: z.string().max(255),
  companyLinkEN: z.string().max(255),
  urlName: z.string().max(64),
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
