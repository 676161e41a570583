import type { Sharp, SharpOptions } from "sharp";
import { FerryError } from "../errors";

/*
 * What the thumbnail cache and the watermark share of their work with sharp: loading it, the gate on
 * how many images are drawn at once, and the check of a source's header before its pixels are read.
 */

export type SharpFactory = (input?: Buffer | SharpOptions, options?: SharpOptions) => Sharp;

/** libvips loads only on the first image: an engine that never makes one never pays for it. */
let sharpModule: Promise<SharpFactory> | null = null;
export function loadSharp(): Promise<SharpFactory> {
  sharpModule ??= import("sharp").then((m) => {
    const sharp = m.default;
    // No operation cache (memory stays flat between requests); one thread per image, so a page of
    // thumbnails never takes every core from transfers.
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp as unknown as SharpFactory;
  });
  return sharpModule;
}

/**
 * A gate: at most `max` drawings run at once, the rest wait in line, so the two cores stay free
 * enough for transfers. Each caller (thumbnails, watermarks) keeps its own gate.
 */
export function createRunLimit(max: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function limited<T>(work: () => Promise<T>): Promise<T> {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * Reads only the header of `input` (sniffed as `sniffed`) and answers the options to draw it with:
 * a header sharp cannot read is PreviewFailed; another format than sniffed, or more pixels than
 * `maxPixels`, are refused with the caller's own errors.
 */
export async function checkSource(
  sharp: SharpFactory,
  input: Buffer,
  sniffed: string,
  maxPixels: number,
  refuse: { format: () => FerryError; pixels: () => FerryError },
): Promise<SharpOptions> {
  const options: SharpOptions = { limitInputPixels: maxPixels, pages: 1, failOn: "error" };
  let meta: Awaited<ReturnType<Sharp["metadata"]>>;
  try {
    // Only the header is read here; the pixel limit is checked below with the caller's own refusal.
    meta = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw new FerryError("PreviewFailed");
  }
  if (meta.format !== sniffed) throw refuse.format();
  if ((meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) > maxPixels) throw refuse.pixels();
  return options;
}
