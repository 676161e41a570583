import { ErrorCode } from "../../contract/errors";
import { FILE_NAME_MAX, isValidFileName } from "../../contract/validation";
import { hasPermission, Permission } from "../../contract/permissions";
import { previewKind, type FileEntry } from "../../contract/files";
import { errorCode } from "./errors";

/** Which file browser: the personal space (the user's permission), a group space (the membership's) or a share page (the link's rules). */
export type SpaceKind = "personal" | "group" | "share";

/** "/docs//a/" and "docs" → "/docs/a"; anything empty → "/". */
export function normalizePath(path: string | null | undefined): string {
  const parts = (path ?? "").split("/").filter(Boolean);
  return parts.length === 0 ? "/" : `/${parts.join("/")}`;
}

export const joinPath = (folder: string, name: string) => (folder === "/" ? `/${name}` : `${folder}/${name}`);

export function parentPath(path: string): string {
  const parts = normalizePath(path).split("/").filter(Boolean);
  return parts.length <= 1 ? "/" : `/${parts.slice(0, -1).join("/")}`;
}

export const baseName = (path: string) => normalizePath(path).split("/").filter(Boolean).pop() ?? "";

/** The breadcrumb: the root, then one part per folder, each with the path it opens. */
export function breadcrumbParts(path: string): { name: string; path: string }[] {
  const parts = normalizePath(path).split("/").filter(Boolean);
  return [{ name: "", path: "/" }, ...parts.map((name, i) => ({ name, path: `/${parts.slice(0, i + 1).join("/")}` }))];
}

/** The translation key of what is wrong with a new file or folder name (spec section 5), or null. */
export function nameProblem(name: string): "files.name.required" | "app.transfer.error.name-format" | null {
  if (name.trim() === "") return "files.name.required";
  return name.length <= FILE_NAME_MAX && isValidFileName(name) ? null : "app.transfer.error.name-format";
}

export const isFolder = (entry: Pick<FileEntry, "file_type">) => entry.file_type !== "File";
export const isVirtual = (entry: Pick<FileEntry, "file_type">) => entry.file_type === "VirtualFolder";

