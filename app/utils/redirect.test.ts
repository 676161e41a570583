import { describe, expect, it } from "vitest";
import { safeRedirect } from "./redirect";

describe("safeRedirect", () => {
  it("keeps same-site paths", () => {
    for (const ok of ["/personal", "/group/detail/3?x=1", "/notification#top", "/file..name"]) expect(safeRedirect(ok)).toBe(ok);
  });
  it("refuses everything that could leave the site", () => {
    for (const bad of ["//evil.com", "/\\evil.com", "/%2F%2Fevil.com", "/%2f/evil.com", "https:evil.com", "https://evil.com", "javascript:alert(1)", "/%0d%0aSet-Cookie:x", "/a\r\nb", "evil.com", "", "/%5Cevil", "/%"]) {
      expect({ bad, to: safeRedirect(bad) }).toEqual({ bad, to: "/personal" });
    }
    expect(safeRedirect(null, "/signin")).toBe("/signin");
  });
});
