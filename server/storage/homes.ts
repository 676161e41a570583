import { rmdir } from "node:fs/promises";
import path from "node:path";
import { FerryError } from "../errors";
import { createLocalStorage } from "./local";
import { UNBOUNDED } from "./walk";
import { parentOf, resolveUserPath } from "./paths";

/**
 * Home folders of users and groups inside the storage root, through the Storage driver: a home is
 * resolved like any user path, cannot leave the root, and its size leaves out uploads in progress.
 */
export function createHomes(storageRoot: string) {
  const root = path.resolve(storageRoot);
  const storage = createLocalStorage(root);
  return {
    root,
    async ensure(home: string) {
      await storage.mkdir(home, { recursive: true });
    },
    /**
     * Creates `home` as a new, empty folder (its missing parents too); false when something is
     * there already, e.g. the home a deleted account left behind (docs/security.md, "Homes and identities").
     */
    async claim(home: string): Promise<boolean> {
      const parent = parentOf(home);
      if (parent !== "/") await storage.mkdir(parent, { recursive: true });
      try {
        await storage.mkdir(home);
        return true;
      } catch (error) {
        if (error instanceof FerryError && (error.errorName === "PathExists" || error.errorName === "PathIsFile")) return false;
        throw error;
      }
    },
    /** Removes a home folder that `claim` made, as long as it is still empty (a refused create leaves nothing behind). */
    async unclaim(home: string): Promise<void> {
      await rmdir(resolveUserPath(root, home).absolute).catch(() => undefined);
    },
    /** Bytes held under a home; 0 when it does not exist (yet). */
    async sizeOf(home: string): Promise<number> {
      try {
        return (await storage.usage(home, UNBOUNDED)).size;
      } catch (error) {
        if (error instanceof FerryError && error.errorName === "PathNotFound") return 0;
        throw error;
      }
    },
  };
}

export type Homes = ReturnType<typeof createHomes>;
