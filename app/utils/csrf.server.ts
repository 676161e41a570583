/**
 * Refuses a state-changing request that another site made the browser send. Browsers say where a
 * request comes from in Sec-Fetch-Site (and Origin); a request that says "cross-site", or names
 * another origin, is refused. (The session cookie is SameSite=Lax as well.)
 */
export function assertSameSite(request: Request) {
  // An Origin of another site, moved aside by scripts/web-peer.mjs before Remix refused it with a blank 500.
  if (request.headers.has("X-Ferry-Foreign-Origin")) throw new Response("Cross-site request refused", { status: 403 });
  const site = request.headers.get("Sec-Fetch-Site");
  if (site && site !== "same-origin" && site !== "none") throw new Response("Cross-site request refused", { status: 403 });
  const origin = request.headers.get("Origin");
  if (origin && origin !== "null") {
    const host = request.headers.get("X-Forwarded-Host") ?? request.headers.get("Host");
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw new Response("Cross-site request refused", { status: 403 });
    }
    if (host && originHost !== host) throw new Response("Cross-site request refused", { status: 403 });
  } else if (origin === "null") {
    throw new Response("Cross-site request refused", { status: 403 });
  }
}
