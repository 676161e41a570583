import type { Dirent } from "node:fs";
import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { INSTALLER_PLATFORMS, type InstallerPlatform } from "../../contract/site";

/** The desktop clients the spec offers: Windows, Ubuntu, CentOS and Mac. */
export const PLATFORMS = INSTALLER_PLATFORMS;
export type Platform = InstallerPlatform;

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
  /** The platforms that have an installer now (what open() would find), in PLATFORMS order. */
  available(): Promise<Platform[]>;
}

const missing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "");

/**
 * Installers are whatever the operator drops into one folder: for each platform the first visible
 * file, by name, ending in `.<platform>` (any case). Names come from the folder listing, never from
 * the request, so nothing outside the folder can be reached.
 */
export function createInstallers(dir: string): Installers {
  /** The folder's visible files and links, by name; none when the folder is missing. */
  async function listing(): Promise<string[]> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (missing(error)) return [];
      throw error;
    }
    return entries
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  const forPlatform = (names: string[], platform: Platform) => names.filter((name) => name.toLowerCase().endsWith(`.${platform}`));
  // A link may point at anything; only a regular file counts (a FIFO would block the open).
  const isRegularFile = async (name: string) => (await stat(path.join(dir, name)).catch(() => null))?.isFile() ?? false;

  return {
    async open(platform) {
      for (const name of forPlatform(await listing(), platform)) {
        if (!(await isRegularFile(name))) continue;
        let handle: FileHandle;
        try {
          handle = await open(path.join(dir, name), "r");
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
    async available() {
      const names = await listing();
      const found: Platform[] = [];
      for (const platform of PLATFORMS) {
        for (const name of forPlatform(names, platform)) {
          if (await isRegularFile(name)) {
            found.push(platform);
            break;
          }
        }
      }
      return found;
    },
  };
}
