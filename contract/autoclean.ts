import * as z from "zod";
import { CLEAN_AGES } from "./storage";

/**
 * Auto-clean of a local storage (admin spec section 3, Storage; docs/storage.md "Auto-clean";
 * docs/admin-api.md "Storages: auto-clean"): run now, a dry run that lists what a run would do, and
 * the last runs.
 */


export const autoCleanParams = z.object({ id: z.coerce.number().int().positive() }).strict();

export const autoCleanRunBody = z
  .object({
    dryRun: z.boolean().default(false).describe("true: walk and decide as a run would, change nothing, answer the list."),
    cleanBy: z.enum(["accessed", "modified"]).optional().describe("Dry run only: try this instead of the saved setting (the form's unsaved value)."),
    cleanAge: z.enum(CLEAN_AGES).optional().describe("Dry run only: try this age instead of the saved one."),
    recyclePath: z.string().max(1024).optional().describe("Dry run only: try this recycle path instead of the saved one (empty: delete)."),
  })
  .strict();
export type AutoCleanRunBody = z.infer<typeof autoCleanRunBody>;

export const autoCleanItem = z.object({
  path: z.string().describe("The file, below the storage's root."),
  size: z.number().int(),
  time: z.number().int().describe("What the storage cleans by: by accessed the latest of its last access, modification and change (ctime); by modified the later of its last modification and change; unix ms."),
  action: z.enum(["recycle", "delete"]),
  to: z.string().optional().describe("recycle: where it went (or would go) in the recycle path; a taken name gets \" (n)\"."),
});
export type AutoCleanItem = z.infer<typeof autoCleanItem>;

const counts = {
  moved: z.number().int().describe("Files moved into the recycle path (dry run: that would be)."),
  deleted: z.number().int().describe("Files deleted (dry run: that would be)."),
  skippedInUse: z.number().int().describe("Old enough but open by a download or an upload: left for a later run."),
  skippedChanged: z.number().int().describe("Old enough when walked but used or replaced just before the move: left."),
  bytes: z.number().int().describe("Bytes of the files moved or deleted."),
  errors: z.array(z.object({ path: z.string(), code: z.number().int(), message: z.string() })).describe("Files that could not be moved or deleted, and folders that could not be read; message keeps why and where (an errno with its text, or an error name with its reason and path)."),
  truncated: z.boolean().describe("The run stopped at a bound (files per run, walk limits) or at shutdown; the next run goes on."),
};

export const autoCleanRun = z.object({
  id: z.string().describe("The run's id (a UUID)."),
  storageId: z.number().int(),
  trigger: z.enum(["schedule", "admin"]),
  dryRun: z.boolean(),
  cleanBy: z.enum(["accessed", "modified"]),
  cleanAge: z.enum(CLEAN_AGES),
  recyclePath: z.string().describe("Empty: files were deleted."),
  startedAt: z.number().int(),
  finishedAt: z.number().int(),
  ...counts,
  failed: z.string().optional().describe("The whole run failed (the storage's folder is gone: StoragePathLost)."),
});
export type AutoCleanRun = z.infer<typeof autoCleanRun>;

export const autoCleanReport = autoCleanRun.extend({ items: z.array(autoCleanItem).describe("Every file moved or deleted, in walk order (dry run: every file a run would take).") });
export type AutoCleanReport = z.infer<typeof autoCleanReport>;

export const autoCleanRuns = z.object({
  running: z.boolean().describe("A run of this storage is going now."),
  nextRunAt: z.number().int().nullable().describe("When the schedule runs it next (unix ms); null when its auto-clean is off."),
  list: z.array(autoCleanRun).describe("The last runs of this engine process, newest first (the operation log keeps every run)."),
});
export type AutoCleanRuns = z.infer<typeof autoCleanRuns>;
