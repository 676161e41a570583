import * as z from "zod";

/**
 * The administrator's transfer statistics (docs/admin-api.md, "Statistics"): upload and download
 * volume and counts from the transfer log, per user, per group space and per day of the reader's
 * time zone, over a range the administrator picks (by default the last `periodHours`).
 */

export const HOUR_MS = 3_600_000;
/** The longest range the engine sums over (days of a year and a day more for a leap year's zone shift). */
export const STATISTICS_MAX_RANGE_MS = 367 * 24 * HOUR_MS;
/** The statistics period's bounds, in hours: one hour to a year. */
export const PERIOD_HOURS_MIN = 1;
export const PERIOD_HOURS_MAX = 366 * 24;
/** The most rows one CSV export writes; the last line says when it stopped there. */
export const STATISTICS_CSV_MAX_ROWS = 100_000;

/** The statistics settings group (spec: "Statistics period in hours"). */
export const statisticsSettings = z.object({
  periodHours: z
    .number()
    .int()
    .min(PERIOD_HOURS_MIN)
    .max(PERIOD_HOURS_MAX)
    .describe(`The statistics period in hours (${PERIOD_HOURS_MIN}–${PERIOD_HOURS_MAX}): the range summed when a request names none, and the console's default range.`),
});
export type StatisticsSettings = z.infer<typeof statisticsSettings>;
export const STATISTICS_DEFAULTS: StatisticsSettings = { periodHours: 7 * 24 };
export const statisticsSettingsBody = statisticsSettings.partial().strict();

/** An IANA time zone this runtime knows (Asia/Shanghai, UTC), else null. */
export function knownZone(name: string): string | null {
  if (!name || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const STATISTICS_GROUP_BY = ["user", "group", "day"] as const;
export type StatisticsGroupBy = (typeof STATISTICS_GROUP_BY)[number];
export const STATISTICS_DIRECTIONS = ["upload", "download"] as const;
/** What a per-user or per-group list sorts by: its name, or a sum. */
export const STATISTICS_ORDER_BY = ["name", "uploadBytes", "downloadBytes", "totalBytes", "uploads", "downloads", "transfers"] as const;
export type StatisticsOrderBy = (typeof STATISTICS_ORDER_BY)[number];

const unixMs = z.coerce.number().int().min(0).max(8_640_000_000_000);

/** The range and filters every statistics request shares (the list and the CSV). */
const statisticsFilter = z.object({
  from: unixMs.optional().describe("Start of the range, unix ms (inclusive). Default: `to` minus the statistics period."),
  to: unixMs.optional().describe("End of the range, unix ms (exclusive). Default: now."),
  tz: z
    .string()
    .max(64)
    .refine((v) => knownZone(v) !== null, "must be an IANA time zone name, such as Asia/Shanghai or UTC")
    .default("UTC")
    .describe("The time zone whose calendar days groupBy=day counts in (IANA name). Default UTC."),
  direction: z.enum(STATISTICS_DIRECTIONS).optional().describe("Only uploads or only downloads; both when absent."),
  groupBy: z.enum(STATISTICS_GROUP_BY).default("day").describe("user: one row per account; group: one row per group space; day: one row per calendar day of `tz`, every day of the range."),
  search: z.string().max(64).optional().describe("user: part of the account; group: part of the group space's name (case-insensitive)."),
  orderBy: z.enum(STATISTICS_ORDER_BY).default("totalBytes").describe("user and group lists: name (account or group name), a byte sum or a count. Default totalBytes."),
  order: z.enum(["asc", "desc"]).default("desc").describe("Direction of orderBy; default desc (largest first). Ties by name."),
});

export const statisticsQuery = statisticsFilter
  .extend({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10).describe("user and group lists: rows per page (1–100). day: every day of the range, not paged."),
  })
  .strict();
export type StatisticsQuery = z.infer<typeof statisticsQuery>;

export const statisticsExportQuery = statisticsFilter.strict();
export type StatisticsExportQuery = z.infer<typeof statisticsExportQuery>;

const sums = {
  uploadBytes: z.number().int().min(0),
  uploads: z.number().int().min(0).describe("Uploads recorded (each finished, failed or stopped transfer is one)."),
  uploadFiles: z.number().int().min(0),
  downloadBytes: z.number().int().min(0),
  downloads: z.number().int().min(0),
  downloadFiles: z.number().int().min(0),
  failed: z.number().int().min(0).describe("Of those transfers, how many failed or were stopped."),
};
export const statisticsSums = z.object(sums);
export type StatisticsSums = z.infer<typeof statisticsSums>;

export const statisticsRow = z.object({
  key: z.string().describe("user: the account; group: the group space's id; day: YYYY-MM-DD in `tz`."),
  name: z.string().describe("user: the account; group: the group space's name (#id when it was deleted since); day: YYYY-MM-DD."),
  id: z.number().int().nullable().describe("The user's or group space's id; null for a day, a share visitor and a deleted account."),
  start: z.number().int().nullable().describe("day: the day's first unix ms in `tz`; else null."),
  ...sums,
});
export type StatisticsRow = z.infer<typeof statisticsRow>;

export const statisticsReport = z.object({
  from: z.number().int(),
  to: z.number().int(),
  tz: z.string(),
  groupBy: z.enum(STATISTICS_GROUP_BY),
  periodHours: z.number().int(),
  totals: statisticsSums.describe("Sums over the whole range (with the direction filter, not the search)."),
  list: z.array(statisticsRow),
  total: z.number().int().describe("Rows in all pages (day: the number of days)."),
  size: z.number().int(),
  current: z.number().int(),
});
export type StatisticsReport = z.infer<typeof statisticsReport>;

/** The CSV export's columns, in order (the header row names them so). */
export const STATISTICS_CSV_COLUMNS = ["key", "name", "uploadBytes", "uploads", "uploadFiles", "downloadBytes", "downloads", "downloadFiles", "failed"] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a text that a
 * spreadsheet would read as a formula (= + - @, tab, CR at the start) gets a leading apostrophe.
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
