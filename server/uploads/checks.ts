import { uploadMetadata } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import type { Services } from "../services";
import { FerryError } from "../errors";
import { checkAllowed, type Space } from "../files/spaces";
import { checkFilter, checkFormat, checkReplace, type SpaceRules } from "../files/upload-rules";
import { joinName, normaliseUserPath, parentOf } from "../storage/paths";
import { OWNER_KEY, SPACE_KEY, type UploadRecord } from "./store";

/** What an upload is for, as checked at creation and stored in its record's metadata. */
export interface UploadTarget {
  groupId: number;
  /** Normalised final path ("/docs/a.txt"). */
  path: string;
  overwrite: boolean;
}

/** Upload-Metadata (contract/files.ts uploadMetadata) → a valid target path, or the catalogue error. */
export function parseTarget(metadata: Record<string, string | null> | undefined): UploadTarget & { filetype?: string } {
  // A key sent without a value parses as null; dropping it makes a bare "groupId" missing, not 0.
  const present = Object.fromEntries(Object.entries(metadata ?? {}).filter(([, v]) => v !== null));
  const parsed = uploadMetadata.safeParse(present);
  if (!parsed.success) {
    const missing = parsed.error.issues.some((i) => i.code === "invalid_type" && present[String(i.path[0])] === undefined);
    throw new FerryError(missing ? "BadRequired" : "ParameterError", { issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })) });
  }
  const relative = normaliseUserPath(parsed.data.path);
  if (relative === "/") throw new FerryError("InvalidPath");
  // The same rule as mkdir and rename: every segment a valid name (NameFormat otherwise).
  let path = "/";
  for (const segment of relative.split("/").filter(Boolean)) path = joinName(path, segment);
  return { groupId: parsed.data.groupId, path, overwrite: parsed.data.overwrite === "1", filetype: parsed.data.filetype };
}

/** The target stored in a record at creation (already checked then). */
export function targetOf(record: UploadRecord): UploadTarget {
  const { groupId, path, overwrite } = parseTarget(record.metadata);
  return { groupId, path, overwrite };
}

/**
 * Share-link visitors (docs/file-server.md, "Share visitors"): an upload a visitor creates carries
 * its link's id under SHARE_LINK_KEY (and the link owner's id as owner, whose space and quota it
 * uses), and is reachable only by requests made for that link. The owner's own sign-in cannot
 * touch it, and a visitor cannot touch the owner's uploads.
 */
export const SHARE_LINK_KEY = "ferryShare";

/** Whether `userId` — acting for share link `shareLinkId` when given, else as themselves — owns the upload. */
export const isOwner = (record: UploadRecord, userId: number, shareLinkId?: string) =>
  record.metadata?.[OWNER_KEY] === String(userId) && (record.metadata?.[SHARE_LINK_KEY] ?? undefined) === shareLinkId;

/** The space, if the user may upload there now (permissions are re-read at every call). */
export async function uploadSpace(services: Services, userId: number, groupId: number): Promise<Space> {
  const space = await services.spaces.open(userId, groupId);
  if (!hasPermission(space.permission, Permission.Upload)) throw new FerryError("PermissionDenied");
  return space;
}

/** The server's size limit in bytes (admin settings, transfer.tcpFileSizeLimitKB). */
export async function sizeLimit(services: Services): Promise<number> {
  return (await services.settings.get("transfer")).tcpFileSizeLimitKB * 1024;
}

/**
 * Refuses a target that cannot take a new file: an existing folder (always), an existing file
 * without overwrite (PathExists) or, with overwrite, without the Delete bit (PermissionDenied), a
 * file where a parent folder should be (PathIsFile). Missing parents are created by commit, which
 * takes the Mkdir bit as well as Upload (PermissionDenied without it). Forbidden paths are
 * refused, also through a symbolic link (checkAllowed). The uploader's rules (files/upload-rules.ts):
 * a file format the rule refuses (FileFormatRefused), replacing a file where only new files may be
 * uploaded (UploadNewOnly), a file the space's transfer filter names by its path or, when `size` is
 * known, by its size (FileFiltered). Checked at creation and again at commit.
 */
export async function checkTargetFree(space: Space, target: UploadTarget, rules: SpaceRules, size?: number): Promise<void> {
  // A forbidden path answers like a missing permission, as the file commands do.
  await checkAllowed(space, target.path);
  checkFormat(rules, target.path);
  checkFilter(rules.fileFilter, target.path, size);
  let existing;
  try {
    existing = await space.storage.stat(target.path);
  } catch (error) {
    if (!(error instanceof FerryError)) throw error;
    if (error.errorName === "PathNotFound") return checkParentsCreatable(space, target.path);
    throw error;
  }
  if (existing.type === "folder") throw new FerryError("PathIsNotFile");
  if (!target.overwrite) throw new FerryError("PathExists");
  checkReplace(rules, target.path);
  // Replacing a file destroys what it held: that takes the Delete bit as well as Upload.
  if (!hasPermission(space.permission, Permission.Delete)) throw new FerryError("PermissionDenied");
}

/** Creating the missing folders above `path` takes the Mkdir bit: without it they must all exist. */
async function checkParentsCreatable(space: Space, path: string): Promise<void> {
  const parent = parentOf(path);
  if (parent === "/" || hasPermission(space.permission, Permission.Mkdir)) return;
  try {
    const info = await space.storage.stat(parent);
    if (info.type !== "folder") throw new FerryError("PathIsFile");
  } catch (error) {
    if (error instanceof FerryError && error.errorName === "PathNotFound") throw new FerryError("PermissionDenied");
    throw error;
  }
}

/**
 * Reserves a new upload's declared size in the space's quota until it ends, or refuses it when it
 * cannot fit next to what is stored and what other uploads hold (QuotaExceeded); checked again at
 * commit.
 */
export async function reserveQuota(services: Services, uploadId: string, userId: number, space: Space, target: UploadTarget, size: number): Promise<void> {
  await services.quota.reserveUpload(uploadId, userId, space, target.path, size, { overwrite: target.overwrite });
}

/** The metadata an upload is stored with: the client's, normalised, plus its owner and space. */
export function storedMetadata(target: UploadTarget & { filetype?: string }, userId: number, space: Space): Record<string, string> {
  return {
    groupId: String(target.groupId),
    path: target.path,
    overwrite: target.overwrite ? "1" : "0",
    ...(target.filetype ? { filetype: target.filetype } : {}),
    [OWNER_KEY]: String(userId),
    [SPACE_KEY]: space.key,
  };
}
