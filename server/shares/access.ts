import { createHash } from "node:crypto";
import type { ErrorName } from "../../contract/errors";
import { hasPermission, Permission } from "../../contract/permissions";
import { ShareUrlType } from "../../contract/share";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import type { ShareLinksTable } from "../db/schema";
import { isForbidden, parseForbiddenPaths } from "../files/spaces";
import { FerryError } from "../errors";
import { isUnder, normaliseUserPath } from "../storage/paths";
import type { StatResult, Storage } from "../storage/storage";
import type { Selectable } from "kysely";

/**
 * What a visitor holding a share token may reach (docs/shares.md, "Share tokens"). The file server
 * (server/fileserver/*) calls resolveShareToken at every command, upload and download; nothing here
 * is cached, so cancelling, deleting or expiring a link, locking its owner or taking away the
 * owner's Share/Invite bit stops every token of it at the next use.
 */
export interface ShareItem {
  /** Full path in the owner's personal space ("/docs/a.txt"). */
  path: string;
  /** The name the visitor sees: the alias when set, else the base name. */
  name: string;
  alias: string | null;
  isFolder: boolean;
}

export interface ShareAccess {
  linkId: string;
  ownerId: number;
  ownerAccount: string;
  kind: "download" | "upload";
  /** True only for a download link created with shareAllowDownload 1. */
  allowDownload: boolean;
  /** Download link: the shared items, minus any that became forbidden for the owner. Invitation: empty. */
  items: ShareItem[];
  /** Invitation: the folder uploads go to (full path in the owner's personal space). Download link: null. */
  directory: string | null;
  /**
   * Invitation: whether the visitor sees the folder's contents. When false (a file drop, the
   * default) a visit lists only what its own share token put there (share_visitor_uploads).
   */
  showContents: boolean;
  /** Full path → alias, for the items that have one. */
  aliases: Record<string, string>;
  /** The owner's forbidden paths, normalised (still apply below shared folders). */
  forbidden: string[];
  /** Unix seconds; null when the link never expires. */
  expiresAt: number | null;
  /** `<base>/share/<id>`. */
  shareUrl: string;
  /** The device fingerprint the token was issued to ("" when none was sent). */
  fingerprint: string;
}

export type LinkRow = Selectable<ShareLinksTable>;

export const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");
export const shareUrlOf = (link: Pick<LinkRow, "base_url" | "id">) => `${link.base_url}/share/${link.id}`;

/**
 * Why a link cannot be used now, or null. Order matters: a missing owner or link is 4025, one the
 * administrator disabled 1055, a cancelled one 1041, an owner who is locked or lost the Share
 * (download) / Invite (invitation) bit 1055, an expired one 1037.
 */
export function linkProblem(
  link: Pick<LinkRow, "status" | "expire_at" | "kind" | "disabled_at"> | undefined,
  owner: { locked: number; permission: number } | undefined,
  now: number,
): ErrorName | null {
  if (!link || !owner) return "ShareUrlNotExist";
  if (link.disabled_at > 0) return "LinkDisabled";
  if (link.status === 3) return "LinkBroken";
  const bit = link.kind === ShareUrlType.Download ? Permission.Share : Permission.Invite;
  if (owner.locked || !hasPermission(owner.permission, bit)) return "LinkDisabled";
  if (link.expire_at > 0 && link.expire_at <= now) return "LinkExpired";
  return null;
}

export type TokenCheck = { access: ShareAccess; link: LinkRow } | { error: ErrorName };

