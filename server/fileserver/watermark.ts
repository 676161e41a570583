import type { Readable } from "node:stream";
import { extensionOf } from "../../contract/files";
import { FerryError } from "../errors";
import type { Services } from "../services";
import { createSiteDesign } from "../site-design/service";
import { readCapped } from "./read-capped";
import { checkSource, createRunLimit, loadSharp, type SharpFactory } from "./image-work";
import { sniffRaster } from "./thumbnail-cache";

/**
 * The watermark (docs/file-server.md, "Watermark"; General settings' `watermark`, enterprise
 * edition only). While it is on, every image the engine serves for viewing — a preview
 * (`/preview/…`) and a thumbnail (`/thumbnail/…`, also a share visitor's) — is decoded and drawn
 * over here with sharp before it leaves, so the URL fetched on its own carries it too. Downloads
 * (`/download/…`, attachment) stay the original bytes.
 *
 * What is drawn: the watermark image of the site design (JPEG or PNG, scaled to at most 30 % of the
 * image's width and height), or without one a line of text naming the viewer — the account, or
 * `share <id>` for a share visitor — and the time, white on a dark band: a screenshot that leaks
 * says whose it was. The image is placed at `watermarkPosition` (1 top left … 9 bottom right) with
 * `watermarkOpacity`.
 *
 * Only raster images the engine can decode safely are drawn on: JPEG, PNG and GIF (its first
 * frame) for previews. An SVG, BMP or ICO preview is refused while the watermark is on
 * (WatermarkPreviewUnsupported): serving it untouched would let the watermark be stepped around.
 */

/** Preview types the engine can draw the watermark on (their bytes are checked too). */
export const WATERMARK_PREVIEW_EXTENSIONS: readonly string[] = ["jpg", "jpeg", "png", "gif"];

/** What to draw now, for one viewer. */
export interface Watermark {
  position: number;
  /** 0.1 to 1. */
  opacity: number;
  image: Buffer | null;
  text: string;
}

const escapeMarkup = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** "2026-11-26 23:40 UTC" on the engine's clock (FERRY_TIME_ZONE). */
export function watermarkTime(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}

const KB = 1024;
const readableBytes = (n: number) => (n >= KB * KB ? `${Math.floor(n / (KB * KB))} MB` : `${Math.floor(n / KB)} KB`);

