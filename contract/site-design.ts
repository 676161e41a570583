import * as z from "zod";
import { siteSettings } from "./settings";

/*
 * Site design (admin spec section 3 "Site design", section 5's image checks; docs/admin-api.md
 * "Site design"): the icon, logo, login background and watermark an administrator uploads, served
 * from the customize folder of the data directory. Enterprise only (spec section 1). The watermark is
 * drawn on image previews and thumbnails when General settings' watermark is on (docs/file-server.md,
 * "Watermark").
 */

export const SITE_ASSETS = ["icon", "logo", "background", "watermark"] as const;
export type SiteAsset = (typeof SITE_ASSETS)[number];
export type ImageType = "png" | "jpg" | "gif" | "ico";

/** Each asset's accepted types, largest pixel size (spec section 5) and largest file (checked before reading). */
export const SITE_ASSET_RULES: Record<SiteAsset, { types: readonly ImageType[]; maxWidth: number; maxHeight: number; maxBytes: number }> = {
  icon: { types: ["ico", "png"], maxWidth: 64, maxHeight: 64, maxBytes: 256 * 1024 },
  logo: { types: ["jpg", "png", "gif"], maxWidth: 160, maxHeight: 70, maxBytes: 1024 * 1024 },
  background: { types: ["jpg", "png"], maxWidth: 1920, maxHeight: 1080, maxBytes: 8 * 1024 * 1024 },
  /** Spec section 5: "watermark jpg or png"; the engine scales it to the image it is drawn on. */
  watermark: { types: ["jpg", "png"], maxWidth: 1920, maxHeight: 1080, maxBytes: 2 * 1024 * 1024 },
};

/** The media type each stored type is served with. */
export const IMAGE_MEDIA_TYPES: Record<ImageType, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", ico: "image/x-icon" };

/** The branding fields that are site customisation (enterprise only); urlName and clientText are general settings. */
export const SITE_DESIGN_FIELDS = ["primaryColor", "backgroundColor", "position", "opacity", "productNameZH", "productNameEN", "companyLink", "companyLinkEN"] as const;

export const siteDesignFields = siteSettings.pick({
  primaryColor: true,
  backgroundColor: true,
  position: true,
  opacity: true,
  productNameZH: true,
  productNameEN: true,
  companyLink: true,
  companyLinkEN: true,
});
export type SiteDesignFields = z.infer<typeof siteDesignFields>;
export const siteDesignBody = siteDesignFields.partial().strict();

const assetInfo = z.object({ url: z.string().describe("Path of the image (/customize/<name>), content-addressed: a new upload gets a new URL."), type: z.enum(["png", "jpg", "gif", "ico"]), width: z.number().int(), height: z.number().int(), bytes: z.number().int() });
export type SiteAssetInfo = z.infer<typeof assetInfo>;

/** GET /api/admin/site-design → data. */
export const siteDesign = z.object({
  allowed: z.boolean().describe("The edition in effect allows site customisation (enterprise); false: every change is refused with 4460 and the sign-in page shows the defaults."),
  edition: z.enum(["free", "pro", "smb", "enterprise"]),
  fields: siteDesignFields,
  assets: z.object({ icon: assetInfo.nullable(), logo: assetInfo.nullable(), background: assetInfo.nullable(), watermark: assetInfo.nullable().describe("Drawn on image previews and thumbnails while General settings' watermark is on; none: the viewer's account and the time are drawn.") }),
});
export type SiteDesign = z.infer<typeof siteDesign>;
