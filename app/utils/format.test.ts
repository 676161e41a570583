import { describe, expect, it } from "vitest";
import { compareVersion, formatSize, formatUnixTime } from "./format";

describe("formatSize", () => {
  it("shows zero and whole bytes without decimals", () => {
    expect(formatSize(0)).toBe("0 B");
    expect(formatSize(1023)).toBe("1023 B");
  });

  it("steps by 1024 through every unit with two decimals by default", () => {
    expect(formatSize(1024)).toBe("1.00 KB");
    expect(formatSize(1536)).toBe("1.50 KB");
    expect(formatSize(1024 ** 2 * 3.25)).toBe("3.25 MB");
    expect(formatSize(1024 ** 3)).toBe("1.00 GB");
    expect(formatSize(1024 ** 4 * 2)).toBe("2.00 TB");
    expect(formatSize(1024 ** 5)).toBe("1.00 PB");
  });

  it("stops at PB, the largest unit", () => {
    expect(formatSize(1024 ** 6)).toBe("1024.00 PB");
  });

  it("takes the number of decimals", () => {
    expect(formatSize(1536, 0)).toBe("2 KB");
    expect(formatSize(1536, 3)).toBe("1.500 KB");
  });

  it("shows '-' for sizes that are not sizes", () => {
    expect(formatSize(-1)).toBe("-");
    expect(formatSize(Number.NaN)).toBe("-");
  });
});

describe("compareVersion", () => {
  it("compares numbers part by part, not as text", () => {
    expect(compareVersion("1.10.0", "1.9.9")).toBe(1);
    expect(compareVersion("1.9.9", "1.10.0")).toBe(-1);
    expect(compareVersion("6.2.1", "6.2.1")).toBe(0);
  });

  it("treats missing parts as 0", () => {
    expect(compareVersion("2.0", "2.0.0")).toBe(0);
    expect(compareVersion("2.0.1", "2.0")).toBe(1);
  });

  it("sorts a list", () => {
    expect(["1.10", "1.2", "1.9.1"].sort(compareVersion)).toEqual(["1.2", "1.9.1", "1.10"]);
  });
});

describe("formatUnixTime", () => {
  it("formats unix seconds in local time as YYYY-MM-DD HH:mm:ss", () => {
    const seconds = new Date(2024, 0, 2, 3, 4, 5).getTime() / 1000;
    expect(formatUnixTime(seconds)).toBe("2024-01-02 03:04:05");
    const evening = new Date(2023, 11, 31, 23, 59, 58).getTime() / 1000;
    expect(formatUnixTime(evening)).toBe("2023-12-31 23:59:58");
  });

  it("shows '-' when the time is not positive", () => {
    expect(formatUnixTime(0)).toBe("-");
    expect(formatUnixTime(-5)).toBe("-");
  });

  it("shows '-' when the time has more than 14 digits", () => {
    expect(formatUnixTime(123456789012345)).toBe("-");
  });

  it("shows '-' for a 14-digit time no calendar holds, and for NaN", () => {
    expect(formatUnixTime(99999999999999)).toBe("-");
    expect(formatUnixTime(Number.NaN)).toBe("-");
  });
});
