import * as z from "zod";
import { PERIOD_HOURS_MAX, PERIOD_HOURS_MIN } from "../../../contract/statistics";

/** The statistics period form (one field); `back` is the page's query to come back to. */
export const periodFormSchema = z.object({
  intent: z.literal("period"),
  periodHours: z.coerce.number({ error: "admin.statistics.period.hint" }).int("admin.statistics.period.hint").min(PERIOD_HOURS_MIN, "admin.statistics.period.hint").max(PERIOD_HOURS_MAX, "admin.statistics.period.hint"),
  back: z
    .string()
    .max(2000)
    .regex(/^(\?[^#\\\r\n]*)?$/)
    .default(""),
});
