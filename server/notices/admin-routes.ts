import { idParams, pageOf } from "../../contract/admin";
import {
  adminNotice,
  noticeAdminListQuery,
  noticeDeletedData,
  noticeIdsBody,
  noticeReceiver,
  noticeReceiversQuery,
  sendNoticeBody,
} from "../../contract/notifications";
import { nullData, route } from "../http/route";
import type { NoticeMailing } from "./mailing";
import type { Notices } from "./service";

/** The administrator API of notifications (docs/admin-api.md, "Notifications"); the users' own are in routes.ts. Every route needs the administrator's access token. */
export function noticeAdminRoutes(notices: Notices, mailing: NoticeMailing) {
  return [
    route({
      method: "GET",
      url: "/api/admin/notices",
      tag: "admin",
      summary: "Sent notifications with their way, receiver, read and e-mail counts; search over subject and content, orderBy title, createTime, receivers, read (default newest first).",
      auth: "admin",
      query: noticeAdminListQuery,
      response: pageOf(adminNotice),
      handler: ({ query }) => notices.adminList(query),
    }),
    route({
      method: "POST",
      url: "/api/admin/notices",
      tag: "admin",
      summary:
        "Send a notification to users (ids) or to all users, on the website and/or by e-mail. 4440 no way, 4441 no receivers, 4442 e-mail without the server's mail account, 4118 an unknown id. The mails go out after the answer (mail counts: queued).",
      auth: "admin",
      body: sendNoticeBody,
      response: adminNotice,
      handler: ({ body }) => mailing.send(body),
    }),
    route({
      method: "POST",
      url: "/api/admin/notices/delete",
      tag: "admin",
      summary: "Delete several notifications for everyone; unknown ids are ignored.",
      auth: "admin",
      body: noticeIdsBody,
      response: noticeDeletedData,
      handler: ({ body }) => notices.removeMany(body.ids),
    }),
    route({
      method: "GET",
      url: "/api/admin/notices/:id/receivers",
      tag: "admin",
      summary: "One page of a notification's receivers: read or not, and the e-mail state (none, queued, sent, failed with the mail server's answer, no-address).",
      auth: "admin",
      params: idParams,
      query: noticeReceiversQuery,
      response: pageOf(noticeReceiver),
      handler: ({ params, query }) => notices.receivers(params.id, query.pageNum, query.pageSize),
    }),
    route({
      method: "DELETE",
      url: "/api/admin/notices/:id",
      tag: "admin",
      summary: "Delete a notification for everyone.",
      auth: "admin",
      params: idParams,
      response: nullData,
      handler: async ({ params }) => {
        await notices.remove(params.id);
        return null;
      },
    }),
  ];
}
