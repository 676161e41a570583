import path from "node:path";
import { FerryError } from "../errors";
import { createLocalStorage } from "./local";

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
    /** Bytes held under a home; 0 when it does not exist (yet). */
    async sizeOf(home: string): Promise<number> {
      try {
        return (await storage.usage(home)).size;
      } catch (error) {
        if (error instanceof FerryError && error.errorName === "PathNotFound") return 0;
        throw error;
      }
    },
  };
}

export type Homes = ReturnType<typeof createHomes>;
