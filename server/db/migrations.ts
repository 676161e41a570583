import { type CreateTableBuilder, type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { eventsMigration } from "../events/migration";
import { autoCleanMigration } from "../storage/autoclean/migration";
import { p2pMigration } from "../p2p/migration";
import { syncMigration } from "../sync/migration";
import type { Dialect } from "./connect";

// Column types that mean the same on SQLite, PostgreSQL and MariaDB. Times are unix ms (bigint);
// flags are integers 0/1; indexed strings are varchar with a length (MariaDB cannot index TEXT).
/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run on a schema-less Kysely */
const migrations = (dialect: Dialect): Record<string, Migration> => ({
  "0001_accounts": {
    async up(db: Kysely<any>) {
      // PostgreSQL spells an auto-numbered key as a type (serial); the others as a modifier.
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      const flag = (name: string) => [name, "integer", (c: any) => c.notNull().defaultTo(0)] as const;
      // The client's transfer-filter switches, on users and on groups alike.
      const filterSwitches = (table: CreateTableBuilder<any, any>) =>
        table
          .addColumn(...flag("sync_switch"))
          .addColumn(...flag("forbid_client_filter_switch"))
          .addColumn(...flag("trans_ignore_reg_switch"))
          .addColumn("trans_ignore_reg", "varchar(1024)", (c) => c.notNull().defaultTo(""))
          .addColumn(...flag("trans_ignore_size_switch"))
          .addColumn("trans_ignore_size", "bigint", (c) => c.notNull().defaultTo(0));
      await db.schema
        .createTable("users")
        .addColumn("id", idType, idColumn)
        .addColumn("account", "varchar(64)", (c) => c.notNull())
        .addColumn("account_key", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("fullname", "varchar(128)", (c) => c.notNull().defaultTo(""))
        .addColumn("email", "varchar(255)")
        .addColumn("email_key", "varchar(255)", (c) => c.unique())
        .addColumn("password_hash", "varchar(255)", (c) => c.notNull())
        .addColumn("role", "varchar(16)", (c) => c.notNull().defaultTo("user"))
        .addColumn("account_type", "integer", (c) => c.notNull().defaultTo(2))
        .addColumn("permission", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("home", "varchar(1024)", (c) => c.notNull())
        .addColumn(...flag("locked"))
        .addColumn(...flag("need_update_pwd"))
        .addColumn(...flag("email_sender_type"))
        .addColumn("email_account", "varchar(255)", (c) => c.notNull().defaultTo(""))
        .$call(filterSwitches)
        .addColumn(...flag("upload_new_only"))
        .addColumn("max_upload_speed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("max_download_speed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn(...flag("file_format_mode"))
        .addColumn("file_formats", "varchar(255)", (c) => c.notNull().defaultTo(""))
        .addColumn("ip_whitelist", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn(...flag("notify_admin"))
        .addColumn(...flag("share_email_mode"))
        .addColumn("forbidden_paths", "varchar(4096)", (c) => c.notNull().defaultTo("[]"))
        .addColumn("virtual_dirs", "varchar(4096)", (c) => c.notNull().defaultTo("[]"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("user_groups")
        .addColumn("id", idType, idColumn)
        .addColumn("name", "varchar(64)", (c) => c.notNull())
        .addColumn("name_key", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("home", "varchar(1024)", (c) => c.notNull())
        .addColumn("max_upload_speed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("max_download_speed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn(...flag("upload_new_only"))
        .$call(filterSwitches)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("group_members")
        .addColumn("group_id", "integer", (c) => c.notNull().references("user_groups.id").onDelete("cascade"))
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("group_permission", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("group_members_pk", ["group_id", "user_id"])
        .execute();
      await db.schema.createIndex("group_members_user").on("group_members").column("user_id").execute();

      await db.schema
        .createTable("sessions")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("access_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("access_expires_at", "bigint", (c) => c.notNull())
        .addColumn("refresh_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("refresh_expires_at", "bigint", (c) => c.notNull())
        .addColumn("socket_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("client_ip", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

      await db.schema
        .createTable("login_counters")
        .addColumn("key", "varchar(200)", (c) => c.primaryKey())
        .addColumn("window_start", "bigint", (c) => c.notNull())
        .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("locked_until", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable("notices")
        .addColumn("id", idType, idColumn)
        .addColumn("title", "varchar(255)", (c) => c.notNull())
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("channel", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("notice_receipts")
        .addColumn("notice_id", "integer", (c) => c.notNull().references("notices.id").onDelete("cascade"))
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn(...flag("is_showed"))
        .addPrimaryKeyConstraint("notice_receipts_pk", ["notice_id", "user_id"])
        .execute();
      await db.schema.createIndex("notice_receipts_user").on("notice_receipts").columns(["user_id", "is_showed"]).execute();

      await db.schema
        .createTable("settings")
        .addColumn("key", "varchar(128)", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0002_client_sockets": {
    async up(db: Kysely<any>) {
      // Desktop clients online, across every engine instance (free-edition limit, client_online).
      await db.schema
        .createTable("client_sockets")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("instance", "varchar(32)", (c) => c.notNull())
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("version", "varchar(32)", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("client_sockets_instance").on("client_sockets").column("instance").execute();
    },
  },
  "0003_file_hashes": {
    async up(db: Kysely<any>) {
      // Content hashes of stored files (server/files/hashes.ts). path_key is the SHA-256 of path:
      // MariaDB cannot index a 4096-byte path, and a hex key compares exactly under any collation.
      await db.schema
        .createTable("file_hashes")
        .addColumn("space_key", "varchar(64)", (c) => c.notNull())
        .addColumn("path_key", "varchar(64)", (c) => c.notNull())
        .addColumn("path", "varchar(4096)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("mtime", "bigint", (c) => c.notNull())
        .addColumn("hash", "varchar(64)", (c) => c.notNull())
        .addPrimaryKeyConstraint("file_hashes_pk", ["space_key", "path_key"])
        .execute();
    },
  },
  "0004_quotas": {
    async up(db: Kysely<any>) {
      // Storage quotas in bytes, 0 = unlimited (server/accounts/quota.ts); existing spaces stay unlimited.
      await db.schema.alterTable("users").addColumn("quota", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("user_groups").addColumn("quota", "bigint", (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  "0005_shares": {
    async up(db: Kysely<any>) {
      // Share links and upload invitations (server/shares/, docs/shares.md). Ids are uuid v4 in
      // lowercase hex, so they compare exactly under any collation. Password-attempt counters use
      // login_counters with "share:" / "share-ip:" keys.
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable("share_links")
        .addColumn("id", "varchar(36)", (c) => c.primaryKey())
        .addColumn("owner_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("kind", "integer", (c) => c.notNull())
        .addColumn("src_type", "integer", (c) => c.notNull())
        .addColumn("server_path", "varchar(4096)", (c) => c.notNull())
        .addColumn("base_url", "varchar(1024)", (c) => c.notNull())
        .addColumn("name_key", "varchar(255)", (c) => c.notNull())
        .addColumn("need_password", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("password", "varchar(32)", (c) => c.notNull().defaultTo(""))
        .addColumn("allow_download", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("expire_at", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("status", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("bind_switch", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("bound_device", "varchar(128)", (c) => c.notNull().defaultTo(""))
        .addColumn("notify_email", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("share_email", "text", (c) => c.notNull())
        .addColumn("email_content", "text")
        .addColumn("email_language", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("cancelled_at", "bigint")
        .execute();
      await db.schema.createIndex("share_links_owner").on("share_links").columns(["owner_id", "kind", "created_at"]).execute();
      await db.schema
        .createTable("share_items")
        .addColumn("link_id", "varchar(36)", (c) => c.notNull().references("share_links.id").onDelete("cascade"))
        .addColumn("position", "integer", (c) => c.notNull())
        .addColumn("path", "varchar(4096)", (c) => c.notNull())
        .addColumn("name", "varchar(255)", (c) => c.notNull())
        .addColumn("alias", "varchar(255)", (c) => c.notNull().defaultTo(""))
        .addColumn("is_folder", "integer", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("share_items_pk", ["link_id", "position"])
        .execute();
      await db.schema
        .createTable("share_tokens")
        .addColumn("token_hash", "varchar(64)", (c) => c.primaryKey())
        .addColumn("link_id", "varchar(36)", (c) => c.notNull().references("share_links.id").onDelete("cascade"))
        .addColumn("fingerprint", "varchar(128)", (c) => c.notNull().defaultTo(""))
        .addColumn("client_ip", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("share_tokens_link").on("share_tokens").column("link_id").execute();
      await db.schema
        .createTable("share_downloads")
        .addColumn("id", idType, idColumn)
        .addColumn("link_id", "varchar(36)", (c) => c.notNull().references("share_links.id").onDelete("cascade"))
        .addColumn("client_ip", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("files", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("share_downloads_link").on("share_downloads").columns(["link_id", "created_at"]).execute();
    },
  },
  "0006_smtp_accounts": {
    async up(db: Kysely<any>) {
      // SMTP sender accounts (server/mail/store.ts): owner "server" (user_id null) or "user:<id>".
      // The password is AES-256-GCM ciphertext under a key that is not in the database.
      await db.schema
        .createTable("smtp_accounts")
        .addColumn("owner", "varchar(32)", (c) => c.primaryKey())
        .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("from_name", "varchar(255)", (c) => c.notNull())
        .addColumn("provider", "integer", (c) => c.notNull())
        .addColumn("account", "varchar(255)", (c) => c.notNull())
        .addColumn("password_enc", "varchar(1024)", (c) => c.notNull())
        .addColumn("host", "varchar(255)", (c) => c.notNull())
        .addColumn("port", "integer", (c) => c.notNull())
        .addColumn("encryption", "integer", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "0009_share_password_sealed": {
    async up(db: Kysely<any>) {
      // Share passwords sealed with the engine secret (server/shares/service.ts). The key is not in
      // the database, so existing clear passwords are sealed by the engine at start (sealStoredPasswords).
      await db.schema.alterTable("share_links").addColumn("password_enc", "varchar(255)", (c) => c.notNull().defaultTo("")).execute();
    },
  },
  "0007_refresh_rotation": {
    async up(db: Kysely<any>) {
      // Refresh tokens rotate (server/auth/tokens.ts): the session keeps its previous refresh token's
      // hash, when it was replaced and the new pair sealed with a key derived from that previous
      // token (the grace answer of concurrent refreshes); every replaced token's hash is kept until
      // the session's refresh lifetime ends, so reusing any of them revokes the session.
      await db.schema.alterTable("sessions").addColumn("prev_refresh_hash", "varchar(64)").execute();
      await db.schema.alterTable("sessions").addColumn("rotated_at", "bigint").execute();
      await db.schema.alterTable("sessions").addColumn("grace_box", "varchar(512)").execute();
      await db.schema.createIndex("sessions_prev_refresh").on("sessions").column("prev_refresh_hash").execute();
      await db.schema
        .createTable("retired_refresh_tokens")
        .addColumn("token_hash", "varchar(64)", (c) => c.primaryKey())
        .addColumn("session_id", "varchar(32)", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("retired_refresh_tokens_expiry").on("retired_refresh_tokens").column("expires_at").execute();
    },
  },
  "0010_upload_reservations": {
    async up(db: Kysely<any>) {
      // Bytes held for uploads in progress (server/files/quota.ts): one row per tus upload, counted
      // against its space's quota from creation until commit, termination, failure or expiry.
      await db.schema
        .createTable("upload_reservations")
        .addColumn("upload_id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("space_key", "varchar(64)", (c) => c.notNull())
        .addColumn("bytes", "bigint", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("upload_reservations_space").on("upload_reservations").columns(["space_key", "expires_at"]).execute();
    },
  },
  "0011_share_drop": {
    async up(db: Kysely<any>) {
      // Upload invitations are file drops unless their owner shows the folder (docs/shares.md,
      // "File drops"): existing invitations become drops too, the safer reading of the old ones.
      await db.schema.alterTable("share_links").addColumn("show_contents", "integer", (c) => c.notNull().defaultTo(0)).execute();
      // A drop's visitor lists only what its own share token put there; gone with the token.
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable("share_visitor_uploads")
        .addColumn("id", idType, idColumn)
        .addColumn("token_hash", "varchar(64)", (c) => c.notNull().references("share_tokens.token_hash").onDelete("cascade"))
        .addColumn("path", "varchar(4096)", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("share_visitor_uploads_token").on("share_visitor_uploads").column("token_hash").execute();
    },
  },
  "0012_auth_source": {
    async up(db: Kysely<any>) {
      // Where an account's password is checked: its own hash (local) or the authentication way that
      // created it (server/authentication/, docs/authentication.md).
      await db.schema.alterTable("users").addColumn("auth_source", "varchar(16)", (c) => c.notNull().defaultTo("local")).execute();
    },
  },
  "0013_client_socket_origin": {
    async up(db: Kysely<any>) {
      // A desktop client's session and the address its socket comes from: the admin user list's
      // connections and addresses (a client's socket stands for its session, counted once).
      await db.schema.alterTable("client_sockets").addColumn("session_id", "varchar(32)", (c) => c.notNull().defaultTo("")).execute();
      await db.schema.alterTable("client_sockets").addColumn("address", "varchar(64)", (c) => c.notNull().defaultTo("")).execute();
    },
  },
  "0014_email_sender_type": {
    async up(db: Kysely<any>) {
      // The notification e-mail source (users.email_sender_type: 0 none, 1 the server's account,
      // 2 the user's own) was stored but not followed: every user's mail went through their own
      // account, else the server's. Now the engine follows it (docs/mail.md, "Whose account"), and
      // the 0 every user was given by default would stop their mail: such users keep what they had,
      // 2 with an account of their own, else 1.
      const own = await db.selectFrom("smtp_accounts").select("user_id").where("user_id", "is not", null).execute();
      const ids = own.map((r) => Number(r.user_id));
      for (let at = 0; at < ids.length; at += 500) {
        await db.updateTable("users").set({ email_sender_type: 2 }).where("email_sender_type", "=", 0).where("id", "in", ids.slice(at, at + 500)).execute();
      }
      await db.updateTable("users").set({ email_sender_type: 1 }).where("email_sender_type", "=", 0).execute();
    },
  },
  "0015_logs": {
    async up(db: Kysely<any>) {
      // The administrator's logs (server/logs/, docs/admin-api.md "Logs"): every action, and every
      // finished transfer (the statistics read these). Written in batches by server/logs/recorder.ts.
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable("operation_log")
        .addColumn("id", idType, idColumn)
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("user_id", "integer")
        .addColumn("account", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("account_type", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("role", "varchar(16)", (c) => c.notNull().defaultTo("user"))
        .addColumn("address", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("kind", "varchar(32)", (c) => c.notNull())
        .addColumn("target", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("detail", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("result", "varchar(16)", (c) => c.notNull().defaultTo("ok"))
        .addColumn("code", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex("operation_log_at").on("operation_log").column("at").execute();
      await db.schema.createIndex("operation_log_user_at").on("operation_log").columns(["user_id", "at"]).execute();
      await db.schema.createIndex("operation_log_kind").on("operation_log").column("kind").execute();
      await db.schema
        .createTable("transfer_log")
        .addColumn("id", idType, idColumn)
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("user_id", "integer")
        .addColumn("account", "varchar(64)", (c) => c.notNull().defaultTo(""))
        .addColumn("group_id", "integer")
        .addColumn("direction", "varchar(16)", (c) => c.notNull())
        .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("files", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("duration_ms", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("result", "varchar(16)", (c) => c.notNull().defaultTo("ok"))
        .addColumn("via", "varchar(16)", (c) => c.notNull().defaultTo("web"))
        .addColumn("path", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("address", "varchar(64)", (c) => c.notNull().defaultTo(""))
        // Share links are named by a UUID (share_links.id), so the link is a string here.
        .addColumn("share_id", "varchar(64)")
        .execute();
      await db.schema.createIndex("transfer_log_at").on("transfer_log").column("at").execute();
      await db.schema.createIndex("transfer_log_user_at").on("transfer_log").columns(["user_id", "at"]).execute();
    },
  },
  "0017_share_admin": {
    async up(db: Kysely<any>) {
      // Disabled by the administrator (unix ms, 0 = not): visitors get 1055; the administrator can enable it again.
      await db.schema.alterTable("share_links").addColumn("disabled_at", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      // The bytes a visitor's download served: the file's size, or the zip's entries' sizes added up.
      await db.schema.alterTable("share_downloads").addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  "0018_storages": {
    async up(db: Kysely<any>) {
      // The administrator's storages (server/storage/admin/, docs/storage.md "Storages"): where homes
      // and virtual directories live. `config` holds the non-secret fields as JSON; `sealed` the
      // credentials, sealed with the engine secret (SecretBox "storage", context "storage:<id>").
      const idType = dialect === "postgres" ? "serial" : "integer";
      const idColumn = (c: any) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable("storages")
        .addColumn("id", idType, idColumn)
        .addColumn("name", "varchar(64)", (c) => c.notNull())
        .addColumn("name_key", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("provider", "varchar(16)", (c) => c.notNull())
        .addColumn("config", "varchar(4096)", (c) => c.notNull().defaultTo("{}"))
        .addColumn("sealed", "varchar(8192)", (c) => c.notNull().defaultTo(""))
        .addColumn("is_default", "integer", (c) => c.notNull().defaultTo(0))
        // Auto-clean of a local storage (issue 17): off | accessed | modified; 7d | 1m | 3m | 6m | 1y.
        .addColumn("clean_by", "varchar(16)", (c) => c.notNull().defaultTo("off"))
        .addColumn("clean_age", "varchar(8)", (c) => c.notNull().defaultTo("1m"))
        .addColumn("recycle_path", "varchar(1024)", (c) => c.notNull().defaultTo(""))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      // The built-in local storage: an empty path is the engine's own storage root (<data dir>/storage).
      const now = Date.now();
      await db.insertInto("storages").values({ name: "Local", name_key: "local", provider: "local", config: JSON.stringify({ path: "" }), is_default: 1, created_at: now, updated_at: now }).execute();
      // Every home so far lives on it; new ones name the storage chosen (the default one at creation).
      await db.schema.alterTable("users").addColumn("storage_id", "integer", (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable("user_groups").addColumn("storage_id", "integer", (c) => c.notNull().defaultTo(1)).execute();
    },
  },
  "0016_notifications": {
    async up(db: Kysely<any>) {
      // The way of an administrator's notification (website, e-mail or both) and each receiver's
      // e-mail state: 0 not by mail, 1 queued, 2 sent, 3 failed, 4 no address (docs/admin-api.md,
      // "Notifications"). Notices sent before were website only.
      await db.schema.alterTable("notices").addColumn("by_website", "integer", (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable("notices").addColumn("by_email", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("notice_receipts").addColumn("mail_status", "integer", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("notice_receipts").addColumn("mail_error", "varchar(255)", (c) => c.notNull().defaultTo("")).execute();
      await db.schema.createIndex("notice_receipts_mail").on("notice_receipts").columns(["mail_status", "notice_id"]).execute();
    },
  },
  ...eventsMigration(dialect),
  ...syncMigration(dialect),
  ...autoCleanMigration(),
  ...p2pMigration(dialect),
});

/**
 * Runs every pending migration (or those up to `target`); throws if one fails, so the engine never
 * starts on a half schema.
 */
export async function migrate(db: Kysely<any>, dialect: Dialect, target?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const migrator = new Migrator({ db, provider });
  const { error, results } = target === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(target);
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  }
}

