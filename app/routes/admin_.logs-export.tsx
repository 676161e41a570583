import type { LoaderFunctionArgs } from "@remix-run/node";
import { engineFilter, readLogFilter } from "~/admin/logs/query";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { getT } from "~/i18n/i18next.server";
import { env } from "~/utils/env.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

/**
 * GET /admin/logs-export?user=&kind=&from=&to=&text=: the engine's CSV of the operation log
 * (GET /api/admin/logs/export) under the screen's filter, streamed through with the administrator's
 * token kept here. A refusal comes back to the Logs screen as an error toast.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const query = engineFilter(readLogFilter(new URL(request.url).searchParams), timeZoneOfCookieHeader(request.headers.get("Cookie")));
  const cookie = await admin.commit();
  const reply = await fetch(`${env.FERRY_ENGINE_URL}/api/admin/logs/export?${query.toString()}`, {
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
  return redirectWithToast("/admin/logs", { type: "error", message: t("admin.logs.export.failed", { message }) }, { headers: { "Set-Cookie": cookie } });
}
