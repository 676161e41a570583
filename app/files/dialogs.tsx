import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { FileIcon, FolderIcon } from "../components/ui/icons";
import { Modal } from "../components/ui/modal";
import { Spinner } from "../components/ui/spinner";
import { TextInput } from "../components/ui/text-input";
import { formatSize } from "../utils/format";
import { useFormatTime } from "../utils/use-time-zone";
import type { FileAttributes, FileEntry } from "../../contract/files";
import type { FileConnection } from "./connection.client";
import { FolderTree } from "./folder-tree";
import { isFolder, nameProblem, parentPath } from "./model";
import { useFileErrors } from "./use-file-errors";

/** Spec section 9: search results are 45 px rows in a panel at most 300 px tall. */
export const SEARCH_ROW_HEIGHT = 45;
export const SEARCH_MAX_HEIGHT = 300;
/** Spec section 9: the folder tree of the move/copy dialog is 300 px tall. */
export const TREE_HEIGHT = 300;

/**
 * Asks for a file or folder name (create folder, rename). The spec's name rules are checked here
 * first and again by the engine; `onSubmit` resolves true when the engine accepted the name.
 */
export function NameDialog({
  open,
  title,
  label,
  initial,
  onClose,
  onSubmit,
}: {
  open: boolean;
  title: string;
  label: string;
  initial: string;
  onClose: () => void;
  onSubmit: (name: string) => Promise<boolean>;
}) {
  const [name, setName] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setName(initial);
      setProblem(null);
    }
  }, [open, initial]);

  const confirm = async () => {
    const found = nameProblem(name);
    setProblem(found);
    if (found) return false;
    return onSubmit(name);
  };

  return (
    <Modal open={open} onClose={onClose} title={title} onConfirm={confirm}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void confirm().then((done) => done && onClose());
        }}
      >
        <TextInput
          label={label}
          value={name}
          autoFocus
          onFocus={(event) => event.currentTarget.select()}
          onChange={(event) => {
            setName(event.target.value);
            if (problem) setProblem(nameProblem(event.target.value));
          }}
          error={problem ?? undefined}
        />
      </form>
    </Modal>
  );
}

/** Chooses the target folder of a move or copy in a lazily loaded folder tree. */
export function TargetDialog({
  open,
  mode,
  connection,
  groupId,
  onClose,
  onSubmit,
}: {
  open: boolean;
  mode: "move" | "copy";
  connection: FileConnection | null;
  groupId: number;
  onClose: () => void;
  onSubmit: (target: string) => Promise<boolean>;
}) {
  const { t } = useTranslation();
  const [target, setTarget] = useState("/");
  useEffect(() => {
    if (open) setTarget("/");
  }, [open]);
  return (
    <Modal open={open} onClose={onClose} title={t(mode === "move" ? "files.move.title" : "files.copy.title")} width={520} onConfirm={() => onSubmit(target)}>
      {open && <FolderTree connection={connection} groupId={groupId} selected={target} onSelect={setTarget} height={TREE_HEIGHT} />}
      <p className="mt-3 break-all text-sm text-gray-600">{t("files.target", { path: target })}</p>
    </Modal>
  );
}

