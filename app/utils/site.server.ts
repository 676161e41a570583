import { SITE_DEFAULTS } from "../../contract/settings";
import type { SiteInfo } from "../../contract/site";
import { engineFetch } from "./engine.server";

/** The spec's defaults, used while the engine cannot answer (the engine starts from the same). */
export const DEFAULT_SITE: SiteInfo = {
  primaryColor: SITE_DEFAULTS.primaryColor,
  soft_version: "free",
  is_icon_change: 0,
  is_logo_change: 0,
  is_bg_change: 0,
  logo: "",
  ico: "",
  position: SITE_DEFAULTS.position,
  opacity: SITE_DEFAULTS.opacity,
  raysyncZH: SITE_DEFAULTS.productNameZH,
  raysyncEN: SITE_DEFAULTS.productNameEN,
  companyLink: SITE_DEFAULTS.companyLink,
  companyLinkEN: SITE_DEFAULTS.companyLinkEN,
  urlName: SITE_DEFAULTS.urlName,
  certSelect: 0,
  backgroundColor: SITE_DEFAULTS.backgroundColor,
  background: "",
  isEnVersion: false,
  clientText: SITE_DEFAULTS.clientText,
};

/** Site branding from GET /api/website/info; the defaults (and `online: false`) when the engine is down. */
export async function loadSite(request: Request): Promise<{ site: SiteInfo; online: boolean }> {
  try {
    const reply = await engineFetch<SiteInfo>("/api/website/info", { request });
    if (reply.result && reply.data) return { site: reply.data, online: true };
  } catch {
    // fall through to the defaults
  }
  return { site: DEFAULT_SITE, online: false };
}
