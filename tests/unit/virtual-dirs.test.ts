import { describe, expect, it } from "vitest";
import { virtualAlias } from "../../contract/admin";
import { parseVirtualDirectories, rootPathOf } from "../../server/files/spaces";

/** The alias rule (admin spec section 5 and Ferry's one-name rule) and the stored rows' guard (docs/storage.md, "Virtual directories"). */
describe("virtual directories", () => {
  it("accept one folder name as an alias, with or without its slash, and refuse the spec's bad forms", () => {
    expect(virtualAlias("Team")).toBe("/Team");
    expect(virtualAlias("/Team")).toBe("/Team");
    expect(virtualAlias("/项目 资料")).toBe("/项目 资料");
    for (const bad of ["", "/", "//", "//Team", "Team/", "/a/b", "a//b", "a:b", "a*b", "a<b", "a>b", "a|b", 'a"b', "a\\b", "a?b", ".", "..", "/.ferry-tmp", "a\u0001b", "x".repeat(256)]) {
      expect(virtualAlias(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it("drop stored rows that overlap the home or an earlier target, or are malformed", () => {
    const rows = JSON.stringify([
      { alias: "/Team", path: "/shared/team" },
      { alias: "/All", path: "/" },
      { alias: "/Up", path: "/users" },
      { alias: "/In", path: "/users/a/sub" },
      { alias: "/Sub", path: "/shared/team/x" },
      { alias: "/Team", path: "/shared/other" },
      { alias: "/a/b", path: "/shared/ab" },
      { alias: "/Bad", path: "/shared/../users" },
      { alias: "/Docs", path: "/shared/docs" },
      "junk",
    ]);
    expect(parseVirtualDirectories(rows, { path: "/users/a", storageId: 1 })).toEqual([
      { alias: "/Team", path: "/shared/team", storageId: 1 },
      { alias: "/Docs", path: "/shared/docs", storageId: 1 },
    ]);
    expect(parseVirtualDirectories("not json", { path: "/users/a", storageId: 1 })).toEqual([]);
    // Overlaps count on one storage only: the same folder on another storage is another folder.
    const across = JSON.stringify([
      { alias: "/Home", path: "/users/a", storageId: 2 },
      { alias: "/Same", path: "/users/a", storageId: 1 },
    ]);
    expect(parseVirtualDirectories(across, { path: "/users/a", storageId: 1 })).toEqual([{ alias: "/Home", path: "/users/a", storageId: 2 }]);
  });

  it("map space paths to storage paths through the alias they lie under", () => {
    const space = { home: "/users/a", storageId: 1, virtual: [{ alias: "/Team", path: "/shared/team", storageId: 1 }, { alias: "/Far", path: "/far", storageId: 3 }] };
    expect(rootPathOf(space, "/")).toBe("/users/a");
    expect(rootPathOf(space, "/x/y")).toBe("/users/a/x/y");
    expect(rootPathOf(space, "/Team")).toBe("/shared/team");
    expect(rootPathOf(space, "/Team/p.txt")).toBe("/shared/team/p.txt");
    expect(rootPathOf(space, "/Teams/p.txt")).toBe("/users/a/Teams/p.txt");
    expect(rootPathOf({ home: "/", storageId: 1, virtual: [] }, "/x")).toBe("/x");
    // Another storage's paths carry its id, so usage counts never mix two storages' folders.
    expect(rootPathOf(space, "/Far/p.txt")).toBe("@3/far/p.txt");
    expect(rootPathOf({ home: "/g", storageId: 2, virtual: [] }, "/x")).toBe("@2/g/x");
  });
});
