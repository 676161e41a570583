import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FerryError } from "../../server/errors";
import { assertNoSymlinkEscape, joinName, normaliseUserPath, resolveUserPath } from "../../server/storage/paths";

const ROOT = "/data/u";

/** The catalogue name a call fails with, or "ok". */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (err) {
    if (err instanceof FerryError) return err.errorName;
    throw err;
  }
}

async function outcomeAsync(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return "ok";
  } catch (err) {
    if (err instanceof FerryError) return err.errorName;
    throw err;
  }
}

const rel = (userPath: string) => resolveUserPath(ROOT, userPath).relative;
const abs = (userPath: string) => resolveUserPath(ROOT, userPath).absolute;

describe("resolveUserPath: accepted paths", () => {
  it("normalises to a leading slash; the root is '/'", () => {
    expect(resolveUserPath(ROOT, "/docs/a.txt")).toEqual({ relative: "/docs/a.txt", absolute: "/data/u/docs/a.txt" });
    expect(resolveUserPath(ROOT, "docs")).toEqual({ relative: "/docs", absolute: "/data/u/docs" });
    expect(resolveUserPath(ROOT, "")).toEqual({ relative: "/", absolute: ROOT });
    expect(resolveUserPath(ROOT, "/")).toEqual({ relative: "/", absolute: ROOT });
    expect(resolveUserPath(ROOT + "/", "/x").absolute).toBe("/data/u/x");
  });

  it("collapses repeated slashes and drops a trailing slash", () => {
    expect(rel("//docs///a.txt")).toBe("/docs/a.txt");
    expect(rel("/docs/")).toBe("/docs");
    expect(rel("///")).toBe("/");
  });

  it("treats an absolute user path as relative to the root: /etc is <root>/etc", () => {
    expect(resolveUserPath(ROOT, "/etc")).toEqual({ relative: "/etc", absolute: "/data/u/etc" });
    expect(abs("/etc/passwd")).toBe("/data/u/etc/passwd");
  });

  it("decodes nothing: percent-encoded text is a harmless name inside the root", () => {
    expect(resolveUserPath(ROOT, "%2e%2e%2f")).toEqual({ relative: "/%2e%2e%2f", absolute: "/data/u/%2e%2e%2f" });
    expect(rel("%252e%252e%252f/x")).toBe("/%252e%252e%252f/x");
    expect(rel("/a%5Cb")).toBe("/a%5Cb");
    expect(rel("/%00")).toBe("/%00");
    expect(rel("/%")).toBe("/%");
  });

  it("keeps file..name, ...name and names ending in dots", () => {
    expect(rel("/file..name")).toBe("/file..name");
    expect(rel("/...")).toBe("/...");
    expect(rel("/a./b..")).toBe("/a./b..");
    expect(rel("/.hidden")).toBe("/.hidden");
  });

  it("gives NFC and NFD spellings of é the same relative path", () => {
    const nfc = "/caf\u00e9";
    const nfd = "/cafe\u0301";
    expect(nfc).not.toBe(nfd);
    expect(rel(nfd)).toBe(nfc);
    expect(rel(nfc)).toBe(nfc);
  });

  it("accepts a 255-character name and a multibyte name at 255 bytes", () => {
    expect(rel("/" + "a".repeat(255))).toBe("/" + "a".repeat(255));
    const multibyte = "é".repeat(127) + "a"; // 2 × 127 + 1 = 255 bytes
    expect(Buffer.byteLength(multibyte)).toBe(255);
    expect(rel("/" + multibyte)).toBe("/" + multibyte);
    const cjk = "文".repeat(85); // 3 × 85 = 255 bytes
    expect(rel("/" + cjk)).toBe("/" + cjk);
  });

  it("keeps markup, quotes and shell characters as plain names", () => {
    for (const name of ['<img src=x onerror=alert(1)>', "it's \"quoted\"", "$(rm -rf ~); `x`", "-rf", "名前 📁"]) {
      expect(rel("/" + name)).toBe("/" + name);
    }
  });
});

