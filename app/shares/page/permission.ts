import { Permission } from "../../../contract/permissions";

/**
 * Toolbar of a share (spec section 6): a download link has download only (when the owner allowed
 * it), an invitation upload only. Given to the file browser as permission bits; the engine checks
 * the same rules on every command.
 */
export function sharePermission(kind: "download" | "upload", allowDownload: boolean): number {
  return kind === "upload" ? Permission.List | Permission.Upload : Permission.List | (allowDownload ? Permission.Download : 0);
}