export function createShareAccess(db: Db, clock: Clock) {
  const k = db.kysely;

  /** The token's link and access, or the catalogue error a REST call answers with. */
  async function checkToken(token: string): Promise<TokenCheck> {
    if (typeof token !== "string" || token.length < 20 || token.length > 256) return { error: "InvalidToken" };
    return checkDigest(tokenDigest(token));
  }

  /** The same check by the token's SHA-256 (hex): signed download URLs carry the digest, never the token. */
  async function checkDigest(digest: string): Promise<TokenCheck> {
    // The token, its link and the link's owner in one query (links and tokens go with their owner).
    const found = await k
      .selectFrom("share_tokens")
      .innerJoin("share_links", "share_links.id", "share_tokens.link_id")
      .innerJoin("users", "users.id", "share_links.owner_id")
      .selectAll("share_links")
      .select([
        "share_tokens.expires_at as tokenExpiresAt",
        "share_tokens.fingerprint as tokenFingerprint",
        "users.account as ownerAccount",
        "users.locked as ownerLocked",
        "users.permission as ownerPermission",
        "users.forbidden_paths as ownerForbiddenPaths",
      ])
      .where("share_tokens.token_hash", "=", digest)
      .executeTakeFirst();
    const now = clock.now();
    if (!found || found.tokenExpiresAt <= now) return { error: "InvalidToken" };
    const { tokenExpiresAt: _expires, tokenFingerprint: fingerprint, ownerAccount, ownerLocked, ownerPermission, ownerForbiddenPaths, ...link } = found;
    const problem = linkProblem(link, { locked: ownerLocked, permission: ownerPermission }, now);
    if (problem) return { error: problem };
    // A bound link answers only the device it is bound to; a token of a device unbound since is void.
    if (link.bind_switch && link.bound_device !== fingerprint) return { error: "LinkBound" };
    const items = await k.selectFrom("share_items").selectAll().where("link_id", "=", link.id).orderBy("position").execute();
    const forbidden = parseForbiddenPaths(ownerForbiddenPaths);
    const kind = link.kind === ShareUrlType.Download ? "download" : "upload";
    const shared: ShareItem[] = items
      .filter((i) => !isForbidden(forbidden, i.path))
      .map((i) => ({ path: i.path, name: i.alias || i.name, alias: i.alias || null, isFolder: i.is_folder === 1 }));
    return {
      link,
      access: {
        linkId: link.id,
        ownerId: link.owner_id,
        ownerAccount,
        kind,
        allowDownload: kind === "download" && link.allow_download === 1,
        items: kind === "download" ? shared : [],
        directory: kind === "upload" ? link.server_path : null,
        showContents: kind === "upload" && link.show_contents === 1,
        aliases: Object.fromEntries(shared.filter((i) => i.alias).map((i) => [i.path, i.alias!])),
        forbidden,
        expiresAt: link.expire_at > 0 ? Math.floor(link.expire_at / 1000) : null,
        shareUrl: shareUrlOf(link),
        fingerprint,
      },
    };
  }

  return {
    checkToken,
    checkDigest,
    /** The access a share token gives now, or null (unknown or expired token, or a link that is no longer usable). */
    async resolveShareToken(token: string): Promise<ShareAccess | null> {
      const result = await checkToken(token);
      return "access" in result ? result.access : null;
    },
  };
}

export type ShareAccessService = ReturnType<typeof createShareAccess>;

/**
 * A shared item is the file or the folder that was shared: when its path now holds the other kind
 * (a shared file replaced by a folder of the same name, or the reverse), it is no longer part of the
 * share and answers PathNotFound, like a removed item. Nothing below a shared file is ever reachable.
 */
export async function checkItemKind(storage: Pick<Storage, "stat">, item: ShareItem): Promise<StatResult> {
  const info = await storage.stat(item.path);
  if ((info.type === "folder") !== item.isFolder) throw new FerryError("PathNotFound");
  return info;
}

/**
 * A path as the visitor sees it → the full path in the owner's personal space, or null when it
 * lies outside the share (or is malformed; it goes through the same normaliser as every path).
 * Download link: "/" is a virtual root holding the items by their visible names, "/<name>/rest"
 * lies inside a shared folder. Invitation: "/" is the invitation directory.
 * Returns `{ root: true }` for the virtual root of a download link, which has no owner path.
 */
export function visitorToOwnerPath(access: ShareAccess, visitorPath: string): { root: true } | { root: false; path: string; item: ShareItem | null } | null {
  let rel: string;
  try {
    rel = normaliseUserPath(visitorPath);
  } catch {
    return null;
  }
  if (access.kind === "upload") {
    const dir = access.directory ?? "/";
    const path = rel === "/" ? dir : dir === "/" ? rel : `${dir}${rel}`;
    if (!isUnder(path, dir) || isForbidden(access.forbidden, path)) return null;
    return { root: false, path, item: null };
  }
  if (rel === "/") return { root: true };
  const [first, ...rest] = rel.slice(1).split("/");
  const item = access.items.find((i) => i.name === first);
  if (!item) return null;
  if (rest.length > 0 && !item.isFolder) return null;
  const path = rest.length === 0 ? item.path : `${item.path}/${rest.join("/")}`;
  if (!isUnder(path, item.path) || isForbidden(access.forbidden, path)) return null;
  return { root: false, path, item };
}
