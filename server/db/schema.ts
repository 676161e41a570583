import type { ColumnType, Generated } from "kysely";

/** A column the database fills with its default when an insert leaves it out. */
type D<T> = ColumnType<T, T | undefined, T>;

/** Times are unix milliseconds from the engine's clock (never the database's), so tests can move time. */
/** The client's transfer-filter switches, which users and groups both carry. */
export interface FilterSwitchColumns {
  sync_switch: D<number>;
  forbid_client_filter_switch: D<number>;
  trans_ignore_reg_switch: D<number>;
  trans_ignore_reg: D<string>;
  trans_ignore_size_switch: D<number>;
  trans_ignore_size: D<number>;
}

export interface UsersTable extends FilterSwitchColumns {
  id: Generated<number>;
  account: string;
  account_key: string;
  fullname: D<string>;
  email: D<string | null>;
  email_key: D<string | null>;
  password_hash: string;
  role: D<"user" | "admin">;
  account_type: D<number>;
  permission: D<number>;
  home: string;
  locked: D<number>;
  need_update_pwd: D<number>;
  email_sender_type: D<number>;
  email_account: D<string>;
  upload_new_only: D<number>;
  max_upload_speed: D<number>;
  max_download_speed: D<number>;
  file_format_mode: D<number>;
  file_formats: D<string>;
  ip_whitelist: D<string>;
  notify_admin: D<number>;
  share_email_mode: D<number>;
  forbidden_paths: D<string>;
  virtual_dirs: D<string>;
  /** Bytes the personal space may hold; 0 = unlimited. */
  quota: D<number>;
  /** "local", or the way that created the account and checks its password (contract/authentication.ts AUTH_SOURCES). */
  auth_source: D<string>;
  /** The storage the home lives on (storages.id; 0018). */
  storage_id: D<number>;
  created_at: number;
  updated_at: number;
}

export interface GroupsTable extends FilterSwitchColumns {
  id: Generated<number>;
  name: string;
  name_key: string;
  home: string;
  max_upload_speed: D<number>;
  max_download_speed: D<number>;
  upload_new_only: D<number>;
  /** Bytes the group space may hold; 0 = unlimited. */
  quota: D<number>;
  /** The storage the home lives on (storages.id; 0018). */
  storage_id: D<number>;
  created_at: number;
}

export interface GroupMembersTable {
  group_id: number;
  user_id: number;
  group_permission: number;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  refresh_expires_at: number;
  socket_hash: string;
  client_ip: string;
  created_at: number;
  revoked_at: number | null;
  /** The refresh token replaced last (0007): accepted for FERRY_REFRESH_REUSE_GRACE after rotated_at, then a reuse. */
  prev_refresh_hash: D<string | null>;
  rotated_at: D<number | null>;
  /** The pair issued at rotated_at, sealed with a key derived from the previous refresh token. */
  grace_box: D<string | null>;
}

/** Hashes of refresh tokens a rotation replaced, until the session's refresh lifetime ends: presenting one revokes the session. */
export interface RetiredRefreshTokensTable {
  token_hash: string;
  session_id: string;
  expires_at: number;
}

export interface LoginCountersTable {
  key: string;
  window_start: number;
  failures: number;
  locked_until: number;
}

export interface NoticesTable {
  id: Generated<number>;
  title: string;
  content: string;
  channel: number;
  created_at: number;
  /** 1 on the users' notification page (0: e-mail only). */
  by_website: Generated<number>;
  /** 1 also by e-mail to each receiver with an address. */
  by_email: Generated<number>;
}

