/** Display helpers for file sizes, dotted versions and unix times (spec section 9). */

import { runtimeTimeZone, wallClock } from "./time-zone";

// Sizes are formatted in the contract, so the engine's messages ("{{limit, size}}") read the same.
export { formatSize, SIZE_UNITS } from "../../contract/sizes";

/**
 * Compares dotted versions number by number, so "1.10.0" > "1.9.9" and "2.0" equals "2.0.0"
 * (missing or non-numeric parts count as 0). Returns -1, 0 or 1, ready for Array.sort.
 */
export function compareVersion(a: string, b: string): -1 | 0 | 1 {
  const left = a.trim().split(".");
  const right = b.trim().split(".");
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = Number.parseInt(left[i] ?? "0", 10) || 0;
    const y = Number.parseInt(right[i] ?? "0", 10) || 0;
    if (x !== y) return x > y ? 1 : -1;
  }
  return 0;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Unix seconds as "YYYY-MM-DD HH:mm:ss" on a clock in `timeZone` (the reader's: `useFormatTime`;
 * this runtime's when not given). The spec shows "-" for a value that is not positive or has more
 * than 14 digits; a value the calendar cannot hold shows "-" too.
 */
export function formatUnixTime(seconds: number, timeZone: string = runtimeTimeZone()): string {
  if (!Number.isFinite(seconds) || seconds <= 0 || String(Math.trunc(seconds)).length > 14) return "-";
  const ms = seconds * 1000;
  if (Number.isNaN(new Date(ms).getTime())) return "-";
  const c = wallClock(ms, timeZone);
  return `${c.year}-${pad(c.month)}-${pad(c.day)} ${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`;
}
