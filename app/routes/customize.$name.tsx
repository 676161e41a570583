import type { LoaderFunctionArgs } from "@remix-run/node";
import { env } from "~/utils/env.server";
import { refusePost } from "~/utils/form.server";

/** The engine's headers the browser gets; nothing else is passed on. */
const PASSED_HEADERS = ["content-type", "content-length", "x-content-type-options", "content-security-policy", "cache-control"];
const NAME = /^(icon|logo|background|watermark)-[0-9a-f]{16}\.(png|jpg|gif|ico)$/;

/**
 * /customize/<name>: the site's icon, logo, login background and watermark image (docs/admin-api.md, "Site design"),
 * from the engine's customize folder, so the sign-in page and the shell load them from their own
 * origin. Public, like the sign-in page that shows them.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const name = params.name ?? "";
  if (!NAME.test(name)) throw new Response("Not found", { status: 404 });
  const response = await fetch(`${env.FERRY_ENGINE_URL}/customize/${name}`, { method: request.method === "HEAD" ? "HEAD" : "GET", signal: request.signal }).catch(() => null);
  if (!response?.ok) throw new Response("Not found", { status: 404, headers: { "Cache-Control": "no-store" } });
  const headers = new Headers();
  for (const header of PASSED_HEADERS) {
    const value = response.headers.get(header);
    if (value !== null) headers.set(header, value);
  }
  return new Response(response.body, { status: 200, headers });
}

/** Takes no posts: 405, the body discarded. */
export const action = refusePost;
