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
