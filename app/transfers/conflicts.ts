import { uploadPath } from "./drop";
import type { UploadItem } from "./types";

/** What the user chose for the files of a batch whose names already exist at the target. */
export type ConflictChoice = "overwrite" | "skip" | "keep-both";

/** The engine's name limit (docs/file-server.md): at most 255 characters and 255 UTF-8 bytes. */
const MAX_NAME_BYTES = 255;
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** "a.txt" → ["a", ".txt"]; a leading dot is part of the name (".env"); ".tar.gz" and the like stay together. */
export function splitExtension(name: string): [stem: string, extension: string] {
  const double = /^(.+?)(\.tar\.[^./]+)$/i.exec(name);
  if (double) return [double[1]!, double[2]!];
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return [name, ""];
  return [name.slice(0, dot), name.slice(dot)];
}

/** The n-th "keep both" name: "report (1).pdf", "notes (2)", "archive (1).tar.gz"; the stem is shortened to stay a valid name. */
export function numberedName(name: string, n: number): string {
  const [stem, extension] = splitExtension(name);
  const suffix = ` (${n})${extension}`;
  let head = stem;
  // Cut whole code points until the name fits the engine's byte limit.
  while (head.length > 0 && (utf8Length(head) + utf8Length(suffix) > MAX_NAME_BYTES || [...head].length + [...suffix].length > MAX_NAME_BYTES)) {
    head = [...head].slice(0, -1).join("");
  }
  return `${head}${suffix}`;
}

/** Splits a final path into its folder and name ("/docs/a.txt" → ["/docs", "a.txt"], "/a.txt" → ["/", "a.txt"]). */
export function splitPath(path: string): [folder: string, name: string] {
  const slash = path.lastIndexOf("/");
  return [slash <= 0 ? "/" : path.slice(0, slash), path.slice(slash + 1)];
}

/** The names a batch puts in each folder, by folder (what `exists` is asked, one call per folder). */
export function namesByFolder(paths: readonly string[]): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const path of paths) {
    const [folder, name] = splitPath(path);
    const names = folders.get(folder) ?? [];
    if (!names.includes(name)) names.push(name);
    folders.set(folder, names);
  }
  return folders;
}

/**
 * Free "keep both" names for `clashing` names of one folder: candidates `first`…`first + count - 1`
 * are tried in order; a candidate is free when the server does not hold it (`taken`) and nothing
 * else of the batch uses it (`used`, updated with each name picked). Names left without a free
 * candidate are missing from the answer (ask again with the next range).
 */
export function pickFreeNames(clashing: readonly string[], taken: ReadonlySet<string>, used: Set<string>, first: number, count: number): Map<string, string> {
  const picked = new Map<string, string>();
  for (const name of clashing) {
    for (let n = first; n < first + count; n += 1) {
      const candidate = numberedName(name, n);
      if (taken.has(candidate) || used.has(candidate)) continue;
      used.add(candidate);
      picked.set(name, candidate);
      break;
    }
  }
  return picked;
}

/** The candidates `pickFreeNames` will try, to ask the server about them first. */
export function candidateNames(clashing: readonly string[], first: number, count: number): string[] {
  return clashing.flatMap((name) => Array.from({ length: count }, (_, i) => numberedName(name, first + i)));
}

/**
 * The batch after the user's choice. `clashes` are the final paths that exist at the target;
 * `renamed` maps such a path to its free name (keep both). Items without a clash are unchanged.
 */
export function resolveConflicts(items: readonly UploadItem[], folder: string, clashes: ReadonlySet<string>, choice: ConflictChoice, renamed: ReadonlyMap<string, string> = new Map()): UploadItem[] {
  return items.flatMap((item) => {
    const path = uploadPath(folder, item);
    if (!clashes.has(path)) return [item];
    if (choice === "skip") return [];
    if (choice === "overwrite") return [{ ...item, overwrite: true }];
    const name = renamed.get(path);
    if (!name) return [item];
    const relative = item.relativePath || item.file.name;
    const slash = relative.lastIndexOf("/");
    return [{ ...item, relativePath: slash < 0 ? name : `${relative.slice(0, slash)}/${name}` }];
  });
}
