/**
 * Files the engine has open now (docs/storage.md, "Auto-clean"): a download reading a file, a
 * writer or a commit placing one. Auto-clean asks here before it moves or deletes a file, so it
 * never takes a file from under a transfer. One registry per process, because every local storage
 * of a home and the cleaner of the storage root that holds it are separate objects over the same
 * files.
 *
 * Open files are known by their inode (device and inode number, from the opened handle), so a file
 * read through a symbolic link, a virtual directory or a nested home is the same file to the
 * cleaner. Targets of a write in progress are known by their absolute path (the file there may not
 * exist yet, or is about to be replaced).
 */

export interface InodeRef {
  dev: number | bigint;
  ino: number | bigint;
}

const keyOf = (info: InodeRef) => `${info.dev}:${info.ino}`;

function counter() {
  const counts = new Map<string, number>();
  return {
    hold(key: string): () => void {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (counts.get(key) ?? 1) - 1;
        if (n <= 0) counts.delete(key);
        else counts.set(key, n);
      };
    },
    has: (key: string) => counts.has(key),
    get size() {
      return counts.size;
    },
  };
}

export function createInUse() {
  const inodes = counter();
  const paths = counter();
  return {
    /** A file opened for reading (or writing): held until the returned release is called (idempotent). */
    holdFile: (info: InodeRef) => inodes.hold(keyOf(info)),
    /** A path a write in progress will place a file at: held until released (idempotent). */
    holdPath: (absolute: string) => paths.hold(absolute),
    /** True when the file at `absolute` (whose lstat is `info`) is open, or a write targets its path. */
    isInUse: (absolute: string, info: InodeRef) => inodes.has(keyOf(info)) || paths.has(absolute),
    /** Open files and held paths now (tests, diagnosis). */
    get count() {
      return inodes.size + paths.size;
    },
  };
}
export type InUse = ReturnType<typeof createInUse>;

/** The engine process's registry: the local storage driver holds, auto-clean asks. */
export const filesInUse: InUse = createInUse();
