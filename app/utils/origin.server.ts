import { env } from "./env.server";
import { isHttps } from "./session.server";

/**
 * The origin the browser sees this web client at, e.g. for the links the engine makes
 * (`<origin>/share/<id>`). Behind a proxy (FERRY_WEB_BEHIND_PROXY), its X-Forwarded-Host
 * names the public host; otherwise the Host header the browser sent.
 */
export function pageOrigin(request: Request): string {
  const host = (env.behindProxy && request.headers.get("X-Forwarded-Host")) || request.headers.get("Host") || new URL(request.url).host;
  return `${isHttps(request) ? "https" : "http"}://${host}`;
}
