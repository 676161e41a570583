import { STATISTICS_MAX_RANGE_MS } from "../../../contract/statistics";
import { wallClock, zonedInstant } from "~/utils/time-zone";

/** The screen's range choices: the presets, the statistics period (the engine's default) and two dates. */
export const RANGE_PRESETS = ["period", "24h", "7d", "30d", "custom"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
const PRESET_MS: Partial<Record<RangePreset, number>> = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };

export interface RangeChoice {
  preset: RangePreset;
  /** Unix ms to ask the engine for; null: the engine's statistics period. */
  from: number | null;
  to: number | null;
  /** The dates typed for a custom range (YYYY-MM-DD), kept for the form. */
  fromDate: string;
  toDate: string;
  /** The custom dates could not be read: the period is shown instead. */
  invalid: boolean;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const midnight = (date: string, timeZone: string, days = 0): number | null => {
  const match = DATE.exec(date);
  if (!match) return null;
  const probe = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days));
  if (Number.isNaN(probe.getTime()) || (days === 0 && probe.toISOString().slice(0, 10) !== date)) return null;
  return zonedInstant({ year: probe.getUTCFullYear(), month: probe.getUTCMonth() + 1, day: probe.getUTCDate(), hour: 0, minute: 0, second: 0 }, timeZone);
};

/** A day of `timeZone` as YYYY-MM-DD. */
export function dateIn(ms: number, timeZone: string): string {
  const c = wallClock(ms, timeZone);
  return `${String(c.year).padStart(4, "0")}-${String(c.month).padStart(2, "0")}-${String(c.day).padStart(2, "0")}`;
}

/** The range the address asks for (`range`, and `from`/`to` dates for custom), in the reader's zone. */
export function readRange(params: URLSearchParams, timeZone: string, now: number): RangeChoice {
  const asked = params.get("range");
  const preset: RangePreset = (RANGE_PRESETS as readonly string[]).includes(asked ?? "") ? (asked as RangePreset) : "period";
  const fromDate = (params.get("from") ?? "").slice(0, 10);
  const toDate = (params.get("to") ?? "").slice(0, 10);
  const span = PRESET_MS[preset];
  if (span) return { preset, from: now - span, to: now, fromDate, toDate, invalid: false };
  if (preset === "custom") {
    const from = midnight(fromDate, timeZone);
    const end = midnight(toDate, timeZone) === null ? null : midnight(toDate, timeZone, 1);
    if (from !== null && end !== null && end > from && end - from <= STATISTICS_MAX_RANGE_MS) return { preset, from, to: end, fromDate, toDate, invalid: false };
    return { preset, from: null, to: null, fromDate, toDate, invalid: true };
  }
  return { preset, from: null, to: null, fromDate, toDate, invalid: false };
}
