import { lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Home folders of users and groups inside the storage root. `homePath` (contract/admin.ts) already
 * refuses "." and ".."; this resolution checks the result stays inside the root all the same.
 * (The full path-confinement function for user paths arrives with the file server.)
 */
export function createHomes(storageRoot: string) {
  const root = path.resolve(storageRoot);
  const resolve = (home: string) => {
    const full = path.resolve(root, `.${home}`);
    if (full !== root && !full.startsWith(root + path.sep)) throw new Error(`home ${home} escapes the storage root`);
    return full;
  };
  return {
    root,
    async ensure(home: string) {
      await mkdir(resolve(home), { recursive: true });
    },
    /** Bytes held under a home, without following symbolic links. */
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
