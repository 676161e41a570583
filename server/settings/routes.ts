import { securitySettings, securitySettingsBody } from "../../contract/admin";
import type { Edition } from "../config";
import {
  generalSettings,
  generalSettingsBody,
  protocolSettings,
  protocolSettingsBody,
  siteSettings,
  siteSettingsBody,
  speedSettings,
  speedSettingsBody,
  transferSettings,
  transferSettingsBody,
} from "../../contract/settings";
import { SITE_DESIGN_FIELDS } from "../../contract/site-design";
import { FerryError } from "../errors";
import { route } from "../http/route";
import type { Settings } from "./service";

/** The administrator API of the settings groups (docs/admin-api.md, "Settings"). Every route needs the administrator's access token. */
export function settingsRoutes(settings: Settings, edition: () => Promise<Edition>) {
  return [
    route({ method: "GET", url: "/api/admin/settings/security", tag: "admin", summary: "Lockout, password, weak-password and server-wide file-format settings.", auth: "admin", response: securitySettings, handler: () => settings.get("security") }),
    route({ method: "GET", url: "/api/admin/settings/site", tag: "admin", summary: "Site branding: colours, login-box position, product names, company links.", auth: "admin", response: siteSettings, handler: () => settings.get("site") }),
    route({ method: "PATCH", url: "/api/admin/settings/site", tag: "admin", summary: "Change site branding (position 1–9, colours #RRGGBB).", auth: "admin", body: siteSettingsBody, response: siteSettings, handler: async ({ body }) => {
      // The branding fields are site customisation: enterprise only (spec section 1; urlName and clientText are not).
      if (SITE_DESIGN_FIELDS.some((key) => key in body) && (await edition()) !== "enterprise") throw new FerryError("SiteDesignEnterprise");
      return settings.update("site", body);
    } }),
    route({ method: "GET", url: "/api/admin/settings/transfer", tag: "admin", summary: "File-server switches and limits the clients read from /api/service/info (TCPFileSizeLimit in KB).", auth: "admin", response: transferSettings, handler: () => settings.get("transfer") }),
    route({ method: "PATCH", url: "/api/admin/settings/transfer", tag: "admin", summary: "Change file-server switches and limits (tcpFileSizeLimitKB ≥ 1).", auth: "admin", body: transferSettingsBody, response: transferSettings, handler: ({ body }) => settings.update("transfer", body) }),
    route({ method: "PATCH", url: "/api/admin/settings/security", tag: "admin", summary: "Change security settings (lockTimes 3–30, fileFormats under 255 characters); they apply from the next request.", auth: "admin", body: securitySettingsBody, response: securitySettings, handler: ({ body }) => settings.update("security", body) }),
    route({ method: "GET", url: "/api/admin/settings/general", tag: "admin", summary: "Common settings: bind-first-device default, event notifications, space statistics, watermark with its position and opacity.", auth: "admin", response: generalSettings, handler: () => settings.get("general") }),
    route({
      method: "PATCH",
      url: "/api/admin/settings/general",
      tag: "admin",
      summary: "Change the common settings. watermark: enterprise edition only (4381 otherwise); on, the engine draws the watermark (Site design's watermark image, else the viewer's account and the time) at watermarkPosition (1–9) with watermarkOpacity (10–100 %) into every image preview and thumbnail it serves; downloads stay the original bytes; SVG/BMP/ICO previews are refused while it is on (4382). Ferry has no video preview, so no video is watermarked.",
      auth: "admin",
      body: generalSettingsBody,
      response: generalSettings,
      handler: async ({ body }) => {
        if (body.watermark && (await edition()) !== "enterprise") throw new FerryError("WatermarkEnterprise");
        return settings.update("general", body);
      },
    }),
    route({ method: "GET", url: "/api/admin/settings/speed", tag: "admin", summary: "Server-wide max speeds (KB/s), speed periods and the client-download prompt threshold.", auth: "admin", response: speedSettings, handler: () => settings.get("speed") }),
    route({ method: "PATCH", url: "/api/admin/settings/speed", tag: "admin", summary: "Change server-wide speeds or replace the speed periods (end after start, else 4380); running transfers follow within a second.", auth: "admin", body: speedSettingsBody, response: speedSettings, handler: ({ body }) => settings.update("speed", body) }),
    route({ method: "GET", url: "/api/admin/settings/protocol", tag: "admin", summary: "The web uploader's parallel uploads and part size.", auth: "admin", response: protocolSettings, handler: () => settings.get("protocol") }),
    route({ method: "PATCH", url: "/api/admin/settings/protocol", tag: "admin", summary: "Change the web uploader's parallel uploads (1–10) and part size (MB, 0 whole file).", auth: "admin", body: protocolSettingsBody, response: protocolSettings, handler: ({ body }) => settings.update("protocol", body) }),
  ];
}
