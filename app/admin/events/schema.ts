import * as z from "zod";
import {
  EVENT_COMMAND_LINE_MAX,
  EVENT_EXECUTABLE_MAX,
  EVENT_NAME_MAX,
  EVENT_OPERATIONS,
  EVENT_REMARK_MAX,
  EVENT_STATUSES,
  EVENT_TYPES,
  EVENT_WAIT_MAX,
  EVENT_WAIT_MIN,
  tokenizeCommandLine,
} from "../../../contract/events";

/**
 * The add / edit form, shared by the dialog (conform) and the action. The command line is split by
 * the engine's own tokenizer here too, so a bad one is named before it is sent (the same 4602 text).
 */
export const eventFormSchema = z.object({
  intent: z.literal("save"),
  id: z.coerce.number().int().positive().optional(),
  name: z.string().trim().min(1).max(EVENT_NAME_MAX),
  type: z.enum(EVENT_TYPES),
  operation: z.enum(EVENT_OPERATIONS),
  status: z.enum(EVENT_STATUSES),
  executable: z
    .string()
    .trim()
    .min(1)
    .max(EVENT_EXECUTABLE_MAX)
    .refine((p) => p.startsWith("/"), { message: "error.4601" }),
  commandLine: z
    .string()
    .max(EVENT_COMMAND_LINE_MAX)
    .optional()
    .transform((v) => v ?? "")
    .refine((v) => !("error" in tokenizeCommandLine(v)), { message: "error.4602" }),
  waitSeconds: z.coerce.number().int().min(EVENT_WAIT_MIN).max(EVENT_WAIT_MAX),
  remark: z
    .string()
    .max(EVENT_REMARK_MAX)
    .optional()
    .transform((v) => v ?? ""),
});
export type EventForm = z.output<typeof eventFormSchema>;

const id = z.coerce.number().int().positive();
export const deleteSchema = z.object({ intent: z.literal("delete"), id, confirmed: z.literal("1").optional() });
export const statusSchema = z.object({ intent: z.literal("status"), id, status: z.enum(EVENT_STATUSES) });
export const testSchema = z.object({ intent: z.literal("test"), id });

/** The list's query (q, page, size, runs) a page without JavaScript goes back to: `?…` or empty. */
export const backSchema = z.string().max(512).regex(/^(\?.*)?$/).catch("");
