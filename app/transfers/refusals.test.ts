import { describe, expect, it } from "vitest";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { PERMISSION_FULL, Permission } from "../../contract/permissions";
import { NO_ROOM, NO_UPLOAD, refusalOf, refusedForRoom, SKIPPED } from "./refusals";

const item = (name: string, size: number, relativePath = "") => ({ file: new File([new Uint8Array(size)], name), relativePath });

describe("refusalOf", () => {
  it("refuses a file over the limit with the limit, and takes one at the limit", () => {
    expect(refusalOf(item("a.bin", 101), 100)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.FileTooLarge), errorVars: { limit: 100 } });
    expect(refusalOf(item("a.bin", 100), 100)).toBeNull();
  });

  it("has no size limit at 0", () => {
    expect(refusalOf(item("a.bin", 5000), 0)).toBeNull();
  });

  it("refuses a name, or a folder name of the path, the engine refuses", () => {
    expect(refusalOf(item("a.bin", 1, "ok/bad:name/a.bin"), 0)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.NameFormat) });
    expect(refusalOf(item(`${"x".repeat(256)}.txt`, 1), 0)?.errorMsgKey).toBe(errorMessageKey(ErrorCode.NameFormat));
    expect(refusalOf(item("a.bin", 1, "ok/fine/a.bin"), 0)).toBeNull();
  });
});

describe("refusals from the space's upload rules", () => {
  const rules = { permission: PERMISSION_FULL, quota: 0, used: 0, uploadNewOnly: false, fileFormatMode: 0, fileFormats: [] as string[], fileFilter: { patterns: [] as string[], maxSize: 0 } };

  it("refuses every file without the Upload bit, before its size or name", () => {
    expect(refusalOf(item("a.bin", 500), 100, { ...rules, permission: PERMISSION_FULL & ~Permission.Upload })).toEqual({ errorMsgKey: NO_UPLOAD });
  });

  it("refuses a file type the format rule refuses, naming the file", () => {
    const black = { ...rules, fileFormatMode: 2, fileFormats: ["exe"] };
    expect(refusalOf(item("Setup.EXE", 1, "tools/Setup.EXE"), 0, black)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.FileFormatRefused), errorVars: { name: "Setup.EXE" } });
    expect(refusalOf(item("notes.txt", 1), 0, black)).toBeNull();
    expect(refusalOf(item("notes.txt", 1), 0, { ...rules, fileFormatMode: 1, fileFormats: ["jpg"] })?.errorMsgKey).toBe(errorMessageKey(ErrorCode.FileFormatRefused));
  });

  it("refuses a file type the server-wide format limit refuses in the server's words, not as a filter skip", () => {
    const server = { ...rules, fileFilter: { patterns: [] as string[], maxSize: 0, serverFormats: { mode: 2, formats: ["exe"] } } };
    expect(refusalOf(item("Setup.exe", 1), 0, server)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.FileFormatRefused), errorVars: { name: "Setup.exe", context: "server" } });
    expect(refusalOf(item("notes.txt", 1), 0, server)).toBeNull();
  });

  it("skips a file the space's filter names by name, by its path in the space or by size, before asking anything", () => {
    const filtered = { ...rules, fileFilter: { patterns: ["*.TMP", "~*", "/docs/build/*", "cache/*.bin"], maxSize: 100 } };
    const skipped = (name: string) => ({ errorMsgKey: SKIPPED, errorVars: { name } });
    expect(refusalOf(item("a.tmp", 1, "photos/a.tmp"), 0, filtered, "/docs")).toEqual(skipped("a.tmp"));
    expect(refusalOf(item("~lock.doc", 1), 0, filtered, "/")).toEqual(skipped("~lock.doc"));
    expect(refusalOf(item("big.iso", 101), 0, filtered, "/")).toEqual(skipped("big.iso"));
    expect(refusalOf(item("a.o", 1, "build/a.o"), 0, filtered, "/docs")).toEqual(skipped("a.o"));
    expect(refusalOf(item("a.bin", 1, "x/cache/a.bin"), 0, filtered, "/")).toEqual(skipped("a.bin"));
    expect(refusalOf(item("a.o", 1, "build/a.o"), 0, filtered, "/other")).toBeNull();
    expect(refusalOf(item("a.txt", 100, "photos/a.txt"), 0, filtered, "/docs")).toBeNull();
    expect(refusalOf(item("a.tmp.txt", 1), 0, filtered, "/")).toBeNull();
  });

  it("refuses, in the order picked, the files that no longer fit; a name that may be replaced is left to the engine", () => {
    const [a, b, c, d] = [item("a.bin", 60), item("b.bin", 50), item("c.bin", 30), item("d.bin", 500)];
    const room = { ...rules, quota: 100, used: 10 };
    const refused = refusedForRoom([a, b, c].map((i) => ({ item: i, clash: false })), room, true);
    expect([...refused.keys()]).toEqual([b]);
    expect(refused.get(b)).toEqual({ errorMsgKey: NO_ROOM, errorVars: { size: 50, free: 30, quota: 100 } });
    expect(refusedForRoom([{ item: d, clash: true }], room, true).size).toBe(0);
    expect(refusedForRoom([{ item: d, clash: true, replaces: 450 }], room, true).size).toBe(0);
    expect(refusedForRoom([{ item: d, clash: true, replaces: 300 }], room, true).get(d)?.errorVars).toEqual({ size: 200, free: 90, quota: 100 });
    expect(refusedForRoom([{ item: d, clash: true }], room, false).has(d)).toBe(true);
    expect(refusedForRoom([{ item: d, clash: false }], { ...room, quota: 0 }, false).size).toBe(0);
  });
});
