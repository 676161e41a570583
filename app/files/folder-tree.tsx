import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ChevronRightIcon, FolderIcon } from "../components/ui/icons";
import { cn } from "../components/ui/cn";
import type { FileConnection } from "./connection.client";
import { useFileErrors } from "./use-file-errors";

/** Spec section 9: folder tree rows are 49 px. */
export const TREE_ROW_HEIGHT = 49;

type Children = { name: string; path: string }[] | "loading";

/**
 * A folder tree that loads each level when it is first expanded (the `tree` command). Used to
 * choose a target folder (move/copy dialog) and as the page's tree mode.
 */
export function FolderTree({
  connection,
  groupId,
  selected,
  onSelect,
  height,
  className,
}: {
  connection: FileConnection | null;
  groupId: number;
  selected: string;
  onSelect: (path: string) => void;
  /** Fixed height with scrolling (the dialog's 300 px); otherwise as tall as its content. */
  height?: number;
  className?: string;
}) {
  const { t } = useTranslation();
  const showError = useFileErrors();
  const [children, setChildren] = useState<ReadonlyMap<string, Children>>(new Map());
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set(["/"]));

  const load = useCallback(
    (path: string) => {
      if (!connection) return;
      setChildren((map) => new Map(map).set(path, "loading"));
      connection.cmd("tree", { groupId, path }).then(
        (result) => setChildren((map) => new Map(map).set(path, result.folders)),
        (error: unknown) => {
          setChildren((map) => new Map(map).set(path, []));
          showError(error);
        },
      );
    },
    [connection, groupId, showError],
  );

  useEffect(() => {
    setChildren(new Map());
    setExpanded(new Set(["/"]));
    load("/");
  }, [load]);

  const toggle = (path: string) => {
    const next = new Set(expanded);
    if (next.has(path)) next.delete(path);
    else {
      next.add(path);
      if (!children.has(path)) load(path);
    }
    setExpanded(next);
  };

  const rows: { name: string; path: string; depth: number }[] = [];
  const walk = (path: string, name: string, depth: number) => {
    rows.push({ name, path, depth });
    const list = children.get(path);
    if (!expanded.has(path) || !Array.isArray(list)) return;
    for (const child of list) walk(child.path, child.name, depth + 1);
  };
  walk("/", t("files.root"), 0);

  return (
    <ul aria-label={t("files.tree")} className={cn("overflow-auto rounded border border-gray-200", className)} style={height ? { height } : undefined}>
      {rows.map(({ name, path, depth }) => {
        const open = expanded.has(path);
        const list = children.get(path);
        const leaf = Array.isArray(list) && list.length === 0;
        return (
          <li key={path} className={cn("flex items-center gap-1 pr-2", selected === path && "bg-primary/10")} style={{ height: TREE_ROW_HEIGHT, paddingLeft: 8 + depth * 16 }}>
            <button
              type="button"
              aria-label={t(open ? "files.tree.collapse" : "files.tree.expand", { name })}
              aria-expanded={open}
              disabled={leaf}
              onClick={() => toggle(path)}
              className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-gray-500 hover:bg-gray-100 disabled:invisible"
            >
              <ChevronRightIcon className={cn("transition-transform", open && "rotate-90")} />
            </button>
            <button
              type="button"
              aria-current={selected === path ? "true" : undefined}
              onClick={() => onSelect(path)}
              className="flex min-w-0 flex-1 items-center gap-2 rounded px-1 py-1 text-left text-sm text-gray-800 hover:bg-gray-100"
            >
              <FolderIcon className="shrink-0 text-amber-500" />
              <span className="truncate">{name}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
