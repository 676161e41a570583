/**
 * The spec's P2P file group (section 3) and remembered receiver ids, as kept in local storage
 * (`__P2P_FILES__`, `__DEVICE_IDS__`). Pure: device.client.ts reads and writes the storage.
 */

/** Receiver ids kept, most recent first. */
export const REMEMBERED_IDS_MAX = 10;

/** file_type: 0 a file, 1 a folder. */
export type P2pEntryType = 0 | 1;

export interface P2pEntry {
  /** The entry's name (a folder's top name, or a file's name; for a Ferry entry its path in the space). */
  name: string;
  file_size: number;
  file_type: P2pEntryType;
  /** Where it is: the local disk (only while the page holds the File objects) or the sender's Ferry space. */
  source?: "local" | "ferry";
  /** Kept from an older version of the list that stored plain names: shown, but it must be picked again. */
  old?: boolean;
}

export interface P2pFileGroup {
  list: P2pEntry[];
  size: number;
  fileCount: number;
  folderCount: number;
}

export const EMPTY_GROUP: P2pFileGroup = { list: [], size: 0, fileCount: 0, folderCount: 0 };

/** The group's totals from its entries (a folder counts as one folder; its size is its files'). */
export function groupOf(list: readonly P2pEntry[]): P2pFileGroup {
  let size = 0;
  let fileCount = 0;
  let folderCount = 0;
  for (const entry of list) {
    size += entry.file_size;
    if (entry.file_type === 1) folderCount++;
    else fileCount++;
  }
  return { list: [...list], size, fileCount, folderCount };
}

function entryOf(raw: unknown): P2pEntry | null {
  // Older lists kept only the names: shown, marked old.
  if (typeof raw === "string") return raw ? { name: raw, file_size: 0, file_type: 0, old: true } : null;
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.name !== "string" || r.name === "") return null;
  const size = typeof r.file_size === "number" && Number.isFinite(r.file_size) && r.file_size >= 0 ? r.file_size : 0;
  const type: P2pEntryType = r.file_type === 1 ? 1 : 0;
  const entry: P2pEntry = { name: r.name, file_size: size, file_type: type };
  if (r.source === "local" || r.source === "ferry") entry.source = r.source;
  if (r.old === true) entry.old = true;
  return entry;
}

/** The stored group (JSON text, or null): whatever cannot be read is left out; totals are recounted. */
export function parseGroup(text: string | null): P2pFileGroup {
  if (!text) return EMPTY_GROUP;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return EMPTY_GROUP;
  }
  const list = Array.isArray(raw) ? raw : raw && typeof raw === "object" && Array.isArray((raw as { list?: unknown }).list) ? (raw as { list: unknown[] }).list : [];
  return groupOf(list.map(entryOf).filter((e): e is P2pEntry => e !== null));
}

/** Adds entries, a later one of the same name and source replacing the earlier one. */
export function addEntries(group: P2pFileGroup, added: readonly P2pEntry[]): P2pFileGroup {
  const key = (e: P2pEntry) => `${e.source ?? "local"}\u0000${e.name}`;
  const keys = new Set(added.map(key));
  return groupOf([...group.list.filter((e) => !keys.has(key(e))), ...added]);
}

export function removeEntry(group: P2pFileGroup, index: number): P2pFileGroup {
  return groupOf(group.list.filter((_, i) => i !== index));
}

/** The stored remembered ids (JSON array of strings), valid ids only, at most REMEMBERED_IDS_MAX. */
export function parseRememberedIds(text: string | null, isId: (id: string) => boolean): string[] {
  if (!text) return [];
  try {
    const raw = JSON.parse(text) as unknown;
    if (!Array.isArray(raw)) return [];
    const ids = raw.map((v) => (typeof v === "number" ? String(v) : v)).filter((v): v is string => typeof v === "string" && isId(v));
    return [...new Set(ids)].slice(0, REMEMBERED_IDS_MAX);
  } catch {
    return [];
  }
}

/** `id` at the front, once, the list cut to REMEMBERED_IDS_MAX. */
export function rememberId(ids: readonly string[], id: string): string[] {
  return [id, ...ids.filter((i) => i !== id)].slice(0, REMEMBERED_IDS_MAX);
}
