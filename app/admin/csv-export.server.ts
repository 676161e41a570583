import { getT } from "~/i18n/i18next.server";
import { env } from "~/utils/env.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

/**
 * The console's CSV downloads (Logs, Statistics): the engine's CSV at `path?query`, streamed through
 * with the administrator's token kept on the web server. A refusal (anything but a text/csv body)
 * goes back to `page` as an error toast `failed` naming the engine's message.
 */
export async function proxyCsvExport(request: Request, options: { path: string; query: (params: URLSearchParams) => URLSearchParams; page: string; failed: string }) {
  const admin = await requireAdmin(request);
  const query = options.query(new URL(request.url).searchParams);
  const cookie = await admin.commit();
  const reply = await fetch(`${env.FERRY_ENGINE_URL}${options.path}?${query.toString()}`, {
    headers: { Authorization: `Bearer ${admin.engine.token}`, "Accept-Language": request.headers.get("Accept-Language") ?? "en" },
    signal: request.signal,
  });
  if (reply.ok && reply.body && (reply.headers.get("content-type") ?? "").startsWith("text/csv")) {
    const headers = new Headers({ "Content-Type": reply.headers.get("content-type")!, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Set-Cookie": cookie });
    const disposition = reply.headers.get("content-disposition");
    if (disposition) headers.set("Content-Disposition", disposition);
    return new Response(reply.body, { status: 200, headers });
  }
  const t = await getT(request);
  const answer = (await reply.json().catch(() => null)) as { code?: number; message?: string } | null;
  const message = answer?.code ? t(`error.${answer.code}`) : `HTTP ${reply.status}`;
  return redirectWithToast(options.page, { type: "error", message: t(options.failed, { message }) }, { headers: { "Set-Cookie": cookie } });
}
