import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { langFromHeader } from "../../contract/envelope";
import { type ErrorName, errorByCode, ErrorCode, formatErrorMessage } from "../../contract/errors";
import { FILE_SERVER_PATHS, hasThumbnail, type SocketResults } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import { FerryError } from "../errors";
import { checkAllowed, rootPathOf, type Space } from "../files/spaces";
import type { Services } from "../services";
import type { ShareAccess } from "../shares/access";
import { baseName, normaliseUserPath, parentOf } from "../storage/paths";
import type { StatResult } from "../storage/storage";
import { previewAllowed } from "./downloads";
import type { FileServerPart } from "./parts";
import { COMMON_HEADERS } from "./send";
import { resolveVisitorPath } from "./share-files";
import { admitShareTicket, isShareTicket, shareTicketSession } from "./share-tickets";
import { createThumbnailCache, type ThumbnailCache } from "./thumbnail-cache";
import { createTickets, type Tickets } from "./tickets";
import { createWatermarks } from "./watermark";

/**
 * Thumbnails for the grid view (docs/file-server.md, "Thumbnails"). The socket command
 * `thumbnails { groupId, path }` checks what `preview` checks (preview switched on, the Download
 * bit, forbidden paths) for a folder and hands out a signed base URL; the browser appends a file's
 * name to it, and `/thumbnail/<ticket>/<name>` checks everything again for that file — the
 * sign-in (or the share token and its link), the permission, the path, the kind of file — before
 * a small WebP is made (thumbnail-cache.ts) or read from the cache.
 *
 * A ticket names a folder, not a file, so one command serves a whole grid. It lives an hour: a
 * grid stays open longer than a download link is kept, and nothing is granted by the ticket alone.
 */

const THUMBNAIL_TICKET_TTL = 3600;

/** HTTP status of a refused thumbnail; the body is the catalogue's message in the caller's language. */
const REFUSALS: Partial<Record<ErrorName, number>> = {
  LinkExpired: 410,
  PathNotFound: 404,
  PathIsFile: 404,
  PathIsNotFile: 404,
  InvalidPath: 404,
  NameFormat: 404,
  PreviewUnsupported: 415,
  PreviewFailed: 422,
  ThumbnailTooLarge: 413,
  WatermarkPreviewUnsupported: 415,
};

