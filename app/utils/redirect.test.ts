import { describe, expect, it } from "vitest";
import { REDIRECT_MAX, safeRedirect } from "./redirect";

/** What a Location header may carry without the server failing: visible ASCII only. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

describe("safeRedirect", () => {
  it("keeps same-site paths", () => {
    for (const ok of ["/personal", "/group/detail/3?x=1", "/notification#top", "/file..name", "/personal?path=%2FMy%20Files", "/link?name=%E6%96%87%E4%BB%B6&page=2"]) expect(safeRedirect(ok)).toBe(ok);
  });
  it("refuses everything that could leave the site", () => {
    for (const bad of ["//evil.com", "/\\evil.com", "/%2F%2Fevil.com", "/%2f/evil.com", "https:evil.com", "https://evil.com", "javascript:alert(1)", "/%0d%0aSet-Cookie:x", "/a\r\nb", "evil.com", "", "/%5Cevil", "/%", "/a/..//evil.com", "/.//evil.com", "/%2e%2e//evil.com", "/javascript:alert(1)", "/%6Aavascript:alert(1)"]) {
      expect({ bad, to: safeRedirect(bad) }).toEqual({ bad, to: "/personal" });
    }
    expect(safeRedirect(null, "/signin")).toBe("/signin");
  });
  it("refuses control, format and white-space characters, raw or (controls) encoded", () => {
    for (const bad of [
      "/personal\u3000",
      "/\u3000/evil.com",
      "/personal\u007f",
      "/personal%7F",
      "/personal\u0000",
      "/personal%00",
      "/per sonal",
      "/personal\t",
      "/personal\u00a0",
      "/personal\u0085",
      "/personal%C2%85",
      "/personal\u200b",
      "/personal\u202e",
      "/personal\u2028",
      "/personal\ufeff",
      "/%E3%80%80%0a",
    ]) {
      expect({ bad, to: safeRedirect(bad) }).toEqual({ bad, to: "/personal" });
    }
  });
  it("percent-encodes other non-ASCII characters, so the result always fits a Location header", () => {
    expect(safeRedirect("/个人")).toBe("/%E4%B8%AA%E4%BA%BA");
    expect(safeRedirect("/personal?path=/文件/子目录")).toBe("/personal?path=/%E6%96%87%E4%BB%B6/%E5%AD%90%E7%9B%AE%E5%BD%95");
    expect(safeRedirect("/personal#é")).toBe("/personal#%C3%A9");
    expect(safeRedirect('/a"<b>')).toBe("/a%22%3Cb%3E");
    // An encoded ideographic space in a query value is a folder's name, kept as sent.
    expect(safeRedirect("/personal?path=%E3%80%80")).toBe("/personal?path=%E3%80%80");
    for (const input of ["/个人", "/personal?q=ü", "/😀", "/a\ud800b", "/personal?path=%E3%80%80", "/é".repeat(500)]) {
      const out = safeRedirect(input);
      expect({ input, safe: HEADER_SAFE.test(out), site: out.startsWith("/") && !out.startsWith("//") }).toEqual({ input, safe: true, site: true });
    }
  });
  it("refuses targets longer than REDIRECT_MAX, before and after encoding", () => {
    expect(safeRedirect(`/${"a".repeat(REDIRECT_MAX - 1)}`)).toHaveLength(REDIRECT_MAX);
    expect(safeRedirect(`/${"a".repeat(REDIRECT_MAX)}`)).toBe("/personal");
    // 1000 characters, each 9 bytes once encoded.
    expect(safeRedirect(`/${"文".repeat(1000)}`)).toBe("/personal");
    expect(safeRedirect(`/${"a".repeat(100_000)}`)).toBe("/personal");
  });
  it("gives a same-site, header-safe path for any input", () => {
    const alphabet = ["/", "\\", "%", "2", "F", "f", "5", "C", "0", "a", ":", ".", "?", "#", " ", "\u3000", "\u007f", "\r", "\n", "文", "é", "\u202e", "@", "j", "s"];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      let input = "/";
      const length = next() % 16;
      for (let j = 0; j < length; j++) input += alphabet[next() % alphabet.length];
      const out = safeRedirect(input);
      expect({ input, ok: HEADER_SAFE.test(out) && out.startsWith("/") && !out.startsWith("//") && !out.startsWith("/\\") }).toEqual({ input, ok: true });
    }
  });
});
