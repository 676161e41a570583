import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { useLocation, useSearchParams } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Breadcrumb } from "../components/ui/breadcrumb";
import { Button } from "../components/ui/button";
import { FileIcon, FolderIcon, MoreIcon, SearchIcon, UploadIcon, VirtualFolderIcon } from "../components/ui/icons";
import { Modal } from "../components/ui/modal";
import { ScriptRequired } from "../components/ui/script-required";
import { Spinner } from "../components/ui/spinner";
import { Table, type Column, type RowKey, type SortState } from "../components/ui/table";
import { useToast } from "../components/ui/toast";
import { ToggleGroup } from "../components/ui/toggle-group";
import { itemsFromDataTransfer } from "../transfers/drop";
import { PickInputs } from "../transfers/pick-inputs";
import { onTransferEvent } from "../transfers/events";
import type { UploadBatch } from "../transfers/types";
import { useUploadBatch } from "../transfers/upload-batch";
import { useTransfers } from "../transfers/use-transfers";
import { formatSize } from "../utils/format";
import { useFormatTime } from "../utils/use-time-zone";
import { ErrorCode } from "../../contract/errors";
import { type FileEntry, listingEntries } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import { AttributesDialog, NameDialog, PreviewDialog, SearchDialog, TargetDialog, type PreviewState } from "./dialogs";
import { ShareDialog, type ShareRequest } from "../shares/share-dialog";
import { errorCode, fileErrorText } from "./errors";
import { useConnectionState, useFileConnection, useFileServer } from "./file-server-context";
import { FolderTree } from "./folder-tree";
import { GridView, useFileView, useThumbnailBase } from "./grid-view";
import {
  breadcrumbParts,
  isFolder,
  joinPath,
  normalizePath,
  parentPath,
  previewNotice,
  previewRefusalNotice,
  rowActions,
  selectionUseful,
  sortEntries,
  toolbarButtons,
  type EntrySort,
  type RowAction,
  type SpaceKind,
  type ToolbarAction,
} from "./model";
import { useFileErrors } from "./use-file-errors";

type Dialog =
  | { kind: "mkdir" }
  | { kind: "rename"; entry: FileEntry }
  | { kind: "move" | "copy"; paths: string[] }
  | { kind: "remove"; paths: string[] }
  | { kind: "overwrite"; mode: "move" | "copy"; paths: string[]; target: string; existing: string[] }
  | { kind: "search" }
  | { kind: "path-not-exist" };

export interface FileBrowserProps {
  space: SpaceKind;
  groupId: number;
  /** The user's permission (personal) or the membership's groupPermission (group). */
  permission: number;
  /** The user's (or group's) sync switch; sync also needs the server's and the desktop client. */
  userSyncSwitch: boolean;
  /** Starts the breadcrumb (the group page's link back to the group list). */
  breadcrumbLead?: ReactNode;
  /** Told of every download the browser starts (the share page records the download count). */
  onDownload?: (paths: string[]) => void;
}

const nameClass = "truncate text-left text-gray-800 hover:text-primary hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";
const menuItemClass = "block w-full px-3 py-1.5 text-left text-sm text-gray-800 data-[focus]:bg-gray-100";
const ACTION_LABELS: Record<RowAction | ToolbarAction, string> = {
  preview: "files.preview",
  upload: "files.upload",
  mkdir: "files.mkdir",
  sync: "files.sync",
  download: "files.download",
  copy: "files.copy",
  move: "files.move",
  remove: "files.remove",
  share: "files.share",
  invite: "files.invite",
  rename: "files.rename",
  attributes: "files.attributes",
};

