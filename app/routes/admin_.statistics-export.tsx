import type { LoaderFunctionArgs } from "@remix-run/node";
import { proxyCsvExport } from "~/admin/csv-export.server";
import { STATISTICS_GROUP_BY } from "../../contract/statistics";

const PASSED = ["from", "to", "tz", "search", "orderBy", "order", "direction"] as const;

/**
 * GET /admin/statistics-export?groupBy=user|group|day&…: the engine's CSV of the statistics
 * (GET /api/admin/statistics/export). A refusal comes back to the Statistics page as an error toast.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return proxyCsvExport(request, {
    path: "/api/admin/statistics/export",
    query: (params) => {
      const groupBy = params.get("groupBy") ?? "day";
      const query = new URLSearchParams({ groupBy: (STATISTICS_GROUP_BY as readonly string[]).includes(groupBy) ? groupBy : "day" });
      for (const name of PASSED) {
        const value = params.get(name);
        if (value) query.set(name, value.slice(0, 64));
      }
      return query;
    },
    page: "/admin/statistics",
    failed: "admin.statistics.export.failed",
  });
}
