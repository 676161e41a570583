import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import { createMountedStorage } from "../storage/mounts";
import { isUnder, normaliseUserPath } from "../storage/paths";
import { BUILTIN_STORAGE_ID, locationOf, type StorageRegistry } from "../storage/registry";
import type { Storage } from "../storage/storage";
import { WALK_DEFAULTS, type WalkLimits } from "../storage/walk";

/**
 * A file space a user may work in: the personal space (group id 0, the user's own permission) or a
 * group space the user belongs to (the membership's groupPermission). Permission and home are read
 * from the database on every open, so revoking a permission or a membership takes effect at the
 * next command, also on sockets and links handed out before.
 */
export interface Space {
  groupId: number;
  /** "user:<id>" or "group:<id>"; identifies the space in hashes and upload records. */
  key: string;
  /** The home folder relative to its storage's root ("/users/alice"). */
  home: string;
  /** The storage the home is on (docs/storage.md, "Storages"). */
  storageId: number;
  /** The home as a location (registry.ts locationOf): how the usage counts and quotas know it. */
  location: string;
  /** The permission bits that apply here (contract/permissions.ts). */
  permission: number;
  /**
   * The user's forbidden paths on the personal space (normalised), each also in its canonical form
   * when a symbolic link lies on it; empty on group spaces.
   */
  forbidden: string[];
  /**
   * The user's virtual directories on the personal space (docs/storage.md, "Virtual directories"):
   * each alias ("/Projects") and its target folder below its storage's root; empty on group spaces.
   * `storage` already routes their paths, so callers only need this for root-relative paths.
   */
  virtual: VirtualDir[];
  storage: Storage;
}

/** A stored virtual directory: alias, target folder and the storage the target is on. */
export interface VirtualDir {
  alias: string;
  path: string;
  storageId: number;
}

/** The items of a JSON array stored in a text column; nothing when the text is not one. */
function storedList(json: string): unknown[] {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? (list as unknown[]) : [];
  } catch {
    return [];
  }
}

/** True when one of two storage paths holds the other (or they are the same). */
export const overlaps = (a: string, b: string) => isUnder(a, b) || isUnder(b, a);

/**
 * The stored virtual directories (JSON array of { alias, path, storageId }), normalised; unusable
 * entries are dropped; an entry without a storage (stored before 0018) is on the built-in one.
 * With `home`, so is a target that holds the home, lies in it or overlaps an earlier target on the
 * same storage: the same file would have two paths in the space, and a forbidden path written with
 * one would not cover the other (the admin API refuses these with 4157; this guards older rows).
 */
export function parseVirtualDirectories(json: string, home?: { path: string; storageId: number }): VirtualDir[] {
  const out: VirtualDir[] = [];
  for (const item of storedList(json)) {
    if (typeof item !== "object" || item === null) continue;
    const { alias, path, storageId: stored } = item as Record<string, unknown>;
    if (typeof alias !== "string" || typeof path !== "string") continue;
    const storageId = typeof stored === "number" && Number.isSafeInteger(stored) && stored > 0 ? stored : BUILTIN_STORAGE_ID;
    try {
      const a = normaliseUserPath(alias);
      // One name at the top, each alias once: anything else was never accepted (users/service.ts).
      if (a === "/" || a.lastIndexOf("/") !== 0 || out.some((v) => v.alias === a)) continue;
      const target = normaliseUserPath(path);
      if (home !== undefined && ((storageId === home.storageId && overlaps(target, home.path)) || out.some((v) => v.storageId === storageId && overlaps(v.path, target)))) continue;
      out.push({ alias: a, path: target, storageId });
    } catch {
      // an entry that names no path maps nothing
    }
  }
  return out;
}

/** The virtual directory `path` lies in (the alias itself or below it), if any. */
export function virtualOf(space: Pick<Space, "virtual">, path: string): VirtualDir | undefined {
  return space.virtual.find((v) => isUnder(path, v.alias));
}

/**
 * A space path as a location: the path below its storage's root ("/users/alice/docs", or the
 * target's for a path in a virtual directory), prefixed "@<id>" on a storage other than the
 * built-in one (registry.ts locationOf): how the usage counts, previews' cache and the download
 * accelerator know a file. The accelerator serves only paths of the built-in storage (no "@").
 */
export function rootPathOf(space: Pick<Space, "home" | "virtual" | "storageId">, path: string): string {
  const v = virtualOf(space, path);
  const [base, rest, storageId] = v ? [v.path, path.slice(v.alias.length) || "/", v.storageId] : [space.home, path, space.storageId];
  return locationOf(storageId, rest === "/" ? base : base === "/" ? rest : `${base}${rest}`);
}

