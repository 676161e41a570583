import { type LoaderFunctionArgs, redirect } from "@remix-run/node";
import type { Envelope } from "../../contract/envelope";
import { ENGINE_TIMEOUT_MS } from "~/utils/engine.server";
import { env } from "~/utils/env.server";
import { safeRedirect } from "~/utils/redirect";
import { requireUser, signOut } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { refusePost } from "~/utils/form.server";

const PLATFORMS = new Set(["exe", "deb", "rpm", "dmg"]);
/** What the browser needs of the engine's answer; nothing else is passed on. */
const PASSED_HEADERS = ["content-type", "content-length", "content-disposition", "x-content-type-options", "cache-control"];

/** Where a failed download returns: the page it was started from when that is this site, else /personal. */
function backTo(request: Request): string {
  const referer = request.headers.get("Referer");
  if (!referer) return "/personal";
  try {
    const from = new URL(referer);
    const host = request.headers.get("X-Forwarded-Host") ?? request.headers.get("Host") ?? new URL(request.url).host;
    if (from.host !== host || from.pathname.startsWith("/download/")) return "/personal";
    return safeRedirect(from.pathname + from.search, "/personal");
  } catch {
    return "/personal";
  }
}

/**
 * /download/exe|deb|rpm|dmg: the desktop client installer. The engine wants the access token, which
 * never reaches the browser, so this route asks the engine itself and streams its answer through.
 * A refusal (e.g. 4204, no installer yet) returns to the page the user came from with a toast.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const platform = params.platform ?? "";
  // Any other address leads to sign-in (docs/web.md), not to a bare "Not found" this resource route cannot style.
  if (!PLATFORMS.has(platform)) throw redirect("/signin");
  const user = await requireUser(request);
  const back = backTo(request);
  const fail = async (message: string) => redirectWithToast(back, { type: "error", message }, { headers: { "Set-Cookie": await user.commit() } });

  // The time limit covers the engine's answer, not the transfer: a large installer may take long.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), ENGINE_TIMEOUT_MS);
  let response: Response;
  try {
    const headers = new Headers({ Authorization: `Bearer ${user.engine.token}` });
    const language = request.headers.get("Accept-Language");
    if (language) headers.set("Accept-Language", language);
    response = await fetch(`${env.FERRY_ENGINE_URL}/download/${platform}`, {
      method: request.method === "HEAD" ? "HEAD" : "GET",
      headers,
      signal: AbortSignal.any([request.signal, timeout.signal]),
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    return fail("global.server.error");
  } finally {
    clearTimeout(timer);
  }

  if (response.ok && response.headers.has("content-disposition")) {
    const headers = new Headers();
    for (const name of PASSED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    headers.append("Set-Cookie", await user.commit());
    return new Response(response.body, { status: 200, headers });
  }

  const envelope = (await response.json().catch(() => null)) as Envelope | null;
  if (typeof envelope?.code !== "number") return fail("global.server.error");
  if (envelope.code === 1009) return signOut(request, user.session, "expired");
  return fail(`error.${envelope.code}`);
}

/** Takes no posts: 405, the body discarded. */
export const action = refusePost;
