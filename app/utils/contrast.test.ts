import { describe, expect, it } from "vitest";
import { contrastOn, MIN_TEXT_CONTRAST, PAGE_BACKGROUND, readablePrimary } from "./contrast";

const onPage = (hex: string) => contrastOn(hex, PAGE_BACKGROUND);

describe("readablePrimary", () => {
  it("darkens the default orange until text in it is readable on the page and on white", () => {
    expect(contrastOn("#FD5C1F", "#FFFFFF")).toBeLessThan(MIN_TEXT_CONTRAST);
    const shade = readablePrimary("#FD5C1F");
    expect(onPage(shade)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
    expect(contrastOn(shade, "#FFFFFF")).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
    // Only just: the nearest shade of the same hue, not black.
    expect(onPage(shade)).toBeLessThan(5.2);
    const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => parseInt(shade.slice(i, i + 2), 16));
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
  });

  it("keeps a colour that is already readable, and falls back on a malformed one", () => {
    expect(readablePrimary("#1d4ed8")).toBe("#1D4ED8");
    expect(readablePrimary("orange")).toBe("#C2410C");
    expect(onPage(readablePrimary("#ffffff"))).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
  });
});
