import { shareFilesDownloadBody, shareFilesDownloadData, shareFilesListData, shareFilesListQuery } from "../../contract/share-files";
import { route } from "../http/route";
import type { Services } from "../services";
import { createShareFiles } from "./share-files";

/**
 * The engine-API calls of a share-link visitor for pages without JavaScript (docs/api.md, "Share
 * visitors"): the web's `/share/{id}` page lists folders and asks for download URLs server-side
 * with the share token as bearer. The same service as the visitor's socket (share-files.ts); the
 * token and its link are checked at every call.
 */
export function shareFileRoutes(services: Services) {
  const files = createShareFiles(services);

  return [
    route({
      method: "GET",
      url: "/api/share/files/list",
      tag: "shares",
      summary:
        'A folder inside the share (bearer = share token): the socket `list` columns. Download link: "/" holds the shared items by visible name; invitation: "/" is its folder. A file drop (an invitation made without shareShowContents) lists only what this share token uploaded or created.',
      auth: "visitor",
      query: shareFilesListQuery,
      response: shareFilesListData,
      handler: async ({ query, visitor, bearer }) => files.list(visitor!, query.path, bearer!),
    }),
    route({
      method: "POST",
      url: "/api/share/files/download",
      tag: "shares",
      summary:
        "A signed download URL (relative to the file server) for one file, or a zip of a folder or a selection, inside a download link that allows downloads (bearer = share token); 4177 when downloads are off.",
      auth: "visitor",
      body: shareFilesDownloadBody,
      response: shareFilesDownloadData,
      handler: async ({ body, visitor, bearer }) => files.download(visitor!, bearer!, body.paths),
    }),
  ];
}
