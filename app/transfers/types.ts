/** The transfer panel's model (spec section 3, transfer item; section 4, transfer status). */

export const TransferStatus = {
  Uploading: 1,
  /** All bytes are on the server; the engine checks the hash and places the file. */
  ServerChecking: 2,
  Uploaded: 3,
  Downloading: 4,
  Downloaded: 5,
  UploadFailed: 6,
  DownloadFailed: 7,
  WaitDownload: 8,
} as const;
export type TransferStatus = (typeof TransferStatus)[keyof typeof TransferStatus];

/** Statuses that still have work to do: they count as active (only running uploads keep the leave warning on). */
export const ACTIVE_STATUSES: readonly TransferStatus[] = [
  TransferStatus.Uploading,
  TransferStatus.ServerChecking,
  TransferStatus.Downloading,
  TransferStatus.WaitDownload,
];

export interface TransferItem {
  id: string;
  kind: "upload" | "download";
  name: string;
  status: TransferStatus;
  currentSize: number;
  /** Bytes; -1 while unknown (a download before the engine told its size). */
  totalSize: number;
  /** Unix seconds. */
  createTime: number;
  /** i18n key of the failure (`error.<code>` for engine codes), with its variables. */
  errorMsgKey: string | null;
  errorVars?: Record<string, string | number>;
  /** Bytes per second over the last refresh; 0 when not moving. */
  speed: number;
  /** Waiting for a free slot (uploads run a few at a time). */
  queued: boolean;
  paused: boolean;
  /** Restored after a reload without its file: the user must pick or drop the same file again. */
  needsFile: boolean;
  /** Another tab of this browser works on it (transfer-locks.client.ts): shown, left alone, taken over when that tab goes. */
  elsewhere?: boolean;
  /** A download the page writes itself (parallel ranges into a file the user picked), not the browser's download manager. */
  pageWritten?: boolean;
  /** A page-written download reads the saved file back to compare its BLAKE3. */
  verifying?: boolean;
  /** Its result: true matched the engine's BLAKE3, null none recorded (not verified). */
  verified?: boolean | null;
  /**
   * The summary row of a pick's small files sent in batches (batch-uploads.client.ts): how many files,
   * how many landed, how many were refused (`retryable` of them a Retry may help: batch-plan.ts,
   * retryMayHelp); its bytes and speed are all of theirs. `name` is the pick's top folder, or "" for
   * loose files. It is no file: the panel's counts leave it out.
   */
  batch?: { files: number; uploaded: number; failed: number; retryable: number };
  /** A folder the page writes itself (folder-download.client.ts): its files, how many are done, and the refused ones with their reasons. */
  folder?: { files: number; done: number; refused: { name: string; errorMsgKey: string; errorVars?: Record<string, string | number> }[] };
  /** A file sent in a batch: the id of its summary row (no pause; Cancel while it waits). */
  inBatch?: string;
  /**
   * A point-to-point transfer (app/p2p/): `kind` "upload" when this browser sends, "download" when it
   * receives. Its files go as one row; `name` is the first one's.
   */
  p2p?: P2pRow;
}

export type P2pRowState = "offered" | "connecting" | "running" | "done" | "failed" | "declined" | "cancelled";

export interface P2pRow {
  direction: "send" | "receive";
  /** The other side's account (and device id) as shown. */
  peer: string;
  /** How the bytes go (docs/p2p.md, "Path"); null before it is known. */
  path: "direct" | "relay" | "held" | null;
  state: P2pRowState;
  /** Entries (files and folders) in the transfer. */
  entries: number;
  /** i18n key of a failure's reason. */
  reason?: string;
}

/** One file to upload; relativePath "" for a plain file, "folder/sub/a.txt" (top folder included) from a folder. */
export interface UploadItem {
  file: File;
  relativePath: string;
  /** Replace a file of the same name at the target (the user chose Overwrite); the engine still checks the permission. */
  overwrite?: boolean;
  /** Refused by the page before anything was asked (refusals.ts): it fails in the transfer list with this reason. */
  refused?: { errorMsgKey: string; errorVars?: Record<string, string | number> };
}

/** What one pick or drop gives: the files, and the empty folders of a dropped tree (relative paths, "photos/empty"). */
export interface UploadBatch {
  items: UploadItem[];
  folders: string[];
}

/** Where uploads go: a folder of a space (groupId 0: personal). */
export interface UploadTarget {
  groupId: number;
  path: string;
}

/** What to download: one file, or several items / a folder (the engine zips them). */
export interface DownloadTarget {
  groupId: number;
  paths: string[];
  name: string;
  /** One file (not a folder, not several): the page may write it itself when it is large. */
  isFile?: boolean;
  /** One folder: the page may write its tree into a directory the user picks when it is large. */
  isFolder?: boolean;
}

export const isActive = (item: Pick<TransferItem, "status">) => ACTIVE_STATUSES.includes(item.status);
/** A file's row (not a batch's summary row): what the panel's counts count. */
export const isFileRow = (item: Pick<TransferItem, "batch">) => item.batch === undefined;
