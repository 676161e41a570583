import { lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { isReservedName, resolveUserPath } from "./paths";

/**
 * Home folders of users and groups inside the storage root. A home is resolved like any user path
 * (paths.ts), so it cannot leave the root nor name the staging area.
 */
export function createHomes(storageRoot: string) {
  const root = path.resolve(storageRoot);
  const resolve = (home: string) => resolveUserPath(root, home).absolute;
  return {
    root,
    async ensure(home: string) {
      await mkdir(resolve(home), { recursive: true });
    },
    /** Bytes held under a home, without following symbolic links nor counting uploads in progress. */
    async sizeOf(home: string): Promise<number> {
      let total = 0;
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries) {
          if (isReservedName(entry.name)) continue;
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) await walk(full);
          else if (entry.isFile()) total += (await lstat(full)).size;
        }
      };
      await walk(resolve(home));
      return total;
    },
  };
}

export type Homes = ReturnType<typeof createHomes>;
