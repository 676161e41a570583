import type { InstallerPlatform } from "../../contract/site";

/** The installers of /download/<platform> (app/routes/download.$platform.tsx). */
export type { InstallerPlatform };

const ALL: InstallerPlatform[] = ["exe", "dmg", "rpm", "deb"];

function fromText(text: string): InstallerPlatform[] | null {
  if (/Windows|Win32|Win64/i.test(text)) return ["exe"];
  if (/Mac|iPhone|iPad/i.test(text)) return ["dmg"];
  if (/Linux|X11|CrOS/i.test(text)) return ["rpm", "deb"];
  return null;
}

/**
 * The installers worth offering to this browser, after the system its user agent reports (the
 * older `navigator.platform` only when the agent names none): Windows gets exe, a Mac dmg, Linux
 * both rpm and deb (the browser cannot tell the distribution); an unknown system gets every one.
 */
export function installersFor(userAgent: string, platform = ""): InstallerPlatform[] {
  return fromText(userAgent) ?? fromText(platform) ?? ALL;
}

/**
 * What the client dialogs offer: of the installers the administrator has (`available`, from the
 * engine), those for this browser's system; when none fits, every one there is (the user agent may
 * be wrong about the system, and an installer on offer beats none).
 */
export function offeredInstallers(forBrowser: readonly InstallerPlatform[], available: readonly InstallerPlatform[]): InstallerPlatform[] {
  const fitting = forBrowser.filter((platform) => available.includes(platform));
  return fitting.length > 0 ? fitting : [...available];
}
