import { adminShareDetail, adminShareList, adminShareListQuery, adminShareParams, shareUrlListBody, shareUrlListData } from "../../contract/share";
import { route } from "../http/route";
import type { Shares } from "./service";

/** The administrator's view of every user's share links and invitations (docs/admin-api.md, "Share links"). */
export function shareAdminRoutes(shares: Shares) {
  return [
    route({
      method: "GET",
      url: "/api/admin/shares",
      tag: "admin",
      summary: "Every user's links and invitations, paged; filters shareUrlType, userId, account, shareStatus (1 normal, 2 expired, 3 disabled), name, create time; orderBy 1–5. Link passwords are never included (owner only).",
      auth: "admin",
      query: adminShareListQuery,
      response: adminShareList,
      handler: ({ query }) => shares.adminList(query),
    }),
    route({
      method: "GET",
      url: "/api/admin/shares/:id",
      tag: "admin",
      summary: "One link (id or URL) with its owner and latest 100 downloads (address, paths, time). 4025 when unknown.",
      auth: "admin",
      params: adminShareParams,
      response: adminShareDetail,
      handler: ({ params }) => shares.adminGet(params.id),
    }),
    route({
      method: "POST",
      url: "/api/admin/shares/cancel",
      tag: "admin",
      summary: "Disable links of any user (status 3, one-way; visitors get 1041 at once); unknown ids are ignored.",
      auth: "admin",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body }) => shares.adminCancel(body.shareUrlList),
    }),
    route({
      method: "POST",
      url: "/api/admin/shares/delete",
      tag: "admin",
      summary: "Delete links of any user with their tokens, items and download log (irreversible); unknown ids are ignored.",
      auth: "admin",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body }) => shares.adminRemove(body.shareUrlList),
    }),
    route({
      method: "POST",
      url: "/api/admin/shares/unbind",
      tag: "admin",
      summary: "Free the bound device of links of any user; that device's share tokens stop working.",
      auth: "admin",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body }) => shares.adminUnbind(body.shareUrlList),
    }),
  ];
}
