import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { isValidFileName } from "../../contract/validation";
import type { UploadItem } from "./types";

/** Why an upload failed or cannot start: an i18n key (`error.<code>` for the engine's codes) and its variables. */
export interface Refusal {
  errorMsgKey: string;
  errorVars?: Record<string, string | number>;
}

export const tooLarge = (limit: number): Refusal => ({ errorMsgKey: errorMessageKey(ErrorCode.FileTooLarge), errorVars: { limit } });

/**
 * What makes a file impossible to upload whatever the user answers, known before anything is sent:
 * over the server's size limit (`limit` bytes, 0 or less: none; FileTooLarge) or a name, or a folder
 * name of its path, the engine refuses (NameFormat). These are the engine's own rules (it checks
 * them again at creation, with quota and permission); the page checks them first so that it never
 * asks about a file ("it already exists: overwrite?") only to refuse it afterwards.
 */
export function refusalOf(item: UploadItem, limit: number): Refusal | null {
  if (limit > 0 && item.file.size > limit) return tooLarge(limit);
  const segments = (item.relativePath || item.file.name).split("/");
  if (segments.some((name) => !isValidFileName(name.normalize("NFC")))) return { errorMsgKey: errorMessageKey(ErrorCode.NameFormat) };
  return null;
}