/** The file browser of spec section 2: toolbar, breadcrumb, table (or folder tree and table), dialogs. */
export function FileBrowser({ space, groupId, permission, userSyncSwitch, breadcrumbLead, onDownload }: FileBrowserProps) {
  const { t, i18n } = useTranslation();
  const formatTime = useFormatTime();
  const toast = useToast();
  const showError = useFileErrors();
  const server = useFileServer();
  const connection = useFileConnection();
  const connectionState = useConnectionState(connection);
  const { download } = useTransfers();
  // Replacing a file takes the Delete bit as well; share visitors never replace one (the engine
  // refuses overwrite for them both).
  const canReplace = space !== "share" && hasPermission(permission, Permission.Delete);
  const uploads = useUploadBatch({ connection, groupId, visitor: space === "share", canOverwrite: canReplace });
  const [searchParams, setSearchParams] = useSearchParams();
  const path = normalizePath(searchParams.get("path"));
  const { pathname } = useLocation();
  /** A folder's address on this page, so its name is a real link (new tab, keyboard, no script). */
  const folderHref = (folder: string) => (folder === "/" ? pathname : `${pathname}?${new URLSearchParams({ path: folder })}`);

  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [reloads, setReloads] = useState(0);
  const [selectedKeys, setSelectedKeys] = useState<RowKey[]>([]);
  const [sort, setSort] = useState<EntrySort | null>(null);
  // The share page has no tree (spec section 6); the grid is on every file page.
  const views = space === "share" ? (["list", "grid"] as const) : (["list", "tree", "grid"] as const);
  const [view, setView] = useFileView(views);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [attributesOf, setAttributesOf] = useState<string | null>(null);
  const [preview, setPreview] = useState<PreviewState>(null);
  const [dragging, setDragging] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const openFolder = useCallback(
    (next: string, replace = false) => setSearchParams(next === "/" ? {} : { path: next }, { replace, preventScrollReset: true }),
    [setSearchParams],
  );
  const reload = useCallback(() => setReloads((n) => n + 1), []);
  const closeDialog = useCallback(() => setDialog(null), []);
  const [shareRequest, setShareRequest] = useState<ShareRequest | null>(null);
  const closeAttributes = useCallback(() => setAttributesOf(null), []);

  // The listing depends on the folder only: callbacks are read through a ref, so a change of their
  // identity (a navigation elsewhere, a re-render) never sends a command the page no longer needs.
  const listingCallbacks = useRef({ openFolder, showError });
  listingCallbacks.current = { openFolder, showError };
  useEffect(() => {
    if (!connection) return;
    let live = true;
    const { openFolder, showError } = listingCallbacks.current;
    const list = (): void => void connection.cmd("list", { groupId, path }).then(
      (result) => {
        if (!live) return;
        setEntries(listingEntries(result));
        // A selection only survives a refresh of the same folder, for the items still there.
        const names = new Set(result.names);
        setSelectedKeys((keys) => keys.filter((key) => names.has(String(key))));
      },
      (error: unknown) => {
        if (!live) return;
        const code = errorCode(error);
        // The socket dropped with the listing under way (say, the reload after an upload): it is
        // reconnecting, and the command asked again waits for it. Kept as it was, the table showed
        // the folder before the change (an empty one: "No data") until Refresh.
        if (code === ErrorCode.Disconnected && connection.state === "connecting") return list();
        if (code === ErrorCode.PathIsFile) return openFolder(parentPath(path), true);
        if (code === ErrorCode.PathNotFound || code === ErrorCode.DirectoryNotExist) {
          setEntries([]);
          return setDialog({ kind: "path-not-exist" });
        }
        setEntries((current) => current ?? []);
        showError(error);
      },
    );
    list();
    return () => {
      live = false;
    };
  }, [connection, groupId, path, reloads]);

  // Another folder: nothing selected there yet.
  useEffect(() => setSelectedKeys([]), [path, groupId]);

  // A finished upload into this folder (or below it, for a folder upload) shows up in the listing.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onTransferEvent((event) => {
      if ((event.type !== "upload-committed" && event.type !== "folders-created") || event.groupId !== groupId) return;
      if (!(path === "/" || event.path.startsWith(`${path}/`))) return;
      // A folder upload commits many files in a row: one listing for the burst.
      clearTimeout(timer);
      timer = setTimeout(reload, 200);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [groupId, path, reload]);

  const rows = useMemo(() => sortEntries(entries ?? [], sort), [entries, sort]);
  const selection = useMemo(() => {
    const keys = new Set(selectedKeys);
    return rows.filter((entry) => keys.has(entry.name));
  }, [rows, selectedKeys]);
  const can = (bit: number) => hasPermission(permission, bit);
  const toolbar = toolbarButtons({
    space,
    permission,
    selection,
    sync: { serverSwitch: server?.syncSwitch ?? false, userSwitch: userSyncSwitch, clientConnected: false },
  });
  const canUpload = can(Permission.Upload);

  const reportBatch = (result: { done: string[]; failed: { path: string; code: number }[] }, success: string) => {
    if (result.failed.length === 0) toast.success(t(success));
    else {
      const message = fileErrorText(t, (key) => i18n.exists(key), { code: result.failed[0]!.code });
      toast.error(t("files.partial", { count: result.failed.length, message }));
    }
  };

  /** Runs a command, reporting its failure; resolves to its result, or null when it failed. */
  const run = async <R,>(command: () => Promise<R>): Promise<R | null> => {
    try {
      return await command();
    } catch (error) {
      showError(error);
      return null;
    }
  };

  const startDownload = (paths: string[], targets: FileEntry[]) => {
    if (paths.length === 0) return;
    // The file server's name for it (Content-Disposition): the file's own, `<folder>.zip`, or
    // `download.zip`; the panel shows it until the file server's answer names it for sure.
    const only = targets.length === 1 ? targets[0]! : null;
    const name = only ? (isFolder(only) ? `${only.name}.zip` : only.name) : "download.zip";
    // A share visitor's download is counted per request by the engine: it stays one request.
    download({ groupId, paths, name, isFile: space !== "share" && only !== null && !isFolder(only), isFolder: space !== "share" && only !== null && isFolder(only) });
    onDownload?.(paths);
    // A bulk action ends the selection it acted on.
    setSelectedKeys([]);
  };

  const openEntry = (entry: FileEntry) => {
    if (isFolder(entry)) return openFolder(joinPath(path, entry.name));
    // Share pages have no preview (spec section 6: the toolbar is all a visitor gets).
    if (space === "share") return;
    const notice = previewNotice(entry.name, { canDownload: can(Permission.Download) });
    if (notice) return void toast.warning(t(notice));
    if (!connection) return;
    const target = joinPath(path, entry.name);
    connection.cmd("preview", { groupId, path: target }).then(
      (result) => setPreview({ path: target, name: entry.name, url: connection.href(result.url), mediaType: result.mediaType }),
      (error: unknown) => {
        const refusal = previewRefusalNotice(error);
        if (refusal) toast.warning(t(refusal));
        else showError(error);
      },
    );
  };

  const act = (action: RowAction | ToolbarAction, targets: FileEntry[]) => {
    const paths = targets.map((entry) => joinPath(path, entry.name));
    switch (action) {
      case "preview":
        return openEntry(targets[0]!);
      case "upload":
        return filesInput.current?.click();
      case "mkdir":
        return setDialog({ kind: "mkdir" });
      case "download":
        return startDownload(paths, targets);
      case "move":
      case "copy":
        return setDialog({ kind: action, paths });
      case "remove":
        return setDialog({ kind: "remove", paths });
      case "rename":
        return setDialog({ kind: "rename", entry: targets[0]! });
      case "attributes":
        return setAttributesOf(paths[0]!);
      case "share":
        return setShareRequest({ kind: "download", serverPath: path, items: targets.map((entry, i) => ({ path: paths[i]!, name: entry.name, isFolder: isFolder(entry) })) });
      case "invite": {
        // Into the one selected folder (or the row's), else into the folder shown.
        const folder = targets.length === 1 && targets[0]!.file_type === "Folder" ? paths[0]! : path;
        return setShareRequest({ kind: "upload", serverPath: folder, items: [{ path: folder, name: folder === "/" ? t("files.root") : folder.split("/").pop()!, isFolder: true }] });
      }
      case "sync":
        return undefined;
    }
  };

  const mkdir = async (name: string) => {
    const done = await run(() => connection!.cmd("mkdir", { groupId, path, name }));
    if (!done) return false;
    toast.success(t("files.success.created"));
    reload();
    return true;
  };

  const rename = (entry: FileEntry) => async (newName: string) => {
    if (newName === entry.name) return true;
    const done = await run(() => connection!.cmd("rename", { groupId, path: joinPath(path, entry.name), newName }));
    if (!done) return false;
    toast.success(t("files.success.rename"));
    reload();
    return true;
  };

  const transfer = async (mode: "move" | "copy", paths: string[], target: string, overwrite: boolean) => {
    const result = await run(() => connection!.cmd(mode, { groupId, paths, target, overwrite }));
    if (!result) return false;
    reportBatch(result, mode === "move" ? "files.success.move" : "files.success.copy");
    setSelectedKeys([]);
    reload();
    return true;
  };

  const chooseTarget = (mode: "move" | "copy", paths: string[]) => async (target: string) => {
    const names = paths.map((p) => p.split("/").pop()!);
    const check = await run(() => connection!.cmd("exists", { groupId, target, names }));
    if (!check) return false;
    if (check.existing.length > 0) {
      // The target dialog closes; the overwrite question takes its place (cancelling aborts).
      setTimeout(() => setDialog({ kind: "overwrite", mode, paths, target, existing: check.existing }));
      return true;
    }
    return transfer(mode, paths, target, false);
  };

  const remove = async (paths: string[]) => {
    const result = await run(() => connection!.cmd("remove", { groupId, paths }));
    if (!result) return false;
    reportBatch(result, "files.success.deleted");
    setSelectedKeys([]);
    reload();
    return true;
  };

  const receive = (batch: UploadBatch) => uploads.start(batch, path);

  const columns: Column<FileEntry>[] = [
    { type: "checkbox", width: 48, hidden: !selectionUseful(space, permission) },
    {
      type: "custom",
      key: "name",
      title: t("files.column.name"),
      sort: true,
      render: (entry) => (
        <span className="flex min-w-0 items-center gap-2">
          <EntryIcon entry={entry} />
          {/* One click on a name opens it, as in a web file manager: a folder's name is a link to
              it, a file's name opens its preview (or says why it has none). Ticking a row is its
              box's job only; a double click anywhere on the row opens it too (Table). */}
          {isFolder(entry) ? (
            <a
              href={folderHref(joinPath(path, entry.name))}
              className={nameClass}
              title={entry.name}
              onClick={(event) => {
                if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
                event.preventDefault();
                openEntry(entry);
              }}
            >
              {entry.name}
            </a>
          ) : space === "share" ? (
            <span className="truncate" title={entry.name}>
              {entry.name}
            </span>
          ) : (
            <button
              type="button"
              className={nameClass}
              title={entry.name}
              // The second click of a double click does not ask again.
              onClick={(event) => event.detail < 2 && openEntry(entry)}
            >
              {entry.name}
            </button>
          )}
        </span>
      ),
    },
    // A phone (a share link's visitor usually has one) keeps the name and the actions.
    { type: "custom", key: "size", title: t("files.column.size"), width: 140, minScreen: "sm", sort: true, render: (entry) => (isFolder(entry) ? "-" : formatSize(entry.size)) },
    { type: "custom", key: "time", title: t("files.column.time"), width: 200, minScreen: "sm", sort: true, render: (entry) => formatTime(entry.time) },
    {
      type: "custom",
      key: "download",
      width: 112,
      // Share pages have no row menu: each row carries its own Download, as the page without JavaScript does.
      hidden: space !== "share" || !can(Permission.Download),
      render: (entry) => (
        <Button size="small" variant="outlined" aria-label={t("share.disk.download-name", { name: entry.name })} onClick={() => startDownload([joinPath(path, entry.name)], [entry])}>
          {t("share.disk.download")}
        </Button>
      ),
    },
    {
      type: "custom",
      key: "more",
      width: 64,
      // Spec section 6: no row menu on share pages.
      hidden: space === "share",
      render: (entry) => <RowMenu entry={entry} actions={rowActions(space, permission, entry)} onAction={(action) => act(action, [entry])} />,
    },
  ];

  const table = (
    <Table
      columns={columns}
      data={rows}
      rowKey="name"
      rowLabel={(entry) => entry.name}
      label={t("files.table", { path })}
      selectedKeys={selectedKeys}
      onSelectionChange={(keys) => setSelectedKeys(keys)}
      onRowDoubleClick={openEntry}
      sort={sort as SortState | null}
      onSortChange={(next) => setSort(next as EntrySort | null)}
    />
  );
  const thumbnailBase = useThumbnailBase(connection, groupId, path, view === "grid" ? rows : null, reloads);
  const grid = (
    <GridView
      entries={rows}
      label={t("files.table", { path })}
      thumbnailBase={thumbnailBase}
      selectable={selectionUseful(space, permission)}
      selectedKeys={selectedKeys}
      onSelectionChange={setSelectedKeys}
      onOpen={openEntry}
      folderHref={(entry) => folderHref(joinPath(path, entry.name))}
      filesOpen={space !== "share"}
      // The list's own row actions (menu, or a share page's Download), on the tile.
      actions={(entry) => columns.map((column) => (column.type === "custom" && (column.key === "download" || column.key === "more") && !column.hidden ? <span key={column.key}>{column.render?.(entry, 0)}</span> : null))}
    />
  );

  return (
    <section className="flex flex-col gap-4">
      <div role="toolbar" aria-label={t("files.toolbar")} className="flex flex-wrap items-center gap-2">
        {/* A visitor downloads the whole folder without ticking every row. */}
        {space === "share" && can(Permission.Download) && (
          <Button disabled={rows.length === 0} onClick={() => startDownload(rows.map((entry) => joinPath(path, entry.name)), rows)}>
            {t("files.download-all")}
          </Button>
        )}
        {toolbar.map(({ action, disabled }) =>
          action === "upload" ? (
            <span key="upload" className="contents">
              <Button onClick={() => filesInput.current?.click()}>
                <UploadIcon />
                {t("files.upload.files")}
              </Button>
              <Button variant="outlined" onClick={() => folderInput.current?.click()}>
                <UploadIcon />
                {t("files.upload.folder")}
              </Button>
            </span>
          ) : (
            <Button key={action} variant="outlined" danger={action === "remove"} disabled={disabled} onClick={() => act(action, selection)}>
              {t(ACTION_LABELS[action])}
            </Button>
          ),
        )}
        {canUpload && (
          <PickInputs filesRef={filesInput} folderRef={folderInput} filesLabel={t("files.upload.files")} folderLabel={t("files.upload.folder")} onPick={receive} />
        )}
      </div>

      {/* Where you are, and how you look at it: search, refresh, list or tree (not actions on files). */}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Breadcrumb
          label={t("files.breadcrumb")}
          lead={breadcrumbLead}
          crumbs={breadcrumbParts(path).map((part) => ({
            key: part.path,
            label: part.path === "/" ? t("files.root") : part.name,
            onSelect: () => openFolder(part.path),
          }))}
        />
        <span className="flex items-center gap-2">
          {space !== "share" && (
            <Button variant="outlined" onClick={() => setDialog({ kind: "search" })}>
              <SearchIcon />
              {t("files.search")}
            </Button>
          )}
          <Button variant="text" onClick={reload}>
            {t("files.refresh")}
          </Button>
          {/* No tree on share pages: it is not part of a visitor's toolbar (spec section 6). */}
          <ToggleGroup label={t("files.view")} value={view} onChange={setView} options={views.map((mode) => ({ value: mode, label: t(`files.view.${mode}`) }))} />
        </span>
      </div>

      <div
        className="relative"
        onDragOver={(event) => {
          if (!canUpload || !event.dataTransfer.types.includes("Files")) return;
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(event) => {
          if (!canUpload) return;
          event.preventDefault();
          setDragging(false);
          void itemsFromDataTransfer(event.dataTransfer).then(receive);
        }}
      >
        {entries === null ? (
          <div className="flex h-40 items-center justify-center">
            {/* The listing comes over the file server's socket: without JavaScript, say so instead of spinning. */}
            <ScriptRequired>
              <Spinner label={connectionState === "open" ? t("global.loading") : t("files.connecting")} />
            </ScriptRequired>
          </div>
        ) : view === "tree" ? (
          <div className="grid grid-cols-[280px_1fr] gap-4">
            <FolderTree key={`${groupId}-${reloads}`} connection={connection} groupId={groupId} selected={path} onSelect={(folder) => openFolder(folder)} className="max-h-[700px]" />
            {table}
          </div>
        ) : view === "grid" ? (
          grid
        ) : (
          table
        )}
        {dragging && (
          <div className="pointer-events-none absolute inset-0 flex items-center justify-center rounded border-2 border-dashed border-primary bg-primary/5 text-sm font-medium text-primary">
            {t("files.drop")}
          </div>
        )}
      </div>

      <NameDialog open={dialog?.kind === "mkdir"} title={t("files.mkdir.title")} label={t("files.mkdir.label")} initial={t("files.mkdir")} onClose={closeDialog} onSubmit={mkdir} />
      <NameDialog
        open={dialog?.kind === "rename"}
        title={t("files.rename.title")}
        label={t("files.rename.label")}
        initial={dialog?.kind === "rename" ? dialog.entry.name : ""}
        onClose={closeDialog}
        onSubmit={dialog?.kind === "rename" ? rename(dialog.entry) : async () => false}
      />
      <TargetDialog
        open={dialog?.kind === "move" || dialog?.kind === "copy"}
        mode={dialog?.kind === "copy" ? "copy" : "move"}
        connection={connection}
        groupId={groupId}
        onClose={closeDialog}
        onSubmit={dialog?.kind === "move" || dialog?.kind === "copy" ? chooseTarget(dialog.kind, dialog.paths) : async () => false}
      />
      <Modal
        open={dialog?.kind === "overwrite"}
        title={t(canReplace ? "files.overwrite.title" : "files.overwrite.refused.title")}
        onClose={closeDialog}
        okOnly={!canReplace}
        confirmLabel={t(canReplace ? "files.overwrite.confirm" : "global.ok")}
        onConfirm={canReplace ? () => (dialog?.kind === "overwrite" ? transfer(dialog.mode, dialog.paths, dialog.target, true) : undefined) : undefined}
      >
        {dialog?.kind === "overwrite" &&
          t(canReplace ? "files.overwrite" : "files.overwrite.refused", { names: dialog.existing.join(", "), interpolation: { escapeValue: false } })}
      </Modal>
      <Modal
        open={dialog?.kind === "remove"}
        title={t("files.remove.title")}
        danger
        onClose={closeDialog}
        onConfirm={() => (dialog?.kind === "remove" ? remove(dialog.paths) : undefined)}
      >
        {dialog?.kind === "remove" && (
          <>
            <p>{t("files.remove.confirm", { count: dialog.paths.length })}</p>
            <ul className="mt-2 max-h-48 list-disc overflow-auto break-all pl-5">
              {dialog.paths.map((one) => (
                <li key={one}>{one.split("/").pop()}</li>
              ))}
            </ul>
          </>
        )}
      </Modal>
      {/* OK, × and Escape all lead to the root listing: no dialog holds the page (issue 13, item 2). */}
      <Modal open={dialog?.kind === "path-not-exist"} okOnly confirmLabel={t("global.ok")} onClose={() => {
        closeDialog();
        openFolder("/", true);
      }}>
        {t("files.path-not-exist")}
      </Modal>
      <SearchDialog open={dialog?.kind === "search"} connection={connection} groupId={groupId} path={path} onClose={closeDialog} onOpen={(folder) => openFolder(folder)} />
      <AttributesDialog target={attributesOf} connection={connection} groupId={groupId} onClose={closeAttributes} />
      <PreviewDialog preview={preview} onClose={() => setPreview(null)} />
      <ShareDialog request={shareRequest} onClose={() => setShareRequest(null)} />
      {uploads.dialog}
    </section>
  );
}

