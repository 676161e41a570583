/**
 * Device ids (docs/p2p.md, "Words"): 9 digits, the first not 0. Shown in groups of three
 * ("482 913 557") so that it can be read out over the phone; typed with or without spaces.
 */
export const DEVICE_ID_DIGITS = 9;
const PATTERN = /^[1-9]\d{8}$/;

/** "482913557" → "482 913 557"; anything else is shown as it is. */
export function formatDeviceId(id: string): string {
  return PATTERN.test(id) ? `${id.slice(0, 3)} ${id.slice(3, 6)} ${id.slice(6)}` : id;
}

/** What the user typed ("482 913 557", " 482913557 ") → "482913557"; null when it is not a device id. */
export function parseDeviceId(typed: string): string | null {
  const digits = typed.replace(/[\s\u00a0\u3000-]+/g, "");
  return PATTERN.test(digits) ? digits : null;
}
