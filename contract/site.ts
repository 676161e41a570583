import * as z from "zod";

/** The desktop client installers the engine can serve at /download/<platform>: Windows, Ubuntu, CentOS, Mac. */
export const INSTALLER_PLATFORMS = ["exe", "deb", "rpm", "dmg"] as const;
export type InstallerPlatform = (typeof INSTALLER_PLATFORMS)[number];

/** GET /api/website/info → data (all site-info fields of the spec). */
export const siteInfo = z.object({
  primaryColor: z.string(),
  soft_version: z.string().describe("Edition: free, pro, smb or enterprise."),
  is_icon_change: z.number().int(),
  is_logo_change: z.number().int(),
  is_bg_change: z.number().int(),
  logo: z.string(),
  ico: z.string(),
  position: z.number().int().min(1).max(9),
  opacity: z.number().int().min(30).max(100).describe("The sign-in box's opacity, percent (site design)."),
  raysyncZH: z.string().describe("Product name in Chinese (field name kept from the original product)."),
  raysyncEN: z.string().describe("Product name in English."),
  companyLink: z.string(),
  companyLinkEN: z.string(),
  urlName: z.string(),
  certSelect: z.number().int(),
  backgroundColor: z.string(),
  background: z.string(),
  isEnVersion: z.boolean(),
  clientText: z.string(),
});
export type SiteInfo = z.infer<typeof siteInfo>;

/** GET /api/service/info → data.server (all server-info fields of the spec). */
export const serverInfo = z.object({
  client_online: z.number().int(),
  apiport: z.number().int(),
  proxyPort: z.number().int(),
  no_ssl_port: z.number().int(),
  ssl_port: z.number().int(),
  host: z.string().describe("Empty: the page's own host."),
  enableFTPS: z.boolean(),
  tcpEnable: z.boolean(),
  tcpDelay: z.number().int(),
  cTransEncryptSwitch: z.boolean(),
  cHashVerifySwitch: z.boolean(),
  autoUpdateSwitch: z.boolean(),
  syncSwitch: z.boolean(),
  emailAccount: z.string(),
  certSelect: z.number().int(),
  version: z.string(),
  TCPFileSizeLimit: z.number().int().describe("KB; multiply by 1024 for bytes."),
  installers: z
    .array(z.enum(INSTALLER_PLATFORMS))
    .describe("The platforms whose desktop client installer the administrator has put in the installers folder (GET /download/<platform> serves it); empty: no client to offer."),
  parallelUploads: z.number().int().describe("Ferry's: files the web uploads at once (Transfer protocol settings)."),
  uploadPartMB: z.number().int().describe("Ferry's: MB per upload request of the web; 0 the whole file in one request."),
  clientPromptMB: z.number().int().describe("Ferry's: a web upload batch larger than this suggests the desktop client; 0 never."),
  bindFirstDevice: z.boolean().describe("Ferry's: the share dialog's bind-first-device default (General settings)."),
});
export type ServerInfo = z.infer<typeof serverInfo>;
