import {
  shareCreateBody,
  shareCreateData,
  shareDownloadCountData,
  shareDownloadCountQuery,
  shareDownloadRecordBody,
  shareInfoData,
  shareInfoQuery,
  shareListData,
  shareListQuery,
  shareUnbindBody,
  shareUrlListBody,
  shareUrlListData,
  shareVerifyBody,
  shareVerifyData,
} from "../../contract/share";
import type { Tokens } from "../auth/tokens";
import { route } from "../http/route";
import type { Shares } from "./service";

/** The share-link calls of spec section 7 (docs/shares.md). Visitor calls are public and take the share token as bearer. */
export function shareRoutes(shares: Shares, tokens: Tokens) {
  return [
    route({
      method: "POST",
      url: "/api/share/link/create",
      tag: "shares",
      summary: "Create a download link (shareUrlType 1, needs Share) or an upload invitation (0, needs Invite) from the personal space.",
      auth: "user",
      body: shareCreateBody,
      response: shareCreateData,
      handler: ({ body, auth, lang }) => shares.create(auth!.user, body, lang),
    }),
    route({
      method: "GET",
      url: "/api/share/link/list",
      tag: "shares",
      summary: "The caller's own links of one kind, paged, sorted and filtered; status 2 (expired) is computed at read time.",
      auth: "user",
      query: shareListQuery,
      response: shareListData,
      handler: ({ query, auth }) => shares.list(auth!.user.id, query),
    }),
    route({
      method: "POST",
      url: "/api/share/link/delete",
      tag: "shares",
      summary: "Delete the caller's links (URLs or ids); other users' links and unknown ids are ignored.",
      auth: "user",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body, auth }) => shares.remove(auth!.user.id, body.shareUrlList),
    }),
    route({
      method: "PATCH",
      url: "/api/share/link/cancel",
      tag: "shares",
      summary: "Cancel the caller's links (status 3, one-way); other users' links and unknown ids are ignored.",
      auth: "user",
      body: shareUrlListBody,
      response: shareUrlListData,
      handler: ({ body, auth }) => shares.cancel(auth!.user.id, body.shareUrlList),
    }),
    route({
      method: "POST",
      url: "/api/share/link/unbind",
      tag: "shares",
      summary: "Free the device bound to one of the caller's links; that device's share tokens stop working.",
      auth: "user",
      body: shareUnbindBody,
      response: shareUrlListData,
      handler: ({ body, auth }) => shares.unbind(auth!.user.id, body.urls),
    }),
    route({
      method: "GET",
      url: "/api/share/link/download/count",
      tag: "shares",
      summary: "Downloads of a link: for its owner (user token, with the latest records) or its visitors (share token).",
      auth: "public",
      query: shareDownloadCountQuery,
      response: shareDownloadCountData,
      handler: async ({ query, bearer }) => {
        const user = bearer ? await tokens.authenticateAccess(bearer) : null;
        return shares.downloadCount(query.sid, user?.user ?? null, bearer);
      },
    }),
    route({
      method: "POST",
      url: "/api/share/link/download/count",
      tag: "shares",
      summary: "Record a visitor's download (share token as bearer): paths, address and time; notifies the owner when asked.",
      auth: "public",
      body: shareDownloadRecordBody,
      response: shareDownloadCountData,
      handler: ({ body, bearer, ip }) => shares.recordDownload(bearer, body.accessDest, ip),
    }),
    route({
      method: "POST",
      url: "/api/share/link/verify/url",
      tag: "shares",
      summary: "Check a link for a visitor (and its password when passwd is sent); binds the first device when the link asks for it.",
      auth: "public",
      body: shareVerifyBody,
      response: shareVerifyData,
      handler: ({ body, ip }) => shares.verify(body, ip),
    }),
    route({
      method: "GET",
      url: "/api/share/link/info",
      tag: "shares",
      summary: "Issue the share token for a link: with its password, or with a still-valid share token of the same link as bearer.",
      auth: "public",
      query: shareInfoQuery,
      response: shareInfoData,
      handler: ({ query, bearer, ip }) => shares.info(query, bearer, ip),
    }),
  ];
}
