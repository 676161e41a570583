/** The longest redirect target kept, before and after normalising; a longer one gives the fallback. */
export const REDIRECT_MAX = 2048;

const BASE = "http://ferry.invalid";

/**
 * A redirect target from user input, kept on this site: a path starting with one "/" and nothing
 * that a browser could read as another origin (`//evil`, `/\\evil`, encoded slashes, schemes, CR/LF).
 * Raw control, format and white-space characters (DEL, U+3000, a space, bidi overrides…) and
 * encoded control characters give the fallback; other non-ASCII characters are percent-encoded. What
 * comes back is plain ASCII, so it always fits in a Location header.
 */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = "/personal"): string {
  if (typeof target !== "string" || target.length === 0 || target.length > REDIRECT_MAX) return fallback;
  if (!target.startsWith("/") || target.startsWith("//") || target.startsWith("/\\")) return fallback;
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return fallback;
  }
  // Raw: no control, format or white-space character at all (a browser sends them encoded). Decoded:
  // no control character or backslash, which an encoded value may not smuggle in either.
  if (/[\p{Cc}\p{Cf}\p{Z}]/u.test(target) || /[\p{Cc}\\]/u.test(decoded)) return fallback;
  if (decoded.startsWith("//") || /^\/+[a-z][a-z0-9+.-]*:/i.test(decoded)) return fallback;
  let url: URL;
  try {
    url = new URL(target, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  const normalised = `${url.pathname}${url.search}${url.hash}`;
  if (!normalised.startsWith("/") || normalised.startsWith("//") || normalised.length > REDIRECT_MAX) return fallback;
  return normalised;
}
