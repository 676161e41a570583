/**
 * What a user may upload into a space (docs/file-server.md, "Upload rules"): the file-format rule
 * of the user (spec "transfer file format": whitelist or blacklist of extensions separated by ';')
 * and the upload-new-files-only limit of the user or the group. The engine enforces them on every
 * upload path; the web reads them (the `uploadRules` socket command) to refuse a file before it
 * asks anything, with the engine's own catalogue messages (4340 FileFormatRefused, 4341 UploadNewOnly).
 */

export const FILE_FORMAT_MODE = { Off: 0, Whitelist: 1, Blacklist: 2 } as const;

/** The `uploadRules { groupId }` reply: the caller's rules on that space, read at the moment of asking. */
export interface UploadRules {
  /** The permission bits on the space (contract/permissions.ts). */
  permission: number;
  /** Bytes; 0 = no quota. */
  quota: number;
  /** Bytes counted against the quota now: stored plus held by uploads, commits and copies under way. */
  used: number;
  /** Existing files may not be replaced (the user's limit, or the group's on a group space). */
  uploadNewOnly: boolean;
  /** 0 off, 1 whitelist, 2 blacklist. */
  fileFormatMode: number;
  /** The extensions, lowercase, without dots ("exe", "tar.gz"). */
  fileFormats: string[];
  /** The transfer filter on this space (the user's; on a group space the group's): files it names are skipped (FileFilter below). */
  fileFilter: FileFilter;
}

/** The stored ';'-separated list as extensions: trimmed, lowercase, without "*." or "." in front; empty entries dropped. */
export function parseFileFormats(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split(";")) {
    const ext = raw.trim().toLowerCase().replace(/^\*?\.+/, "");
    if (ext !== "") out.add(ext);
  }
  return [...out];
}

/** Whether a file named `name` has one of `formats` as its extension ("a.TAR.gz" has "gz" and "tar.gz"). */
export const hasFormat = (formats: readonly string[], name: string): boolean => {
  const lower = name.normalize("NFC").toLowerCase();
  return formats.some((ext) => lower.endsWith(`.${ext}`));
};

/**
 * Whether the format rule lets a file named `name` in: off → always; whitelist → only the listed
 * extensions (a file without one of them is refused, an empty whitelist refuses every file);
 * blacklist → everything but the listed ones.
 */
export function formatAllowed(mode: number, formats: readonly string[], name: string): boolean {
  if (mode === FILE_FORMAT_MODE.Whitelist) return hasFormat(formats, name);
  if (mode === FILE_FORMAT_MODE.Blacklist) return !hasFormat(formats, name);
  return true;
}

/**
 * The transfer filter (spec "transfer filter": transIgnoreReg / transIgnoreSize; docs/file-server.md,
 * "File filter"): the files a transfer skips. On the personal space it is the user's; on a group
 * space the group's. The engine refuses an upload of a file it names (4342 FileFiltered), refuses
 * a download that names such a file, and leaves such files out of a folder's zip; the web skips
 * them in a folder upload before sending anything.
 */
export interface FileFilter {
  /** Skip patterns (wildcards `*` and `?`), trimmed, empty ones dropped; [] when the pattern switch is off. */
  patterns: string[];
  /** Bytes: a file larger than this is skipped; 0 = no size limit (the switch off, or 0 stored). */
  maxSize: number;
  /**
   * The server-wide transfer file-format limit of the security settings (docs/admin-api.md,
   * "Settings"), on every space: a file it refuses is refused by name (4340) and left out of zips.
   * Absent or mode 0: none.
   */
  serverFormats?: { mode: number; formats: string[] };
}

export const NO_FILTER: FileFilter = { patterns: [], maxSize: 0 };

/** The filter the stored switches and values make (users and groups carry the same four columns). */
export function fileFilterOf(stored: { patternSwitch: boolean; patterns: string; sizeSwitch: boolean; size: number }): FileFilter {
  return { patterns: stored.patternSwitch ? parseFilterPatterns(stored.patterns) : [], maxSize: stored.sizeSwitch ? Math.max(0, Number(stored.size)) : 0 };
}

/** Whether the server-wide file-format limit carried by `filter` refuses the file at `path`. */
export function serverFormatRefuses(filter: FileFilter, path: string): boolean {
  const server = filter.serverFormats;
  if (!server || server.mode === FILE_FORMAT_MODE.Off) return false;
  return !formatAllowed(server.mode, server.formats, path.slice(path.lastIndexOf("/") + 1));
}

/** The stored ';'-separated list as patterns: trimmed, empty entries and repeats dropped. */
export function parseFilterPatterns(text: string): string[] {
  return [...new Set(text.split(";").map((p) => p.trim()).filter((p) => p !== ""))];
}

const patternCache = new Map<string, RegExp>();

/**
 * A pattern as a regular expression: `*` any run of characters, `?` one character other than '/',
 * everything else literal; case-insensitive, NFC. A pattern without '/' is matched against the
 * file's name; a pattern with '/' against the file's path in its space: from the space's root when
 * it starts with '/' ("/build/*"), else at any depth ("cache/*.bin" names /cache/a.bin and /x/cache/a.bin).
 */
function patternRegExp(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (re) return re;
  let body = "";
  for (const ch of pattern.normalize("NFC")) body += ch === "*" ? ".*" : ch === "?" ? "[^/]" : ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const anchored = !pattern.includes("/") || pattern.startsWith("/") || pattern.startsWith("*") ? body : `(?:.*/)?${body}`;
  re = new RegExp(`^${anchored}$`, "iu");
  if (patternCache.size > 1000) patternCache.clear();
  patternCache.set(pattern, re);
  return re;
}

/** Whether `pattern` names the file at `path` (its full path in the space, "/docs/a.tmp"). */
export function filterPatternMatches(pattern: string, path: string): boolean {
  const full = path.normalize("NFC");
  const subject = pattern.includes("/") ? (full.startsWith("/") ? full : `/${full}`) : full.slice(full.lastIndexOf("/") + 1);
  return patternRegExp(pattern).test(subject);
}

/**
 * Why the filter skips the file at `path` of `size` bytes (unknown: only the patterns are checked):
 * the first pattern that names it, "size" when it is larger than the filter's size, or null.
 */
export function filterSkips(filter: FileFilter, path: string, size?: number): { pattern: string } | { size: number } | { format: true } | null {
  if (serverFormatRefuses(filter, path)) return { format: true };
  const pattern = filter.patterns.find((p) => filterPatternMatches(p, path));
  if (pattern !== undefined) return { pattern };
  if (filter.maxSize > 0 && size !== undefined && size > filter.maxSize) return { size: filter.maxSize };
  return null;
}
