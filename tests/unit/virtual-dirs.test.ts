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
    expect(parseVirtualDirectories(rows, "/users/a")).toEqual([
      { alias: "/Team", path: "/shared/team" },
      { alias: "/Docs", path: "/shared/docs" },
    ]);
    expect(parseVirtualDirectories("not json", "/users/a")).toEqual([]);
  });

  it("map space paths to storage paths through the alias they lie under", () => {
    const space = { home: "/users/a", virtual: [{ alias: "/Team", path: "/shared/team" }] };
    expect(rootPathOf(space, "/")).toBe("/users/a");
    expect(rootPathOf(space, "/x/y")).toBe("/users/a/x/y");
    expect(rootPathOf(space, "/Team")).toBe("/shared/team");
    expect(rootPathOf(space, "/Team/p.txt")).toBe("/shared/team/p.txt");
    expect(rootPathOf(space, "/Teams/p.txt")).toBe("/users/a/Teams/p.txt");
    expect(rootPathOf({ home: "/", virtual: [] }, "/x")).toBe("/x");
  });
});