export function createWatermarks(services: Services) {
  const { config, settings, licence, clock } = services;
  const design = createSiteDesign({ dataDir: config.dataDir, settings, licence });
  const limits = config.thumbnails;
  // The limits go in the data too: the web fills its own translation of the message from them.
  const limitVars = { bytes: readableBytes(limits.maxBytes), pixels: limits.maxPixels.toLocaleString("en") };
  const unsupported = () => new FerryError("WatermarkPreviewUnsupported", limitVars, limitVars);

  /** Draws in progress: two at most, more wait in line. */
  const limited = createRunLimit(2);

  /** The picture laid over an image of width × height: the uploaded image or the text band, faded to the opacity. */
  async function overlay(sharp: SharpFactory, mark: Watermark, width: number, height: number, margin: number): Promise<{ input: Buffer; width: number; height: number }> {
    const boxW = Math.max(1, width - 2 * margin);
    const boxH = Math.max(1, height - 2 * margin);
    let picture: Buffer;
    if (mark.image) {
      picture = await sharp(mark.image)
        .resize(Math.max(1, Math.round(width * 0.3)), Math.max(1, Math.round(height * 0.3)), { fit: "inside" })
        .png()
        .toBuffer();
    } else {
      // Text about 4.5 % of the shorter side high (9 to 48 px); Pango draws 12 pt, so dpi = 6 × pixels.
      const px = Math.min(48, Math.max(9, Math.round(Math.min(width, height) * 0.045)));
      const text = await sharp({ text: { text: `<span foreground="white">${escapeMarkup(mark.text)}</span>`, font: "sans", dpi: px * 6, rgba: true } })
        .png()
        .toBuffer();
      const pad = Math.max(2, Math.round(px * 0.4));
      picture = await sharp(text)
        .extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 0, g: 0, b: 0, alpha: 0.55 } })
        .png()
        .toBuffer();
    }
    // Three colour bands and an alpha band first (sharp orders a pipeline's steps itself), then the fade.
    const rgba = await sharp(picture).resize(boxW, boxH, { fit: "inside", withoutEnlargement: true }).toColourspace("srgb").ensureAlpha().png().toBuffer();
    const faded = await sharp(rgba)
      .linear([1, 1, 1, mark.opacity], [0, 0, 0, 0])
      .png()
      .toBuffer({ resolveWithObject: true });
    return { input: faded.data, width: faded.info.width, height: faded.info.height };
  }

  /** Where an overlay of w × h sits on width × height at position 1–9. */
  function place(position: number, width: number, height: number, w: number, h: number, margin: number) {
    const column = (position - 1) % 3;
    const row = Math.floor((position - 1) / 3);
    const along = (index: number, outer: number, inner: number) => (index === 0 ? margin : index === 1 ? Math.round((outer - inner) / 2) : outer - inner - margin);
    return { left: Math.max(0, along(column, width, w)), top: Math.max(0, along(row, height, h)) };
  }

  return {
    /** The watermark to draw for `viewer` now, or null: switched off, or not the enterprise edition. */
    async current(viewer: string): Promise<Watermark | null> {
      if ((await licence.edition()) !== "enterprise") return null;
      const general = await settings.get("general");
      if (!general.watermark) return null;
      const image = await design.watermarkImage();
      return { position: general.watermarkPosition, opacity: general.watermarkOpacity / 100, image: image?.bytes ?? null, text: `${viewer} · ${watermarkTime(clock.now(), config.timeZone)}` };
    },

    /** Refuses, before a URL is issued, a preview the watermark cannot be drawn on (type or size). */
    checkPreview(name: string, size: number): void {
      if (!WATERMARK_PREVIEW_EXTENSIONS.includes(extensionOf(name)) || size > limits.maxBytes) throw unsupported();
    },

    /**
     * The image with the watermark drawn in: `keep` answers the source's own type (JPEG stays
     * JPEG; PNG and GIF become PNG), `webp` a WebP (thumbnails).
     */
    async draw(input: Buffer, mark: Watermark, output: "keep" | "webp"): Promise<{ bytes: Buffer; mediaType: string }> {
      const sniffed = sniffRaster(input.subarray(0, 16));
      if (!sniffed || (output === "keep" && !["jpeg", "png", "gif"].includes(sniffed))) throw unsupported();
      const sharp = await loadSharp();
      return limited(async () => {
        const options = await checkSource(sharp, input, sniffed, limits.maxPixels, { format: unsupported, pixels: unsupported });
        try {
          const upright = await sharp(input, options).rotate().raw().toBuffer({ resolveWithObject: true });
          const { width, height, channels } = upright.info;
          const margin = Math.round(Math.min(width, height) * 0.03);
          const over = await overlay(sharp, mark, width, height, margin);
          const at = place(mark.position, width, height, over.width, over.height, margin);
          const drawn = sharp(upright.data, { raw: { width, height, channels } }).composite([{ input: over.input, ...at }]);
          if (output === "webp") return { bytes: await drawn.webp({ quality: 80 }).toBuffer(), mediaType: "image/webp" };
          if (sniffed === "jpeg") return { bytes: await drawn.jpeg({ quality: 90 }).toBuffer(), mediaType: "image/jpeg" };
          return { bytes: await drawn.png().toBuffer(), mediaType: "image/png" };
        } catch (error) {
          if (error instanceof FerryError) throw error;
          throw new FerryError("PreviewFailed");
        }
      });
    },

    /** A preview's source bytes, never more than the limit in memory. */
    async read(open: () => Promise<Readable>): Promise<Buffer> {
      return readCapped(await open(), limits.maxBytes, unsupported);
    },
  };
}

export type Watermarks = ReturnType<typeof createWatermarks>;
