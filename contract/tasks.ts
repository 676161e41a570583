import * as z from "zod";

/**
 * The console's General tasks screen (admin spec section 2 "Transfer: General tasks", section 4
 * "General task status: idle, in transfer"; docs/admin-api.md, "Transfer tasks"): the transfers in
 * progress on this engine instance, a stop, the total throughput of the last minutes, and the
 * transfer log with its detail.
 */

export const TASK_DIRECTIONS = ["upload", "download"] as const;
export const TASK_VIA = ["web", "client", "share"] as const;

export const liveTask = z.object({
  id: z.string().describe("This transfer's id while it is live (a UUID)."),
  direction: z.enum(TASK_DIRECTIONS),
  status: z.enum(["transferring", "idle"]).describe("transferring: a connection is moving its bytes; idle: between two requests of the same transfer (it leaves the list a few seconds later)."),
  userId: z.number().int().nullable().describe("The user; null for a share-link visitor."),
  account: z.string().describe("The user's account; empty for a share-link visitor."),
  shareId: z.string().nullable().describe("The share link a visitor uses; null otherwise."),
  shareOwner: z.string().describe("The share link owner's account (a visitor's transfer); empty otherwise."),
  groupId: z.number().int().describe("0 the personal space, else the group space's id."),
  path: z.string().describe("The file (or, for a zip, the items) as the user names it."),
  total: z.number().int().nullable().describe("Bytes the transfer carries when known (the file's size, a zip's files added up)."),
  bytes: z.number().int().describe("Bytes moved so far (an upload: stored before this transfer began plus received since)."),
  speed: z.number().describe("Bytes per second over the last few seconds."),
  address: z.string().describe("The client's address as the engine reads it."),
  via: z.enum(TASK_VIA),
  zip: z.boolean(),
  connections: z.number().int().describe("Connections (requests) carrying its bytes now."),
  startedAt: z.number().int().describe("Unix ms."),
});
export type LiveTask = z.infer<typeof liveTask>;

export const taskListQuery = z
  .object({
    search: z.string().max(200).optional().describe("Part of the account, the file path, the address or the share link (no case)."),
    direction: z.enum(TASK_DIRECTIONS).optional(),
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type TaskListQuery = z.infer<typeof taskListQuery>;

export const taskTotals = z.object({
  uploads: z.number().int(),
  downloads: z.number().int(),
  uploadSpeed: z.number().describe("Bytes per second, all uploads."),
  downloadSpeed: z.number().describe("Bytes per second, all downloads."),
});
export const taskPage = z.object({ list: z.array(liveTask), total: z.number().int(), size: z.number().int(), current: z.number().int(), totals: taskTotals });
export type TaskPage = z.infer<typeof taskPage>;

export const throughputPoint = z.object({ t: z.number().int().describe("Unix ms of the second's end."), upload: z.number(), download: z.number() });
export const taskThroughput = z.object({
  intervalMs: z.number().int(),
  windowMs: z.number().int(),
  points: z.array(throughputPoint).describe("Bytes per second of all transfers, oldest first, one per interval."),
});
export type TaskThroughput = z.infer<typeof taskThroughput>;

export const taskParams = z.object({ id: z.string().uuid() }).strict();

/** The transfer log (table transfer_log): one row per finished, failed or stopped upload or download. */
export const TRANSFER_RESULTS = ["ok", "failed", "stopped"] as const;
export const TRANSFER_LOG_VIA = ["web", "client", "share", "zip", "tus", "p2p"] as const;

export const transferLogQuery = z
  .object({
    user: z.string().max(64).optional().describe("Account, no case, exact."),
    text: z.string().max(200).optional().describe("Part of the account, path or address (no case)."),
    direction: z.enum(TASK_DIRECTIONS).optional(),
    result: z.enum(TRANSFER_RESULTS).optional(),
    from: z.coerce.number().int().min(0).max(8_640_000_000_000).optional().describe("Unix ms, inclusive."),
    to: z.coerce.number().int().min(0).max(8_640_000_000_000).optional().describe("Unix ms, exclusive."),
    order: z.enum(["asc", "desc"]).default("desc"),
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type TransferLogQuery = z.infer<typeof transferLogQuery>;

export const transferLogEntry = z.object({
  id: z.number().int(),
  at: z.number().int().describe("Unix ms: when it ended."),
  userId: z.number().int().nullable(),
  account: z.string(),
  groupId: z.number().int().describe("0 the personal space."),
  direction: z.enum(TASK_DIRECTIONS),
  bytes: z.number().int(),
  files: z.number().int(),
  durationMs: z.number().int(),
  result: z.enum(TRANSFER_RESULTS),
  via: z.string(),
  path: z.string(),
  address: z.string(),
  shareId: z.string().nullable(),
});
export type TransferLogEntry = z.infer<typeof transferLogEntry>;
export const transferLogPage = z.object({ list: z.array(transferLogEntry), total: z.number().int(), size: z.number().int(), current: z.number().int() });
export type TransferLogPage = z.infer<typeof transferLogPage>;

export const transferLogDetail = transferLogEntry.extend({
  startedAt: z.number().int().describe("Unix ms: at minus the duration."),
  averageSpeed: z.number().describe("Bytes per second over the whole duration (0 when it took no time)."),
  groupName: z.string().nullable().describe("The group space's name; null for the personal space or a deleted group."),
  shareOwner: z.string().nullable().describe("The share link's owner (a visitor's transfer), when the link still exists."),
  operations: z
    .array(z.object({ id: z.number().int(), at: z.number().int(), kind: z.string(), target: z.string(), detail: z.string(), result: z.string(), code: z.number().int() }))
    .describe("Operation-log rows of the same user (or visitor address) and path within the transfer's time."),
});
export type TransferLogDetail = z.infer<typeof transferLogDetail>;
export const transferLogParams = z.object({ id: z.coerce.number().int().positive() }).strict();
