import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import { createLocalStorage } from "../storage/local";
import { isUnder, normaliseUserPath, resolveUserPath } from "../storage/paths";
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
  /** The home folder relative to the storage root ("/users/alice"). */
  home: string;
  /** The permission bits that apply here (contract/permissions.ts). */
  permission: number;
  /**
   * The user's forbidden paths on the personal space (normalised), each also in its canonical form
   * when a symbolic link lies on it; empty on group spaces.
   */
  forbidden: string[];
  storage: Storage;
}

/** The stored forbidden paths (JSON array of paths relative to the home), normalised; unusable entries are dropped. */
export function parseForbiddenPaths(json: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const item of list) {
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
  /** The storage of a home folder; one instance per home, so its staging bookkeeping is shared. */
  storageOf(home: string): Storage;
  /** Absolute storage root (`<data dir>/storage`). */
  readonly root: string;
  /** Bounds of folder walks in every space (FERRY_WALK_MAX_DEPTH, FERRY_WALK_MAX_ENTRIES). */
  readonly walkLimits: WalkLimits;
}

export function createSpaces(db: Db, storageRoot: string, walkLimits: WalkLimits = WALK_DEFAULTS): Spaces {
  const storages = new Map<string, Storage>();

  function storageOf(home: string): Storage {
    const absolute = resolveUserPath(storageRoot, home).absolute;
    let storage = storages.get(absolute);
    if (!storage) {
      storage = createLocalStorage(absolute, { walk: walkLimits });
      storages.set(absolute, storage);
    }
    return storage;
  }

  return {
    root: storageRoot,
    walkLimits,
    storageOf,
    async open(userId, groupId) {
      const k = db.kysely;
      if (groupId === 0) {
        const user = await k.selectFrom("users").select(["home", "permission", "locked", "forbidden_paths"]).where("id", "=", userId).executeTakeFirst();
        if (!user || user.locked) throw new FerryError("PermissionDenied");
        const storage = storageOf(user.home);
        return {
          groupId,
          key: `user:${userId}`,
          home: user.home,
          permission: user.permission,
          forbidden: await withCanonical(storage, parseForbiddenPaths(user.forbidden_paths)),
          storage,
        };
      }
      const row = await k
        .selectFrom("group_members")
        .innerJoin("user_groups", "user_groups.id", "group_members.group_id")
        .innerJoin("users", "users.id", "group_members.user_id")
        .select(["user_groups.home", "group_members.group_permission", "users.locked"])
        .where("group_members.group_id", "=", groupId)
        .where("group_members.user_id", "=", userId)
        .executeTakeFirst();
      // Not a member and no such group look the same: the caller learns nothing about other groups.
      if (!row || row.locked) throw new FerryError("PermissionDenied");
      return { groupId, key: `group:${groupId}`, home: row.home, permission: row.group_permission, forbidden: [], storage: storageOf(row.home) };
    },
  };
}
