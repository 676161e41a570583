import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { FerryError } from "../errors";

/*
 * The system way (docs/authentication.md, "System (PAM)"): the host's accounts, checked through PAM
 * with the optional package authenticate-pam (a native addon built against libpam0g-dev). Where
 * the host has no PAM, or the addon could not be built, the way answers 4109 "feature not
 * supported" (4141 off Linux): it never pretends to check a password it cannot check.
 */

interface PamAddon {
  authenticate(user: string, password: string, callback: (error?: string) => void, options?: { serviceName?: string; remoteHost?: string }): void;
}

/** Host accounts below this uid (root, daemons) never sign in to Ferry (Debian's UID_MIN). */
export const SYSTEM_MIN_UID = 1000;
const GETENT_TIMEOUT_MS = 5_000;

let addon: PamAddon | null | undefined;
/** The addon, loaded once; null when it is not installed or does not load on this host. */
function loadPam(): PamAddon | null {
  if (addon !== undefined) return addon;
  try {
    // A native addon: ESM cannot import a .node file, require can.
    addon = createRequire(import.meta.url)("authenticate-pam") as PamAddon;
  } catch {
    addon = null;
  }
  return addon;
}

/** Why the system way cannot work here, or null when it can. */
export function systemWayProblem(): FerryError | null {
  if (process.platform !== "linux" && process.platform !== "freebsd" && process.platform !== "darwin") return new FerryError("NotUnixSystem");
  if (!loadPam()) return new FerryError("FeatureNotSupported", { reason: "pam-unavailable", detail: "the authenticate-pam addon is not installed or does not load (it needs libpam0g-dev when npm installs it)" });
  return null;
}

/** The host account's uid through NSS (getent), or null when the host knows no such account. */
function hostUid(account: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile("getent", ["passwd", account], { timeout: GETENT_TIMEOUT_MS }, (error, stdout) => {
      if (error) return resolve(null);
      const uid = Number(stdout.split(":")[2]);
      resolve(Number.isInteger(uid) ? uid : null);
    });
  });
}

export function createSystemWay(options: { pamService: string }) {
  return {
    /**
     * Whether the host account `account` has `password`: PAM service FERRY_PAM_SERVICE, the client's
     * address as PAM_RHOST. Accounts below uid 1000 (root, daemons) are refused with 4123 before
     * PAM is asked, so Ferry is no way to guess root's password.
     */
    async authenticate(account: string, password: string, clientIp: string | null): Promise<boolean> {
      const problem = systemWayProblem();
      if (problem) throw problem;
      const uid = await hostUid(account);
      if (uid === null) return false;
      if (uid < SYSTEM_MIN_UID) throw new FerryError("SystemUserAccessDenied");
      const pam = loadPam()!;
      return new Promise<boolean>((resolve) => {
        pam.authenticate(account, password, (error) => resolve(!error), { serviceName: options.pamService, ...(clientIp ? { remoteHost: clientIp } : {}) });
      });
    },
  };
}

export type SystemWay = ReturnType<typeof createSystemWay>;
