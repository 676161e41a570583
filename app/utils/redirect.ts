/**
 * A redirect target from user input, kept on this site: a path starting with one "/" and nothing
 * that a browser could read as another origin (`//evil`, `/\\evil`, encoded slashes, schemes, CR/LF).
 */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = "/personal"): string {
  if (typeof target !== "string" || target.length === 0 || target.length > 2048) return fallback;
  if (!target.startsWith("/") || target.startsWith("//") || target.startsWith("/\\")) return fallback;
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return fallback;
  }
  // eslint-disable-next-line no-control-regex -- control characters (CR/LF…) are what is refused
  if (/[\u0000-\u001f\\]/.test(decoded) || decoded.startsWith("//") || /^\/+[a-z][a-z0-9+.-]*:/i.test(decoded)) return fallback;
  return target;
}