describe("resolveUserPath: refused paths", () => {
  const refused: Array<[string, string]> = [
    ["dot-dot", ".."],
    ["dot-dot at the start", "../etc/passwd"],
    ["dot-dot twice", "../.."],
    ["dot-dot in the middle", "/docs/../../etc"],
    ["dot-dot at the end", "/docs/.."],
    ["dot", "/./docs"],
    ["lone dot", "."],
    ["dot-dot with backslash", "..\\"],
    ["backslash traversal", "..\\..\\windows"],
    ["backslash in a name", "/a\\b"],
    ["drive prefix with backslash", "C:\\"],
    ["drive prefix", "C:"],
    ["drive prefix with slash", "c:/windows"],
    ["drive prefix after a leading slash", "/D:/x"],
    ["real NUL", "/a\u0000b"],
    ["NUL after the name", "/a.txt\u0000.png"],
    ["tab", "/a\tb"],
    ["CR", "/a\rb"],
    ["LF", "/a\nb"],
    ["CRLF", "/a\r\nb"],
    ["DEL", "/a\u007fb"],
    ["C1 control", "/a\u0085b"],
    ["lone surrogate", "/a\ud800b"],
    ["fullwidth dot-dot", "/\uff0e\uff0e/etc"],
    ["fullwidth dot", "/\uff0e"],
    ["fullwidth solidus", "/a\uff0fb"],
    ["fullwidth dot-dot and solidus", "\uff0e\uff0e\uff0fetc"],
    ["fullwidth reverse solidus", "/a\uff3cb"],
    ["one dot leader", "/\u2024\u2024"],
    ["two dot leader", "/\u2025"],
    ["small full stop", "/\ufe52\ufe52"],
    ["fullwidth drive", "/\uff23\uff1a"],
    ["256-character name", "/" + "a".repeat(256)],
    ["name over 255 bytes", "/" + "é".repeat(128)],
    ["CJK name over 255 bytes", "/" + "文".repeat(86)],
    ["path over 4096 bytes", "/" + Array.from({ length: 20 }, () => "b".repeat(250)).join("/")],
    ["staging area", "/.ferry-tmp"],
    ["staging area in any case", "/docs/.FERRY-TMP/x"],
  ];
  it.each(refused)("%s", (_label, input) => {
    expect(outcome(() => resolveUserPath(ROOT, input))).toBe("InvalidPath");
  });

  it("refuses look-alikes whether or not the caller applied NFKC first", () => {
    const lookAlike = "\uff0e\uff0e\uff0fetc";
    expect(lookAlike.normalize("NFKC")).toBe("../etc");
    expect(outcome(() => resolveUserPath(ROOT, lookAlike))).toBe("InvalidPath");
    expect(outcome(() => resolveUserPath(ROOT, lookAlike.normalize("NFKC")))).toBe("InvalidPath");
  });

  it("refuses what is not a string", () => {
    expect(outcome(() => resolveUserPath(ROOT, 42 as any))).toBe("InvalidPath");
    expect(outcome(() => resolveUserPath(ROOT, null as any))).toBe("InvalidPath");
  });

  it("requires an absolute root", () => {
    expect(() => resolveUserPath("data/u", "/x")).toThrow(/absolute/);
  });
});

describe("resolveUserPath: sibling prefixes", () => {
  it("root /data/u never reaches /data/u2, with or without a trailing slash", () => {
    for (const root of ["/data/u", "/data/u/"]) {
      for (const input of ["../u2", "../u2/", "/../u2/secret", "..//u2", "u2"]) {
        let result: string;
        try {
          result = resolveUserPath(root, input).absolute;
        } catch (err) {
          expect((err as FerryError).errorName).toBe("InvalidPath");
          continue;
        }
        expect(result === "/data/u" || result.startsWith("/data/u/")).toBe(true);
      }
    }
    expect(abs("u2")).toBe("/data/u/u2");
  });
});

describe("normaliseUserPath", () => {
  it("is idempotent on its own output", () => {
    for (const input of ["", "/", "a//b/", "/cafe\u0301", "/x/file..name"]) {
      const once = normaliseUserPath(input);
      expect(normaliseUserPath(once)).toBe(once);
    }
  });
});