function refuse(req: IncomingMessage, res: ServerResponse, error: FerryError): void {
  const text = `${formatErrorMessage(errorByCode(ErrorCode[error.errorName])!, langFromHeader(req.headers["accept-language"]), error.vars)}\n`;
  res.writeHead(REFUSALS[error.errorName] ?? 403, {
    ...COMMON_HEADERS,
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    // The catalogue's code, for clients that want more than the status.
    "x-ferry-code": String(error.code),
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** The space of a signed-in user's file or folder, or PermissionDenied: the rules of preview. */
async function openForThumbnails(services: Services, userId: number, groupId: number, target: string): Promise<Space> {
  if (!(await previewAllowed(services))) throw new FerryError("FeatureNotSupported");
  const space = await services.spaces.open(userId, groupId);
  if (!hasPermission(space.permission, Permission.Download)) throw new FerryError("PermissionDenied");
  await checkAllowed(space, target);
  return space;
}

/** `name` (one path segment, as sent in the URL) in `folder`, normalised, or InvalidPath. */
function fileIn(folder: string, encoded: string): string {
  let name: string;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    throw new FerryError("InvalidPath");
  }
  if (name === "" || name.includes("/")) throw new FerryError("InvalidPath");
  const file = normaliseUserPath(folder === "/" ? `/${name}` : `${folder}/${name}`);
  if (parentOf(file) !== folder) throw new FerryError("InvalidPath");
  return file;
}

function issuer(services: Services, tickets: Tickets) {
  return async (ticket: Parameters<Tickets["issue"]>[0]): Promise<SocketResults["thumbnails"]> => {
    const text = await tickets.issue(ticket, THUMBNAIL_TICKET_TTL);
    if (text === null) throw new FerryError("InvalidPath");
    return { url: `${FILE_SERVER_PATHS.thumbnails}${text}/` };
  };
}

/**
 * A share visitor's `thumbnails` (share-socket.ts): a download link that allows downloads, its
 * owner holding Download, and preview switched on — what a visitor's preview would need.
 */
export function createShareThumbnails(services: Services) {
  const tickets = createTickets(services.db, services.clock);
  const issue = issuer(services, tickets);
  return async (access: ShareAccess, token: string, folderPath: string): Promise<SocketResults["thumbnails"]> => {
    if (access.kind !== "download") throw new FerryError("PermissionDenied");
    if (!access.allowDownload) throw new FerryError("DownloadRestricted");
    if (!(await previewAllowed(services))) throw new FerryError("FeatureNotSupported");
    const space = await services.spaces.open(access.ownerId, 0);
    if (!hasPermission(space.permission, Permission.Download)) throw new FerryError("PermissionDenied");
    const { visitor, owner } = await resolveVisitorPath(space.storage, access, folderPath);
    if (owner !== null) {
      await checkAllowed(space, owner);
      if ((await space.storage.stat(owner)).type !== "folder") throw new FerryError("PathIsFile");
    }
    return issue({ kind: "thumbnail", sessionId: shareTicketSession(token), userId: access.ownerId, groupId: 0, paths: [visitor] });
  };
}

export const thumbnailParts: FileServerPart = (services) => {
  const { config } = services;
  const tickets = createTickets(services.db, services.clock);
  const issue = issuer(services, tickets);
  const cache: ThumbnailCache = createThumbnailCache(path.join(config.dataDir, "thumbnails"), config.thumbnails);
  const watermarks = createWatermarks(services);

  /** Every check at use: the ticket, then the sign-in or the share, then the file; `viewer` is whom a watermark names. */
  async function admit(text: string, encodedName: string): Promise<{ space: Space; info: StatResult; name: string; viewer: string }> {
    const verified = await tickets.verify(text, "thumbnail");
    if (!verified.ok) throw new FerryError(verified.reason === "expired" ? "LinkExpired" : "PermissionDenied");
    const ticket = verified.ticket;
    const file = fileIn(ticket.paths[0]!, encodedName);
    if (!(await previewAllowed(services))) throw new FerryError("FeatureNotSupported");
    if (isShareTicket(ticket)) {
      const admitted = await admitShareTicket(services, { ...ticket, paths: [file] }, "thumbnail");
      await checkAllowed(admitted.space, admitted.ticket.paths[0]!);
      return { space: admitted.space, info: admitted.infos[0]!, name: baseName(file), viewer: `share ${admitted.access.linkId}` };
    }
    if (!(await tickets.sessionActive(ticket))) throw new FerryError("InvalidToken");
    const space = await openForThumbnails(services, ticket.userId, ticket.groupId, file);
    const { account } = await services.users.getUser(ticket.userId);
    return { space, info: await space.storage.stat(file), name: baseName(file), viewer: account };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...COMMON_HEADERS, allow: "GET, HEAD", "content-length": 0 });
      res.end();
      return;
    }
    const [text = "", encodedName = "", ...rest] = url.pathname.slice(FILE_SERVER_PATHS.thumbnails.length).split("/");
    let image: Buffer;
    try {
      if (rest.length > 0) throw new FerryError("InvalidPath");
      const { space, info, name, viewer } = await admit(text, encodedName);
      if (info.type !== "file") throw new FerryError("PathIsNotFile");
      if (!hasThumbnail(name)) throw new FerryError("PreviewUnsupported");
      image = await cache.get({
        key: rootPathOf(space, info.path),
        size: info.size,
        mtime: info.mtime,
        open: () => space.storage.createReadStream(info.path),
      });
      // The cache keeps the plain thumbnail; the watermark (per viewer and time) is drawn on each answer.
      const mark = await watermarks.current(viewer);
      if (mark) image = (await watermarks.draw(image, mark, "webp")).bytes;
    } catch (error) {
      if (!(error instanceof FerryError)) throw error;
      refuse(req, res, error);
      return;
    }
    res.writeHead(200, {
      ...COMMON_HEADERS,
      // The URL changes with every ticket; a grid scrolled back and forth need not ask again meanwhile.
      "cache-control": "private, max-age=300",
      "content-type": "image/webp",
      "content-length": image.length,
      "content-security-policy": "sandbox; default-src 'none'",
    });
    res.end(req.method === "HEAD" ? undefined : image);
  }

  return {
    handlers: [{ prefix: FILE_SERVER_PATHS.thumbnails, handle }],
    commands: {
      async thumbnails(session, { groupId, path: folderPath }) {
        const folder = normaliseUserPath(folderPath);
        const space = await openForThumbnails(services, session.user.id, groupId, folder);
        if ((await space.storage.stat(folder)).type !== "folder") throw new FerryError("PathIsFile");
        return issue({ kind: "thumbnail", sessionId: session.sessionId, userId: session.user.id, groupId, paths: [folder] });
      },
    },
  };
};
