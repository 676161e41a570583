/** Permission bits of the spec (end-user section 6, admin section 3). */
export const Permission = {
  CWD: 1,
  List: 2,
  Download: 4,
  Append: 8,
  Delete: 16,
  Rename: 32,
  Mkdir: 64,
  Upload: 128,
  Move: 256,
  Copy: 512,
  Share: 1024,
  Invite: 2048,
  HotFolder: 4096,
} as const;

export type PermissionName = keyof typeof Permission;

const UNUSED = Permission.CWD | Permission.Append;
/** The used bits, in the order the admin console lists them as checkboxes (CWD and Append are never offered). */
export const USED_PERMISSIONS = ["List", "Download", "Upload", "Delete", "Rename", "Mkdir", "Move", "Copy", "Share", "Invite", "HotFolder"] as const satisfies readonly PermissionName[];
/** Every used flag. */
export const PERMISSION_FULL = Object.values(Permission).reduce((a, b) => a | b, 0) & ~UNUSED;
/** Default for a new account (the security settings' `defaultPermission` until changed): List plus Download. */
export const PERMISSION_DEFAULT = Permission.List | Permission.Download;
/**
 * Named permissions for `ferry user create --preset`: `personal` is full personal use of one's own
 * files (every used bit: upload, manage, share, invite, sync folders); `readonly` is List and Download.
 */
export const PERMISSION_PRESETS = { personal: PERMISSION_FULL, readonly: PERMISSION_DEFAULT } as const;
export type PermissionPreset = keyof typeof PERMISSION_PRESETS;
export const PERMISSION_MAX = Object.values(Permission).reduce((a, b) => a | b, 0);

export function hasPermission(mask: number, bit: number): boolean {
  return (mask & bit) === bit;
}

/** A non-empty selection is stored with the two unused bits added, as the original does. */
export function normalizePermission(mask: number): number {
  return mask === 0 ? 0 : mask | UNUSED;
}

/** "list,download,upload" or "2,4" or "134" → mask; throws on an unknown name. */
export function parsePermission(text: string): number {
  let mask = 0;
  for (const part of text.split(/[,;|\s]+/).filter(Boolean)) {
    if (/^\d+$/.test(part)) {
      mask |= Number(part);
      continue;
    }
    const key = (Object.keys(Permission) as PermissionName[]).find((k) => k.toLowerCase() === part.toLowerCase());
    if (!key) throw new Error(`unknown permission "${part}" (known: ${Object.keys(Permission).join(", ")}, or a number)`);
    mask |= Permission[key];
  }
  if (mask > PERMISSION_MAX) throw new Error(`permission ${mask} has unknown bits`);
  return mask;
}

/** Labels of the used bits, joined by semicolons, as the admin console shows them. */
export function permissionLabels(mask: number): string {
  return (Object.keys(Permission) as PermissionName[])
    .filter((k) => (Permission[k] & UNUSED) === 0 && hasPermission(mask, Permission[k]))
    .join(";");
}
