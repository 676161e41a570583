import type { ColumnType, Generated, Kysely } from "kysely";
import type { Db } from "../db/connect";
import type { Database } from "../db/schema";

type D<T> = ColumnType<T, T | undefined, T>;

/** A browser profile signed in to one account (0024; docs/p2p.md, "Words"). */
export interface P2pDevicesTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 (hex) of the browser's device key. */
  key_hash: string;
  /** 9 digits, the first not 0. */
  device_id: string;
  label: D<string>;
  created_at: number;
  last_seen_at: number;
  /** Unix ms: the open receiver page's lease; null when closed or not receiving. */
  receiving_until: number | null;
}

/** One offer from a sender device to a receiver device (0024). */
export interface P2pTransfersTable {
  id: string;
  sender_user_id: number;
  sender_account: string;
  sender_device_id: string;
  sender_address: D<string>;
  receiver_user_id: number;
  receiver_account: string;
  receiver_device_id: string;
  receiver_address: D<string>;
  /** contract/p2p.ts P2P_STATUSES. */
  status: string;
  /** direct | relay | held */
  path: D<string>;
  /** ferry | local */
  target: D<string>;
  target_folder: D<string>;
  total_bytes: D<number>;
  done_bytes: D<number>;
  file_count: D<number>;
  folder_count: D<number>;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  hold_until: number | null;
  reason: D<string>;
}

/** A file (kind 0) or empty folder (kind 1) of a transfer's manifest (0024). */
export interface P2pFilesTable {
  transfer_id: string;
  idx: number;
  path: string;
  size: number;
  kind: D<number>;
  hash: D<string>;
  receiver_hash: D<string>;
  received: D<number>;
  /** waiting | sending | sent (all bytes reported) | done (hashes agree) | mismatch */
  state: D<string>;
}

export interface P2pDatabase extends Database {
  p2p_devices: P2pDevicesTable;
  p2p_transfers: P2pTransfersTable;
  p2p_files: P2pFilesTable;
}

export const p2pDb = (db: Db): Kysely<P2pDatabase> => db.kysely as unknown as Kysely<P2pDatabase>;
