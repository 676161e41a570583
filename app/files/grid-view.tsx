import { useEffect, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Checkbox } from "../components/ui/checkbox";
import { cn } from "../components/ui/cn";
import {
  FileIcon,
  FolderIcon,
  VirtualFolderIcon,
} from "../components/ui/icons";
import { formatSize } from "../utils/format";
import { type FileEntry, hasThumbnail } from "../../contract/files";
import type { FileConnection } from "./connection.client";
import { isFolder } from "./model";

/**
 * The file pages' grid view (docs/web.md, "Grid view"): one tile per entry with a thumbnail of an
 * image (made by the engine, docs/file-server.md "Thumbnails") or the entry's icon, its name and
 * size. A folder's name opens it, a file's opens its preview (as in the list); the checkbox selects;
 * the row actions of the list sit on the tile.
 */

export type FileView = "list" | "tree" | "grid";
const VIEW_KEY = "ferry.files.view";
const nameClass =
  "min-w-0 flex-1 truncate text-left text-sm text-gray-900 underline-offset-2 hover:text-primary hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";

/**
 * The view chosen last in this browser (list, tree or grid); `allowed` are the views the page
 * offers (a share page has no tree). The server render and the first client render show the list.
 */
export function useFileView(
  allowed: readonly FileView[]
): [FileView, (view: FileView) => void] {
  const [view, setView] = useState<FileView>("list");
  useEffect(() => {
    const saved = window.localStorage.getItem(VIEW_KEY) as FileView | null;
    if (saved && allowed.includes(saved)) setView(saved);
    // The allowed views are fixed for a page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const choose = (next: FileView) => {
    setView(next);
    try {
      window.localStorage.setItem(VIEW_KEY, next);
    } catch {
      // Private mode without storage: the choice lasts for this page.
    }
  };
  return [view, choose];
}

/**
 * The signed base URL of the folder's thumbnails, or null (not asked, preview off, no Download,
 * or refused: the tiles then show icons). Asked only while the grid shows and the folder has images.
 */
export function useThumbnailBase(
  connection: FileConnection | null,
  groupId: number,
  path: string,
  shown: FileEntry[] | null,
  reloads: number
): string | null {
  const [base, setBase] = useState<string | null>(null);
  const wanted = !!shown?.some(
    (entry) => entry.file_type === "File" && hasThumbnail(entry.name)
  );
  useEffect(() => {
    setBase(null);
    if (!connection || !wanted) return;
    let live = true;
    connection.cmd("thumbnails", { groupId, path }).then(
      (result) => live && setBase(connection.href(result.url)),
      // A refusal (preview off, no Download) is no error to report: the grid shows icons.
      () => undefined
    );
    return () => {
      live = false;
    };
  }, [connection, groupId, path, wanted, reloads]);
  return base;
}

export interface GridViewProps {
  entries: FileEntry[];
  /** Accessible name of the grid ("Files in /photos"). */
  label: string;
  thumbnailBase: string | null;
  /** Whether tiles carry a checkbox. */
  selectable: boolean;
  selectedKeys: readonly (string | number)[];
  onSelectionChange: (keys: string[]) => void;
  onOpen: (entry: FileEntry) => void;
  /** A folder's address (its name is a real link, as in the list). */
  folderHref: (entry: FileEntry) => string;
  /** Whether a file's name opens it (its preview); on share pages it is plain text. */
  filesOpen: boolean;
  /** The row's actions (menu or Download button), as in the list. */
  actions?: (entry: FileEntry) => ReactNode;
}

export function GridView({
  entries,
  label,
  thumbnailBase,
  selectable,
  selectedKeys,
  onSelectionChange,
  onOpen,
  folderHref,
  filesOpen,
  actions,
}: GridViewProps) {
  const { t } = useTranslation();
  const selected = new Set(selectedKeys.map(String));
  if (entries.length === 0) {
    return (
      <section
        aria-label={label}
        className="flex h-40 items-center justify-center rounded border border-gray-200 text-sm text-gray-500"
      >
        {t("global.no-data")}
      </section>
    );
  }
  return (
    <section aria-label={label}>
      <ul className="grid grid-cols-[repeat(auto-fill,minmax(9.5rem,1fr))] gap-3">
        {entries.map((entry) => {
          const isSelected = selected.has(entry.name);
          return (
            <li
              key={entry.name}
              className={cn(
                "group relative flex flex-col rounded border bg-white p-2 hover:border-primary/60",
                isSelected
                  ? "border-primary ring-1 ring-primary"
                  : "border-gray-200"
              )}
            >
              <div className="flex h-28 items-center justify-center overflow-hidden rounded bg-gray-50">
                <Thumbnail entry={entry} base={thumbnailBase} />
              </div>
              <div className="mt-2 flex min-w-0 items-start gap-1">
                {isFolder(entry) ? (
                  <a
                    href={folderHref(entry)}
                    className={nameClass}
                    title={entry.name}
                    onClick={(event) => {
                      if (
                        event.metaKey ||
                        event.ctrlKey ||
                        event.shiftKey ||
                        event.altKey ||
                        event.button !== 0
                      )
                        return;
                      event.preventDefault();
                      onOpen(entry);
                    }}
                  >
                    {entry.name}
                  </a>
                ) : filesOpen ? (
                  <button
                    type="button"
                    className={nameClass}
                    title={entry.name}
                    onClick={() => onOpen(entry)}
                  >
                    {entry.name}
                  </button>
                ) : (
                  <span
                    className="min-w-0 flex-1 truncate text-sm text-gray-900"
                    title={entry.name}
                  >
                    {entry.name}
                  </span>
                )}
              </div>
              <div className="mt-0.5 flex flex-wrap items-center justify-between gap-x-2 gap-y-1 text-xs text-gray-600">
                <span className="shrink-0 whitespace-nowrap">
                  {isFolder(entry)
                    ? t(`files.type.${entry.file_type}`)
                    : formatSize(entry.size)}
                </span>
                {/* The name keeps the tile's whole width; the row's actions sit beside its checkbox. */}
                <span className="ml-auto flex shrink-0 items-center gap-2">
                  {actions && (
                    <span className="-my-1 flex items-center">
                      {actions(entry)}
                    </span>
                  )}
                  {selectable && (
                    <Checkbox
                      label={t("files.grid.select", { name: entry.name })}
                      hideLabel
                      checked={isSelected}
                      onChange={(checked) =>
                        onSelectionChange(
                          checked
                            ? [...selected, entry.name]
                            : [...selected].filter((key) => key !== entry.name)
                        )
                      }
                    />
                  )}
                </span>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Thumbnail({ entry, base }: { entry: FileEntry; base: string | null }) {
  const { t } = useTranslation();
  const [failed, setFailed] = useState(false);
  const src =
    base && entry.file_type === "File" && hasThumbnail(entry.name)
      ? base + encodeURIComponent(entry.name)
      : null;
  useEffect(() => setFailed(false), [src]);
  if (src && !failed) {
    return (
      <img
        src={src}
        alt={t("files.grid.thumbnail", { name: entry.name })}
        loading="lazy"
        decoding="async"
        className="max-h-full max-w-full object-contain"
        onError={() => setFailed(true)}
      />
    );
  }
  const Icon =
    entry.file_type === "File"
      ? FileIcon
      : entry.file_type === "Folder"
      ? FolderIcon
      : VirtualFolderIcon;
  return (
    <Icon
      size={48}
      title={t(`files.type.${entry.file_type}`)}
      className={
        entry.file_type === "File" ? "text-gray-400" : "text-amber-500"
      }
    />
  );
}
