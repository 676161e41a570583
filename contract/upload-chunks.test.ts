import { describe, expect, it } from "vitest";
import { formatRanges, missingRanges, parseRanges } from "./upload-chunks";

describe("Ferry-Ranges", () => {
  it("writes inclusive ends and reads them back as half-open ranges", () => {
    expect(formatRanges([])).toBe("");
    expect(formatRanges([[0, 1048576], [3145728, 4194304]])).toBe("0-1048575,3145728-4194303");
    expect(parseRanges("0-1048575,3145728-4194303")).toEqual([[0, 1048576], [3145728, 4194304]]);
    expect(parseRanges("")).toEqual([]);
    expect(parseRanges(null)).toBeNull();
  });

  it("refuses what is not a list of ranges", () => {
    for (const bad of ["0-", "-5", "5-4", "a-b", "0-1;2-3", "1e3-2e3", "0-99999999999999999"]) expect(parseRanges(bad)).toBeNull();
  });

  it("names the gaps a client still has to send", () => {
    expect(missingRanges([], 10)).toEqual([[0, 10]]);
    expect(missingRanges([[0, 10]], 10)).toEqual([]);
    expect(missingRanges([[2, 4], [6, 8]], 10)).toEqual([[0, 2], [4, 6], [8, 10]]);
  });
});
