import type sharpDefault from "sharp";
import type { ImageType } from "../../contract/site-design";

/** What an uploaded image is, read from its bytes (never from its name or the declared type). */
export interface ImageFacts {
  type: ImageType;
  width: number;
  height: number;
}

type SharpFactory = typeof sharpDefault;
let sharpModule: Promise<SharpFactory> | null = null;
/** libvips loads on the first upload only. */
function loadSharp(): Promise<SharpFactory> {
  sharpModule ??= import("sharp").then((m) => {
    m.default.cache(false);
    return m.default;
  });
  return sharpModule;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The type the bytes start with, or null. */
export function sniffImage(bytes: Buffer): ImageType | null {
  if (bytes.length < 8) return null;
  if (bytes.subarray(0, 8).equals(PNG)) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpg";
  const head = bytes.subarray(0, 6).toString("latin1");
  if (head === "GIF87a" || head === "GIF89a") return "gif";
  if (bytes.readUInt16LE(0) === 0 && bytes.readUInt16LE(2) === 1 && bytes.readUInt16LE(4) > 0) return "ico";
  return null;
}

/**
 * An ICO file's largest image (the ICONDIR and its entries): each entry's data must lie inside the
 * file and be a PNG or a BMP header, and a width or height byte of 0 means 256.
 */
function readIco(bytes: Buffer): ImageFacts | null {
  const count = bytes.readUInt16LE(4);
  if (count < 1 || count > 64 || bytes.length < 6 + 16 * count) return null;
  let width = 0;
  let height = 0;
  for (let i = 0; i < count; i++) {
    const at = 6 + 16 * i;
    const w = bytes[at] || 256;
    const h = bytes[at + 1] || 256;
    const size = bytes.readUInt32LE(at + 8);
    const offset = bytes.readUInt32LE(at + 12);
    if (size < 40 || offset < 6 + 16 * count || offset + size > bytes.length) return null;
    const data = bytes.subarray(offset, offset + size);
    const isPng = data.subarray(0, 8).equals(PNG);
    // A BMP inside an ICO has no file header: a BITMAPINFOHEADER (size 40) whose height is doubled (image + mask).
    const isBmp = data.readUInt32LE(0) === 40 && data.readInt32LE(4) === w && Math.abs(data.readInt32LE(8)) === 2 * h;
    if (!isPng && !isBmp) return null;
    width = Math.max(width, w);
    height = Math.max(height, h);
  }
  return { type: "ico", width, height };
}

/**
 * The image's type and pixel size, or null when the bytes are not an image of a known type. One
 * within `max` is also decoded in full (libvips), so a truncated or corrupt file is refused, not
 * just one with a bad header; a larger one is only measured (the caller refuses it by its size).
 */
export async function readImage(bytes: Buffer, max: { width: number; height: number }): Promise<ImageFacts | null> {
  const type = sniffImage(bytes);
  if (!type) return null;
  if (type === "ico") return readIco(bytes);
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes).metadata();
    const expected = { png: "png", jpg: "jpeg", gif: "gif" }[type];
    const height = meta.pageHeight ?? meta.height;
    if (meta.format !== expected || !meta.width || !height) return null;
    const facts = { type, width: meta.width, height };
    if (facts.width > max.width || facts.height > max.height) return facts;
    await sharp(bytes, { failOn: "error", animated: type === "gif", limitInputPixels: max.width * max.height * 64 }).raw().toBuffer();
    return facts;
  } catch {
    return null;
  }
}