describe("joinName", () => {
  it("joins a valid name into a folder", () => {
    expect(joinName("/", "a.txt")).toBe("/a.txt");
    expect(joinName("", "a.txt")).toBe("/a.txt");
    expect(joinName("/docs/", "file..name")).toBe("/docs/file..name");
    expect(joinName("/docs", "cafe\u0301")).toBe("/docs/caf\u00e9");
    expect(joinName("/docs", "é".repeat(127) + "a")).toBe("/docs/" + "é".repeat(127) + "a");
  });

  it.each([
    ["empty", ""],
    ["dot", "."],
    ["dot-dot", ".."],
    ["slash", "a/b"],
    ["backslash", "a\\b"],
    ["colon", "a:b"],
    ["quote", 'a"b'],
    ["star", "a*b"],
    ["question mark", "a?b"],
    ["less than", "<b"],
    ["greater than", "b>"],
    ["pipe", "a|b"],
    ["NUL", "a\u0000"],
    ["CR/LF", "a\r\nb"],
    ["fullwidth dot-dot", "\uff0e\uff0e"],
    ["fullwidth solidus", "a\uff0fb"],
    ["256 characters", "a".repeat(256)],
    ["over 255 bytes", "é".repeat(128)],
    ["staging name", ".ferry-tmp"],
  ])("refuses a name with %s (NameFormat)", (_label, name) => {
    expect(outcome(() => joinName("/docs", name))).toBe("NameFormat");
  });

  it("refuses a bad folder with InvalidPath", () => {
    expect(outcome(() => joinName("/../x", "a.txt"))).toBe("InvalidPath");
  });
});

describe("resolveUserPath: property", () => {
  const tokens = ["..", ".", "/", "\\", "//", "\uff0e", "\uff0f", "%2e", "%2f", "\u0000", "C:", "a", "é", "e\u0301", "u2", "\u2024", " ", "~"];
  const pieced = fc.array(fc.constantFrom(...tokens), { maxLength: 12 }).map((parts) => parts.join(""));
  const anyInput = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 60 }), pieced);

  it("either refuses with InvalidPath or stays inside the root", () => {
    fc.assert(
      fc.property(fc.constantFrom("/data/u", "/data/u/", "/"), anyInput, (root, input) => {
        let result;
        try {
          result = resolveUserPath(root, input);
        } catch (err) {
          return err instanceof FerryError && err.errorName === "InvalidPath";
        }
        const base = path.resolve(root);
        const prefix = base === "/" ? "/" : base + "/";
        const inside = result.absolute === base || result.absolute.startsWith(prefix);
        const noDots = !result.relative.split("/").some((s) => s === "." || s === "..");
        const stable = resolveUserPath(root, result.relative).relative === result.relative;
        return inside && noDots && stable && path.resolve(result.absolute) === result.absolute;
      }),
      { numRuns: 3000 },
    );
  });
});

describe("assertNoSymlinkEscape", () => {
  let dir: string;
  let root: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ferry-paths-"));
    root = path.join(dir, "u");
    await mkdir(path.join(root, "docs"), { recursive: true });
    await mkdir(path.join(dir, "u2"));
    await writeFile(path.join(dir, "u2", "secret.txt"), "secret");
    await writeFile(path.join(root, "docs", "a.txt"), "a");
    await symlink(path.join(dir, "u2"), path.join(root, "out"));
    await symlink("../../u2", path.join(root, "docs", "up"));
    await symlink(path.join(root, "docs"), path.join(root, "in"));
    await symlink(path.join(dir, "nowhere"), path.join(root, "dangling"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const check = (userPath: string) => outcomeAsync(() => assertNoSymlinkEscape(root, resolveUserPath(root, userPath).absolute));

  it("refuses links that lead out of the root, as the path or as a parent", async () => {
    expect(await check("/out")).toBe("InvalidPath");
    expect(await check("/out/secret.txt")).toBe("InvalidPath");
    expect(await check("/docs/up/secret.txt")).toBe("InvalidPath");
  });

  it("refuses a dangling link (writing through it would create its target)", async () => {
    expect(await check("/dangling")).toBe("InvalidPath");
  });

  it("allows plain paths, missing paths and links that stay inside", async () => {
    expect(await check("/")).toBe("ok");
    expect(await check("/docs/a.txt")).toBe("ok");
    expect(await check("/docs/new/deeper.txt")).toBe("ok");
    expect(await check("/docs/a.txt/not-a-folder")).toBe("ok");
    expect(await check("/in/a.txt")).toBe("ok");
  });

  it("refuses an absolute path outside the root outright", async () => {
    expect(await outcomeAsync(() => assertNoSymlinkEscape(root, path.join(dir, "u2")))).toBe("InvalidPath");
  });
});
