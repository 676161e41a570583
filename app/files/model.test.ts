import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import type { FileEntry } from "../../contract/files";
import { FileCommandError } from "./connection.client";
import { breadcrumbParts, nameProblem, normalizePath, parentPath, previewNotice, previewRefusalNotice, rowActions, selectionUseful, sortEntries, toolbarButtons } from "./model";

const file = (name: string, size = 0, time = 0): FileEntry => ({ name, file_type: "File", size, time });
const folder = (name: string, time = 0): FileEntry => ({ name, file_type: "Folder", size: 0, time });
const virtual = (name: string): FileEntry => ({ name, file_type: "VirtualFolder", size: 0, time: 0 });
const noSync = { serverSwitch: true, userSwitch: true, clientConnected: false };

describe("paths", () => {
  it("normalizes what the URL carries", () => {
    expect(normalizePath(null)).toBe("/");
    expect(normalizePath("")).toBe("/");
    expect(normalizePath("docs//a/")).toBe("/docs/a");
    expect(parentPath("/docs/a")).toBe("/docs");
    expect(parentPath("/docs")).toBe("/");
  });

  it("splits the breadcrumb into the root and one part per folder", () => {
    expect(breadcrumbParts("/")).toEqual([{ name: "", path: "/" }]);
    expect(breadcrumbParts("/docs/2024/q1")).toEqual([
      { name: "", path: "/" },
      { name: "docs", path: "/docs" },
      { name: "2024", path: "/docs/2024" },
      { name: "q1", path: "/docs/2024/q1" },
    ]);
  });
});

describe("name rules (spec section 5)", () => {
  it("requires a name and refuses the reserved characters and long names", () => {
    expect(nameProblem("  ")).toBe("files.name.required");
    for (const bad of ["a/b", "a\\b", "a:b", 'a"b', "a*b", "a?b", "a<b", "a>b", "a|b", "x".repeat(256)]) {
      expect(nameProblem(bad)).toBe("app.transfer.error.name-format");
    }
    expect(nameProblem("report (final).txt")).toBeNull();
    expect(nameProblem("x".repeat(255))).toBeNull();
    expect(nameProblem("新建文件夹")).toBeNull();
  });
});

describe("sorting", () => {
  const entries = [file("b.txt", 10, 3), folder("zeta", 1), file("a.txt", 30, 2), folder("alpha", 5)];

  it("puts folders first in either order", () => {
    expect(sortEntries(entries, null).map((e) => e.name)).toEqual(["alpha", "zeta", "a.txt", "b.txt"]);
    expect(sortEntries(entries, { key: "name", order: "descending" }).map((e) => e.name)).toEqual(["zeta", "alpha", "b.txt", "a.txt"]);
    expect(sortEntries(entries, { key: "size", order: "descending" }).map((e) => e.name)).toEqual(["zeta", "alpha", "a.txt", "b.txt"]);
    expect(sortEntries(entries, { key: "time", order: "ascending" }).map((e) => e.name)).toEqual(["zeta", "alpha", "a.txt", "b.txt"]);
  });

  it("compares numbers inside names as numbers", () => {
    expect(sortEntries([file("file10"), file("file2")], null).map((e) => e.name)).toEqual(["file2", "file10"]);
  });
});

describe("toolbar (spec section 6)", () => {
  const actions = (space: "personal" | "group", permission: number, selection: FileEntry[] = []) =>
    toolbarButtons({ space, permission, selection, sync: noSync }).map((b) => `${b.action}${b.disabled ? "(disabled)" : ""}`);

  it("shows the personal buttons, those acting on a selection disabled while nothing is selected", () => {
    expect(actions("personal", PERMISSION_FULL)).toEqual(["upload", "mkdir", "invite", "download(disabled)", "share(disabled)", "copy(disabled)", "move(disabled)", "remove(disabled)"]);
    expect(actions("personal", PERMISSION_FULL, [file("a")])).toEqual(["upload", "mkdir", "invite", "download", "share", "copy", "move", "remove"]);
  });

  it("has no copy or move on a group page", () => {
    expect(actions("group", PERMISSION_FULL, [file("a")])).toEqual(["upload", "mkdir", "download", "remove"]);
  });

  it("leaves out each button whose permission bit is missing", () => {
    expect(actions("personal", Permission.List | Permission.Download)).toEqual(["download(disabled)"]);
    expect(actions("personal", PERMISSION_FULL & ~Permission.Upload & ~Permission.Delete)).toEqual(["mkdir", "invite", "download(disabled)", "share(disabled)", "copy(disabled)", "move(disabled)"]);
    expect(actions("personal", 0)).toEqual([]);
  });

  it("hides copy and move while a virtual folder is selected", () => {
    expect(actions("personal", PERMISSION_FULL, [file("a"), virtual("v")])).toEqual(["upload", "mkdir", "invite", "download", "share", "remove"]);
  });

  it("offers sync only with HotFolder, both switches and the desktop client", () => {
    const sync = (permission: number, s: typeof noSync) => toolbarButtons({ space: "personal", permission, selection: [], sync: s }).some((b) => b.action === "sync");
    expect(sync(PERMISSION_FULL, { ...noSync, clientConnected: true })).toBe(true);
    expect(sync(PERMISSION_FULL, noSync)).toBe(false);
    expect(sync(PERMISSION_FULL & ~Permission.HotFolder, { ...noSync, clientConnected: true })).toBe(false);
    expect(sync(PERMISSION_FULL, { serverSwitch: false, userSwitch: true, clientConnected: true })).toBe(false);
    expect(sync(PERMISSION_FULL, { serverSwitch: true, userSwitch: false, clientConnected: true })).toBe(false);
  });
});

