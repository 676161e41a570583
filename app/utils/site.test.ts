import { describe, expect, it } from "vitest";
import { launchUrl, webLinkHref } from "./site";

const page = { secure: true, hostname: "files.example.com", certSelect: 1 };

describe("launchUrl", () => {
  it("builds the client's launch URL from a custom scheme name", () => {
    expect(launchUrl("ferry", page)).toBe("ferry://start?secure=1&host=files.example.com&certSelect=1");
    expect(launchUrl("Ferry-Client.2+x", { secure: false, hostname: "10.0.0.5", certSelect: 0 })).toBe("ferry-client.2+x://start?secure=0&host=10.0.0.5&certSelect=0");
    // The host is a query value: encoded, it cannot add parameters or end the URL.
    expect(launchUrl("ferry", { ...page, hostname: "a&b=c#d" })).toBe("ferry://start?secure=1&host=a%26b%3Dc%23d&certSelect=1");
  });
  it("gives nothing for a scheme that would open a page, run script or read files", () => {
    for (const bad of [
      "javascript",
      "JavaScript",
      "data",
      "file",
      "http",
      "HTTPS",
      "vbscript",
      "blob",
      "about",
      "javascript:alert(1)//",
      "alert(1);ferry",
      "ferry://evil",
      "ferry start",
      "fer\nry",
      "1ferry",
      "-ferry",
      "",
      "ferry:",
      "fér",
      "ferry\u0000",
    ]) {
      expect({ bad, url: launchUrl(bad, page) }).toEqual({ bad, url: null });
    }
  });
});

describe("webLinkHref", () => {
  it("keeps absolute http: and https: addresses", () => {
    for (const ok of ["https://example.com", "http://example.com/about?x=1#y", "HTTPS://EXAMPLE.COM/a"]) expect(webLinkHref(ok)).toBe(ok);
  });
  it("gives nothing for any other address", () => {
    for (const bad of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "//evil.example",
      "/relative",
      "example.com",
      "https://",
      "https://exa mple.com",
      "https://example.com\u0000",
      "ftp://example.com",
      "",
      null,
      undefined,
    ]) {
      expect({ bad, href: webLinkHref(bad) }).toEqual({ bad, href: null });
    }
  });
});
