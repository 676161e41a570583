/**
 * The browser origins the file server serves (WebSocket upgrades, tus CORS). An origin is allowed
 * when its host name is the host name the request was sent to (the web and the file server on one
 * host, different ports), or when it is listed in FERRY_WEB_ORIGINS. A request without an Origin
 * header is not from a browser page (curl, the desktop client) and is judged by its token alone.
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  if (allowed.includes(parsed.origin)) return true;
  if (!hostHeader) return false;
  let host: string;
  try {
    host = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return false;
  }
  return parsed.hostname === host;
}
