import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import { createLocalStorage } from "../storage/local";
import { isUnder, normaliseUserPath, resolveUserPath } from "../storage/paths";
import type { Storage } from "../storage/storage";

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
  /** The user's forbidden paths on the personal space (normalised); empty on group spaces. */
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


export interface Spaces {
  /** The space, or PermissionDenied (unknown group, not a member, locked or deleted user). */
  open(userId: number, groupId: number): Promise<Space>;
  /** The storage of a home folder; one instance per home, so its staging bookkeeping is shared. */
  storageOf(home: string): Storage;
  /** Absolute storage root (`<data dir>/storage`). */
  readonly root: string;
}

export function createSpaces(db: Db, storageRoot: string): Spaces {
  const storages = new Map<string, Storage>();

  function storageOf(home: string): Storage {
    const absolute = resolveUserPath(storageRoot, home).absolute;
    let storage = storages.get(absolute);
    if (!storage) {
      storage = createLocalStorage(absolute);
      storages.set(absolute, storage);
    }
    return storage;
  }

  return {
    root: storageRoot,
    storageOf,
    async open(userId, groupId) {
      const k = db.kysely;
      if (groupId === 0) {
        const user = await k.selectFrom("users").select(["home", "permission", "locked", "forbidden_paths"]).where("id", "=", userId).executeTakeFirst();
        if (!user || user.locked) throw new FerryError("PermissionDenied");
        return {
          groupId,
          key: `user:${userId}`,
          home: user.home,
          permission: user.permission,
          forbidden: parseForbiddenPaths(user.forbidden_paths),
          storage: storageOf(user.home),
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
