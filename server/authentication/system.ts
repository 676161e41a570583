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

const DAY_MS = 86_400_000;

/**
 * Whether the host has disabled the account by date, as PAM's account check (pam_unix's
 * acct_mgmt) would answer PAM_ACCT_EXPIRED: its expiry date (shadow field 8, `chage -E`) has come,
 * or its password is older than its maximum age plus its inactive days (fields 3, 5, 7, `chage -M -I`).
 * The authenticate-pam addon runs pam_authenticate only, which looks at neither. A shadow entry
 * NSS does not give (SSSD, LDAP hosts) is left to PAM.
 */
function hostAccountExpired(account: string, now = Date.now()): Promise<boolean> {
  const today = Math.floor(now / DAY_MS);
  return new Promise((resolve) => {
    execFile("getent", ["shadow", account], { timeout: GETENT_TIMEOUT_MS }, (error, stdout) => {
      if (error) return resolve(false);
      const field = (n: number) => {
        const text = stdout.trim().split(":")[n] ?? "";
        return text === "" ? null : Number(text);
      };
      const [lastChange, maxAge, inactive, expires] = [field(2), field(4), field(6), field(7)];
      if (expires !== null && Number.isInteger(expires) && expires <= today) return resolve(true);
      const aged = lastChange !== null && lastChange > 0 && maxAge !== null && maxAge >= 0 && maxAge < 99_999 && inactive !== null && inactive >= 0;
      resolve(aged && today > lastChange + maxAge + inactive);
    });
  });
}

export function createSystemWay(options: { pamService: string }) {
  return {
    /**
     * Whether the host account `account` has `password`: PAM service FERRY_PAM_SERVICE, the client's
     * address as PAM_RHOST. Accounts below uid 1000 (root, daemons) are refused with 4123 before
     * PAM is asked, so Ferry is no way to guess root's password. A proven password of an account
     * the host has disabled by date (expired, or inactive past its password's age) is 1050.
     */
    async authenticate(account: string, password: string, clientIp: string | null): Promise<boolean> {
      const problem = systemWayProblem();
      if (problem) throw problem;
      const uid = await hostUid(account);
      if (uid === null) return false;
      if (uid < SYSTEM_MIN_UID) throw new FerryError("SystemUserAccessDenied");
      const pam = loadPam()!;
      const proven = await new Promise<boolean>((resolve) => {
        pam.authenticate(account, password, (error) => resolve(!error), { serviceName: options.pamService, ...(clientIp ? { remoteHost: clientIp } : {}) });
      });
      if (proven && (await hostAccountExpired(account))) throw new FerryError("AccountLocked", { reason: "host-account-expired" });
      return proven;
    },
  };
}

export type SystemWay = ReturnType<typeof createSystemWay>;
