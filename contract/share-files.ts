import * as z from "zod";

/**
 * Share-link visitors on the file server (docs/file-server.md, "Share visitors"): the socket's
 * share login reply and the two REST calls of the engine API that pages without JavaScript use
 * (bearer = the share token of `GET /api/share/link/info`). Paths are as the visitor sees them:
 * for a download link "/" is a virtual folder holding the shared items by their visible names
 * (the alias where one is set); for an invitation "/" is the invitation's folder.
 */

const visitorPath = z.string().max(4096);

/** Data of a successful `login` with `{ shareToken }` on the file server's socket. */
export const shareLoginData = z.object({
  account: z.string().describe("The link owner's account."),
  shareId: z.string(),
  shareUrlType: z.union([z.literal(0), z.literal(1)]).describe("0 upload invitation, 1 download link."),
  shareAllowDownload: z.union([z.literal(0), z.literal(1)]).describe("1 only for a download link whose downloads are allowed."),
});
export type ShareLoginData = z.infer<typeof shareLoginData>;

/** GET /api/share/files/list: one folder inside the share. */
export const shareFilesListQuery = z.object({
  path: visitorPath.default("/").describe('A folder as the visitor sees it; "/" is the share\'s root.'),
});

/** The same columns as the socket's `list` reply (contract/files.ts `Listing`). */
export const shareFilesListData = z.object({
  path: z.string().describe("The listed folder, normalised, as the visitor sees it."),
  names: z.array(z.string()),
  types: z.array(z.number().int()).describe("0 File, 1 Folder (contract/files.ts FILE_TYPES)."),
  sizes: z.array(z.number().int()).describe("Bytes; 0 for a folder."),
  times: z.array(z.number().int()).describe("Modification time, unix seconds."),
});
export type ShareFilesListData = z.infer<typeof shareFilesListData>;

/** POST /api/share/files/download: a signed URL for one file, or a zip of a folder or a selection. */
export const shareFilesDownloadBody = z.object({
  paths: z.array(visitorPath).min(1).max(10_000).describe('Items as the visitor sees them; "/" is every shared item.'),
});

export const shareFilesDownloadData = z.object({
  url: z.string().describe("Relative to the file server (`/download/<ticket>/<name>`); valid FERRY_DOWNLOAD_TICKET_TTL seconds, and only while the link stays usable."),
  name: z.string().describe("The file's visible name, `<folder>.zip`, or `download.zip`."),
});
export type ShareFilesDownloadData = z.infer<typeof shareFilesDownloadData>;
