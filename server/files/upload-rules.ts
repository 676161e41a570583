import { type FileFilter, fileFilterOf, filterSkips, formatAllowed, parseFileFormats, serverFormatRefuses, type UploadRules } from "../../contract/upload-rules";
import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import type { Services } from "../services";
import { createSettings } from "../settings/service";
import { baseName } from "../storage/paths";
import type { Space } from "./spaces";

/**
 * The upload rules of a user on a space (docs/file-server.md, "Upload rules"), read from the
 * database at every check so that a change by the administrator applies to the next request:
 * the user's file-format rule (on every space the user writes to) and the upload-new-files-only
 * limit of the user or, on a group space, of the group (either one forbids replacing a file), and
 * the transfer filter: the user's on the personal space, the group's on a group space ("File filter").
 */
export interface SpaceRules {
  uploadNewOnly: boolean;
  fileFormatMode: number;
  fileFormats: string[];
  fileFilter: FileFilter;
}

const FILTER_COLUMNS = ["trans_ignore_reg_switch", "trans_ignore_reg", "trans_ignore_size_switch", "trans_ignore_size"] as const;
type FilterColumns = { trans_ignore_reg_switch: number; trans_ignore_reg: string; trans_ignore_size_switch: number; trans_ignore_size: number | string | bigint };
const filterOfRow = (row: FilterColumns | undefined): FileFilter =>
  row
    ? fileFilterOf({ patternSwitch: flag(row.trans_ignore_reg_switch), patterns: row.trans_ignore_reg, sizeSwitch: flag(row.trans_ignore_size_switch), size: Number(row.trans_ignore_size) })
    : { patterns: [], maxSize: 0 };

/** The server-wide transfer file-format limit (security settings), read at every call so a change applies to the next request; undefined when off. */
async function serverFormatsOf(db: Db): Promise<FileFilter["serverFormats"]> {
  const { fileFormatMode, fileFormats } = await createSettings(db).get("security");
  return fileFormatMode === 0 ? undefined : { mode: fileFormatMode, formats: parseFileFormats(fileFormats) };
}

const withServerFormats = async (db: Db, filter: FileFilter): Promise<FileFilter> => {
  const serverFormats = await serverFormatsOf(db);
  return serverFormats ? { ...filter, serverFormats } : filter;
};

/** The transfer filter on a space: the user's on the personal space, the group's on a group space, with the server-wide format limit (read at every call). */
export async function filterOf(db: Db, userId: number, space: Pick<Space, "groupId">): Promise<FileFilter> {
  const k = db.kysely;
  const [row, serverFormats] = await Promise.all([
    space.groupId !== 0
      ? k.selectFrom("user_groups").select(FILTER_COLUMNS).where("id", "=", space.groupId).executeTakeFirst()
      : k.selectFrom("users").select(FILTER_COLUMNS).where("id", "=", userId).executeTakeFirst(),
    serverFormatsOf(db),
  ]);
  return { ...filterOfRow(row), ...(serverFormats && { serverFormats }) };
}

const flag = (value: unknown) => Number(value) === 1 || value === true;

export async function rulesOf(db: Db, userId: number, space: Pick<Space, "groupId">): Promise<SpaceRules> {
  const k = db.kysely;
  const user = await k.selectFrom("users").select(["upload_new_only", "file_format_mode", "file_formats", ...FILTER_COLUMNS]).where("id", "=", userId).executeTakeFirst();
  if (!user) throw new FerryError("PermissionDenied");
  let uploadNewOnly = flag(user.upload_new_only);
  let fileFilter = filterOfRow(user);
  if (space.groupId !== 0) {
    const group = await k.selectFrom("user_groups").select(["upload_new_only", ...FILTER_COLUMNS]).where("id", "=", space.groupId).executeTakeFirst();
    uploadNewOnly ||= flag(group?.upload_new_only);
    fileFilter = filterOfRow(group);
  }
  return { uploadNewOnly, fileFormatMode: Number(user.file_format_mode), fileFormats: parseFileFormats(user.file_formats), fileFilter: await withServerFormats(db, fileFilter) };
}

/**
 * Refuses a transfer of the file at `path` (`size` bytes, when known) that the space's filter names
 * (FileFiltered; the name in the message, and in data the pattern or the size limit that skipped it).
 */
export function checkFilter(filter: FileFilter, path: string, size?: number): void {
  // The server-wide format limit refuses with the user's own format rule's code (4340), on uploads and
  // downloads alike, and says it is the server's rule (context "server"), not the account's.
  if (serverFormatRefuses(filter, path)) {
    const name = baseName(path);
    throw new FerryError("FileFormatRefused", { name, scope: "server", context: "server" }, { name, context: "server" });
  }
  const skip = filterSkips(filter, path, size);
  if (skip) {
    const name = baseName(path);
    throw new FerryError("FileFiltered", { name, ...skip }, { name });
  }
}

/** Refuses a file at `path` whose name the format rule does not let in (FileFormatRefused, the name in data and message). */
export function checkFormat(rules: SpaceRules, path: string): void {
  const name = baseName(path);
  if (!formatAllowed(rules.fileFormatMode, rules.fileFormats, name)) throw new FerryError("FileFormatRefused", { name }, { name });
}

/** Refuses replacing the existing file at `path` when only new files may be uploaded (UploadNewOnly). */
export function checkReplace(rules: SpaceRules, path: string): void {
  if (rules.uploadNewOnly) {
    const name = baseName(path);
    throw new FerryError("UploadNewOnly", { name }, { name });
  }
}

/** The `uploadRules { groupId }` command: the caller's rules on the space, for the web to refuse a file before it asks anything. */
export async function uploadRulesOf(services: Pick<Services, "db" | "spaces" | "quota">, userId: number, groupId: number): Promise<UploadRules> {
  const space = await services.spaces.open(userId, groupId);
  const [rules, usage] = await Promise.all([rulesOf(services.db, userId, space), services.quota.usageOf(userId, space)]);
  return { permission: space.permission, ...usage, ...rules };
}