describe("selection boxes", () => {
  it("show exactly where a toolbar button acts on the selection", () => {
    const selectionActions = new Set(["download", "share", "copy", "move", "remove"]);
    const bits = [0, Permission.List, Permission.Upload, Permission.Download, Permission.Share, Permission.Copy, Permission.Move, Permission.Delete, Permission.Mkdir, Permission.Invite];
    for (const space of ["personal", "group", "share"] as const) {
      for (const bit of bits) {
        const permission = Permission.List | bit;
        const acts = toolbarButtons({ space, permission, selection: [file("a")], sync: noSync }).some((b) => selectionActions.has(b.action));
        expect(selectionUseful(space, permission), `${space} ${permission}`).toBe(acts);
      }
    }
    // An invitation's visitor (List + Upload) gets none; a download link's visitor does.
    expect(selectionUseful("share", Permission.List | Permission.Upload)).toBe(false);
    expect(selectionUseful("share", Permission.List | Permission.Download)).toBe(true);
  });
});

describe("row menu (spec section 6)", () => {
  it("follows the per-row rules", () => {
    expect(rowActions("personal", PERMISSION_FULL, file("a"))).toEqual(["share", "move", "copy", "download", "rename", "remove"]);
    expect(rowActions("personal", PERMISSION_FULL, folder("f"))).toEqual(["share", "invite", "move", "copy", "download", "rename", "attributes", "remove"]);
    expect(rowActions("personal", PERMISSION_FULL, virtual("v"))).toEqual(["share", "download", "attributes"]);
    expect(rowActions("group", PERMISSION_FULL, folder("f"))).toEqual(["download", "rename", "attributes", "remove"]);
    expect(rowActions("personal", Permission.List, file("a"))).toEqual([]);
  });

  it("leads with Preview for an image or PDF the user may download, never on share pages", () => {
    expect(rowActions("personal", PERMISSION_FULL, file("a.png"))[0]).toBe("preview");
    expect(rowActions("group", PERMISSION_FULL, file("paper.PDF"))[0]).toBe("preview");
    expect(rowActions("personal", PERMISSION_FULL, file("a.docx"))).not.toContain("preview");
    expect(rowActions("personal", PERMISSION_FULL, folder("f.png"))).not.toContain("preview");
    expect(rowActions("personal", PERMISSION_FULL & ~Permission.Download, file("a.png"))).not.toContain("preview");
    expect(rowActions("share", PERMISSION_FULL, file("a.png"))).not.toContain("preview");
  });
});

describe("preview (spec section 4)", () => {
  const may = { canDownload: true };
  it("asks the engine for images and PDF and explains everything else", () => {
    expect(previewNotice("a.PNG", may)).toBeNull();
    expect(previewNotice("a.pdf", may)).toBeNull();
    expect(previewNotice("a.docx", may)).toBe("files.preview.impossible");
    expect(previewNotice("a.mp4", may)).toBe("files.preview.impossible");
    expect(previewNotice("a.dwg", may)).toBe("files.preview.impossible");
    expect(previewNotice("a.zip", may)).toBe("files.preview.unsupported");
    expect(previewNotice("a.png", { canDownload: false })).toBe("files.preview.no-permission");
  });

  it("shows the enterprise notice when the engine answers 4109, and the ordinary error otherwise", () => {
    // What the page's connection rejects a refused command with.
    const reply = (code: number) => new FileCommandError(`error.${code}`, code);
    expect(previewRefusalNotice(reply(ErrorCode.FeatureNotSupported))).toBe("files.preview.enterprise");
    expect(previewRefusalNotice(reply(4109))).toBe("files.preview.enterprise");
    expect(previewRefusalNotice(reply(ErrorCode.PermissionDenied))).toBeNull();
    expect(previewRefusalNotice(reply(ErrorCode.PreviewUnsupported))).toBeNull();
    expect(previewRefusalNotice(new Error("network"))).toBeNull();
  });
});
