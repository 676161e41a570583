import {
  adminNotice,
  idParams,
  listQuery,
  pageOf,
  sendNoticeBody,
} from "../../contract/admin";
import { nullData, route } from "../http/route";
import type { Notices } from "./service";

/** The administrator API of notifications (docs/admin-api.md); the users' own are in routes.ts. Every route needs the administrator's access token. */
export function noticeAdminRoutes(notices: Notices) {
  return [
    route({ method: "GET", url: "/api/admin/notices", tag: "admin", summary: "Sent notifications with receiver and read counts.", auth: "admin", query: listQuery.omit({ search: true }), response: pageOf(adminNotice), handler: ({ query }) => notices.adminList(query.pageNum, query.pageSize) }),
    route({ method: "POST", url: "/api/admin/notices", tag: "admin", summary: "Send a notification to users (ids) or to all users.", auth: "admin", body: sendNoticeBody, response: adminNotice, handler: ({ body }) => notices.send(body) }),
    route({
      method: "DELETE", url: "/api/admin/notices/:id", tag: "admin", summary: "Delete a notification for everyone.", auth: "admin", params: idParams, response: nullData,
      handler: async ({ params }) => { await notices.remove(params.id); return null; },
    }),
  ];
}
