import { describe, expect, it } from "vitest";
import { rowActions, toolbarButtons } from "../../files/model";
import { sharePermission } from "./permission";

const toolbar = (permission: number, selected = 0) =>
  toolbarButtons({
    space: "share",
    permission,
    selection: Array.from({ length: selected }, () => ({ file_type: "File" as const })),
    sync: { serverSwitch: true, userSwitch: true, clientConnected: true },
  });

describe("share page toolbar (spec section 6)", () => {
  it("a download link that allows downloads: download only, enabled with a selection", () => {
    expect(toolbar(sharePermission("download", true))).toEqual([{ action: "download", disabled: true }]);
    expect(toolbar(sharePermission("download", true), 1)).toEqual([{ action: "download", disabled: false }]);
  });
  it("a download link without downloads: nothing", () => {
    expect(toolbar(sharePermission("download", false), 1)).toEqual([]);
  });
  it("an invitation: upload only, whatever the allow-download flag", () => {
    expect(toolbar(sharePermission("upload", true))).toEqual([{ action: "upload", disabled: false }]);
    expect(toolbar(sharePermission("upload", false), 2)).toEqual([{ action: "upload", disabled: false }]);
  });
  it("no share, invite, rename, move, copy or delete in a row's menu", () => {
    for (const permission of [sharePermission("download", true), sharePermission("upload", false)]) {
      expect(rowActions("share", permission, { file_type: "File" }).filter((a) => a !== "download")).toEqual([]);
    }
  });
});
