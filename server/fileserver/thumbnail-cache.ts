import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { THUMBNAIL_SIZE } from "../../contract/files";
import { FerryError } from "../errors";
import { readCapped } from "./read-capped";
import { checkSource, createRunLimit, loadSharp } from "./image-work";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../data-dir";

/**
 * Thumbnails of raster images (docs/file-server.md, "Thumbnails"): made with sharp (libvips) and
 * kept on disk under `<data dir>/thumbnails`. The caller has already decided that the user may see
 * the file; this module only turns bytes into a small WebP and caches it.
 *
 * A cache file is named by the SHA-256 of the file's place in storage, then the box, the file's
 * size and its modification time: a changed file gets a new name, and making it removes the older
 * ones of the same file at once. The cache as a whole is bounded (least recently used go first).
 *
 * SVG and every other vector or scripted format are never decoded: the first bytes must be those
 * of JPEG, PNG, GIF, WebP, TIFF or AVIF, and libvips must agree, before anything is rendered.
 */

export interface ThumbnailLimits {
  maxBytes: number;
  maxPixels: number;
  cacheBytes: number;
}

export interface ThumbnailSource {
  /** Where the file lives in storage (home + path): files reached through several spaces share one entry. */
  key: string;
  size: number;
  mtime: number;
  open(): Promise<Readable>;
}

const ascii = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString("latin1");

/** The raster format the bytes start with, or null (SVG, PDF, text, anything else). */
export function sniffRaster(head: Buffer): "jpeg" | "png" | "gif" | "webp" | "tiff" | "heif" | null {
  if (head.length < 12) return null;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a") return "gif";
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return "webp";
  if (ascii(head, 0, 4) === "II*\0" || ascii(head, 0, 4) === "MM\0*") return "tiff";
  if (ascii(head, 4, 8) === "ftyp" && ["avif", "avis"].includes(ascii(head, 8, 12))) return "heif";
  return null;
}

const KB = 1024;
const readableBytes = (n: number) => (n >= KB * KB ? `${Math.floor(n / (KB * KB))} MB` : `${Math.floor(n / KB)} KB`);

export function createThumbnailCache(dir: string, limits: ThumbnailLimits) {
  const tooLarge = () => new FerryError("ThumbnailTooLarge", null, { bytes: readableBytes(limits.maxBytes), pixels: limits.maxPixels.toLocaleString("en") });
  /** Bytes held by the cache, counted once at first use, then kept up to date. */
  let held: number | null = null;
  /** One render per cache file at a time: a grid asking twice waits for the first. */
  const making = new Map<string, Promise<Buffer>>();
  /** Renders running now: two at most, more wait in line. */
  const limited = createRunLimit(2);

  const names = (source: ThumbnailSource) => {
    const id = createHash("sha256").update(source.key).digest("hex");
    const folder = path.join(dir, id.slice(0, 2));
    const prefix = `${id}.${THUMBNAIL_SIZE}.`;
    return { folder, prefix, file: path.join(folder, `${prefix}${source.size}-${source.mtime}.webp`) };
  };

  async function allEntries(): Promise<{ file: string; size: number; used: number }[]> {
    const found: { file: string; size: number; used: number }[] = [];
    let folders: string[];
    try {
      folders = await readdir(dir);
    } catch {
      return found;
    }
    for (const folder of folders) {
      let files: string[];
      try {
        files = await readdir(path.join(dir, folder));
      } catch {
        continue;
      }
      for (const name of files) {
        const file = path.join(dir, folder, name);
        const info = await stat(file).catch(() => null);
        if (info?.isFile()) found.push({ file, size: info.size, used: info.mtimeMs });
      }
    }
    return found;
  }

  /** Drops the least recently used entries until the cache holds at most 80 % of its bound. */
  async function prune(): Promise<void> {
    const entries = await allEntries();
    held = entries.reduce((sum, e) => sum + e.size, 0);
    if (held <= limits.cacheBytes) return;
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (held <= limits.cacheBytes * 0.8) break;
      await rm(entry.file, { force: true });
      held -= entry.size;
    }
  }

  // The file may have grown since it was looked at: still never more than the limit in memory.
  const readSource = async (source: ThumbnailSource) => readCapped(await source.open(), limits.maxBytes, tooLarge);

  async function render(source: ThumbnailSource): Promise<Buffer> {
    const input = await readSource(source);
    const sniffed = sniffRaster(input.subarray(0, 16));
    if (!sniffed) throw new FerryError("PreviewUnsupported");
    const sharp = await loadSharp();
    const options = await checkSource(sharp, input, sniffed, limits.maxPixels, { format: () => new FerryError("PreviewUnsupported"), pixels: tooLarge });
    try {
      return await sharp(input, options)
        .rotate()
        .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: "inside", withoutEnlargement: true })
        .webp({ quality: 75 })
        .toBuffer();
    } catch (error) {
      if (error instanceof Error && /pixel limit/i.test(error.message)) throw tooLarge();
      throw new FerryError("PreviewFailed");
    }
  }

  async function make(source: ThumbnailSource, where: ReturnType<typeof names>): Promise<Buffer> {
    const image = await limited(() => render(source));
    await mkdir(where.folder, { recursive: true, mode: PRIVATE_DIR_MODE });
    // Older versions of the same file are of no use any more.
    for (const name of await readdir(where.folder)) {
      if (name.startsWith(where.prefix)) {
        const old = path.join(where.folder, name);
        const size = (await stat(old).catch(() => null))?.size ?? 0;
        await rm(old, { force: true });
        if (held !== null) held -= size;
      }
    }
    const temporary = `${where.file}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, image, { mode: PRIVATE_FILE_MODE });
    await rename(temporary, where.file);
    if (held === null) await prune();
    else {
      held += image.length;
      if (held > limits.cacheBytes) await prune();
    }
    return image;
  }

  return {
    /** The thumbnail (WebP) of the source, from the cache when the file has not changed since. */
    async get(source: ThumbnailSource): Promise<Buffer> {
      if (source.size > limits.maxBytes) throw tooLarge();
      const where = names(source);
      try {
        const cached = await readFile(where.file);
        // Its time is when it was last used: pruning removes the longest unused first.
        const now = new Date();
        await utimes(where.file, now, now).catch(() => undefined);
        return cached;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      let pending = making.get(where.file);
      if (!pending) {
        pending = make(source, where).finally(() => making.delete(where.file));
        making.set(where.file, pending);
      }
      return pending;
    },
    dir,
  };
}

export type ThumbnailCache = ReturnType<typeof createThumbnailCache>;
