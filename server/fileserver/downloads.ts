import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { langFromHeader } from "../../contract/envelope";
import { type ErrorName, errorByCode, ErrorCode, formatErrorMessage } from "../../contract/errors";
import { extensionOf, FILE_SERVER_PATHS, PREVIEW_MEDIA_TYPES } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import type { Services } from "../services";
import { FerryError } from "../errors";
import { checkAllowed, rootPathOf, type Space } from "../files/spaces";
import { checkFilter, filterOf } from "../files/upload-rules";
import { originAllowed } from "./origin";
import { type FileFilter, filterSkips } from "../../contract/upload-rules";
import { baseName, normaliseUserPath } from "../storage/paths";
import type { StatResult } from "../storage/storage";
import type { FileServerPart } from "./parts";
import { clientGone, COMMON_HEADERS, contentDisposition, sendFile } from "./send";
import { createTickets, type Ticket, type TicketKind } from "./tickets";
import { collectEntries, type ZipEntry, zipStream } from "./zip";
import { createWatermarks } from "./watermark";
import { sessionHasClient } from "./clients";
import { admitShareTicket, isShareTicket } from "./share-tickets";
import type { ShareAccess } from "../shares/access";

/**
 * Signed downloads and previews (docs/file-server.md, "Downloads and previews"). The socket
 * commands `download` and `preview` check the request and hand out a short-lived signed URL; the
 * HTTP handlers behind `/download/` and `/preview/` check everything again when the URL is used —
 * signature and expiry, the sign-in, the Download permission, the paths — because a URL outlives
 * the moment it was issued.
 */

/**
 * Every preview: `sandbox` gives the document an opaque origin and no script, so an uploaded SVG
 * with script is inert even when opened directly, and `default-src 'none'` forbids every fetch it
 * might try. Chromium's PDF viewer still renders under `sandbox` (checked by the engine test, in
 * Chromium, directly and in a cross-origin iframe), so PDFs need no weaker policy.
 */
const PREVIEW_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; object-src 'self'";

/** Preview is an enterprise feature unless configured otherwise (FERRY_PREVIEW); the edition in effect now (docs/licence.md). */
export function previewAllowed(services: Pick<Services, "licence">): Promise<boolean> {
  return services.licence.previewAllowed();
}

/** The file name a download is saved under: the file's own, `<folder>.zip`, or `download.zip`. */
function downloadName(paths: readonly string[], info: StatResult): string {
  if (paths.length === 1 && info.name !== "") return info.type === "file" ? info.name : `${info.name}.zip`;
  return "download.zip";
}

/**
 * The space, or PermissionDenied when the Download bit is missing there or a path is forbidden to
 * the user, as sent or through a symbolic link (checkAllowed).
 */
async function openForDownload(services: Services, userId: number, groupId: number, paths: readonly string[]): Promise<Space> {
  const space = await services.spaces.open(userId, groupId);
  if (!hasPermission(space.permission, Permission.Download)) throw new FerryError("PermissionDenied");
  for (const p of paths) await checkAllowed(space, p);
  return space;
}

/**
 * The transfer filter on a download ("File filter" in docs/file-server.md): a file the selection
 * names itself is refused (FileFiltered), whatever else is selected; files below a selected folder
 * that the filter names are left out of its zip (filterEntries).
 */
function checkNamedFiles(filter: FileFilter, paths: readonly string[], infos: readonly StatResult[]): void {
  paths.forEach((p, i) => {
    const info = infos[i];
    if (info?.type === "file") checkFilter(filter, p, info.size);
  });
}

/** A zip's entries without the files the filter names (folders stay, also when nothing is left in them). */
const filterEntries = (filter: FileFilter, entries: ZipEntry[]) => entries.filter((e) => e.path === null || !filterSkips(filter, e.path, e.size));

/**
 * The root-relative URI of a stored file under the nginx internal location; each segment percent-encoded (nginx decodes it).
 * Only the built-in storage is below that location: a file on another storage (a location "@<id>/...") is sent by the engine.
 */
function accelUri(prefix: string, space: Space, path: string): string | undefined {
  const location = rootPathOf(space, path);
  if (location.startsWith("@")) return undefined;
  const full = location.split("/").filter(Boolean);
  return `${prefix}/${full.map(encodeURIComponent).join("/")}`;
}

/** What a page's fetch of a download may read besides the CORS-safelisted headers. */
const DOWNLOAD_EXPOSED_HEADERS = "Content-Range, Content-Length, ETag, Accept-Ranges";