/** Attributes of a folder: total size, counts, time, path (and a file's content hash). */
export function AttributesDialog({
  target,
  connection,
  groupId,
  onClose,
}: {
  target: string | null;
  connection: FileConnection | null;
  groupId: number;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const showError = useFileErrors();
  const [attributes, setAttributes] = useState<FileAttributes | null>(null);
  useEffect(() => {
    setAttributes(null);
    if (!target || !connection) return;
    let live = true;
    connection.cmd("attributes", { groupId, paths: [target] }).then(
      (result) => live && setAttributes(result),
      (error: unknown) => {
        if (!live) return;
        showError(error);
        onClose();
      },
    );
    return () => {
      live = false;
    };
  }, [target, connection, groupId, showError, onClose]);

  const rows: [string, string][] = attributes
    ? [
        ["files.attributes.path", attributes.path],
        ["files.attributes.size", formatSize(attributes.file_size)],
        ["files.attributes.files", String(attributes.file_count)],
        ["files.attributes.folders", String(attributes.folder_count)],
        ["files.attributes.time", formatTime(attributes.write_time)],
        ...(attributes.hash ? [["files.attributes.hash", attributes.hash] as [string, string]] : []),
      ]
    : [];
  return (
    <Modal open={target !== null} onClose={onClose} title={t("files.attributes.title")} okOnly width={520}>
      {attributes ? (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2">
          {rows.map(([key, value]) => (
            <div key={key} className="contents">
              <dt className="text-gray-500">{t(key)}</dt>
              <dd className="break-all text-gray-900">{value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <Spinner label={t("global.loading")} />
      )}
    </Modal>
  );
}

/** Searches the current folder and below; a result opens the folder that holds it. */
export function SearchDialog({
  open,
  connection,
  groupId,
  path,
  onClose,
  onOpen,
}: {
  open: boolean;
  connection: FileConnection | null;
  groupId: number;
  path: string;
  onClose: () => void;
  onOpen: (folder: string) => void;
}) {
  const { t } = useTranslation();
  const showError = useFileErrors();
  const [keyword, setKeyword] = useState("");
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<{ entries: (FileEntry & { path: string })[]; truncated: boolean } | null>(null);
  useEffect(() => {
    if (open) {
      setKeyword("");
      setResults(null);
    }
  }, [open]);

  const search = async () => {
    if (!connection || keyword.trim() === "") return;
    setBusy(true);
    try {
      setResults(await connection.cmd("search", { groupId, path, keyword: keyword.trim() }));
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open={open} onClose={onClose} title={t("files.search.title")} width={600} footer={null}>
      <form
        className="flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void search();
        }}
      >
        <TextInput className="flex-1" label={t("files.search.keyword")} value={keyword} maxLength={255} autoFocus onChange={(event) => setKeyword(event.target.value)} />
        <Button type="submit" loading={busy} disabled={keyword.trim() === ""}>
          {t("files.search")}
        </Button>
      </form>
      {results && (
        <section aria-label={t("files.search.results")} className="mt-4">
          {results.entries.length === 0 ? (
            <p className="text-gray-500">{t("files.search.none")}</p>
          ) : (
            <ul className="overflow-auto rounded border border-gray-200" style={{ maxHeight: SEARCH_MAX_HEIGHT }}>
              {results.entries.map((entry) => (
                <li key={entry.path} style={{ height: SEARCH_ROW_HEIGHT }} className="border-b border-gray-100 last:border-0">
                  <button
                    type="button"
                    className="flex h-full w-full items-center gap-2 px-3 text-left hover:bg-gray-50"
                    onClick={() => {
                      onOpen(isFolder(entry) ? entry.path : parentPath(entry.path));
                      onClose();
                    }}
                  >
                    {isFolder(entry) ? <FolderIcon className="shrink-0 text-amber-500" /> : <FileIcon className="shrink-0 text-gray-500" />}
                    <span className="truncate">{entry.name}</span>
                    <span className="ml-auto truncate text-xs text-gray-600">{entry.path}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {results.truncated && <p className="mt-2 text-xs text-gray-500">{t("files.search.truncated", { count: results.entries.length })}</p>}
        </section>
      )}
    </Modal>
  );
}

export type PreviewState = { path: string; name: string; url: string; mediaType: string } | null;

/** Shows an image or PDF from the preview command's short-lived signed URL. */
export function PreviewDialog({ preview, onClose }: { preview: PreviewState; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      open={preview !== null}
      onClose={onClose}
      // A file name may be one long word: wrap it anywhere rather than push the dialog wider.
      title={<span className="break-all">{preview?.name ?? t("files.preview")}</span>}
      width={900}
      footer={null}
    >
      {preview &&
        (preview.mediaType.startsWith("image/") ? (
          <img src={preview.url} alt={preview.name} className="mx-auto max-h-[70vh] max-w-full object-contain" />
        ) : (
          <iframe src={preview.url} title={preview.name} className="h-[70vh] w-full border-0" />
        ))}
    </Modal>
  );
}
