import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { SITE_DEFAULTS, type SiteSettings } from "../../contract/settings";
import type { SiteInfo } from "../../contract/site";
import { type ImageType, IMAGE_MEDIA_TYPES, SITE_ASSET_RULES, SITE_ASSETS, SITE_DESIGN_FIELDS, type SiteAsset, type SiteAssetInfo, type SiteDesign, type SiteDesignFields } from "../../contract/site-design";
import { FerryError } from "../errors";
import type { Licence } from "../licence/service";
import type { Settings } from "../settings/service";
import { readImage } from "./images";

/** A stored asset's file name: its kind and the first 16 hex digits of its SHA-256, so a new upload gets a new URL. */
export const ASSET_FILE = /^(icon|logo|background|watermark)-([0-9a-f]{16})\.(png|jpg|gif|ico)$/;

const pick = (s: SiteSettings): SiteDesignFields => Object.fromEntries(SITE_DESIGN_FIELDS.map((key) => [key, s[key]])) as SiteDesignFields;

/**
 * Site design (docs/admin-api.md, "Site design"): the branding fields and the three images, kept in
 * `<data dir>/customize`. Only the enterprise edition may change them, and only in that edition do
 * they reach the sign-in page: when a licence lapses the site shows the defaults again, without
 * losing what was set.
 */
export function createSiteDesign(deps: { dataDir: string; settings: Settings; licence: Licence }) {
  const { settings, licence } = deps;
  const folder = path.join(deps.dataDir, "customize");

  async function files(): Promise<string[]> {
    try {
      return (await readdir(folder)).filter((name) => ASSET_FILE.test(name));
    } catch {
      return [];
    }
  }

  async function assetInfo(kind: SiteAsset): Promise<SiteAssetInfo | null> {
    const name = (await files()).find((n) => n.startsWith(`${kind}-`));
    if (!name) return null;
    const type = ASSET_FILE.exec(name)![3] as ImageType;
    try {
      const bytes = await readFile(path.join(folder, name));
      const facts = await readImage(bytes, { width: Number.MAX_SAFE_INTEGER, height: Number.MAX_SAFE_INTEGER });
      return { url: `/customize/${name}`, type, width: facts?.width ?? 0, height: facts?.height ?? 0, bytes: bytes.length };
    } catch {
      return null;
    }
  }

  async function removeFiles(kind: SiteAsset, keep: string | null) {
    for (const name of await files()) if (name.startsWith(`${kind}-`) && name !== keep) await rm(path.join(folder, name), { force: true });
  }

  return {
    folder,
    edition: () => licence.edition(),

    async read(): Promise<SiteDesign> {
      const [edition, s, icon, logo, background, watermark] = await Promise.all([licence.edition(), settings.get("site"), assetInfo("icon"), assetInfo("logo"), assetInfo("background"), assetInfo("watermark")]);
      return { allowed: edition === "enterprise", edition, fields: pick(s), assets: { icon, logo, background, watermark } };
    },

    async update(patch: Partial<SiteDesignFields>): Promise<SiteDesign> {
      await licence.requireSiteDesign();
      await settings.update("site", patch);
      return this.read();
    },

    /**
     * Checks and stores an image: the size before anything else (the route caps the body too), then
     * the type and pixel size read from the bytes. Nothing changes when it is refused.
     */
    async upload(kind: SiteAsset, bytes: Buffer): Promise<SiteDesign> {
      await licence.requireSiteDesign();
      const rule = SITE_ASSET_RULES[kind];
      if (bytes.length > rule.maxBytes) throw new FerryError("ImageFileTooLarge", { limit: rule.maxBytes }, { limit: rule.maxBytes });
      const types = rule.types.map((t) => t.toUpperCase()).join(", ");
      const facts = await readImage(bytes, { width: rule.maxWidth, height: rule.maxHeight });
      if (!facts || !rule.types.includes(facts.type)) throw new FerryError("ImageTypeRefused", { types: rule.types }, { types });
      if (facts.width > rule.maxWidth || facts.height > rule.maxHeight) {
        const vars = { width: facts.width, height: facts.height, maxWidth: rule.maxWidth, maxHeight: rule.maxHeight };
        throw new FerryError("ImageDimensionsTooLarge", vars, vars);
      }
      const name = `${kind}-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${facts.type}`;
      await mkdir(folder, { recursive: true, mode: 0o755 });
      // Written aside, then renamed: a reader never sees half an image.
      const temp = path.join(folder, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
      await writeFile(temp, bytes, { mode: 0o644 });
      await rename(temp, path.join(folder, name));
      await removeFiles(kind, name);
      return this.read();
    },

    async removeAsset(kind: SiteAsset): Promise<SiteDesign> {
      await licence.requireSiteDesign();
      await removeFiles(kind, null);
      return this.read();
    },

    /** Every field and image back to the spec's defaults. */
    async reset(): Promise<SiteDesign> {
      await licence.requireSiteDesign();
      await settings.update("site", pick(SITE_DEFAULTS));
      for (const kind of SITE_ASSETS) await removeFiles(kind, null);
      return this.read();
    },

    /** A stored image to serve, or null: unknown name, or the edition does not allow site design. */
    async open(name: string): Promise<{ bytes: Buffer; mediaType: string } | null> {
      const match = ASSET_FILE.exec(name);
      if (!match || (await licence.edition()) !== "enterprise") return null;
      try {
        const file = path.join(folder, name);
        if (!(await stat(file)).isFile()) return null;
        return { bytes: await readFile(file), mediaType: IMAGE_MEDIA_TYPES[match[3] as ImageType] };
      } catch {
        return null;
      }
    },

    /** The stored watermark image (checked when uploaded), or null: none uploaded. The caller checks the edition. */
    async watermarkImage(): Promise<{ name: string; bytes: Buffer } | null> {
      const name = (await files()).find((n) => n.startsWith("watermark-"));
      if (!name) return null;
      try {
        return { name, bytes: await readFile(path.join(folder, name)) };
      } catch {
        return null;
      }
    },

    /** The branding part of /api/website/info: the stored design in the enterprise edition, the defaults in the others. */
    async siteInfo(): Promise<Pick<SiteInfo, "primaryColor" | "backgroundColor" | "position" | "opacity" | "raysyncZH" | "raysyncEN" | "companyLink" | "companyLinkEN" | "is_icon_change" | "is_logo_change" | "is_bg_change" | "ico" | "logo" | "background">> {
      const s = await settings.get("site");
      const allowed = (await licence.edition()) === "enterprise";
      const d = allowed ? s : { ...s, ...pick(SITE_DEFAULTS) };
      const names = allowed ? await files() : [];
      const url = (kind: SiteAsset) => {
        const name = names.find((n) => n.startsWith(`${kind}-`));
        return name ? `/customize/${name}` : "";
      };
      const [ico, logo, background] = [url("icon"), url("logo"), url("background")];
      return {
        primaryColor: d.primaryColor,
        backgroundColor: d.backgroundColor,
        position: d.position,
        opacity: d.opacity,
        raysyncZH: d.productNameZH,
        raysyncEN: d.productNameEN,
        companyLink: d.companyLink,
        companyLinkEN: d.companyLinkEN,
        is_icon_change: ico ? 1 : 0,
        is_logo_change: logo ? 1 : 0,
        is_bg_change: background ? 1 : 0,
        ico,
        logo,
        background,
      };
    },
  };
}

export type SiteDesignService = ReturnType<typeof createSiteDesign>;
