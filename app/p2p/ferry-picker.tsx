import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { listingEntries, type FileEntry } from "../../contract/files";
import { P2P_MAX_ENTRIES } from "../../contract/p2p";
import { Button } from "../components/ui/button";
import { Checkbox } from "../components/ui/checkbox";
import { FileIcon, FolderIcon } from "../components/ui/icons";
import { Modal } from "../components/ui/modal";
import { Spinner } from "../components/ui/spinner";
import type { FileConnection } from "../files/connection.client";
import { useFileConnection } from "../files/file-server-context";
import { isFolder, joinPath, parentPath } from "../files/model";
import { formatSize } from "../utils/format";
import type { Picked, PickedItem } from "./picked";

/** Every file and empty folder under `folder` of the personal space, with paths from `top` down (at most P2P_MAX_ENTRIES). */
async function walk(connection: FileConnection, folder: string, top: string, out: PickedItem[]): Promise<number> {
  const entries = listingEntries(await connection.cmd("list", { groupId: 0, path: folder }));
  if (entries.length === 0) out.push({ path: top, folder: true });
  let size = 0;
  for (const entry of entries) {
    if (out.length >= P2P_MAX_ENTRIES) break;
    const path = joinPath(folder, entry.name);
    if (isFolder(entry)) size += await walk(connection, path, `${top}/${entry.name}`, out);
    else {
      out.push({ path: `${top}/${entry.name}`, remote: { groupId: 0, path, size: entry.size } });
      size += entry.size;
    }
  }
  return size;
}

/** Picks files and folders of my Ferry space to send: a listing to walk through, with a box per entry. */
export function FerryPicker({ open, onClose, onAdd }: { open: boolean; onClose: () => void; onAdd: (lines: Picked[]) => void }) {
  const { t } = useTranslation();
  const connection = useFileConnection();
  const [path, setPath] = useState("/");
  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [selected, setSelected] = useState<Map<string, FileEntry>>(new Map());
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) {
      setPath("/");
      setSelected(new Map());
      return;
    }
    if (!connection) return;
    let live = true;
    setEntries(null);
    connection.cmd("list", { groupId: 0, path }).then(
      (listing) => live && setEntries(listingEntries(listing)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [open, path, connection]);

  const add = async () => {
    if (!connection) return false;
    const lines: Picked[] = [];
    try {
      for (const [full, entry] of selected) {
        if (isFolder(entry)) {
          const items: PickedItem[] = [];
          const size = await walk(connection, full, entry.name, items);
          lines.push({ entry: { name: entry.name, file_size: size, file_type: 1, source: "ferry" }, items });
        } else lines.push({ entry: { name: entry.name, file_size: entry.size, file_type: 0, source: "ferry" }, items: [{ path: entry.name, remote: { groupId: 0, path: full, size: entry.size } }] });
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    }
    onAdd(lines);
    return true;
  };

  return (
    <Modal open={open} onClose={onClose} title={t("p2p.sender.ferry.title")} width={620} confirmLabel={t("p2p.sender.ferry.add")} confirmDisabled={selected.size === 0} onConfirm={add}>
      <div className="mb-2 flex items-center gap-2">
        <Button size="small" variant="outlined" disabled={path === "/"} onClick={() => setPath(parentPath(path))}>
          {t("p2p.sender.ferry.up")}
        </Button>
        <span className="truncate text-sm text-gray-700" title={path}>
          {path}
        </span>
      </div>
      {error && (
        <p role="alert" className="mb-2 text-sm text-red-600">
          {error}
        </p>
      )}
      <div className="h-72 overflow-auto rounded border border-gray-200">
        {entries === null ? (
          <div className="flex h-full items-center justify-center">
            <Spinner />
          </div>
        ) : entries.length === 0 ? (
          <p className="p-4 text-sm text-gray-600">{t("p2p.sender.ferry.empty")}</p>
        ) : (
          <ul>
            {entries.map((entry) => {
              const full = joinPath(path, entry.name);
              return (
                <li key={full} className="flex items-center gap-2 border-b border-gray-100 px-3 py-1.5 last:border-b-0">
                  <Checkbox
                    label={t("p2p.sender.ferry.select", { name: entry.name })}
                    hideLabel
                    checked={selected.has(full)}
                    onChange={(on) => {
                      const next = new Map(selected);
                      if (on) next.set(full, entry);
                      else next.delete(full);
                      setSelected(next);
                    }}
                  />
                  {isFolder(entry) ? <FolderIcon className="shrink-0 text-gray-400" /> : <FileIcon className="shrink-0 text-gray-400" />}
                  {isFolder(entry) ? (
                    <button type="button" className="min-w-0 flex-1 truncate text-left text-sm text-gray-800 hover:text-primary hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary" onClick={() => setPath(full)}>
                      {entry.name}
                    </button>
                  ) : (
                    <span className="min-w-0 flex-1 truncate text-sm text-gray-800">{entry.name}</span>
                  )}
                  <span className="shrink-0 text-xs text-gray-600">{isFolder(entry) ? "" : formatSize(entry.size)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </Modal>
  );
}
