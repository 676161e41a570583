import type { LoaderFunctionArgs } from "@remix-run/node";
import { STATISTICS_GROUP_BY } from "../../contract/statistics";
import { getT } from "~/i18n/i18next.server";
import { env } from "~/utils/env.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

const PASSED = ["from", "to", "tz", "search", "orderBy", "order", "direction"] as const;

/**
 * GET /admin/statistics-export?groupBy=user|group|day&…: the engine's CSV of the statistics
 * (GET /api/admin/statistics/export), streamed through with the administrator's token kept here.
 * A refusal comes back to the Statistics page as an error toast.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const groupBy = params.get("groupBy") ?? "day";
  const query = new URLSearchParams({ groupBy: (STATISTICS_GROUP_BY as readonly string[]).includes(groupBy) ? groupBy : "day" });
  for (const name of PASSED) {
    const value = params.get(name);
    if (value) query.set(name, value.slice(0, 64));
  }
  const cookie = await admin.commit();
  const reply = await fetch(`${env.FERRY_ENGINE_URL}/api/admin/statistics/export?${query.toString()}`, {
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
  return redirectWithToast("/admin/statistics", { type: "error", message: t("admin.statistics.export.failed", { message }) }, { headers: { "Set-Cookie": cookie } });
}
