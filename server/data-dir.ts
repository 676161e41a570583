import { chmodSync, closeSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Data at rest (docs/security.md, "Data at rest"): the data directory is the service user's alone
 * (0700), and the files that hold secrets — the SQLite database and its -wal/-shm/-journal files,
 * the engine secret, the web's session secret, the key the web signs client addresses with — are
 * readable by that user only (0600). They are
 * created so, and tightened (never loosened) at every start when found with looser modes.
 * Behind nginx (FERRY_ACCEL_REDIRECT) the directory is 0711: nginx, another user, must pass through
 * it to reach `<data dir>/storage`, but cannot list it, and the files above stay 0600.
 */

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
/** Names of files holding secrets that live in the data directory (the web writes the second one; the fourth lives until the administrator's first password change). */
export const SECRET_FILE_NAMES = ["engine-secret", "web-session-secret", "forward-secret", "initial-admin-password"] as const;
/** What SQLite writes next to its database file. */
export const SQLITE_SIDE_FILES = ["-wal", "-shm", "-journal"] as const;

export interface Tightened {
  path: string;
  /** Permission bits before and after, e.g. 0o644 → 0o600. */
  from: number;
  to: number;
}

/** Takes away the bits of an existing path that `mode` does not allow; never adds any. Null when nothing changed or the path is missing. */
export function tightenMode(file: string, mode: number): Tightened | null {
  let current: number;
  try {
    current = statSync(file).mode & 0o777;
  } catch {
    return null;
  }
  if ((current & ~mode) === 0) return null;
  chmodSync(file, current & mode);
  return { path: file, from: current, to: current & mode };
}

/** Creates the directory (and its missing parents) with `mode`, or tightens it when it exists. */
export function ensurePrivateDir(dir: string, mode = PRIVATE_DIR_MODE): Tightened | null {
  mkdirSync(dir, { recursive: true, mode });
  return tightenMode(dir, mode);
}

/**
 * Where a generated initial administrator password is kept until the administrator's first password
 * change: readable by its owner only (0600), so it is still there when the terminal has scrolled on.
 */
export const initialAdminPasswordFile = (dataDir: string) => path.resolve(dataDir, "initial-admin-password");

/** Removes the initial password file (the administrator chose a password); nothing when it is gone already. */
export function forgetInitialAdminPassword(dataDir: string): void {
  rmSync(initialAdminPasswordFile(dataDir), { force: true });
}

/** Creates an empty file readable by its owner only if it is missing, so whatever opens it next finds 0600. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  tightenMode(file, PRIVATE_FILE_MODE);
}

/** The SQLite database file of a `sqlite:` URL, or null (another database, or in memory). */
export function sqliteFileOf(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith("sqlite:")) return null;
  const file = databaseUrl.slice("sqlite:".length);
  return file === ":memory:" ? null : path.resolve(file);
}

/** At engine start: the data directory and every secret-holding file, as above. Returns what it had to tighten. */
export function securePrivateFiles(options: { dataDir: string; databaseUrl: string; accelRedirect: string }): Tightened[] {
  const changed: (Tightened | null)[] = [ensurePrivateDir(options.dataDir, options.accelRedirect ? 0o711 : PRIVATE_DIR_MODE)];
  for (const name of SECRET_FILE_NAMES) changed.push(tightenMode(path.join(options.dataDir, name), PRIVATE_FILE_MODE));
  const sqlite = sqliteFileOf(options.databaseUrl);
  if (sqlite) for (const suffix of ["", ...SQLITE_SIDE_FILES]) changed.push(tightenMode(`${sqlite}${suffix}`, PRIVATE_FILE_MODE));
  return changed.filter((c): c is Tightened => c !== null);
}
