import { describe, expect, it } from "vitest";
import { cn } from "./cn";

describe("cn", () => {
  it("joins strings and skips empty values", () => {
    expect(cn("a", false, null, undefined, "", "b")).toBe("a b");
  });
  it("takes objects of conditions and nested arrays", () => {
    expect(cn({ on: true, off: false }, ["x", ["y", false]], 0)).toBe("on x y 0");
  });
  it("returns an empty string for nothing", () => {
    expect(cn()).toBe("");
  });
});
