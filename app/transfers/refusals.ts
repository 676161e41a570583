import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { hasPermission, Permission } from "../../contract/permissions";
import { filterSkips, formatAllowed, serverFormatRefuses, type UploadRules } from "../../contract/upload-rules";
import { isValidFileName } from "../../contract/validation";
import { uploadPath } from "./drop";
import type { UploadItem } from "./types";

/** Why an upload failed or cannot start: an i18n key (`error.<code>` for the engine's codes) and its variables. */
export interface Refusal {
  errorMsgKey: string;
  errorVars?: Record<string, string | number>;
}

export const tooLarge = (limit: number): Refusal => ({ errorMsgKey: errorMessageKey(ErrorCode.FileTooLarge), errorVars: { limit } });

/** The key of a refusal for lack of room (refusedForRoom). */
export const NO_ROOM = "transfers.refused.no-room";
/** The key of a refusal for lack of the Upload bit. */
export const NO_UPLOAD = "transfers.refused.no-upload";
/** The key of a file the space's transfer filter skips: the engine's own code (FileFiltered), so the page's skip and the engine's read alike. */
export const SKIPPED = errorMessageKey(ErrorCode.FileFiltered);

/** Whether a transfer ended as skipped by the file filter (shown as skipped, not failed, and not retried). */
export const isSkipped = (item: { errorMsgKey?: string | null }) => item.errorMsgKey === SKIPPED;

/**
 * What makes a file impossible to upload whatever the user answers, known before anything is sent:
 * no Upload bit on the space (`rules`, the engine's `uploadRules` answer, when the page has it),
 * over the server's size limit (`limit` bytes, 0 or less: none; FileTooLarge), a name, or a folder
 * name of its path, the engine refuses (NameFormat), a file type the user's format rule or the server-wide one refuses
 * (FileFormatRefused, `context: "server"` for the latter), or a file the space's transfer filter skips by its path in the space (the
 * target `folder` plus its relative path) or its size (FileFiltered: the page skips it). These are the engine's own rules (it checks them again at creation, with
 * quota and permission); the page checks them first so that it never asks about a file ("it
 * already exists: overwrite?") only to refuse it afterwards. A refusal found earlier (`item.refused`,
 * e.g. for room) stands.
 */
export function refusalOf(item: UploadItem, limit: number, rules: UploadRules | null = null, folder = "/"): Refusal | null {
  if (item.refused) return item.refused;
  if (rules && !hasPermission(rules.permission, Permission.Upload)) return { errorMsgKey: NO_UPLOAD };
  if (limit > 0 && item.file.size > limit) return tooLarge(limit);
  const segments = (item.relativePath || item.file.name).split("/");
  if (segments.some((name) => !isValidFileName(name.normalize("NFC")))) return { errorMsgKey: errorMessageKey(ErrorCode.NameFormat) };
  if (rules && !formatAllowed(rules.fileFormatMode, rules.fileFormats, item.file.name)) return { errorMsgKey: errorMessageKey(ErrorCode.FileFormatRefused), errorVars: { name: item.file.name } };
  // The server-wide format limit (security settings) says so in its own words, as the engine's 4340 does.
  if (rules?.fileFilter && serverFormatRefuses(rules.fileFilter, item.file.name)) return { errorMsgKey: errorMessageKey(ErrorCode.FileFormatRefused), errorVars: { name: item.file.name, context: "server" } };
  // An older engine sends no filter: its own refusal then says why.
  if (rules?.fileFilter && filterSkips(rules.fileFilter, uploadPath(folder, item).normalize("NFC"), item.file.size)) return { errorMsgKey: SKIPPED, errorVars: { name: item.file.name } };
  return null;
}

/**
 * The files of a pick that do not fit in the space's quota (`rules.quota` bytes, 0: none, of which
 * `rules.used` are taken), taken in the order picked: each file that fits takes its room from what
 * is left, a file that no longer fits is refused with the room left. A file whose name exists and
 * may be replaced (`replaceable`) needs at least its size less the size of the file it would
 * replace (`replaces`; unknown: nothing), since the answer may be Overwrite; the engine decides the rest.
 */
export function refusedForRoom(items: readonly { item: UploadItem; clash: boolean; replaces?: number }[], rules: UploadRules | null, replaceable: boolean): Map<UploadItem, Refusal> {
  const refused = new Map<UploadItem, Refusal>();
  if (!rules || rules.quota <= 0) return refused;
  let free = Math.max(0, rules.quota - rules.used);
  for (const { item, clash, replaces } of items) {
    const size = item.file.size;
    const need = clash && replaceable ? (replaces === undefined ? 0 : Math.max(0, size - replaces)) : size;
    if (need > free) refused.set(item, { errorMsgKey: NO_ROOM, errorVars: { size: need, free, quota: rules.quota } });
    else free -= need;
  }
  return refused;
}
