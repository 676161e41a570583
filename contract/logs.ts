import * as z from "zod";

/**
 * The administrator's logs (docs/admin-api.md, "Logs"): the operation log (every sign-in, transfer,
 * file change, share and admin change, with who, from where and the result), its retention, and the
 * preview log (who previews what now, with a stop).
 */

/** What an operation-log entry records; the console's kind filter lists these. */
export const OPERATION_KINDS = [
  "signin",
  "signin_failed",
  "signout",
  "password_change",
  "upload",
  "download",
  "delete",
  "rename",
  "move",
  "copy",
  "mkdir",
  "preview",
  "share_create",
  "share_cancel",
  "share_delete",
  "share_unbind",
  "share_download",
  "invitation_use",
  "admin_change",
  "setting_change",
  "autoclean_recycle",
  "autoclean_delete",
  "autoclean_run",
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export const LOG_DAYS_MIN = 1;
export const LOG_DAYS_MAX = 3650;
const days = (what: string) =>
  z.number().int().min(LOG_DAYS_MIN).max(LOG_DAYS_MAX).describe(`Days ${what} are kept (${LOG_DAYS_MIN}–${LOG_DAYS_MAX}); older rows are deleted by the engine's sweep.`);

/** The "logs" settings group (spec section 3, Settings groups: retention days for transfer and operation logs). */
export const logSettings = z.object({
  transferLogDays: days("transfer-log rows (the statistics' source)"),
  operationLogDays: days("operation-log rows"),
});
export type LogSettings = z.infer<typeof logSettings>;
export const LOG_DEFAULTS: LogSettings = { transferLogDays: 180, operationLogDays: 180 };
export const logSettingsBody = logSettings.partial().strict();

/** The most rows one CSV export writes; a last line says when it stopped there. */
export const LOG_CSV_MAX_ROWS = 100_000;
export const LOG_TEXT_MAX = 200;

const unixMs = z.coerce.number().int().min(0).max(8_640_000_000_000);

/** The filters the list and the CSV export share. */
export const operationLogFilter = z.object({
  user: z.string().max(64).optional().describe("Account, case-insensitive, exact."),
  kind: z.enum(OPERATION_KINDS).optional(),
  from: unixMs.optional().describe("Unix ms, inclusive."),
  to: unixMs.optional().describe("Unix ms, exclusive."),
  text: z.string().max(LOG_TEXT_MAX).optional().describe("Found in the account, target, detail or address (case-insensitive on SQLite and MariaDB; PostgreSQL: case-insensitive too)."),
  result: z.enum(["ok", "failed"]).optional(),
});

export const operationLogQuery = operationLogFilter
  .extend({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    order: z.enum(["asc", "desc"]).default("desc").describe("By time: desc (newest first, default) or asc."),
  })
  .strict();
export type OperationLogQuery = z.infer<typeof operationLogQuery>;

export const operationLogExportQuery = operationLogFilter.extend({ order: z.enum(["asc", "desc"]).default("desc") }).strict();

export const operationLogEntry = z.object({
  id: z.number().int(),
  at: z.number().int().describe("Unix ms."),
  userId: z.number().int().nullable().describe("null for a share-link visitor or an unknown account's failed sign-in."),
  account: z.string(),
  accountType: z.number().int(),
  role: z.enum(["user", "admin", "visitor"]),
  address: z.string(),
  kind: z.string(),
  target: z.string(),
  detail: z.string(),
  result: z.enum(["ok", "failed"]),
  code: z.number().int().describe("The catalogue's code of a failure; 0 when ok."),
});
export type OperationLogEntry = z.infer<typeof operationLogEntry>;
export const operationLogPage = z.object({ list: z.array(operationLogEntry), total: z.number().int(), size: z.number().int(), current: z.number().int() });
export type OperationLogPage = z.infer<typeof operationLogPage>;

export const livePreview = z.object({
  id: z.string(),
  userId: z.number().int(),
  account: z.string(),
  groupId: z.number().int().describe("0 the personal space, else the group space's id."),
  path: z.string(),
  address: z.string(),
  startedAt: z.number().int().describe("Unix ms: first opened."),
  expiresAt: z.number().int().describe("Unix ms: its signed URL stops working then and it leaves the list."),
  streaming: z.number().int().describe("Responses sending its bytes now."),
});
export type LivePreview = z.infer<typeof livePreview>;
export const livePreviewList = z.object({ list: z.array(livePreview) });
export const previewParams = z.object({ id: z.string().uuid() }).strict();
