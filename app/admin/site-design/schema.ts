import * as z from "zod";
import { LICENCE_MAX_BYTES } from "../../../contract/licence";
import { isWebLink } from "../../../contract/settings";
import { SITE_ASSET_RULES, SITE_ASSETS } from "../../../contract/site-design";

/** The screen's address (shared by the page, its parts and its actions). */
export const PAGE = "/admin/site-design";

const colour = z.string({ error: "global.field.required" }).regex(/^#[0-9A-Fa-f]{6}$/, "admin.site.colour.invalid");
const name = z.string({ error: "global.field.required" }).trim().min(1, "global.field.required").max(64, "admin.site.name.too-long");
const link = z
  .string()
  .trim()
  .max(255, "admin.site.link.invalid")
  .refine((v) => v === "" || isWebLink(v), "admin.site.link.invalid")
  .optional()
  .transform((v) => v ?? "");

/** The branding fields form (the engine's siteDesignBody; position and opacity come as text). */
export const designSchema = z.object({
  intent: z.literal("save"),
  primaryColor: colour,
  backgroundColor: colour,
  position: z.coerce.number({ error: "global.field.required" }).int().min(1).max(9),
  opacity: z.coerce.number({ error: "global.field.required" }).int().min(30, "admin.site.opacity.range").max(100, "admin.site.opacity.range"),
  productNameZH: name,
  productNameEN: name,
  companyLink: link,
  companyLinkEN: link,
});

/** One image upload; the byte cap is the engine's for that image. */
export const uploadSchemas = Object.fromEntries(
  SITE_ASSETS.map((asset) => [asset, z.object({ intent: z.literal("upload"), asset: z.literal(asset), image: z.file({ error: "admin.site.image.choose" }).max(SITE_ASSET_RULES[asset].maxBytes, "admin.site.image.too-large") })]),
) as Record<(typeof SITE_ASSETS)[number], z.ZodObject<{ intent: z.ZodLiteral<"upload">; asset: z.ZodLiteral<string>; image: z.ZodFile }>>;

export const licenceSchema = z.object({ intent: z.literal("licence"), licence: z.file({ error: "admin.licence.choose" }).max(LICENCE_MAX_BYTES, "admin.licence.too-large") });

/** The largest post the page reads before parsing: the largest image and the multipart framing. */
export const SITE_FORM_LIMIT = Math.max(...SITE_ASSETS.map((a) => SITE_ASSET_RULES[a].maxBytes)) + 64 * 1024;

/** The page's confirmation without JavaScript (`?confirm=`). */
export const confirmSchema = z.enum(["reset", "remove-icon", "remove-logo", "remove-background", "remove-watermark", "licence-remove"]).nullable().catch(null);
export type ConfirmAsk = z.infer<typeof confirmSchema>;
