import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../db/connect";

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run on a schema-less Kysely */
/** Migration 0024_p2p (server/db/migrations.ts): devices, transfers and their files of point to point (docs/p2p.md). */
export const p2pMigration = (dialect: Dialect): Record<string, Migration> => ({
  "0024_p2p": {
    async up(db: Kysely<any>) {
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      // One browser profile signed in to one account: (user, SHA-256 of the browser's key) → a 9-digit id.
      // receiving_until: the lease of the open receiver page (unix ms), renewed while its socket is open.
      await db.schema
        .createTable("p2p_devices")
        .addColumn("id", idType, idColumn)
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("key_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("device_id", "varchar(16)", (c) => c.notNull().unique())
        .addColumn("label", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_seen_at", "bigint", (c) => c.notNull())
        .addColumn("receiving_until", "bigint")
        .execute();
      await db.schema.createIndex("p2p_devices_user").on("p2p_devices").column("user_id").execute();
      // One offer from a sender device to a receiver device. No foreign key on the users: the
      // history outlives a deleted account (the accounts are kept as they were).
      await db.schema
        .createTable("p2p_transfers")
        .addColumn("id", "varchar(36)", (c) => c.primaryKey())
        .addColumn("sender_user_id", "integer", (c) => c.notNull())
        .addColumn("sender_account", "varchar(64)", (c) => c.notNull())
        .addColumn("sender_device_id", "varchar(16)", (c) => c.notNull())
        .addColumn("sender_address", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("receiver_user_id", "integer", (c) => c.notNull())
        .addColumn("receiver_account", "varchar(64)", (c) => c.notNull())
        .addColumn("receiver_device_id", "varchar(16)", (c) => c.notNull())
        .addColumn("receiver_address", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("status", "varchar(16)", (c) => c.notNull())
        .addColumn("path", "varchar(16)", (c) => c.notNull().defaultTo("direct"))
        .addColumn("target", "varchar(16)", (c) => c.notNull().defaultTo("local"))
        .addColumn("target_folder", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("total_bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("done_bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("file_count", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("folder_count", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("started_at", "bigint")
        .addColumn("finished_at", "bigint")
        .addColumn("hold_until", "bigint")
        .addColumn("reason", "varchar(255)", (c) => c.notNull().defaultTo(""))
        .execute();
      await db.schema.createIndex("p2p_transfers_receiver").on("p2p_transfers").columns(["receiver_device_id", "status"]).execute();
      await db.schema.createIndex("p2p_transfers_sender").on("p2p_transfers").columns(["sender_device_id", "status"]).execute();
      await db.schema.createIndex("p2p_transfers_status").on("p2p_transfers").columns(["status", "created_at"]).execute();
      // The manifest: files (kind 0) and empty folders (kind 1) by relative path. hash: the sender's
      // BLAKE3; receiver_hash: the receiver's; received: the bytes the receiver confirmed.
      await db.schema
        .createTable("p2p_files")
        .addColumn("transfer_id", "varchar(36)", (c) => c.notNull().references("p2p_transfers.id").onDelete("cascade"))
        .addColumn("idx", "integer", (c) => c.notNull())
        .addColumn("path", "varchar(4096)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("kind", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("hash", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("receiver_hash", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("received", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("state", "varchar(16)", (c) => c.notNull().defaultTo("waiting"))
        .addPrimaryKeyConstraint("p2p_files_pk", ["transfer_id", "idx"])
        .execute();
    },
  },
});
