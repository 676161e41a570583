import { noticeListData, noticeListQuery, noticeReadAllData, noticeStatusBody, noticeStatusData } from "../../contract/notices";
import { route } from "../http/route";
import type { Notices } from "./service";

export function noticeRoutes(notices: Notices) {
  return [
    route({
      method: "GET",
      url: "/api/notice/list",
      tag: "notices",
      summary: "The caller's notifications, newest first, with the unread count.",
      auth: "user",
      query: noticeListQuery,
      response: noticeListData,
      handler: ({ query, auth }) => notices.list(auth!.user.id, query.pageNum, query.pageSize),
    }),
    route({
      method: "PATCH",
      url: "/api/notice/status/update",
      tag: "notices",
      summary: "Mark the caller's notifications read; ids of other users' notifications are ignored.",
      auth: "user",
      body: noticeStatusBody,
      response: noticeStatusData,
      handler: ({ body, auth }) => notices.markRead(auth!.user.id, body.noticeIds),
    }),
    route({
      method: "PATCH",
      url: "/api/notice/status/read-all",
      tag: "notices",
      summary: "Mark every unread notification of the caller read (no body); other users' stay as they are.",
      auth: "user",
      response: noticeReadAllData,
      handler: ({ auth }) => notices.markAllRead(auth!.user.id),
    }),
  ];
}
