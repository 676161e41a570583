import { taskListQuery, taskPage, taskParams, taskThroughput, transferLogDetail, transferLogPage, transferLogParams, transferLogQuery } from "../../contract/tasks";
import { nullData, route } from "../http/route";
import type { Tasks } from "./service";

/** The administrator API of the General tasks screen (docs/admin-api.md, "Transfer tasks"). Every route needs the administrator's access token. */
export function taskRoutes(tasks: Tasks) {
  return [
    route({
      method: "GET",
      url: "/api/admin/tasks",
      tag: "admin",
      summary: "Transfers in progress on this engine instance (uploads and downloads of every user and share visitor), newest first: who, what, bytes, speed, address; search and paging; totals of all of them.",
      auth: "admin",
      query: taskListQuery,
      response: taskPage,
      handler: ({ query }) => tasks.list(query),
    }),
    route({
      method: "GET",
      url: "/api/admin/tasks/throughput",
      tag: "admin",
      summary: "Bytes per second of all uploads and of all downloads on this engine instance, one point a second over the last five minutes.",
      auth: "admin",
      response: taskThroughput,
      handler: async () => tasks.throughput(),
    }),
    route({
      method: "POST",
      url: "/api/admin/tasks/:id/stop",
      tag: "admin",
      summary: "Stop a transfer: its connections are cut and its next requests refused with 4187 (an upload's staging is dropped). 4481 when it already ended.",
      auth: "admin",
      params: taskParams,
      response: nullData,
      handler: async ({ params }) => tasks.stop(params.id),
    }),
    route({
      method: "GET",
      url: "/api/admin/logs/transfers",
      tag: "admin",
      summary: "The transfer log by time (newest first unless order=asc), paged; filters user (account), text (account, path or address), direction, result, from–to (unix ms).",
      auth: "admin",
      query: transferLogQuery,
      response: transferLogPage,
      handler: ({ query }) => tasks.log(query),
    }),
    route({
      method: "GET",
      url: "/api/admin/logs/transfers/:id",
      tag: "admin",
      summary: "One transfer-log row with its start, average speed, group name, share link owner and the operation-log rows that go with it. 4482 when there is none.",
      auth: "admin",
      params: transferLogParams,
      response: transferLogDetail,
      handler: ({ params }) => tasks.logEntry(params.id),
    }),
  ];
}
