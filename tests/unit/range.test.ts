import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ifRangeAllows, parseRange } from "../../server/fileserver/range";

describe("parseRange", () => {
  const size = 1000;
  it.each([
    ["bytes=0-0", 0, 0],
    ["bytes=0-499", 0, 499],
    ["bytes=500-", 500, 999],
    ["bytes=-100", 900, 999],
    ["bytes=-5000", 0, 999],
    ["bytes=900-5000", 900, 999],
    ["bytes=999-999", 999, 999],
    ["Bytes = 10-20 ", 10, 20],
  ])("%s → %i-%i", (header, start, end) => {
    expect(parseRange(header, size)).toEqual({ kind: "range", start, end });
  });

  it.each(["bytes=1000-", "bytes=1000-1001", "bytes=-0", "bytes=5-2", "bytes=99999999999999999999-"])("%s is unsatisfiable", (header) => {
    expect(parseRange(header, size)).toEqual({ kind: "unsatisfiable" });
  });

  it("finds nothing to serve in an empty file", () => {
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-1", 0)).toEqual({ kind: "unsatisfiable" });
  });

  it.each([
    undefined,
    "",
    "bytes=",
    "bytes=-",
    "bytes=0-1,5-6",
    "bytes=0-10,5-15",
    "bytes=0-1, 0-1",
    "items=0-1",
    "bytes 0-1",
    "bytes=a-b",
    "bytes=1.5-2",
    "bytes=+1-2",
    "bytes=0x10-",
    "bytes=--1",
    "bytes=1-2-3",
    `bytes=${"1".repeat(300)}-`,
  ])("ignores %j (whole file)", (header) => {
    expect(parseRange(header, size)).toEqual({ kind: "full" });
  });

  it("always answers a span inside the file, or full, or unsatisfiable", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.nat({ max: 1 << 30 }), (header, n) => {
        const r = parseRange(`bytes=${header}`, n);
        if (r.kind === "range") {
          expect(Number.isSafeInteger(r.start) && Number.isSafeInteger(r.end)).toBe(true);
          expect(0 <= r.start && r.start <= r.end && r.end < n).toBe(true);
        }
      }),
    );
  });
});

describe("ifRangeAllows", () => {
  const etag = '"3e8-65f0a1b2"';
  const date = "Tue, 12 Mar 2024 10:00:00 GMT";
  it("allows the range without If-Range, with the current ETag or the exact date", () => {
    expect(ifRangeAllows(undefined, etag, date)).toBe(true);
    expect(ifRangeAllows(etag, etag, date)).toBe(true);
    expect(ifRangeAllows(date, etag, date)).toBe(true);
  });
  it("sends the whole file for a stale or weak ETag or another date", () => {
    expect(ifRangeAllows('"3e8-65f0a1b3"', etag, date)).toBe(false);
    expect(ifRangeAllows(`W/${etag}`, etag, date)).toBe(false);
    expect(ifRangeAllows("Wed, 13 Mar 2024 10:00:00 GMT", etag, date)).toBe(false);
  });
});
