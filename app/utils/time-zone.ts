/**
 * The reader's time zone. Times are shown, and dates typed into filters are read, in the zone of
 * the person reading, not the web server's: the browser writes its IANA zone into this cookie
 * (`TimeZoneSync` in root.tsx), the root loader reads it back, so the server renders in the same
 * zone as the browser and hydration finds the same text. Until the browser has said (the first
 * page, or no JavaScript) the web server's own zone is used.
 */
const TIME_ZONE_COOKIE = "ferry_tz";
const COOKIE_VALUE = new RegExp(`(?:^|;\\s*)${TIME_ZONE_COOKIE}=([^;]*)`);

/** The zone this runtime is in (the web server's on the server, the reader's in the browser). */
export const runtimeTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** `name` as this runtime spells it, if it is a time zone the runtime knows; else null. */
export function knownTimeZone(name: string | null | undefined): string | null {
  if (!name || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zone a request's cookie names, or the web server's own. */
export function timeZoneOfCookieHeader(header: string | null): string {
  const match = COOKIE_VALUE.exec(header ?? "");
  let named: string | null = null;
  try {
    named = match ? decodeURIComponent(match[1]!) : null;
  } catch {
    // a malformed escape: as if there were none
  }
  return knownTimeZone(named) ?? runtimeTimeZone();
}

/** The cookie that tells the server `timeZone` (a year, every path, not sent cross-site). */
export const timeZoneCookie = (timeZone: string) => `${TIME_ZONE_COOKIE}=${encodeURIComponent(timeZone)}; path=/; max-age=31536000; samesite=lax`;

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** What a clock in `timeZone` shows at unix time `ms`. */
export function wallClock(ms: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(ms)) if (part.type !== "literal") parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** How far `timeZone` is ahead of UTC at unix time `ms`, in milliseconds. */
function offsetAt(ms: number, timeZone: string): number {
  const c = wallClock(ms, timeZone);
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) - Math.floor(ms / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * The unix time (ms) at which a clock in `timeZone` shows `c`. A time shown twice (the clock goes
 * back) gives the first; a time skipped (the clock goes forward) is read as a JavaScript Date reads
 * a local time, with the offset from before the change (02:30 in a 02:00→03:00 gap is 03:30).
 */
export function zonedInstant(c: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
  // The offsets a day either side: at most one change falls between them.
  const before = asUtc - offsetAt(asUtc - DAY_MS, timeZone);
  const after = asUtc - offsetAt(asUtc + DAY_MS, timeZone);
  const shows = (ms: number) => {
    const w = wallClock(ms, timeZone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) === asUtc;
  };
  const valid = [before, after].filter(shows);
  return valid.length > 0 ? Math.min(...valid) : before;
}
