import { describe, expect, it } from "vitest";
import {
  BOUNDARY_PAGES,
  clampPage,
  DEFAULT_PAGE,
  DEFAULT_PAGE_SIZE,
  PAGE_SIZES,
  paginationItems,
  readPaginationParams,
  SIBLING_PAGES,
  totalPagesFor,
  type PaginationItem,
} from "./pagination-model";

const spec = { boundaries: 1, siblings: 2 };

describe("pagination constants", () => {
  it("match the spec", () => {
    expect(PAGE_SIZES).toEqual([10, 20, 30, 40, 50]);
    expect(DEFAULT_PAGE_SIZE).toBe(10);
    expect(DEFAULT_PAGE).toBe(1);
    expect(BOUNDARY_PAGES).toBe(1);
    expect(SIBLING_PAGES).toBe(2);
  });
});

describe("paginationItems (1 boundary, 2 siblings)", () => {
  it.each<[number, number, PaginationItem[]]>([
    [1, 1, [1]],
    [1, 9, [1, 2, 3, 4, 5, 6, 7, 8, 9]],
    [5, 9, [1, 2, 3, 4, 5, 6, 7, 8, 9]],
    [1, 10, [1, 2, 3, 4, 5, 6, 7, "ellipsis-end", 10]],
    [5, 10, [1, 2, 3, 4, 5, 6, 7, "ellipsis-end", 10]],
    [6, 10, [1, "ellipsis-start", 4, 5, 6, 7, 8, 9, 10]],
    [10, 10, [1, "ellipsis-start", 4, 5, 6, 7, 8, 9, 10]],
    [1, 20, [1, 2, 3, 4, 5, 6, 7, "ellipsis-end", 20]],
    [6, 20, [1, "ellipsis-start", 4, 5, 6, 7, 8, "ellipsis-end", 20]],
    [10, 20, [1, "ellipsis-start", 8, 9, 10, 11, 12, "ellipsis-end", 20]],
    [15, 20, [1, "ellipsis-start", 13, 14, 15, 16, 17, "ellipsis-end", 20]],
    [16, 20, [1, "ellipsis-start", 14, 15, 16, 17, 18, 19, 20]],
    [20, 20, [1, "ellipsis-start", 14, 15, 16, 17, 18, 19, 20]],
  ])("page %i of %i", (current, total, expected) => {
    expect(paginationItems(current, total, spec)).toEqual(expected);
  });

  it("defaults to the spec's 1 boundary page and 2 siblings", () => {
    expect(paginationItems(10, 20)).toEqual(paginationItems(10, 20, spec));
  });

  it("clamps an out-of-range current page", () => {
    expect(paginationItems(0, 20, spec)).toEqual(paginationItems(1, 20, spec));
    expect(paginationItems(99, 20, spec)).toEqual(paginationItems(20, 20, spec));
    expect(paginationItems(3, 0, spec)).toEqual([1]);
  });

  // Every page of every length up to 60, for a few shapes: the invariants a user relies on.
  for (const options of [spec, { boundaries: 1, siblings: 1 }, { boundaries: 2, siblings: 2 }, { boundaries: 1, siblings: 0 }]) {
    it(`holds its invariants for every page (${JSON.stringify(options)})`, () => {
      const width = 2 * options.boundaries + 2 * options.siblings + 3;
      for (let total = 1; total <= 60; total++) {
        for (let current = 1; current <= total; current++) {
          const items = paginationItems(current, total, options);
          const pages = items.filter((i): i is number => typeof i === "number");
          const where = `page ${current} of ${total}`;
          // Constant width: all pages when they fit, otherwise always the same number of items.
          expect(items.length, where).toBe(Math.min(total, width));
          // Boundary pages, the current page and its siblings are always there.
          for (let p = 1; p <= options.boundaries && p <= total; p++) expect(pages, where).toContain(p);
          for (let p = total - options.boundaries + 1; p <= total; p++) if (p >= 1) expect(pages, where).toContain(p);
          for (let p = current - options.siblings; p <= current + options.siblings; p++) {
            if (p >= 1 && p <= total) expect(pages, where).toContain(p);
          }
          // Neighbours are consecutive pages, or an ellipsis that hides at least two pages.
          for (let i = 1; i < items.length; i++) {
            const prev = items[i - 1];
            const item = items[i];
            if (typeof prev === "number" && typeof item === "number") expect(item - prev, where).toBe(1);
            if (typeof item === "string") {
              const next = items[i + 1];
              expect(typeof prev === "number" && typeof next === "number" && next - prev >= 3, where).toBe(true);
            }
          }
          expect(items.filter((i) => i === "ellipsis-start").length, where).toBeLessThanOrEqual(1);
          expect(items.filter((i) => i === "ellipsis-end").length, where).toBeLessThanOrEqual(1);
          if (items.includes("ellipsis-start") && items.includes("ellipsis-end")) {
            expect(items.indexOf("ellipsis-start"), where).toBeLessThan(items.indexOf("ellipsis-end"));
          }
        }
      }
    });
  }
});

describe("page arithmetic", () => {
  it("counts pages, with at least one", () => {
    expect(totalPagesFor(0, 10)).toBe(1);
    expect(totalPagesFor(10, 10)).toBe(1);
    expect(totalPagesFor(11, 10)).toBe(2);
    expect(totalPagesFor(95, 50)).toBe(2);
  });
  it("clamps pages to the last page", () => {
    expect(clampPage(10, 2)).toBe(2);
    expect(clampPage(0, 5)).toBe(1);
    expect(clampPage(3, 5)).toBe(3);
    expect(clampPage(Number.NaN, 5)).toBe(1);
  });
  it("reads ?page=&size= for a loader, falling back to the defaults", () => {
    expect(readPaginationParams(new URLSearchParams("page=3&size=30"))).toEqual({ page: 3, size: 30 });
    expect(readPaginationParams(new URLSearchParams("page=-1&size=25"))).toEqual({ page: 1, size: 10 });
    expect(readPaginationParams(new URLSearchParams(""))).toEqual({ page: 1, size: 10 });
    expect(readPaginationParams(new URLSearchParams("page=abc&size=50"))).toEqual({ page: 1, size: 50 });
  });
});
