import { type FileAttributes, FILE_SERVER_PATHS, fileTypeCode, type Listing, type SocketResults } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import { FerryError } from "../errors";
import { createFileService } from "../files/service";
import { checkAllowed, type Space } from "../files/spaces";
import { checkFilter, filterOf } from "../files/upload-rules";
import type { Services } from "../services";
import { checkItemKind, type ShareAccess, tokenDigest, visitorToOwnerPath } from "../shares/access";
import { baseName, isUnder, normaliseUserPath } from "../storage/paths";
import type { StatResult, Storage } from "../storage/storage";
import { shareTicketSession } from "./share-tickets";
import { commonFolder, createTickets } from "./tickets";

/**
 * What a share link's visitor can do with files (docs/file-server.md, "Share visitors"), for the
 * socket (share-socket.ts) and the REST calls (share-routes.ts). The caller has just checked the
 * share token (the link is usable now); every path is then mapped through the one confining
 * resolver, `visitorToOwnerPath` (server/shares/access.ts), and the work is done by the same file
 * service as for signed-in users, on the owner's personal space, so the owner's permission bits,
 * forbidden paths and quota apply as they do to the owner.
 */

/** A path the visitor sent, normalised (1066 when malformed), with its path in the owner's space (null: the download link's virtual root). */
export interface VisitorPath {
  visitor: string;
  owner: string | null;
}

/**
 * Maps a visitor's path into the owner's space. Anything outside the share (an unknown name in the
 * virtual root, a sibling of a shared folder, a forbidden path, a shared item whose path now holds
 * the other kind) is 1043, exactly like a missing path: a visitor learns nothing about what lies
 * outside the share.
 */
export async function resolveVisitorPath(storage: Pick<Storage, "stat">, access: ShareAccess, path: string): Promise<VisitorPath> {
  const visitor = normaliseUserPath(path);
  const mapped = visitorToOwnerPath(access, visitor);
  if (!mapped) throw new FerryError("PathNotFound");
  if (mapped.root) return { visitor, owner: null };
  if (mapped.item) await checkItemKind(storage, mapped.item);
  return { visitor, owner: mapped.path };
}

/** An owner path inside the share as the visitor sees it (the inverse of resolveVisitorPath). */
export function visitorPathOf(access: ShareAccess, owner: string): string {
  if (access.kind === "upload") {
    const dir = access.directory ?? "/";
    if (!isUnder(owner, dir)) throw new Error(`${owner} is outside the invitation folder`);
    return dir === "/" ? owner : owner === dir ? "/" : owner.slice(dir.length);
  }
  const item = access.items.find((i) => isUnder(owner, i.path));
  if (!item) throw new Error(`${owner} is outside the shared items`);
  return `/${item.name}${owner.slice(item.path.length)}`;
}

/** Drops paths inside another selected path, so each item is counted and zipped once. */
function topLevel(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p, i) => !sorted.slice(0, i).some((q) => isUnder(p, q)));
}

const FOLDER = fileTypeCode("Folder");
const FILE = fileTypeCode("File");

