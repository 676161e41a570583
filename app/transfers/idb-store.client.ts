/**
 * One IndexedDB object store (keyPath `id`) of one database, opened for each use and closed after:
 * what the transfers keep across a reload (file-handles.client.ts, parallel-download.client.ts).
 */
export function idbStore(dbName: string, storeName: string) {
  const open = () =>
    new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(dbName, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(storeName, { keyPath: "id" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error("indexedDB open failed"));
    });

  /** Runs one request in its own transaction; its result once the transaction has completed. */
  return async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const db = await open();
    try {
      return await new Promise<T>((resolve, reject) => {
        const tx = db.transaction(storeName, mode);
        const request = act(tx.objectStore(storeName));
        tx.oncomplete = () => resolve(request.result);
        tx.onerror = () => reject(tx.error ?? new Error("indexedDB failed"));
        tx.onabort = () => reject(tx.error ?? new Error("indexedDB aborted"));
      });
    } finally {
      db.close();
    }
  };
}
