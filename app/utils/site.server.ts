import type { SiteInfo } from "../../contract/site";
import { engineFetch } from "./engine.server";

/** The spec's defaults, used while the engine cannot answer. */
export const DEFAULT_SITE: SiteInfo = {
  primaryColor: "#FD5C1F",
  soft_version: "free",
  is_icon_change: 0,
  is_logo_change: 0,
  is_bg_change: 0,
  logo: "",
  ico: "",
  position: 5,
  raysyncZH: "飞渡",
  raysyncEN: "Ferry",
  companyLink: "",
  companyLinkEN: "",
  urlName: "ferry",
  certSelect: 0,
  backgroundColor: "#F7F7F7",
  background: "",
  isEnVersion: false,
  clientText: "",
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
