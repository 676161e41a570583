import type { LoaderFunctionArgs } from "@remix-run/node";
import { proxyCsvExport } from "~/admin/csv-export.server";
import { engineFilter, readLogFilter } from "~/admin/logs/query";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";

/**
 * GET /admin/logs-export?user=&kind=&from=&to=&text=: the engine's CSV of the operation log
 * (GET /api/admin/logs/export) under the screen's filter. A refusal comes back to the Logs screen as an error toast.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return proxyCsvExport(request, {
    path: "/api/admin/logs/export",
    query: (params) => engineFilter(readLogFilter(params), timeZoneOfCookieHeader(request.headers.get("Cookie"))),
    page: "/admin/logs",
    failed: "admin.logs.export.failed",
  });
}
