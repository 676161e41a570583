import type { Dirent } from "node:fs";
import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import path from "node:path";

/** The desktop clients the spec offers: Windows, Ubuntu, CentOS and Mac. */
export const PLATFORMS = ["exe", "deb", "rpm", "dmg"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const INSTALLER_MEDIA_TYPES: Record<Platform, string> = {
  exe: "application/vnd.microsoft.portable-executable",
  deb: "application/vnd.debian.binary-package",
  rpm: "application/x-rpm",
  dmg: "application/x-apple-diskimage",
};

export interface OpenInstaller {
  /** The file's name in the installers folder (what the browser saves it as). */
  name: string;
  size: number;
  /** Open for reading; whoever takes it closes it (a read stream made from it does so by itself). */
  handle: FileHandle;
}

export interface Installers {
  /** The platform's installer, or null when the folder holds none. */
  open(platform: Platform): Promise<OpenInstaller | null>;
}

const missing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "");

/**
 * Installers are whatever the operator drops into one folder: for each platform the first visible
 * file, by name, ending in `.<platform>` (any case). Names come from the folder listing, never from
 * the request, so nothing outside the folder can be reached.
 */
export function createInstallers(dir: string): Installers {
  return {
    async open(platform) {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
      const suffix = `.${platform}`;
      const names = entries
        .filter((e) => (e.isFile() || e.isSymbolicLink()) && !e.name.startsWith(".") && e.name.toLowerCase().endsWith(suffix))
        .map((e) => e.name)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const name of names) {
        const file = path.join(dir, name);
        // A link may point at anything; only a regular file is opened (a FIFO would block the open).
        const target = await stat(file).catch(() => null);
        if (!target?.isFile()) continue;
        let handle: FileHandle;
        try {
          handle = await open(file, "r");
        } catch (error) {
          if (missing(error)) continue;
          throw error;
        }
        const opened = await handle.stat();
        if (!opened.isFile()) {
          await handle.close();
          continue;
        }
        return { name, size: opened.size, handle };
      }
      return null;
    },
  };
}
