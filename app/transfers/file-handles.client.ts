import { idbStore } from "./idb-store.client";

/**
 * The Files of unfinished uploads, kept in IndexedDB so an upload resumes by itself after a reload
 * or a browser restart (a File is structured-cloneable; a page cannot reopen a file by name). The
 * browser copies the bytes into its own storage, so only files up to AUTO_RESUME_MAX_BYTES are
 * kept; a larger one resumes when the user picks or drops it again.
 */
export const AUTO_RESUME_MAX_BYTES = 1024 * 1024 * 1024;

const DB_NAME = "ferry-transfers";
const STORE = "files";

interface Record {
  id: string;
  account: string;
  file: File;
}

const run = idbStore(DB_NAME, STORE);

/** Keeps `file` for upload `id`; false when it is too large or the browser refuses (quota, private mode). */
export async function keepFile(id: string, account: string, file: File): Promise<boolean> {
  if (typeof indexedDB === "undefined" || file.size > AUTO_RESUME_MAX_BYTES) return false;
  try {
    await run("readwrite", (store) => store.put({ id, account, file } satisfies Record));
    return true;
  } catch {
    return false;
  }
}

export async function forgetFile(id: string): Promise<void> {
  if (typeof indexedDB === "undefined") return;
  try {
    await run("readwrite", (store) => store.delete(id));
  } catch {
    // Nothing to lose: a left-over copy is removed at the next start (keptFiles).
  }
}

/** The account's kept files by upload id; copies no upload needs any more (`keep` says which) are deleted. */
export async function keptFiles(account: string, keep: (id: string) => boolean): Promise<Map<string, File>> {
  const found = new Map<string, File>();
  if (typeof indexedDB === "undefined") return found;
  try {
    const all = await run("readonly", (store) => store.getAll() as IDBRequest<Record[]>);
    for (const record of all) {
      if (record.account !== account) continue;
      if (keep(record.id)) found.set(record.id, record.file);
      else await forgetFile(record.id);
    }
  } catch {
    // No storage: uploads resume when the user picks the file again.
  }
  return found;
}
