import { describe, expect, it } from "vitest";
import { nextRunAt } from "../../server/sync/schedule";

/** When a sync task runs next (server/sync/schedule.ts, docs/sync.md "Schedule"). */
describe("sync schedule", () => {
  const now = Date.UTC(2026, 10, 27, 0, 0, 0); // 08:00 in Shanghai, 19:00 the day before in New York

  it("manual never, interval from now, once at its time", () => {
    expect(nextRunAt({ kind: "manual" }, now, "UTC")).toBeNull();
    expect(nextRunAt({ kind: "interval", every: 10, unit: "seconds" }, now, "UTC")).toBe(now + 10_000);
    expect(nextRunAt({ kind: "interval", every: 3, unit: "minutes" }, now, "UTC")).toBe(now + 180_000);
    expect(nextRunAt({ kind: "interval", every: 2, unit: "hours" }, now, "UTC")).toBe(now + 7_200_000);
    expect(nextRunAt({ kind: "once", at: 1_900_000_000 }, now, "UTC")).toBe(1_900_000_000_000);
  });

  it("daily at the next HH:MM on the engine's clock in its time zone", () => {
    expect(nextRunAt({ kind: "daily", at: "02:30" }, now, "Asia/Shanghai")).toBe(Date.UTC(2026, 10, 27, 18, 30));
    expect(nextRunAt({ kind: "daily", at: "08:00" }, now, "Asia/Shanghai")).toBe(Date.UTC(2026, 10, 28, 0, 0));
    expect(nextRunAt({ kind: "daily", at: "23:59" }, now, "UTC")).toBe(Date.UTC(2026, 10, 27, 23, 59));
    expect(nextRunAt({ kind: "daily", at: "20:00" }, now, "America/New_York")).toBe(Date.UTC(2026, 10, 27, 1, 0));
  });

  it("a daily time a DST change skips runs the day after; one it repeats runs once, the first time", () => {
    // New York springs forward on 2026-03-08 at 02:00: there is no 02:30 that day.
    const before = Date.UTC(2026, 2, 8, 5, 0); // 00:00 EST
    expect(nextRunAt({ kind: "daily", at: "02:30" }, before, "America/New_York")).toBe(Date.UTC(2026, 2, 9, 6, 30));
    // It falls back on 2026-11-01 at 02:00: 01:30 comes twice, the first (EDT) is taken.
    const fall = Date.UTC(2026, 10, 1, 4, 0); // 00:00 EDT
    expect(nextRunAt({ kind: "daily", at: "01:30" }, fall, "America/New_York")).toBe(Date.UTC(2026, 10, 1, 5, 30));
    // Planned again when it fires: not at the second 01:30 an hour later, but the next day.
    expect(nextRunAt({ kind: "daily", at: "01:30" }, Date.UTC(2026, 10, 1, 5, 30), "America/New_York")).toBe(Date.UTC(2026, 10, 2, 6, 30));
  });
});
