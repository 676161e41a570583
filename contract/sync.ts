import * as z from "zod";
import { listQuery } from "./admin";

/**
 * Sync tasks (admin document, section 3 "Sync task", section 4 "Sync task status" and "Sync
 * frequency"; docs/sync.md): server-side jobs that copy files from one folder of a storage to a
 * folder of the same or another storage, on a schedule or on demand. Ferry's own REST design
 * (docs/admin-api.md, "Sync tasks").
 */

/**
 * The statuses of the spec that a server-side sync can be in. The spec's others (authentication
 * failed, IP locked, stopped by peer, send failed, account locked) belong to a client's sync
 * against a server and never occur here (docs/sync.md, "Statuses").
 */
export const SYNC_STATUSES = [
  "not_set",
  "idle",
  "in_queue",
  "activated",
  "stopping",
  "stopped",
  "stopped_by_server",
  "succeed",
  "failed",
  "insufficient_permission",
  "connect_failed",
  "server_connection_failed",
] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];
/** A run's outcome (sync_runs.status): also "activated" / "stopping" while it runs. */
export const SYNC_RUNNING: readonly SyncStatus[] = ["in_queue", "activated", "stopping"];

export const SYNC_UNITS = ["seconds", "minutes", "hours"] as const;
/** The shortest interval a task may run at (seconds), so a task cannot keep the engine busy. */
export const SYNC_MIN_INTERVAL_SECONDS = 10;

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "HH:MM, 00:00 to 23:59");

/** When a task runs by itself. `daily` is in the engine's time zone (FERRY_TIME_ZONE); `once` at a unix time in seconds. */
export const syncFrequency = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("manual") }).strict(),
    z
      .object({ kind: z.literal("interval"), every: z.number().int().min(1).max(1_000_000), unit: z.enum(SYNC_UNITS) })
      .strict()
      .refine((f) => f.every * (f.unit === "hours" ? 3600 : f.unit === "minutes" ? 60 : 1) >= SYNC_MIN_INTERVAL_SECONDS, {
        message: `at least ${SYNC_MIN_INTERVAL_SECONDS} seconds`,
        path: ["every"],
      }),
    z.object({ kind: z.literal("daily"), at: hhmm }).strict(),
    z.object({ kind: z.literal("once"), at: z.number().int().min(0).describe("Unix seconds.") }).strict(),
  ])
  .describe("manual: only Run now; interval: every N seconds (at least 10), minutes or hours after the last run started; daily at HH:MM in the engine's time zone; once at a unix time (seconds).");
export type SyncFrequency = z.infer<typeof syncFrequency>;

/** A folder of one of the administrator's storages. */
export const syncLocation = z
  .object({
    storageId: z.number().int().min(1).describe("The storage (storages.id; 1 is the built-in local storage, the engine's storage root)."),
    path: z
      .string()
      .min(1)
      .max(1024)
      .describe("A folder inside the storage, like /exports; confined to the storage's root (1066 when it tries to leave it)."),
  })
  .strict();
export type SyncLocation = z.infer<typeof syncLocation>;

export const SYNC_UPDATE_MODES = ["overwrite", "append"] as const;

export const syncOptions = z
  .object({
    keepMtime: z.boolean().describe("The target file gets the source's modified time (where the storage can set it: local yes, S3 no)."),
    onlyTopLevel: z.boolean().describe("Only the files directly in the source folder; subfolders are left out."),
    deleteTargetWhenSourceDeleted: z.boolean().describe("A file the last run synced and that is gone from the source now is deleted from the target (two-way: from the other side)."),
    deleteSourceAfterSync: z.boolean().describe("Each source file is deleted once it is at the target (one-way only)."),
    twoWay: z.boolean().describe("Both sides are sources: the newer file wins."),
  })
  .strict();
export type SyncOptions = z.infer<typeof syncOptions>;

const taskName = z.string().trim().min(1).max(64);
const filters = z
  .string()
  .max(1024)
  .describe("Skip patterns separated by ';', wildcards * and ? (as a user's transfer filter: a pattern with '/' matches the path from the task's folder).");

const syncSettings = {
  name: taskName,
  source: syncLocation,
  target: syncLocation,
  frequency: syncFrequency,
  updateMode: z.enum(SYNC_UPDATE_MODES).describe("overwrite: a changed file replaces the other side's; append: only files missing at the target are copied, an existing file is never replaced."),
  options: syncOptions,
  filters,
  skipOverSize: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe("Bytes; files larger are skipped. 0: no limit."),
};

export const createSyncTaskBody = z
  .object({
    ...syncSettings,
    updateMode: syncSettings.updateMode.default("overwrite"),
    options: syncOptions.partial().default({}),
    filters: filters.default(""),
    skipOverSize: syncSettings.skipOverSize.default(0),
  })
  .strict();
export type CreateSyncTaskBody = z.infer<typeof createSyncTaskBody>;
export const updateSyncTaskBody = z
  .object({ ...syncSettings, options: syncOptions.partial() })
  .partial()
  .strict();
export type UpdateSyncTaskBody = z.infer<typeof updateSyncTaskBody>;

export const syncRunCounts = z.object({
  filesCopied: z.number().int(),
  filesDeleted: z.number().int(),
  filesSkipped: z.number().int(),
  bytes: z.number().int().describe("Bytes copied."),
});

export const syncRun = z.object({
  id: z.number().int(),
  taskId: z.number().int(),
  startedAt: z.number().int().describe("Unix ms."),
  endedAt: z.number().int().nullable().describe("Unix ms; null while it runs."),
  status: z.enum(SYNC_STATUSES),
  trigger: z.enum(["manual", "schedule"]),
  ...syncRunCounts.shape,
  errorCode: z.number().int().describe("The catalogue code of the failure; 0 when none."),
  errorPath: z.string().describe("The file or folder the failure was met at, relative to the task's folder; empty when none."),
});
export type SyncRun = z.infer<typeof syncRun>;

export const syncTask = z.object({
  id: z.number().int(),
  ...syncSettings,
  status: z.enum(SYNC_STATUSES),
  createTime: z.number().int().describe("Unix ms."),
  nextRunAt: z.number().int().nullable().describe("Unix ms of the next scheduled run; null for manual, a past once, or while it runs."),
  lastRun: syncRun.nullable(),
  /** Progress of the run in progress (copied so far), null when none runs. */
  progress: syncRunCounts.nullable(),
});
export type SyncTask = z.infer<typeof syncTask>;

export const syncListQuery = listQuery;
export const syncRunsQuery = listQuery.omit({ search: true }).strict();
