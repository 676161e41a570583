import * as z from "zod";
import { CLOCK_TIME, MAX_SPEED_KB, minutesOf, SPEED_REPEATS } from "../../../contract/settings";

/**
 * The General and Transfer protocol forms (routes/admin.settings.general.tsx, admin.settings.protocol.tsx):
 * one zod schema per form, used by conform in the browser and by the action; messages are keys of
 * app/i18n/messages/admin-settings.ts. The engine checks the same rules again (contract/settings.ts).
 */
const onOff = z.literal("on").optional();
const whole = (message: string, min: number, max: number) => z.number({ error: message }).int(message).min(min, message).max(max, message);

export const SPEED_UNITS = { KB: 1, MB: 1024 } as const;
const unit = z.enum(["KB", "MB"]).default("KB");

export const commonFormSchema = z.object({
  intent: z.literal("common"),
  bindFirstDevice: onOff,
  eventNotifications: onOff,
  userSpaceStatistics: onOff,
  groupSpaceStatistics: onOff,
  watermark: onOff,
  // Disabled (not posted) outside the enterprise edition: the stored values stay.
  watermarkPosition: z.coerce.number().int().min(1).max(9).optional(),
  watermarkOpacity: z.coerce.number({ error: "admin.settings.error.watermark-opacity" }).int("admin.settings.error.watermark-opacity").min(10, "admin.settings.error.watermark-opacity").max(100, "admin.settings.error.watermark-opacity").optional(),
});

export const securityFormSchema = z.object({
  intent: z.literal("security"),
  lockTimes: whole("admin.settings.error.lock-times", 3, 30),
  lockMinutes: whole("admin.settings.error.lock-minutes", 1, 1440),
  allowUserSetPassword: onOff,
  weakPasswords: z.string().max(64_000).optional().default(""),
  fileFormatMode: z.enum(["0", "1", "2"]),
  fileFormats: z.string().max(254, "admin.settings.error.formats-long").optional().default(""),
});

export const transferFormSchema = z.object({
  intent: z.literal("transfer"),
  maxUploadSpeed: whole("admin.settings.error.speed", 0, MAX_SPEED_KB),
  maxUploadUnit: unit,
  maxDownloadSpeed: whole("admin.settings.error.speed", 0, MAX_SPEED_KB),
  maxDownloadUnit: unit,
  clientPromptMB: whole("admin.settings.error.whole", 0, 100 * 1024 * 1024),
  sizeLimitMB: whole("admin.settings.error.size-limit", 1, 100 * 1024 * 1024),
});

const time = z.string({ error: "admin.settings.error.time" }).regex(CLOCK_TIME, "admin.settings.error.time");
export const periodFormSchema = z
  .object({
    intent: z.literal("period"),
    /** The period's number in the list (edit), or absent (add). */
    index: z.number().int().min(0).optional(),
    start: time,
    end: time,
    repeat: z.enum(SPEED_REPEATS),
    uploadSpeed: whole("admin.settings.error.speed", 0, MAX_SPEED_KB),
    uploadUnit: unit,
    downloadSpeed: whole("admin.settings.error.speed", 0, MAX_SPEED_KB),
    downloadUnit: unit,
  })
  .refine((v) => !CLOCK_TIME.test(v.start) || !CLOCK_TIME.test(v.end) || minutesOf(v.end) > minutesOf(v.start), { path: ["end"], message: "admin.settings.period.end-after-start" });

export const deletePeriodSchema = z.object({ intent: z.literal("delete-period"), index: z.coerce.number().int().min(0) });

export const protocolFormSchema = z.object({
  intent: z.literal("protocol"),
  cHashVerifySwitch: onOff,
  parallelUploads: whole("admin.settings.error.parallel", 1, 10),
  uploadPartMB: whole("admin.settings.error.part", 0, 4096),
});

/** KB/s of a speed typed in `unit`, capped to what the engine takes. */
export const toKB = (value: number, u: keyof typeof SPEED_UNITS) => Math.min(MAX_SPEED_KB, value * SPEED_UNITS[u]);
/** A stored KB/s as the number and unit the form shows: MB when it is a whole number of MB. */
export const speedField = (kb: number): { value: number; unit: keyof typeof SPEED_UNITS } => (kb > 0 && kb % 1024 === 0 ? { value: kb / 1024, unit: "MB" } : { value: kb, unit: "KB" });
