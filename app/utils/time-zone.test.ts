import { describe, expect, it } from "vitest";
import { engineListQuery, readLinkQuery } from "../shares/link-query";
import { formatUnixTime } from "./format";
import { knownTimeZone, runtimeTimeZone, timeZoneCookie, timeZoneOfCookieHeader, zonedInstant } from "./time-zone";

const utc = (text: string) => Date.parse(text);

describe("the reader's time zone", () => {
  it("knows IANA zones and nothing else", () => {
    expect(knownTimeZone("Asia/Shanghai")).toBe("Asia/Shanghai");
    expect(knownTimeZone("UTC")).toBe("UTC");
    for (const bad of ["Mars/Olympus", "", "../etc", "x".repeat(65), null, undefined]) expect(knownTimeZone(bad)).toBeNull();
  });

  it("reads the cookie the browser writes; a missing, unknown or malformed one gives this runtime's zone", () => {
    const written = timeZoneCookie("America/New_York").split(";")[0]!;
    expect(timeZoneOfCookieHeader(`ferry_lang=zh; ${written}; other=1`)).toBe("America/New_York");
    expect(timeZoneOfCookieHeader(null)).toBe(runtimeTimeZone());
    expect(timeZoneOfCookieHeader("ferry_tz=Mars%2FOlympus")).toBe(runtimeTimeZone());
    expect(timeZoneOfCookieHeader("ferry_tz=%E0%A4%A")).toBe(runtimeTimeZone());
    expect(timeZoneOfCookieHeader("not_ferry_tz=Asia%2FTokyo")).toBe(runtimeTimeZone());
  });

  it("formats one instant on the reader's clock", () => {
    const seconds = utc("2024-05-01T16:30:05Z") / 1000;
    expect(formatUnixTime(seconds, "UTC")).toBe("2024-05-01 16:30:05");
    expect(formatUnixTime(seconds, "Asia/Shanghai")).toBe("2024-05-02 00:30:05");
    expect(formatUnixTime(seconds, "America/New_York")).toBe("2024-05-01 12:30:05");
    expect(formatUnixTime(utc("2024-05-01T00:00:00Z") / 1000, "UTC")).toBe("2024-05-01 00:00:00");
  });

  it("finds the instant a clock shows, across daylight-saving changes", () => {
    expect(zonedInstant({ year: 2024, month: 5, day: 2, hour: 0, minute: 30, second: 5 }, "Asia/Shanghai")).toBe(utc("2024-05-01T16:30:05Z"));
    // New York, 10 March 2024: 02:00 jumps to 03:00; 02:30 is read as 03:30 EDT.
    expect(zonedInstant({ year: 2024, month: 3, day: 10, hour: 2, minute: 30, second: 0 }, "America/New_York")).toBe(utc("2024-03-10T07:30:00Z"));
    // 3 November 2024: 01:30 happens twice; the first (EDT) is taken.
    expect(zonedInstant({ year: 2024, month: 11, day: 3, hour: 1, minute: 30, second: 0 }, "America/New_York")).toBe(utc("2024-11-03T05:30:00Z"));
  });
});

describe("/link's date search", () => {
  const bounds = (start: string, end: string, timeZone: string) => {
    const params = new URLSearchParams(engineListQuery(readLinkQuery(new URLSearchParams({ "created.start": start, "created.end": end })), timeZone));
    return [Number(params.get("StartTime")), Number(params.get("EndTime"))];
  };

  it("takes whole days on the reader's clock", () => {
    expect(bounds("2024-05-01", "2024-05-01", "Asia/Shanghai")).toEqual([utc("2024-04-30T16:00:00Z") / 1000, utc("2024-05-01T15:59:59Z") / 1000]);
    expect(bounds("2024-05-01", "2024-05-02", "UTC")).toEqual([utc("2024-05-01T00:00:00Z") / 1000, utc("2024-05-02T23:59:59Z") / 1000]);
  });

  it("a day of 23 hours ends when the next one starts", () => {
    const [start, end] = bounds("2024-03-10", "2024-03-10", "America/New_York");
    expect(end! - start!).toBe(23 * 3600 - 1);
    expect(bounds("2024-12-31", "2024-12-31", "UTC")[1]).toBe(utc("2024-12-31T23:59:59Z") / 1000);
  });
});
