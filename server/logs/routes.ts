import { livePreviewList, logSettings, logSettingsBody, operationLogExportQuery, operationLogPage, operationLogQuery, previewParams } from "../../contract/logs";
import { RawReply, nullData, route } from "../http/route";
import { contentDisposition } from "../installers/routes";
import type { Settings } from "../settings/service";
import type { Logs } from "./service";

/** The administrator API of the logs (docs/admin-api.md, "Logs"). Every route needs the administrator's access token. */
export function logRoutes(logs: Logs, settings: Settings) {
  return [
    route({
      method: "GET",
      url: "/api/admin/logs",
      tag: "admin",
      summary: "The operation log, by time (newest first unless order=asc), paged; filters user (account), kind, from–to (unix ms), result and text (in account, target, detail or address).",
      auth: "admin",
      query: operationLogQuery,
      response: operationLogPage,
      handler: ({ query }) => logs.list(query),
    }),
    route({
      method: "GET",
      url: "/api/admin/logs/export",
      tag: "admin",
      summary: "The operation log's rows under the same filters as CSV (UTF-8 with BOM), streamed, at most 100000 rows (a last line says when it stopped there).",
      auth: "admin",
      query: operationLogExportQuery,
      handler: async ({ query }) => new RawReply(await logs.exportCsv(query), { "content-type": "text/csv; charset=utf-8", "content-disposition": contentDisposition("ferry-operation-log.csv") }),
    }),
    route({
      method: "GET",
      url: "/api/admin/logs/previews",
      tag: "admin",
      summary: "The preview log: previews whose signed URL still lives (who, what, from where, since when, responses streaming now), newest first.",
      auth: "admin",
      response: livePreviewList,
      handler: async () => ({ list: await logs.previews() }),
    }),
    route({
      method: "POST",
      url: "/api/admin/logs/previews/:id/stop",
      tag: "admin",
      summary: "Stop a preview at once: its URL is refused from now on and its responses in flight are cut. 4480 when it has already ended.",
      auth: "admin",
      params: previewParams,
      response: nullData,
      handler: async ({ params }) => logs.stopPreview(params.id),
    }),
    route({ method: "GET", url: "/api/admin/settings/logs", tag: "admin", summary: "Retention days of the transfer and operation logs.", auth: "admin", response: logSettings, handler: () => settings.get("logs") }),
    route({
      method: "PATCH",
      url: "/api/admin/settings/logs",
      tag: "admin",
      summary: "Change the retention days (transferLogDays, operationLogDays: 1–3650); older rows are deleted at once and then hourly.",
      auth: "admin",
      body: logSettingsBody,
      response: logSettings,
      handler: async ({ body }) => {
        const saved = await settings.update("logs", body);
        await logs.sweep();
        return saved;
      },
    }),
  ];
}
