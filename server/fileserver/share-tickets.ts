import { hasPermission, Permission } from "../../contract/permissions";
import { FerryError } from "../errors";
import type { Space } from "../files/spaces";
import type { Services } from "../services";
import { checkItemKind, type ShareAccess, tokenDigest, visitorToOwnerPath } from "../shares/access";
import { baseName } from "../storage/paths";
import type { StatResult } from "../storage/storage";
import { commonFolder, relativeTo, type Ticket, type TicketKind } from "./tickets";
import type { ZipEntry } from "./zip";

/**
 * Download URLs issued to share-link visitors (docs/file-server.md, "Share visitors"). They are
 * ordinary signed tickets whose session is `share.<SHA-256 of the share token, base64url>` (a
 * sign-in's session id is hex, so the two never meet: a share ticket is refused where a sign-in is
 * looked for, and the reverse), whose user is the link's owner and whose paths are the visitor's.
 * At every use the token is checked again by its digest — link cancelled, deleted, expired, owner
 * locked or without Share, device unbound: refused — and the paths are mapped through the share
 * again, so a ticket never reaches more than the share holds at that moment.
 */

const PREFIX = "share.";

/** The ticket session of a visitor holding `token` (49 characters; the token itself never enters a URL). */
export const shareTicketSession = (token: string) => PREFIX + Buffer.from(tokenDigest(token), "hex").toString("base64url");

export const isShareTicket = (ticket: Ticket) => ticket.sessionId.startsWith(PREFIX);

export interface AdmittedShareTicket {
  /** The ticket with the paths in the owner's space. */
  ticket: Ticket;
  space: Space;
  /** One per path; a name is the one the visitor sees (an alias where set). */
  infos: StatResult[];
  /** Renames zip entries from the owner's folders to the visitor's view of the share. */
  zipNames(entries: ZipEntry[]): ZipEntry[];
  /** What the share token gives now, and the paths as the visitor named them (the download count records these). */
  access: ShareAccess;
  visitorPaths: string[];
}

const joinRelative = (folder: string, rel: string) => (rel === "" ? folder : folder === "/" ? `/${rel}` : `${folder}/${rel}`);

/** Every check of a share ticket at use; throws the refusal (downloads.ts maps it to 403/404/410). */
export async function admitShareTicket(services: Services, ticket: Ticket, kind: TicketKind): Promise<AdmittedShareTicket> {
  // Thumbnails need what a download needs (and preview switched on, which the caller checks).
  if (kind === "preview") throw new FerryError("PermissionDenied");
  const checked = await services.shares.access.checkDigest(Buffer.from(ticket.sessionId.slice(PREFIX.length), "base64url").toString("hex"));
  if ("error" in checked) throw new FerryError(checked.error);
  const { access } = checked;
  if (access.kind !== "download" || access.ownerId !== ticket.userId || ticket.groupId !== 0) throw new FerryError("PermissionDenied");
  if (!access.allowDownload) throw new FerryError("DownloadRestricted");
  const space = await services.spaces.open(access.ownerId, 0);
  if (!hasPermission(space.permission, Permission.Download)) throw new FerryError("PermissionDenied");

  const pairs = ticket.paths.map((visitor) => {
    const mapped = visitorToOwnerPath(access, visitor);
    if (!mapped || mapped.root) throw new FerryError("PathNotFound");
    return { visitor, owner: mapped.path, item: mapped.item };
  });
  const infos: StatResult[] = [];
  for (const { visitor, owner, item } of pairs) {
    if (item) await checkItemKind(space.storage, item);
    infos.push({ ...(await space.storage.stat(owner)), name: baseName(visitor) });
  }

  const ownerBase = commonFolder(pairs.map((p) => p.owner));
  const visitorBase = commonFolder(pairs.map((p) => p.visitor));
  const zipNames = (entries: ZipEntry[]) =>
    entries.map((entry) => {
      const folder = entry.name.endsWith("/");
      const owner = joinRelative(ownerBase, folder ? entry.name.slice(0, -1) : entry.name);
      const pair = pairs.find((p) => owner === p.owner || owner.startsWith(`${p.owner}/`));
      if (!pair) throw new Error(`zip entry ${owner} lies outside the selection`);
      const name = relativeTo(visitorBase, pair.visitor + owner.slice(pair.owner.length));
      return { ...entry, name: folder ? `${name}/` : name };
    });
  return { ticket: { ...ticket, paths: pairs.map((p) => p.owner) }, space, infos, zipNames, access, visitorPaths: pairs.map((p) => p.visitor) };
}
