/**
 * A console screen's own URL search from its state: the values that are set, in the order given;
 * empty ones (undefined, null, "", 0, false) are left out, so defaults stay out of the address.
 * "" when nothing is set, else "?…".
 */
export function searchOf(values: Record<string, string | number | false | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : "";
}
