import { formatSize } from "../../../contract/sizes";

/**
 * The network chart's y scale: from 0 in at most 5 steps of a power of two bytes (256 B, 16 KB,
 * 512 KB…), so the ticks read 16 KB/s, 32 KB/s… rather than a fifth of the peak (19.53 KB/s).
 */
export function byteRateScale(peak: number): { max: number; stepSize: number } {
  // An idle machine's chart still reads up to 1 KB/s.
  const top = Math.max(peak, 1024);
  const stepSize = 2 ** Math.ceil(Math.log2(top / 5));
  return { max: stepSize * Math.ceil(top / stepSize), stepSize };
}

/** A tick's byte rate: formatSize without the zero decimals ("16 KB/s", "1.5 MB/s", "0 B/s"). */
export function tickRate(bytes: number): string {
  const [amount, unit] = formatSize(bytes).split(" ");
  return `${Number(amount)} ${unit}/s`;
}