export type SortKey = "name" | "size" | "time";
export interface EntrySort {
  key: SortKey;
  order: "ascending" | "descending";
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Folders before files in either order (spec section 2); within each, by the column, then by name. */
export function sortEntries<T extends FileEntry>(entries: readonly T[], sort: EntrySort | null): T[] {
  const sign = sort?.order === "descending" ? -1 : 1;
  const byColumn = (a: T, b: T) => {
    if (!sort || sort.key === "name") return collator.compare(a.name, b.name);
    return (sort.key === "size" ? a.size - b.size : a.time - b.time) || collator.compare(a.name, b.name);
  };
  return [...entries].sort((a, b) => Number(isFolder(b)) - Number(isFolder(a)) || sign * byColumn(a, b));
}

export type ToolbarAction = "upload" | "mkdir" | "invite" | "sync" | "download" | "share" | "copy" | "move" | "remove";

export interface ToolbarButton {
  action: ToolbarAction;
  disabled: boolean;
}

/**
 * The toolbar of spec section 6. Personal: upload, mkdir, invite, sync, download, share, copy, move,
 * remove; group: upload, mkdir, sync, download, remove. Invite (into the selected folder, else the
 * folder shown) needs no selection; share does.
 * A button without its permission bit is left out; the ones acting on a selection are disabled
 * while nothing is selected; copy and move are left out while a virtual folder is selected. Sync
 * needs HotFolder, both sync switches and the desktop client (never the file-server path).
 */
export function toolbarButtons(options: {
  space: SpaceKind;
  permission: number;
  selection: readonly Pick<FileEntry, "file_type">[];
  sync: { serverSwitch: boolean; userSwitch: boolean; clientConnected: boolean };
}): ToolbarButton[] {
  const { space, permission, selection, sync } = options;
  const can = (bit: number) => hasPermission(permission, bit);
  const none = selection.length === 0;
  const virtualSelected = selection.some(isVirtual);
  const buttons: ToolbarButton[] = [];
  if (can(Permission.Upload)) buttons.push({ action: "upload", disabled: false });
  if (can(Permission.Mkdir)) buttons.push({ action: "mkdir", disabled: false });
  if (space === "personal" && can(Permission.Invite)) buttons.push({ action: "invite", disabled: false });
  if (can(Permission.HotFolder) && sync.serverSwitch && sync.userSwitch && sync.clientConnected) buttons.push({ action: "sync", disabled: false });
  if (can(Permission.Download)) buttons.push({ action: "download", disabled: none });
  if (space === "personal" && can(Permission.Share)) buttons.push({ action: "share", disabled: none });
  if (space === "personal" && !virtualSelected) {
    if (can(Permission.Copy)) buttons.push({ action: "copy", disabled: none });
    if (can(Permission.Move)) buttons.push({ action: "move", disabled: none });
  }
  if (can(Permission.Delete)) buttons.push({ action: "remove", disabled: none });
  return buttons;
}

/**
 * Whether any toolbar button acts on selected rows here (download, share, copy, move, remove); the
 * table shows its selection boxes only then (an invitation's visitor may upload, nothing more).
 */
export function selectionUseful(space: SpaceKind, permission: number): boolean {
  const can = (bit: number) => hasPermission(permission, bit);
  return can(Permission.Download) || can(Permission.Delete) || (space === "personal" && (can(Permission.Share) || can(Permission.Copy) || can(Permission.Move)));
}

export type RowAction = "preview" | "share" | "invite" | "move" | "copy" | "download" | "rename" | "attributes" | "remove";

/**
 * The per-row menu of spec section 6 (invite only on a folder: visitors upload into it), led by
 * Preview for a file the browser can show (an image or PDF, with the Download bit; see
 * previewNotice). Whether preview is on at all stays the engine's answer.
 */
export function rowActions(space: SpaceKind, permission: number, entry: Pick<FileEntry, "file_type"> & Partial<Pick<FileEntry, "name">>): RowAction[] {
  const can = (bit: number) => hasPermission(permission, bit);
  const virtual = isVirtual(entry);
  const actions: RowAction[] = [];
  if (space !== "share" && !isFolder(entry) && entry.name !== undefined && previewNotice(entry.name, { canDownload: can(Permission.Download) }) === null) actions.push("preview");
  if (space === "personal") {
    if (can(Permission.Share)) actions.push("share");
    if (entry.file_type === "Folder" && can(Permission.Invite)) actions.push("invite");
  }
  if (space === "personal" && !virtual) {
    if (can(Permission.Move)) actions.push("move");
    if (can(Permission.Copy)) actions.push("copy");
  }
  if (can(Permission.Download)) actions.push("download");
  if (!virtual && can(Permission.Rename)) actions.push("rename");
  if (isFolder(entry)) actions.push("attributes");
  if (!virtual && can(Permission.Delete)) actions.push("remove");
  return actions;
}

/**
 * What the browser-side preview does with a file (spec section 4): images and PDF are asked of the
 * engine, the rest explained here. Returns the translation key of the notice, or null when the
 * engine is to be asked. Whether preview is on at all is the engine's decision (FERRY_PREVIEW), so
 * the edition is not guessed here: see `previewRefusalNotice`.
 */
export function previewNotice(name: string, options: { canDownload: boolean }): string | null {
  if (!options.canDownload) return "files.preview.no-permission";
  const kind = previewKind(name);
  if (kind === "Unknown") return "files.preview.unsupported";
  if (kind !== "Image" && kind !== "Pdf") return "files.preview.impossible";
  return null;
}

/** The notice for the engine's refusal of a preview: 4109 means preview is off on this server (an enterprise feature); null: an ordinary error. */
export function previewRefusalNotice(error: unknown): string | null {
  return errorCode(error) === ErrorCode.FeatureNotSupported ? "files.preview.enterprise" : null;
}
