import { adminShareDetail, adminShareDownloads, adminShareDownloadsQuery, adminShareList, adminShareListQuery, adminShareParams, shareUrlListBody, shareUrlListData } from "../../contract/share";
import { route } from "../http/route";
import type { Shares } from "./service";

/** The administrator's view of every user's share links and invitations (docs/admin-api.md, "Links"). */
export function shareAdminRoutes(shares: Shares) {
  return [
    route({
      method: "GET",
      url: "/api/admin/shares",
      tag: "admin",
      summary: "Every user's links and invitations, paged; filters shareUrlType, userId, account, shareStatus (1 normal, 2 expired, 3 disabled or cancelled), name (names, paths, directory), create time; orderBy 1–6. Link passwords are never included (owner only).",
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
      method: "GET",
      url: "/api/admin/shares/:id/downloads",
      tag: "admin",
      summary: "One link's download statistics, newest first, paged: address, files as the visitor saw them, time, bytes. 4025 when unknown.",
      auth: "admin",
      params: adminShareParams,
      query: adminShareDownloadsQuery,
      response: adminShareDownloads,
      handler: ({ params, query }) => shares.adminDownloads(params.id, query),
    }),
    route({
      method: "POST",
      url: "/api/admin/shares/disable",
      tag: "admin",
      summary: "Disable links of any user: visitors get 1055 at once (page, tokens, downloads, uploads); affected counts links not disabled before; unknown ids are ignored.",
      auth: "admin",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body }) => shares.adminDisable(body.shareUrlList),
    }),
    route({
      method: "POST",
      url: "/api/admin/shares/enable",
      tag: "admin",
      summary: "Enable links the administrator disabled (an owner's cancel stays); affected counts links that were disabled; unknown ids are ignored.",
      auth: "admin",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body }) => shares.adminEnable(body.shareUrlList),
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