/** HTTP status of a refused request; the body is the catalogue's message in the caller's language. */
const REFUSALS: Partial<Record<ErrorName, number>> = {
  LinkExpired: 410,
  PathNotFound: 404,
  PathIsFile: 404,
  PathIsNotFile: 404,
  InvalidPath: 404,
  PreviewUnsupported: 404,
  WatermarkPreviewUnsupported: 415,
  PreviewFailed: 422,
  WalkLimit: 400,
  StoppedByServer: 410,
};

function refuse(req: IncomingMessage, res: ServerResponse, name: ErrorName, vars?: Record<string, string | number>): void {
  const text = `${formatErrorMessage(errorByCode(ErrorCode[name])!, langFromHeader(req.headers["accept-language"]), vars)}\n`;
  res.writeHead(REFUSALS[name] ?? 403, { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(req.method === "HEAD" ? undefined : text);
}

export const downloadParts: FileServerPart = (services, log, clientAddress) => {
  const { config } = services;
  const tickets = createTickets(services.db, services.clock);
  const watermarks = createWatermarks(services);
  /** The account a preview is drawn for (the watermark's text). */
  const accountOf = async (userId: number) => (await services.users.getUser(userId)).account;

  const issue = async (ticket: Omit<Ticket, "expiresAt">, name: string) => {
    const text = await tickets.issue(ticket, config.downloadTicketTtl);
    if (text === null) throw new FerryError("DownloadSelectionTooLarge");
    const prefix = ticket.kind === "download" ? FILE_SERVER_PATHS.downloads : FILE_SERVER_PATHS.previews;
    return `${prefix}${text}/${encodeURIComponent(name)}`;
  };

  /** Every check of a ticket at use: what it names, who holds it, and whether they still may. */
  async function admit(
    kind: TicketKind,
    text: string,
  ): Promise<{ ticket: Ticket; space: Space; infos: StatResult[]; filter: FileFilter; zipNames?: (entries: ZipEntry[]) => ZipEntry[]; access?: ShareAccess; visitorPaths?: string[] }> {
    const verified = await tickets.verify(text, kind);
    if (!verified.ok) throw new FerryError(verified.reason === "expired" ? "LinkExpired" : "PermissionDenied");
    const { ticket } = verified;
    // A share-link visitor's URL: the share token and the link are checked instead of a sign-in.
    if (isShareTicket(ticket)) {
      const admitted = await admitShareTicket(services, ticket, kind);
      // A shared path that leads through a link into the owner's forbidden paths is refused like a forbidden one.
      for (const p of admitted.ticket.paths) await checkAllowed(admitted.space, p);
      // The link owner's filter, on the owner's personal space.
      const filter = await filterOf(services.db, admitted.ticket.userId, admitted.space);
      checkNamedFiles(filter, admitted.ticket.paths, admitted.infos);
      return { ...admitted, filter };
    }
    if (!(await tickets.sessionActive(ticket))) throw new FerryError("InvalidToken");
    const space = await openForDownload(services, ticket.userId, ticket.groupId, ticket.paths);
    if (kind === "preview" && !(await previewAllowed(services))) throw new FerryError("FeatureNotSupported");
    const infos: StatResult[] = [];
    for (const p of ticket.paths) infos.push(await space.storage.stat(p));
    const filter = await filterOf(services.db, ticket.userId, space);
    checkNamedFiles(filter, ticket.paths, infos);
    return { ticket, space, infos, filter };
  }

  async function handle(kind: TicketKind, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...COMMON_HEADERS, allow: "GET, HEAD", "content-length": 0 });
      res.end();
      return;
    }
    // The web app's own pages may read a download with fetch (parallel ranges written by the page,
    // docs/file-server.md "Parallel downloads in the browser"): the ticket is the only credential,
    // so no cookies are allowed, and only the origins the socket accepts are named. Set before any
    // answer, so a refusal (410 after the ticket's lifetime) is readable too.
    const origin = req.headers.origin;
    if (kind === "download" && origin && originAllowed(origin, req.headers.host, config.webOrigins)) {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("access-control-expose-headers", DOWNLOAD_EXPOSED_HEADERS);
      res.setHeader("vary", "Origin");
    }
    // A client that goes away stops the zip's folder walk and its stream.
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    const prefix = kind === "download" ? FILE_SERVER_PATHS.downloads : FILE_SERVER_PATHS.previews;
    // The segment after the ticket is only the name the browser shows; what is served comes from the ticket.
    const text = url.pathname.slice(prefix.length).split("/")[0] ?? "";
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit(kind, text);
    } catch (error) {
      if (!(error instanceof FerryError)) throw error;
      refuse(req, res, error.errorName, error.vars);
      return;
    }
    const { ticket, space, infos, filter } = admitted;
    const first = infos[0]!;
    // A download the administrator stopped (server/tasks/): its URL is refused from now on.
    if (kind === "download" && services.tasks.stopped(`download:${text}`)) return refuse(req, res, "StoppedByServer");
    // The logs (server/logs/live.ts): a download when its response ends, with the bytes that went out;
    // a preview in the preview log while its URL lives, refused once the administrator stopped it.
    const visitor = admitted.access ?? null;
    const tracked =
      kind === "download" && req.method === "GET"
        ? services.recorder.live.trackDownload(res, {
            userId: visitor ? null : ticket.userId,
            role: visitor ? "visitor" : "user",
            groupId: ticket.groupId,
            paths: admitted.visitorPaths ?? ticket.paths,
            address: clientAddress?.(req) ?? null,
            shareId: visitor?.linkId ?? null,
            zip: !(infos.length === 1 && first.type === "file"),
            ...(visitor ? { owner: { userId: ticket.userId, paths: ticket.paths } } : {}),
          })
        : null;
    // Listed as a transfer in progress while its bytes go out; every request of one URL (parallel ranges) is one transfer.
    const task =
      kind === "download" && req.method === "GET"
        ? services.tasks.attach(
            {
              key: `download:${text}`,
              direction: "download",
              userId: visitor ? null : ticket.userId,
              ownerId: ticket.userId,
              shareId: visitor?.linkId ?? null,
              groupId: ticket.groupId,
              path: (admitted.visitorPaths ?? ticket.paths).join(", "),
              total: infos.length === 1 && first.type === "file" ? first.size : null,
              address: clientAddress?.(req) ?? null,
              via: visitor ? "share" : undefined,
              resolveVia: async () => ((await sessionHasClient(services.db, ticket.sessionId, services.clock.now())) ? "client" : "web"),
              zip: !(infos.length === 1 && first.type === "file"),
              onStopping: () => tracked?.stoppedByServer(),
            },
            req,
            res,
          )
        : null;
    if (kind === "preview" && !services.recorder.live.openPreview(text, res, { userId: ticket.userId, groupId: ticket.groupId, path: first.path, address: clientAddress?.(req) ?? null, expiresAt: ticket.expiresAt })) {
      refuse(req, res, "PermissionDenied");
      return;
    }
    // A share visitor's download is counted here, where it really starts, never on the visitor's word,
    // with the bytes it serves (a file's size; a zip's files added up once they are known).
    const countShared = async (bytes: number) => {
      if (kind === "download" && req.method === "GET" && admitted.access && admitted.visitorPaths) {
        await services.shares.countDownload({ access: admitted.access, files: admitted.visitorPaths, visitorAddress: clientAddress?.(req) ?? null, bytes });
      }
    };
    if (infos.length === 1 && first.type === "file") await countShared(first.size);
    // The user's download limit (for a share link: its owner's), and the group space's (server/speed/).
    const throttle = req.method === "GET" ? await services.speed.throttle(ticket.userId, ticket.groupId, "download") : null;

    try {
      if (kind === "preview") {
        const mediaType = PREVIEW_MEDIA_TYPES[extensionOf(first.name)];
        if (first.type !== "file" || !mediaType) throw new FerryError("PreviewUnsupported");
        // The watermark is drawn in here, so the URL fetched on its own shows it too (watermark.ts).
        const mark = mediaType.startsWith("image/") ? await watermarks.current(await accountOf(ticket.userId)) : null;
        if (mark) {
          watermarks.checkPreview(first.name, first.size);
          const drawn = await watermarks.draw(await watermarks.read(() => space.storage.createReadStream(first.path)), mark, "keep");
          res.writeHead(200, {
            ...COMMON_HEADERS,
            "content-security-policy": PREVIEW_CSP,
            "content-type": drawn.mediaType,
            "content-disposition": contentDisposition("inline", first.name),
            "content-length": drawn.bytes.length,
          });
          res.end(req.method === "HEAD" ? undefined : drawn.bytes);
          return;
        }
        await sendFile(req, res, {
          storage: space.storage,
          info: first,
          name: first.name,
          contentType: mediaType,
          disposition: "inline",
          extraHeaders: { "content-security-policy": PREVIEW_CSP },
          throttle,
        });
        return;
      }
      // A signed-in user's finished download, for the administrator's transfer notice (docs/mail.md).
      const finished = (zip: boolean) => {
        if (!admitted.access) void services.transferNotices.record(ticket.userId, { kind: "download", groupId: ticket.groupId, paths: ticket.paths, zip });
      };
      if (infos.length === 1 && first.type === "file") {
        const sent = await sendFile(req, res, {
          storage: space.storage,
          info: first,
          name: first.name,
          contentType: "application/octet-stream",
          disposition: "attachment",
          accelRedirect: config.accelRedirect ? accelUri(config.accelRedirect, space, first.path) : undefined,
          throttle,
        });
        if (sent) {
          finished(false);
          tracked?.reachedEnd();
        }
        return;
      }
      const collected = await collectEntries(space.storage, ticket.paths, {
        forbidden: space.forbidden,
        limits: { maxDepth: config.walkMaxDepth, maxEntries: config.zipMaxEntries },
        signal: gone.signal,
      });
      const kept = filterEntries(filter, collected);
      const entries = admitted.zipNames ? admitted.zipNames(kept) : kept;
      await countShared(entries.reduce((sum, e) => sum + (e.path === null ? 0 : e.size), 0));
      task?.describe({ total: entries.reduce((sum, e) => sum + (e.path === null ? 0 : e.size), 0) });
      res.writeHead(200, {
        ...COMMON_HEADERS,
        "content-type": "application/zip",
        "content-disposition": contentDisposition("attachment", downloadName(ticket.paths, first)),
      });
      if (req.method === "HEAD") {
        res.end();
        return;
      }
      const zip = await zipStream(space.storage, entries);
      await (throttle ? pipeline(zip, throttle.transform(), res) : pipeline(zip, res)).then(() => {
        finished(true);
        tracked?.reachedEnd();
      }).catch((error: unknown) => {
        if (clientGone(res, error)) return;
        // Headers are out: the broken connection is the only signal left to the client.
        log.warn({ err: error, space: space.key }, "zip download failed midway");
        res.destroy();
      });
    } catch (error) {
      if (gone.signal.aborted && error instanceof FerryError && error.errorName === "StoppedByClient") return;
      if (!(error instanceof FerryError) || res.headersSent) throw error;
      refuse(req, res, error.errorName, error.vars);
    } finally {
      throttle?.release();
      tracked?.settle();
    }
  }

  return {
    handlers: [
      { prefix: FILE_SERVER_PATHS.downloads, handle: (req, res, url) => handle("download", req, res, url) },
      { prefix: FILE_SERVER_PATHS.previews, handle: (req, res, url) => handle("preview", req, res, url) },
    ],
    commands: {
      async download(session, { groupId, paths }) {
        const normalised = [...new Set(paths.map(normaliseUserPath))];
        const space = await openForDownload(services, session.user.id, groupId, normalised);
        const infos: StatResult[] = [];
        for (const p of normalised) infos.push(await space.storage.stat(p));
        checkNamedFiles(await filterOf(services.db, session.user.id, space), normalised, infos);
        const name = downloadName(normalised, infos.at(-1)!);
        const url = await issue({ kind: "download", sessionId: session.sessionId, userId: session.user.id, groupId, paths: normalised }, name);
        return { url, name };
      },

      async preview(session, { groupId, path }) {
        if (!(await previewAllowed(services))) throw new FerryError("FeatureNotSupported");
        const normalised = normaliseUserPath(path);
        const space = await openForDownload(services, session.user.id, groupId, [normalised]);
        const mediaType = PREVIEW_MEDIA_TYPES[extensionOf(baseName(normalised))];
        if (!mediaType) throw new FerryError("PreviewUnsupported");
        const info = await space.storage.stat(normalised);
        if (info.type !== "file") throw new FerryError("PathIsNotFile");
        // A preview hands the file's bytes to the browser: the filter refuses it like a download.
        checkFilter(await filterOf(services.db, session.user.id, space), normalised, info.size);
        // An image the watermark cannot be drawn on is refused now, with the reason, not as a broken image later.
        if (mediaType.startsWith("image/") && (await watermarks.current(session.user.account))) watermarks.checkPreview(info.name, info.size);
        const url = await issue({ kind: "preview", sessionId: session.sessionId, userId: session.user.id, groupId, paths: [normalised] }, info.name);
        return { url, mediaType };
      },
    },
  };
};