export function createShareFiles(services: Services) {
  const files = createFileService(services);
  const tickets = createTickets(services.db, services.clock);

  const need = (access: ShareAccess, kind: ShareAccess["kind"]) => {
    if (access.kind !== kind) throw new FerryError("PermissionDenied");
  };

  /** The owner's personal space, if the owner holds `bit` there now. */
  async function ownerSpace(access: ShareAccess, bit: number): Promise<Space> {
    const space = await services.spaces.open(access.ownerId, 0);
    if (!hasPermission(space.permission, bit)) throw new FerryError("PermissionDenied");
    return space;
  }

  /** The shared items that still exist as what was shared, with their visible names. */
  async function rootEntries(access: ShareAccess): Promise<(StatResult & { visible: string })[]> {
    const space = await ownerSpace(access, Permission.List);
    const found: (StatResult & { visible: string })[] = [];
    for (const item of access.items) {
      try {
        // An item that is (or now passes through) a link into the owner's forbidden paths is not there either.
        await checkAllowed(space, item.path);
        found.push({ ...(await checkItemKind(space.storage, item)), visible: item.name });
      } catch (error) {
        // An item removed since the link was made is simply not there any more.
        if (!(error instanceof FerryError && (error.errorName === "PathNotFound" || error.errorName === "InvalidPath" || error.errorName === "PermissionDenied"))) throw error;
      }
    }
    return found;
  }

  const resolvePath = async (access: ShareAccess, path: string) => resolveVisitorPath((await services.spaces.open(access.ownerId, 0)).storage, access, path);

  /** Every item of a selection in the owner's space, each path resolved once; "/" of a download link stands for every shared item. */
  async function selection(access: ShareAccess, paths: readonly string[]): Promise<{ visitor: string; owner: string }[]> {
    const { storage } = await services.spaces.open(access.ownerId, 0);
    const resolve = (path: string) => resolveVisitorPath(storage, access, path);
    const resolved = await Promise.all(paths.map(resolve));
    const chosen = resolved.some((r) => r.owner === null) ? await Promise.all(access.items.map((i) => resolve(`/${i.name}`))) : resolved;
    const owners = new Map(chosen.map((r) => [r.visitor, r.owner!]));
    return topLevel([...owners.keys()]).map((visitor) => ({ visitor, owner: owners.get(visitor)! }));
  }

  /**
   * A file drop (an invitation that does not show its folder): the owner paths this visit (share
   * token) put there, files committed and folders made; null when the visitor sees everything.
   */
  async function ownUploads(access: ShareAccess, token: string): Promise<string[] | null> {
    if (access.kind !== "upload" || access.showContents) return null;
    const rows = await services.db.kysely.selectFrom("share_visitor_uploads").select("path").where("token_hash", "=", tokenDigest(token)).execute();
    return rows.map((r) => r.path);
  }

  /** Remembers what a drop's visitor put there, so that visit (and only it) lists it. */
  async function recordOwn(access: ShareAccess, token: string, ownerPath: string): Promise<void> {
    if (access.kind !== "upload" || access.showContents) return;
    const hash = tokenDigest(token);
    const k = services.db.kysely;
    const known = await k.selectFrom("share_visitor_uploads").select("id").where("token_hash", "=", hash).where("path", "=", ownerPath).executeTakeFirst();
    if (!known) await k.insertInto("share_visitor_uploads").values({ token_hash: hash, path: ownerPath, created_at: services.clock.now() }).execute();
  }

  /** A path a drop's visit may see: one it put there, or a folder on the way to one. */
  const seenBy = (own: readonly string[], ownerPath: string) => own.some((p) => isUnder(p, ownerPath));

  return {
    recordOwn,

    /**
     * A folder inside the share, in the socket's `list` columns. Download link "/": the shared
     * items. A file drop lists only what this visit (`token`) put there; any other folder of it is
     * 1043, exactly like a missing one, so a visitor learns nothing of what others left.
     */
    async list(access: ShareAccess, path: string, token: string): Promise<Listing> {
      const { visitor, owner } = await resolvePath(access, path);
      const own = await ownUploads(access, token);
      if (owner !== null && own !== null) {
        if (owner !== access.directory && !seenBy(own, owner)) throw new FerryError("PathNotFound");
        const all = await files.list(access.ownerId, 0, owner);
        const keep = all.names.map((name, i) => (seenBy(own, owner === "/" ? `/${name}` : `${owner}/${name}`) ? i : -1)).filter((i) => i >= 0);
        return {
          path: visitor,
          names: keep.map((i) => all.names[i]!),
          types: keep.map((i) => all.types[i]!),
          sizes: keep.map((i) => all.sizes[i]!),
          times: keep.map((i) => all.times[i]!),
        };
      }
      if (owner !== null) return { ...(await files.list(access.ownerId, 0, owner)), path: visitor };
      const entries = (await rootEntries(access)).sort((a, b) =>
        a.type !== b.type ? (a.type === "folder" ? -1 : 1) : a.visible < b.visible ? -1 : a.visible > b.visible ? 1 : 0,
      );
      return {
        path: "/",
        names: entries.map((e) => e.visible),
        types: entries.map((e) => (e.type === "folder" ? FOLDER : FILE)),
        sizes: entries.map((e) => (e.type === "folder" ? 0 : e.size)),
        times: entries.map((e) => e.mtime),
      };
    },

    /** Sub-folders of a folder inside a download link's share. */
    async tree(access: ShareAccess, path: string): Promise<SocketResults["tree"]> {
      need(access, "download");
      const { visitor, owner } = await resolvePath(access, path);
      if (owner === null) {
        const folders = (await rootEntries(access)).filter((e) => e.type === "folder").map((e) => ({ name: e.visible, path: `/${e.visible}` }));
        return { path: "/", folders: folders.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
      }
      const tree = await files.tree(access.ownerId, 0, owner);
      return { path: visitor, folders: tree.folders.map((f) => ({ name: f.name, path: visitorPathOf(access, f.path) })) };
    },

    /** Sizes and counts of items inside a download link's share ("/" = every item). */
    async attributes(access: ShareAccess, paths: string[], signal?: AbortSignal): Promise<FileAttributes> {
      need(access, "download");
      const items = await selection(access, paths);
      const attributes = await files.attributes(
        access.ownerId,
        0,
        items.map((i) => i.owner),
        signal,
      );
      const visitorPaths = items.map((i) => i.visitor);
      return { ...attributes, path: visitorPaths.length === 1 ? visitorPaths[0]! : commonFolder(visitorPaths) };
    },

    /** A folder inside an invitation's folder (the owner's Mkdir bit applies). */
    async mkdir(access: ShareAccess, token: string, parent: string, name: string): Promise<SocketResults["mkdir"]> {
      need(access, "upload");
      const { owner } = await resolvePath(access, parent);
      const made = await files.mkdir(access.ownerId, 0, owner!, name);
      await recordOwn(access, token, made.path);
      return { path: visitorPathOf(access, made.path) };
    },

    /**
     * A signed download URL for items of a download link that allows downloads (the owner's
     * Download bit applies). The ticket names the visitor's paths and the share token's digest,
     * so its use checks the token, the link and the paths again (share-tickets.ts).
     */
    async download(access: ShareAccess, token: string, paths: string[]): Promise<SocketResults["download"]> {
      need(access, "download");
      if (!access.allowDownload) throw new FerryError("DownloadRestricted");
      const items = await selection(access, paths);
      const space = await ownerSpace(access, Permission.Download);
      let info: StatResult | undefined;
      for (const item of items) {
        // A link inside the share that leads into the owner's forbidden paths reaches nothing.
        await checkAllowed(space, item.owner);
        info = await space.storage.stat(item.owner);
        // The link owner's transfer filter: a file named in the selection is refused (downloads.ts checks again at use).
        if (info.type === "file") checkFilter(await filterOf(services.db, access.ownerId, space), item.owner, info.size);
      }
      const name = items.length === 1 ? (info!.type === "file" ? baseName(items[0]!.visitor) : `${baseName(items[0]!.visitor)}.zip`) : "download.zip";
      const text = await tickets.issue(
        { kind: "download", sessionId: shareTicketSession(token), userId: access.ownerId, groupId: 0, paths: items.map((i) => i.visitor) },
        services.config.downloadTicketTtl,
      );
      if (text === null) throw new FerryError("DownloadSelectionTooLarge");
      return { url: `${FILE_SERVER_PATHS.downloads}${text}/${encodeURIComponent(name)}`, name };
    },
  };
}

export type ShareFiles = ReturnType<typeof createShareFiles>;
