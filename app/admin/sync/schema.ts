import * as z from "zod";
import { SYNC_MIN_INTERVAL_SECONDS, SYNC_UNITS, SYNC_UPDATE_MODES } from "../../../contract/sync";

/** The skip size is typed in MB (2^20 bytes); the engine keeps bytes. */
export const MB = 2 ** 20;
export const FREQUENCY_KINDS = ["manual", "interval", "daily", "once"] as const;
const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600 } as const;

const path = z.string().trim().min(1).max(1024).regex(/^\//, "admin.sync.form.path");
const on = z.literal("on").optional();

/**
 * The add / edit form of a sync task, shared by conform (the browser) and the action; the engine
 * checks it again with contract/sync.ts. `onceAt` is a datetime-local value on the reader's clock.
 */
export const syncFormSchema = z
  .object({
    intent: z.literal("save"),
    id: z.coerce.number().int().positive().optional(),
    name: z.string().trim().min(1).max(64),
    sourceStorage: z.coerce.number().int().positive(),
    sourcePath: path,
    targetStorage: z.coerce.number().int().positive(),
    targetPath: path,
    frequencyKind: z.enum(FREQUENCY_KINDS),
    every: z.coerce.number().int().min(1).max(1_000_000).optional(),
    unit: z.enum(SYNC_UNITS).default("minutes"),
    dailyAt: z.string().optional(),
    onceAt: z.string().max(32).optional(),
    updateMode: z.enum(SYNC_UPDATE_MODES),
    keepMtime: on,
    onlyTopLevel: on,
    deleteTarget: on,
    deleteSource: on,
    twoWay: on,
    filters: z.string().max(1024).default(""),
    skipOverSizeMb: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  })
  .superRefine((v, ctx) => {
    if (v.frequencyKind === "interval" && (v.every === undefined || v.every * UNIT_SECONDS[v.unit] < SYNC_MIN_INTERVAL_SECONDS)) ctx.addIssue({ code: "custom", path: ["every"], message: "admin.sync.form.every" });
    if (v.frequencyKind === "daily" && !/^([01]\d|2[0-3]):[0-5]\d$/.test(v.dailyAt ?? "")) ctx.addIssue({ code: "custom", path: ["dailyAt"], message: "admin.sync.form.time" });
    if (v.frequencyKind === "once" && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v.onceAt ?? "")) ctx.addIssue({ code: "custom", path: ["onceAt"], message: "admin.sync.form.once" });
  });
export type SyncForm = z.output<typeof syncFormSchema>;

export const deleteSchema = z.object({ intent: z.literal("delete"), id: z.coerce.number().int().positive(), confirmed: z.literal("1").optional() });
export const taskIntentSchema = z.object({ intent: z.enum(["run", "stop"]), id: z.coerce.number().int().positive() });

/** The list's query a page without JavaScript goes back to: `?…` or empty. */
export const backSchema = z.string().max(512).regex(/^(\?.*)?$/).catch("");
