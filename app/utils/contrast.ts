/**
 * The site's primary colour as text and button colour. Branding may pick any colour (the default,
 * FD5C1F, has a contrast of 3.1:1 on white), but text in it, on white or on the page's F7F7F7, and
 * white text on it must stay readable (WCAG AA: 4.5:1). This gives the nearest darker shade of the
 * same hue that reaches 4.5:1 on the page background and the kit's hover grey (and so on white); a colour that already does
 * is returned as it is.
 */
export const MIN_TEXT_CONTRAST = 4.5;

function channels(hex: string): [number, number, number] | null {
  const digits = /^#?([0-9a-f]{6})$/i.exec(hex.trim())?.[1];
  if (!digits) return null;
  const value = parseInt(digits, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function luminance([r, g, b]: [number, number, number]): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/**
 * The darkest light background primary text sits on: the kit's hover background (Tailwind gray-100,
 * F3F4F6), just darker than the page (spec: F7F7F7) and the white cards.
 */
export const PAGE_BACKGROUND = "#F3F4F6";

/** Contrast ratio of a colour against a lighter background (1 to 21). */
export function contrastOn(hex: string, background: string): number {
  const rgb = channels(hex);
  const bg = channels(background);
  if (!rgb || !bg) return 1;
  return (luminance(bg) + 0.05) / (luminance(rgb) + 0.05);
}

const toHex = (rgb: number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("").toUpperCase()}`;

export function readablePrimary(hex: string, fallback = "#C2410C"): string {
  const rgb = channels(hex);
  if (!rgb) return fallback;
  const readable = (shade: string) => contrastOn(shade, PAGE_BACKGROUND) >= MIN_TEXT_CONTRAST;
  if (readable(hex)) return toHex(rgb);
  // Darken towards black in small steps: the hue stays, only the lightness drops.
  for (let factor = 0.98; factor > 0; factor -= 0.02) {
    const shade = toHex(rgb.map((c) => c * factor));
    if (readable(shade)) return shade;
  }
  return "#000000";
}
