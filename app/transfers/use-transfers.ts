import { useEffect, useMemo, useSyncExternalStore } from "react";
import { PROTOCOL_DEFAULTS } from "../../contract/settings";
import type { UploadSettings } from "../files/file-server-context";
import type { Connection, TransferManager, UploadOptions } from "./manager.client";
import { cancelP2p, isP2pRow } from "./p2p-rows";
import { TransferStore } from "./store";
import { isActive, isFileRow, type DownloadTarget, type TransferItem, type UploadItem, type UploadTarget } from "./types";

/** The page's one list of transfers (module scope: one per page load; empty during server rendering). */
export const transferStore = new TransferStore();

let manager: Promise<TransferManager> | undefined;
/** The manager pulls in tus-js-client and the workers: loaded on first use, in the browser only. */
function getManager(): Promise<TransferManager> {
  manager ??= import("./manager.client").then(({ TransferManager: Manager }) => new Manager(transferStore));
  return manager;
}

const NO_ITEMS: readonly TransferItem[] = [];
/** The engine's defaults (contract/settings.ts), for a page without the server's settings. */
const DEFAULT_UPLOADS: UploadSettings = { parallel: PROTOCOL_DEFAULTS.parallelUploads, partMB: PROTOCOL_DEFAULTS.uploadPartMB, hashCheck: true, clientPromptMB: 0 };

export interface Transfers {
  items: readonly TransferItem[];
  activeCount: number;
  /**
   * `quiet`: files over the size limit fail without the desktop-client dialog (the page already said so).
   * `batch`: small files of the pick go many per request (not for share visitors, whom the engine refuses them).
   */
  upload(items: UploadItem[], target: UploadTarget, options?: UploadOptions): void;
  download(target: DownloadTarget): void;
  pause(id: string): void;
  resume(id: string): void;
  cancel(id: string): void;
  retry(id: string): void;
  clear(id: string): void;
  /** The file of an upload restored after a reload; false when it is not the same file. */
  provideFile(id: string, file: File): Promise<boolean>;
}

const run = (act: (m: TransferManager) => unknown) => void getManager().then(act);

const actions = {
  upload: (items: UploadItem[], target: UploadTarget, options?: UploadOptions) => run((m) => m.upload(items, target, options)),
  download: (target: DownloadTarget) => run((m) => m.download(target)),
  pause: (id: string) => run((m) => m.pause(id)),
  resume: (id: string) => run((m) => m.resume(id)),
  cancel: (id: string) => (isP2pRow(id) ? cancelP2p(id) : run((m) => m.cancel(id))),
  retry: (id: string) => run((m) => m.retry(id)),
  clear: (id: string) => (isP2pRow(id) ? transferStore.remove(id) : run((m) => m.clear(id))),
  provideFile: (id: string, file: File) => getManager().then((m) => m.provideFile(id, file)),
};

/** The transfer list and its actions, for the panel and for pages that start uploads and downloads. */
export function useTransfers(): Transfers {
  const items = useSyncExternalStore(transferStore.subscribe, transferStore.getSnapshot, () => NO_ITEMS);
  return useMemo(() => ({ items, activeCount: items.filter((item) => isActive(item) && isFileRow(item)).length, ...actions }), [items]);
}

/** Connects the manager to the page's file server (rendered once, by the panel). */
export function useAttachTransfers(connection: Connection | null, account: string, sizeLimit: number, uploads: UploadSettings = DEFAULT_UPLOADS) {
  const { parallel, partMB, hashCheck } = uploads;
  useEffect(() => {
    if (!connection) return;
    let live = true;
    void getManager().then((m) => live && m.attach({ connection, account, sizeLimit, parallel, partMB, hashCheck }));
    return () => {
      live = false;
    };
  }, [connection, account, sizeLimit, parallel, partMB, hashCheck]);
}