/** The stored forbidden paths (JSON array of paths relative to the home), normalised; unusable entries are dropped. */
export function parseForbiddenPaths(json: string): string[] {
  const out: string[] = [];
  for (const item of storedList(json)) {
    if (typeof item !== "string") continue;
    try {
      out.push(normaliseUserPath(item));
    } catch {
      // an entry that names no path forbids nothing
    }
  }
  return out;
}

/** True when `path` is a forbidden path or lies below one. */
export function isForbidden(forbidden: readonly string[], path: string): boolean {
  return forbidden.some((f) => isUnder(path, f));
}

/**
 * The one check of a path against the space's forbidden paths (docs/security.md, "Symbolic links
 * and forbidden paths"): the path as sent and its canonical form (Storage.resolve: every symbolic
 * link resolved, confined to the home) must both stay out of them, so a link inside the home never
 * leads into a forbidden folder. With `subtree`, a path holding a forbidden one is refused as well
 * (moving, copying or removing it would carry the forbidden content along). PermissionDenied,
 * InvalidPath for a link that leaves the home or dangles; answers the canonical path.
 */
export async function checkAllowed(space: Pick<Space, "forbidden" | "storage">, path: string, subtree = false): Promise<string> {
  const real = await space.storage.resolve(path);
  const { forbidden } = space;
  if (forbidden.length === 0) return real;
  for (const p of real === path ? [path] : [path, real]) {
    if (isForbidden(forbidden, p) || (subtree && forbidden.some((f) => isUnder(f, p)))) throw new FerryError("PermissionDenied");
  }
  return real;
}

/** The forbidden paths with the canonical form of each added where a link lies on it. */
async function withCanonical(storage: Storage, forbidden: string[]): Promise<string[]> {
  if (forbidden.length === 0) return forbidden;
  const real = await Promise.all(forbidden.map((f) => storage.resolve(f).catch(() => f)));
  return [...new Set([...forbidden, ...real])];
}


export interface Spaces {
  /** The space, or PermissionDenied (unknown group, not a member, locked or deleted user). */
  open(userId: number, groupId: number): Promise<Space>;
  /** The storage of a folder on a storage; one instance per folder, so its staging bookkeeping is shared. */
  storageOf(storageId: number, home: string): Promise<Storage>;
  /** The engine's storage root (`<data dir>/storage`): the built-in storage, and where tus stages uploads. */
  readonly root: string;
  /** Bounds of folder walks in every space (FERRY_WALK_MAX_DEPTH, FERRY_WALK_MAX_ENTRIES). */
  readonly walkLimits: WalkLimits;
}

export function createSpaces(db: Db, registry: StorageRegistry, walkLimits: WalkLimits = WALK_DEFAULTS): Spaces {
  const storageOf = (storageId: number, home: string) => registry.at(storageId, home);

  return {
    root: registry.builtinRoot,
    walkLimits,
    storageOf,
    async open(userId, groupId) {
      const k = db.kysely;
      if (groupId === 0) {
        const user = await k
          .selectFrom("users")
          .select(["home", "storage_id", "permission", "locked", "forbidden_paths", "virtual_dirs"])
          .where("id", "=", userId)
          .executeTakeFirst();
        if (!user || user.locked) throw new FerryError("PermissionDenied");
        const virtual = parseVirtualDirectories(user.virtual_dirs, { path: user.home, storageId: user.storage_id });
        const mounts = [];
        for (const v of virtual) {
          // A target whose storage is gone or cannot be driven is not mounted (its alias is not listed).
          const storage = await storageOf(v.storageId, v.path).catch(() => null);
          if (storage) mounts.push({ alias: v.alias, storage });
        }
        const storage = createMountedStorage(await storageOf(user.storage_id, user.home), mounts);
        return {
          groupId,
          key: `user:${userId}`,
          home: user.home,
          storageId: user.storage_id,
          location: locationOf(user.storage_id, user.home),
          permission: user.permission,
          forbidden: await withCanonical(storage, parseForbiddenPaths(user.forbidden_paths)),
          virtual,
          storage,
        };
      }
      const row = await k
        .selectFrom("group_members")
        .innerJoin("user_groups", "user_groups.id", "group_members.group_id")
        .innerJoin("users", "users.id", "group_members.user_id")
        .select(["user_groups.home", "user_groups.storage_id", "group_members.group_permission", "users.locked"])
        .where("group_members.group_id", "=", groupId)
        .where("group_members.user_id", "=", userId)
        .executeTakeFirst();
      // Not a member and no such group look the same: the caller learns nothing about other groups.
      if (!row || row.locked) throw new FerryError("PermissionDenied");
      return {
        groupId,
        key: `group:${groupId}`,
        home: row.home,
        storageId: row.storage_id,
        location: locationOf(row.storage_id, row.home),
        permission: row.group_permission,
        forbidden: [],
        virtual: [],
        storage: await storageOf(row.storage_id, row.home),
      };
    },
  };
}