export interface NoticeReceiptsTable {
  notice_id: number;
  user_id: number;
  is_showed: number;
  /** NOTICE_MAIL_STATUS of contract/notifications.ts: 0 not by mail, 1 queued, 2 sent, 3 failed, 4 no address. */
  mail_status: Generated<number>;
  /** The mail server's answer (or the connection error) of a failed mail. */
  mail_error: Generated<string>;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** A desktop client's socket while it is online; `expires_at` is pushed forward by its instance's heartbeat. */
export interface ClientSocketsTable {
  id: string;
  instance: string;
  user_id: number;
  version: string;
  created_at: number;
  expires_at: number;
  /** The session whose socket token the client logged in with (0013); "" for rows from before. */
  session_id: D<string>;
  /** The address the client's socket comes from (0013). */
  address: D<string>;
}

/** Content hash of a stored file while its size and mtime (unix seconds) are unchanged; see server/files/hashes.ts. */
export interface FileHashesTable {
  space_key: string;
  path_key: string;
  path: string;
  size: number;
  mtime: number;
  hash: string;
}

/** A share link (kind 1) or upload invitation (kind 0); see server/shares/. Times are unix ms; expire_at 0 = never. */
export interface ShareLinksTable {
  id: string;
  owner_id: number;
  kind: number;
  src_type: number;
  server_path: string;
  base_url: string;
  name_key: string;
  need_password: D<number>;
  /** Empty: share passwords are kept sealed in password_enc (links made before 0009 are sealed at start). */
  password: D<string>;
  /** AES-256-GCM under a key derived from the engine secret, bound to the link id; "" when the link has no password. */
  password_enc: D<string>;
  allow_download: D<number>;
  expire_at: D<number>;
  /** 1 normal, 3 cancelled; "expired" is computed from expire_at. */
  status: D<number>;
  bind_switch: D<number>;
  bound_device: D<string>;
  /** Invitations: 1 lets visitors see the folder's contents; 0 (default) is a file drop (see share_visitor_uploads). */
  show_contents: D<number>;
  notify_email: D<number>;
  share_email: string;
  email_content: D<string | null>;
  email_language: D<number>;
  created_at: number;
  cancelled_at: D<number | null>;
  /** Disabled by the administrator at (unix ms), 0 when not: visitors are refused with 1055 (LinkDisabled). */
  disabled_at: D<number>;
}

export interface ShareItemsTable {
  link_id: string;
  position: number;
  path: string;
  name: string;
  alias: D<string>;
  is_folder: D<number>;
}

/** Visitors' share tokens; only their SHA-256 is stored. */
export interface ShareTokensTable {
  token_hash: string;
  link_id: string;
  fingerprint: D<string>;
  client_ip: D<string>;
  created_at: number;
  expires_at: number;
}

/** What a visitor of a file-drop invitation put there, per share token (the visit): the only entries that visit lists. */
export interface ShareVisitorUploadsTable {
  id: Generated<number>;
  token_hash: string;
  /** Full path in the owner's personal space of a committed file or a folder the visitor made. */
  path: string;
  created_at: number;
}

export interface ShareDownloadsTable {
  id: Generated<number>;
  link_id: string;
  client_ip: D<string>;
  /** JSON array of the paths the visitor downloaded. */
  files: string;
  created_at: number;
  /** Bytes served: the file's size, or the zip's entries added up (0 for rows before migration 0017). */
  bytes: D<number>;
}

/** An SMTP sender account (server/mail/store.ts); `password_enc` is AES-256-GCM ciphertext. */
export interface SmtpAccountsTable {
  owner: string;
  user_id: number | null;
  from_name: string;
  provider: number;
  account: string;
  password_enc: string;
  host: string;
  port: number;
  encryption: number;
  updated_at: number;
}

/** Bytes an upload in progress holds in its space's quota (server/files/quota.ts), until it ends or expires. */
export interface UploadReservationsTable {
  upload_id: string;
  /** "user:<id>" or "group:<id>", as Space.key. */
  space_key: string;
  bytes: number;
  created_at: number;
  expires_at: number;
}

/** One action of a user, a visitor or the administrator (0015; server/logs/). Times are unix ms. */
export interface OperationLogTable {
  id: Generated<number>;
  at: number;
  /** null for a share-link visitor or a failed sign-in of an unknown account. */
  user_id: number | null;
  account: D<string>;
  account_type: D<number>;
  /** "user" | "admin" | "visitor" */
  role: D<string>;
  address: D<string>;
  /** signin, signin_failed, signout, upload, download, delete, rename, move, copy, mkdir, share_create, … (contract/logs.ts) */
  kind: string;
  target: D<string>;
  detail: D<string>;
  /** "ok" | "failed" */
  result: D<string>;
  /** The catalogue's code of a failure; 0 when ok. */
  code: D<number>;
}

/** One finished (or broken-off) transfer (0015; server/logs/); the statistics read these. */
export interface TransferLogTable {
  id: Generated<number>;
  /** When it finished, unix ms. */
  at: number;
  user_id: number | null;
  account: D<string>;
  /** The group space it was in; null for the personal space. */
  group_id: number | null;
  /** "upload" | "download" */
  direction: string;
  bytes: D<number>;
  files: D<number>;
  duration_ms: D<number>;
  /** "ok" | "failed" | "stopped" */
  result: D<string>;
  /** "web" | "client" | "share" | "zip" | "tus" | "p2p" */
  via: D<string>;
  path: D<string>;
  address: D<string>;
  /** The share link (share_links.id, a UUID) of a visitor's transfer; null otherwise. */
  share_id: string | null;
}

/** The administrator's storages (0018; server/storage/admin/). */
export interface StoragesTable {
  id: Generated<number>;
  name: string;
  name_key: string;
  /** contract/storage.ts STORAGE_PROVIDERS. */
  provider: string;
  /** JSON of the non-secret fields; a local storage's empty path is the engine's storage root. */
  config: D<string>;
  /** The credentials as JSON, sealed (SecretBox "storage", context "storage:<id>"); "" when none. */
  sealed: D<string>;
  is_default: D<number>;
  clean_by: D<string>;
  clean_age: D<string>;
  recycle_path: D<string>;
  created_at: number;
  updated_at: number;
}

export interface Database {
  storages: StoragesTable;
  operation_log: OperationLogTable;
  transfer_log: TransferLogTable;
  users: UsersTable;
  user_groups: GroupsTable;
  group_members: GroupMembersTable;
  sessions: SessionsTable;
  retired_refresh_tokens: RetiredRefreshTokensTable;
  login_counters: LoginCountersTable;
  notices: NoticesTable;
  notice_receipts: NoticeReceiptsTable;
  settings: SettingsTable;
  file_hashes: FileHashesTable;
  client_sockets: ClientSocketsTable;
  share_links: ShareLinksTable;
  share_items: ShareItemsTable;
  share_tokens: ShareTokensTable;
  share_downloads: ShareDownloadsTable;
  share_visitor_uploads: ShareVisitorUploadsTable;
  smtp_accounts: SmtpAccountsTable;
  upload_reservations: UploadReservationsTable;
}