function EntryIcon({ entry }: { entry: FileEntry }) {
  const { t } = useTranslation();
  const Icon = entry.file_type === "File" ? FileIcon : entry.file_type === "Folder" ? FolderIcon : VirtualFolderIcon;
  return <Icon title={t(`files.type.${entry.file_type}`)} className={entry.file_type === "File" ? "shrink-0 text-gray-500" : "shrink-0 text-amber-500"} />;
}

function RowMenu({ entry, actions, onAction }: { entry: FileEntry; actions: RowAction[]; onAction: (action: RowAction) => void }) {
  const { t } = useTranslation();
  if (actions.length === 0) return null;
  return (
    <Menu>
      <MenuButton as={Button} variant="text" size="small" aria-label={t("files.more", { name: entry.name })}>
        <MoreIcon />
      </MenuButton>
      <MenuItems anchor="bottom end" className="z-20 mt-1 w-40 rounded border border-gray-200 bg-white py-1 shadow-lg focus:outline-none">
        {actions.map((action) => (
          <MenuItem key={action}>
            <button type="button" className={action === "remove" ? `${menuItemClass} text-red-600` : menuItemClass} onClick={() => onAction(action)}>
              {t(ACTION_LABELS[action])}
            </button>
          </MenuItem>
        ))}
      </MenuItems>
    </Menu>
  );
}
