import { statisticsExportQuery, statisticsQuery, statisticsReport, statisticsSettings, statisticsSettingsBody } from "../../contract/statistics";
import { contentDisposition } from "../installers/routes";
import { RawReply, route } from "../http/route";
import type { Settings } from "../settings/service";
import type { Statistics } from "./service";

/** The administrator API of transfer statistics and their period (docs/admin-api.md, "Statistics"). Every route needs the administrator's access token. */
export function statisticsRoutes(statistics: Statistics, settings: Settings) {
  return [
    route({
      method: "GET",
      url: "/api/admin/statistics",
      tag: "admin",
      summary: "Upload and download bytes and counts per user, per group space or per day of tz, over from–to (default: the last statistics period; at most 367 days), with totals. user and group lists are sorted and paged.",
      auth: "admin",
      query: statisticsQuery,
      response: statisticsReport,
      handler: ({ query }) => statistics.report(query),
    }),
    route({
      method: "GET",
      url: "/api/admin/statistics/export",
      tag: "admin",
      summary: "The same sums as CSV (text/csv, UTF-8, header row; every row of the list, at most 100 000). Cells a spreadsheet would read as a formula start with an apostrophe.",
      auth: "admin",
      query: statisticsExportQuery,
      handler: async ({ query }) =>
        new RawReply(await statistics.exportCsv(query), {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": contentDisposition(`ferry-statistics-${query.groupBy}.csv`),
        }),
    }),
    route({ method: "GET", url: "/api/admin/settings/statistics", tag: "admin", summary: "The statistics period in hours.", auth: "admin", response: statisticsSettings, handler: () => settings.get("statistics") }),
    route({
      method: "PATCH",
      url: "/api/admin/settings/statistics",
      tag: "admin",
      summary: "Change the statistics period (periodHours 1–8784).",
      auth: "admin",
      body: statisticsSettingsBody,
      response: statisticsSettings,
      handler: ({ body }) => settings.update("statistics", body),
    }),
  ];
}
