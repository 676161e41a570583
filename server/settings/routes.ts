import { securitySettings, securitySettingsBody } from "../../contract/admin";
import { siteSettings, siteSettingsBody, transferSettings, transferSettingsBody } from "../../contract/settings";
import { route } from "../http/route";
import type { Settings } from "./service";

/** The administrator API of the security, site and transfer settings (docs/admin-api.md). Every route needs the administrator's access token. */
export function settingsRoutes(settings: Settings) {
  return [
    route({ method: "GET", url: "/api/admin/settings/security", tag: "admin", summary: "Lockout, password and weak-password settings.", auth: "admin", response: securitySettings, handler: () => settings.get("security") }),
    route({ method: "GET", url: "/api/admin/settings/site", tag: "admin", summary: "Site branding: colours, login-box position, product names, company links.", auth: "admin", response: siteSettings, handler: () => settings.get("site") }),
    route({ method: "PATCH", url: "/api/admin/settings/site", tag: "admin", summary: "Change site branding (position 1–9, colours #RRGGBB).", auth: "admin", body: siteSettingsBody, response: siteSettings, handler: ({ body }) => settings.update("site", body) }),
    route({ method: "GET", url: "/api/admin/settings/transfer", tag: "admin", summary: "File-server switches and limits the clients read from /api/service/info (TCPFileSizeLimit in KB).", auth: "admin", response: transferSettings, handler: () => settings.get("transfer") }),
    route({ method: "PATCH", url: "/api/admin/settings/transfer", tag: "admin", summary: "Change file-server switches and limits (tcpFileSizeLimitKB ≥ 1).", auth: "admin", body: transferSettingsBody, response: transferSettings, handler: ({ body }) => settings.update("transfer", body) }),
    route({ method: "PATCH", url: "/api/admin/settings/security", tag: "admin", summary: "Change security settings (lockTimes 3–30).", auth: "admin", body: securitySettingsBody, response: securitySettings, handler: ({ body }) => settings.update("security", body) }),
  ];
}
