import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { isValidFileName } from "../../contract/validation";
import { FerryError } from "../errors";

/**
 * The one place a user-supplied path becomes a location inside a root (docs/storage.md, "Paths").
 * REST routes, socket commands, share sub-paths, zip entries and rename targets all come through
 * here; nothing else touches the file system with a path a client sent.
 *
 * A user path is always relative to the root it is resolved in: "/etc" means "<root>/etc".
 */

/** Longest accepted user path, in UTF-8 bytes (Linux PATH_MAX). */
export const PATH_MAX_BYTES = 4096;
/** Longest accepted segment: 255 characters and 255 UTF-8 bytes (Linux NAME_MAX). */
export const SEGMENT_MAX = 255;
/**
 * Staging folder for uploads and copies in progress, inside a storage root. The name is reserved at
 * every depth: no user path may name it, and listings never show it.
 */
export const STAGING_NAME = ".ferry-tmp";
/**
 * Auto-clean's holding folder in a root's staging area (".ferry-tmp/autoclean/<run id>/<path>"):
 * files on their way to the recycle path or to deletion. The stale clean-up never removes it: after
 * a crash it holds users' files, which the next auto-clean run puts back or finishes.
 */
export const AUTOCLEAN_HOLDING = "autoclean";

export interface ResolvedPath {
  /** Normalised (NFC) path inside the root, always starting with "/"; the root itself is "/". */
  relative: string;
  /** The same location on disk: the root, or the root + "/" + segments. */
  absolute: string;
}

// C0 controls, DEL and C1 controls. Lone surrogates cannot be written as a file name faithfully.
// eslint-disable-next-line no-control-regex -- control characters are exactly what paths may not hold
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /\p{Cs}/u;
const DRIVE = /^[A-Za-z]:/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const invalidPath = (): never => {
  throw new FerryError("InvalidPath");
};

/**
 * Why a single segment (already NFC) is unacceptable, or null. Checked on the NFC form and again on
 * the NFKC form, so fullwidth or compatibility look-alikes of ".", "/", "\" and ":" are refused too.
 */
function segmentProblem(segment: string, first: boolean): string | null {
  if (segment.length === 0) return "empty";
  if (segment.length > SEGMENT_MAX || Buffer.byteLength(segment, "utf8") > SEGMENT_MAX) return "too long";
  const folded = segment.normalize("NFKC");
  for (const form of [segment, folded]) {
    if (form === "." || form === "..") return "dot segment";
    if (form.includes("/") || form.includes("\\")) return "separator";
    if (CONTROL.test(form)) return "control character";
    if (first && DRIVE.test(form)) return "drive prefix";
  }
  if (isReservedName(segment)) return "reserved";
  return null;
}

/**
 * The normalised relative form of a user path ("/docs/a.txt"; "" and "/" give "/"), or
 * FerryError("InvalidPath"). Decodes nothing: the caller passes decoded text, so a literal
 * "%2e%2e" is just a name.
 */
export function normaliseUserPath(userPath: string): string {
  if (typeof userPath !== "string") return invalidPath();
  // Length checks before normalising bound the work; NFC can grow a string a little, so check again.
  if (Buffer.byteLength(userPath, "utf8") > PATH_MAX_BYTES) return invalidPath();
  if (CONTROL.test(userPath) || LONE_SURROGATE.test(userPath) || userPath.includes("\\")) return invalidPath();
  const nfc = userPath.normalize("NFC");
  const segments = nfc.split("/").filter((s) => s !== "");
  segments.forEach((segment, i) => {
    if (segmentProblem(segment, i === 0)) invalidPath();
  });
  const relative = "/" + segments.join("/");
  if (Buffer.byteLength(relative, "utf8") > PATH_MAX_BYTES) return invalidPath();
  return relative;
}

