import { rmdir } from "node:fs/promises";
import { FerryError } from "../errors";
import { parentOf, resolveUserPath } from "./paths";
import { localRootOf, type StorageRegistry } from "./registry";
import { UNBOUNDED } from "./walk";

/**
 * Home folders of users and groups on their storage (docs/storage.md, "Storages"), through the
 * storage's driver rooted at the storage's root: a home is resolved like any user path, cannot leave
 * the storage, and its size leaves out uploads in progress.
 */
export function createHomes(registry: StorageRegistry) {
  const rootOf = (storageId: number) => registry.at(storageId, "/");
  return {
    /** The engine's storage root (the built-in storage's folder). */
    root: registry.builtinRoot,
    async ensure(storageId: number, home: string) {
      await (await rootOf(storageId)).mkdir(home, { recursive: true });
    },
    /**
     * Creates `home` as a new, empty folder (its missing parents too); false when something is
     * there already, e.g. the home a deleted account left behind (docs/security.md, "Homes and identities").
     */
    async claim(storageId: number, home: string): Promise<boolean> {
      const storage = await rootOf(storageId);
      const parent = parentOf(home);
      if (parent !== "/") await storage.mkdir(parent, { recursive: true });
      try {
        // On an object store mkdir is check-then-put, not atomic: two claims of one new name at the
        // same moment could both win; account names are unique, so only a re-created name races.
        await storage.mkdir(home);
        return true;
      } catch (error) {
        if (error instanceof FerryError && (error.errorName === "PathExists" || error.errorName === "PathIsFile")) return false;
        throw error;
      }
    },
    /** Removes a home folder that `claim` made, as long as it is still empty (a refused create leaves nothing behind). */
    async unclaim(storageId: number, home: string): Promise<void> {
      try {
        const record = await registry.get(storageId);
        if (record.provider === "local") {
          await rmdir(resolveUserPath(localRootOf(record, registry.builtinRoot), home).absolute);
          return;
        }
        const storage = await rootOf(storageId);
        if ((await storage.list(home)).length === 0) await storage.remove(home);
      } catch {
        // best effort: an unclaimed empty folder is harmless
      }
    },
    /** Bytes held under a home; 0 when it does not exist (yet). */
    async sizeOf(storageId: number, home: string): Promise<number> {
      try {
        return (await (await registry.at(storageId, home)).usage("/", UNBOUNDED)).size;
      } catch (error) {
        if (error instanceof FerryError && error.errorName === "PathNotFound") return 0;
        throw error;
      }
    },
  };
}

export type Homes = ReturnType<typeof createHomes>;
