import { describe, expect, it } from "vitest";
import {
  compareValues,
  EMPTY_HEIGHT,
  MAX_HEIGHT,
  nextSort,
  OVERSCAN,
  ROW_HEIGHT,
  selectAllState,
  sortRows,
  validateColumns,
  virtualWindow,
} from "./table-model";

describe("table constants", () => {
  it("match the spec", () => {
    expect(ROW_HEIGHT).toBe(49);
    expect(MAX_HEIGHT).toBe(700);
    expect(EMPTY_HEIGHT).toBe(120);
    expect(OVERSCAN).toBeGreaterThan(0);
  });
});

describe("nextSort", () => {
  it("cycles ascending → descending → unsorted", () => {
    const asc = nextSort(null, "name");
    expect(asc).toEqual({ key: "name", order: "ascending" });
    const desc = nextSort(asc, "name");
    expect(desc).toEqual({ key: "name", order: "descending" });
    expect(nextSort(desc, "name")).toBeNull();
  });
  it("starts another column at ascending", () => {
    expect(nextSort({ key: "name", order: "descending" }, "size")).toEqual({ key: "size", order: "ascending" });
  });
});

describe("validateColumns", () => {
  it("throws on more than one checkbox or expand column", () => {
    expect(() => validateColumns([{ type: "checkbox" }, { type: "checkbox" }])).toThrow(/more than one checkbox column/);
    expect(() => validateColumns([{ type: "expand" }, {}, { type: "expand" }])).toThrow(/more than one expand column/);
  });
  it("accepts one of each", () => {
    expect(() => validateColumns([{ type: "checkbox" }, { type: "expand" }, {}, { type: "custom" }])).not.toThrow();
  });
});

describe("sorting", () => {
  it("compares numbers by value, text naturally, empty values last", () => {
    expect([10, 9, 100].sort(compareValues)).toEqual([9, 10, 100]);
    expect(["file10", "file9", "File1"].sort(compareValues)).toEqual(["File1", "file9", "file10"]);
    expect([null, "b", "", "a", undefined].sort(compareValues)).toEqual(["a", "b", null, "", undefined]);
  });
  it("sorts a stable copy in either order", () => {
    const rows = [
      { id: 1, n: 2 },
      { id: 2, n: 1 },
      { id: 3, n: 2 },
    ];
    const by = (a: (typeof rows)[number], b: (typeof rows)[number]) => a.n - b.n;
    expect(sortRows(rows, by, "ascending").map((r) => r.id)).toEqual([2, 1, 3]);
    expect(sortRows(rows, by, "descending").map((r) => r.id)).toEqual([1, 3, 2]);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });
});

describe("selectAllState", () => {
  it("is unchecked with none, indeterminate with some, checked with all", () => {
    expect(selectAllState(3, 0)).toEqual({ checked: false, indeterminate: false });
    expect(selectAllState(3, 1)).toEqual({ checked: false, indeterminate: true });
    expect(selectAllState(3, 3)).toEqual({ checked: true, indeterminate: false });
    expect(selectAllState(0, 0)).toEqual({ checked: false, indeterminate: false });
  });
});

describe("virtualWindow", () => {
  const base = { viewportHeight: MAX_HEIGHT, rowHeight: ROW_HEIGHT, overscan: 5 };

  it("renders nothing for no rows", () => {
    expect(virtualWindow({ ...base, count: 0, scrollTop: 0 })).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0, totalHeight: 0 });
  });

  it("renders all of a short list", () => {
    expect(virtualWindow({ ...base, count: 5, scrollTop: 0 })).toEqual({ start: 0, end: 5, padTop: 0, padBottom: 0, totalHeight: 245 });
  });

  it("renders the visible rows plus overscan at the top of a long list", () => {
    // 700 / 49 = 14.3 → rows 0..14 are visible, plus 5 below.
    const w = virtualWindow({ ...base, count: 100_000, scrollTop: 0 });
    expect(w).toEqual({ start: 0, end: 20, padTop: 0, padBottom: (100_000 - 20) * 49, totalHeight: 4_900_000 });
  });

  it("follows the scroll position", () => {
    const w = virtualWindow({ ...base, count: 100_000, scrollTop: 1000 * 49 });
    expect(w.start).toBe(995);
    expect(w.end).toBe(1000 + 15 + 5);
    expect(w.padTop).toBe(995 * 49);
    expect(w.padTop + (w.end - w.start) * 49 + w.padBottom).toBe(w.totalHeight);
  });

  it("clamps a scroll position past the end", () => {
    const w = virtualWindow({ ...base, count: 1000, scrollTop: 10_000_000 });
    expect(w.end).toBe(1000);
    expect(w.padBottom).toBe(0);
    expect(w.start).toBeLessThan(1000 - 14);
  });

  it("counts expanded detail heights above and below the window", () => {
    const extras = new Map([
      [2, 200],
      [5000, 300],
    ]);
    const w = virtualWindow({ ...base, count: 10_000, scrollTop: 100 * 49 + 200, extras });
    expect(w.start).toBe(95);
    expect(w.padTop).toBe(95 * 49 + 200);
    expect(w.totalHeight).toBe(10_000 * 49 + 500);
    expect(w.padTop + (w.end - w.start) * 49 + w.padBottom).toBe(w.totalHeight);
  });

  it("keeps an expanded row in the window while its detail is on screen", () => {
    const extras = new Map([[10, 2000]]);
    // Scrolled into the middle of row 10's detail.
    const w = virtualWindow({ ...base, count: 1000, scrollTop: 10 * 49 + 1000, extras });
    expect(w.start).toBe(5);
    expect(w.end).toBe(16);
  });
});