/** True when `absolute` is `root` or below it (never a sibling such as /data/u2 for /data/u). */
export function isInside(root: string, absolute: string): boolean {
  if (absolute === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return absolute.startsWith(prefix);
}

/** True when `path` is `prefix` or below it; "/a" is not below "/ab". */
export function isUnder(path: string, prefix: string): boolean {
  return prefix === "/" || path === prefix || path.startsWith(`${prefix}/`);
}

function checkedRoot(root: string): string {
  if (typeof root !== "string" || !path.isAbsolute(root)) throw new Error(`storage root must be an absolute path, got ${String(root)}`);
  return path.resolve(root);
}

/**
 * Confines a user path to `root`: `{ relative, absolute }` or FerryError("InvalidPath").
 * Refuses NUL and control characters, backslashes, "." and ".." segments (also their NFKC
 * look-alikes), a drive prefix such as "C:", the reserved staging name, segments over 255
 * characters or bytes and paths over 4096 bytes. Repeated slashes collapse; a trailing slash is
 * dropped; "file..name" is an ordinary name. Symbolic links are checked separately, against the
 * disk, by assertNoSymlinkEscape.
 */
export function resolveUserPath(root: string, userPath: string): ResolvedPath {
  const base = checkedRoot(root);
  const relative = normaliseUserPath(userPath);
  const absolute = relative === "/" ? base : path.join(base, relative);
  // Belt and braces: the checks above already make an escape impossible.
  if (!isInside(base, absolute) || path.resolve(absolute) !== absolute) return invalidPath();
  return { relative, absolute };
}

/**
 * The relative path of a new entry `name` in folder `dirRelative` (mkdir, rename and upload
 * targets). The name must pass the spec's file-name rule (isValidFileName) and the path rules
 * above, or FerryError("NameFormat"); a bad folder path gives FerryError("InvalidPath").
 */
export function joinName(dirRelative: string, name: string): string {
  const dir = normaliseUserPath(dirRelative);
  if (typeof name !== "string") throw new FerryError("NameFormat");
  const nfc = name.normalize("NFC");
  if (!isValidFileName(nfc) || LONE_SURROGATE.test(nfc) || segmentProblem(nfc, false)) throw new FerryError("NameFormat");
  return normaliseUserPath(dir === "/" ? `/${nfc}` : `${dir}/${nfc}`);
}

/** True for the reserved staging name, in any case or compatibility form. */
export function isReservedName(name: string): boolean {
  // Printable ASCII is its own NFKC form: skip the normalisation on the common case (listings check every name).
  if (PRINTABLE_ASCII.test(name)) return name.length === STAGING_NAME.length && name.toLowerCase() === STAGING_NAME;
  return name.normalize("NFKC").toLowerCase() === STAGING_NAME;
}

/** The last segment of a relative path ("" for the root). */
export function baseName(relative: string): string {
  return relative.slice(relative.lastIndexOf("/") + 1);
}

/** The parent of a relative path ("/" for the root and its children). */
export function parentOf(relative: string): string {
  const i = relative.lastIndexOf("/");
  return i <= 0 ? "/" : relative.slice(0, i);
}

/** The deepest folder holding the parents of every one of `paths` ("/" when they share none). */
export function commonParent(paths: readonly string[]): string {
  const split = paths.map((p) => parentOf(p).split("/").filter(Boolean));
  const first = split[0] ?? [];
  let n = 0;
  while (n < first.length && split.every((s) => s[n] === first[n])) n++;
  return "/" + first.slice(0, n).join("/");
}

/**
 * Walks the existing part of `absolute` (below `root`) and refuses with FerryError("InvalidPath")
 * when a component is a symbolic link that resolves outside the root, or that dangles (writing
 * through a dangling link would create its target, wherever it points). Links that stay inside the
 * root are allowed. The root itself may be a link (e.g. /data → /mnt/data).
 *
 * This narrows but cannot close the race between check and use: Node has no openat2
 * RESOLVE_BENEATH. Ferry never creates links, so a link appears only when someone with shell
 * access puts it there; see docs/storage.md.
 */
export async function assertNoSymlinkEscape(root: string, absolute: string): Promise<void> {
  await confinementWalk(root, absolute);
}

/** What assertNoSymlinkEscape saw: how many segments below the root exist, and whether one of them is a link. */
export interface Confinement {
  /** Segments below the root that exist, from the top. */
  existing: number;
  segments: number;
  /** Index of the first segment that is a link (-1: none). */
  firstLink: number;
}

/** assertNoSymlinkEscape, reporting what the walk found (the storage's per-request cache of plain folders keeps it). */
export async function confinementWalk(root: string, absolute: string): Promise<Confinement> {
  const base = checkedRoot(root);
  if (!isInside(base, absolute)) return invalidPath();
  const rest = absolute === base ? [] : absolute.slice(base.length).split(path.sep).filter(Boolean);
  const found: Confinement = { existing: 0, segments: rest.length, firstLink: -1 };
  let realRoot: string | null = null;
  let current = base;
  for (const segment of rest) {
    current = path.join(current, segment);
    let info;
    try {
      info = await lstat(current);
    } catch (err) {
      if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return found; // the rest does not exist yet
      throw err;
    }
    found.existing++;
    if (!info.isSymbolicLink()) continue;
    if (found.firstLink < 0) found.firstLink = found.existing - 1;
    realRoot ??= await realpath(base);
    await assertLinkInside(realRoot, current);
  }
  return found;
}

/** A link (`absolute`) must resolve inside `realRoot`; dangling and looping links are refused too. */
export async function assertLinkInside(realRoot: string, absolute: string): Promise<void> {
  let target: string;
  try {
    target = await realpath(absolute);
  } catch {
    return invalidPath(); // dangling or looping link
  }
  if (!isInside(realRoot, target)) return invalidPath();
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as NodeJS.ErrnoException).code === code;
}
