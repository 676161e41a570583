/**
 * Calendar days of a time zone as unix-ms ranges, for the statistics' per-day sums. Computed here
 * (Intl knows every zone and its daylight-saving changes) so the SQL only compares numbers, the
 * same on SQLite, PostgreSQL and MariaDB.
 */

const DAY_MS = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formats.set(zone, format);
  }
  return format;
}

/** What a clock in `zone` shows at `ms`, as if that were UTC (so date arithmetic stays in UTC). */
function wallAsUtc(ms: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatOf(zone).formatToParts(ms)) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
}

const dateOf = (wall: number) => Math.floor(wall / DAY_MS);
const label = (date: number) => new Date(date * DAY_MS).toISOString().slice(0, 10);

/** The first instant at which a clock in `zone` shows calendar day `date` (days since 1970-01-01). */
function dayStart(date: number, zone: string): number {
  const midnight = date * DAY_MS;
  // The zone's offsets a day either side of that midnight: at most one change falls between them.
  const candidates = [midnight - (wallAsUtc(midnight - DAY_MS, zone) - (midnight - DAY_MS)), midnight - (wallAsUtc(midnight + DAY_MS, zone) - (midnight + DAY_MS))];
  // Seconds of the offsets are dropped by Intl; round the candidates to whole seconds.
  const starts = candidates.map((c) => Math.floor(c / 1000) * 1000).filter((c) => dateOf(wallAsUtc(c, zone)) === date && dateOf(wallAsUtc(c - 1000, zone)) < date);
  return starts.length > 0 ? Math.min(...starts) : candidates[0]!;
}

export interface Day {
  /** YYYY-MM-DD in the zone. */
  label: string;
  /** The part of the day inside the range: [start, end) in unix ms. */
  start: number;
  end: number;
}

/** Every calendar day of `zone` that [from, to) touches, clipped to the range. */
export function daysOf(from: number, to: number, zone: string): Day[] {
  const days: Day[] = [];
  if (to <= from) return days;
  const last = dateOf(wallAsUtc(to - 1, zone));
  for (let date = dateOf(wallAsUtc(from, zone)); date <= last; date++) {
    const start = Math.max(from, dayStart(date, zone));
    const end = Math.min(to, dayStart(date + 1, zone));
    if (end > start) days.push({ label: label(date), start, end });
  }
  return days;
}
