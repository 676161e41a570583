/**
 * The one way a byte count is shown to a person, by the web (tables, dialogs, the transfer panel)
 * and in the catalogue's messages (`{{limit, size}}`, contract/errors.ts), so a limit never reads
 * "104857600 bytes" in one place and "100.00 MB" in another.
 */

export const SIZE_UNITS = ["B", "KB", "MB", "GB", "TB", "PB"] as const;

/**
 * A byte count in the largest unit that keeps it at least 1 (1024 steps, PB at most): 0 → "0 B",
 * 1536 → "1.50 KB". Whole bytes need no decimals. A negative or non-finite count shows "-".
 */
export function formatSize(bytes: number, decimals = 2): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "-";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(decimals)} ${SIZE_UNITS[unit]}`;
}

/** The formats a message variable may name (`{{name, format}}`): "size" shows a byte count with formatSize. */
export function formatValue(value: unknown, format: string | undefined): unknown {
  if (format === "size" && typeof value === "number") return formatSize(value);
  if (format === "size" && typeof value === "string" && /^\d+$/.test(value)) return formatSize(Number(value));
  return value;
}
