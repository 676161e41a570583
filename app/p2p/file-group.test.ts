import { describe, expect, it } from "vitest";
import { parseDeviceId } from "./device-id";
import { addEntries, EMPTY_GROUP, groupOf, parseGroup, parseRememberedIds, rememberId, removeEntry, REMEMBERED_IDS_MAX } from "./file-group";

const isId = (id: string) => parseDeviceId(id) === id;

describe("P2P file group", () => {
  it("counts files, folders and the total size", () => {
    const group = groupOf([
      { name: "a.txt", file_size: 10, file_type: 0 },
      { name: "photos", file_size: 300, file_type: 1 },
      { name: "b.bin", file_size: 5, file_type: 0 },
    ]);
    expect(group).toMatchObject({ size: 315, fileCount: 2, folderCount: 1 });
  });

  it("reads older plain-name entries and marks them old", () => {
    const group = parseGroup(JSON.stringify({ list: ["report.pdf", { name: "new.txt", file_size: 4, file_type: 0 }], size: 4, fileCount: 2, folderCount: 0 }));
    expect(group.list).toEqual([
      { name: "report.pdf", file_size: 0, file_type: 0, old: true },
      { name: "new.txt", file_size: 4, file_type: 0 },
    ]);
    expect(group.fileCount).toBe(2);
  });

  it("recounts the totals instead of trusting the stored ones, and drops what it cannot read", () => {
    const group = parseGroup(JSON.stringify({ list: [{ name: "x", file_size: 7, file_type: 1 }, { file_size: 3 }, 42, ""], size: 999, fileCount: 9, folderCount: 0 }));
    expect(group).toEqual({ list: [{ name: "x", file_size: 7, file_type: 1 }], size: 7, fileCount: 0, folderCount: 1 });
    expect(parseGroup("not json")).toEqual(EMPTY_GROUP);
    expect(parseGroup(null)).toEqual(EMPTY_GROUP);
  });

  it("adds entries, the same name picked again replacing the first, and removes one", () => {
    let group = addEntries(EMPTY_GROUP, [{ name: "a", file_size: 1, file_type: 0, source: "local" }]);
    group = addEntries(group, [
      { name: "a", file_size: 2, file_type: 0, source: "local" },
      { name: "a", file_size: 5, file_type: 0, source: "ferry" },
    ]);
    expect(group.list.map((e) => [e.name, e.file_size])).toEqual([
      ["a", 2],
      ["a", 5],
    ]);
    group = removeEntry(group, 0);
    expect(group).toMatchObject({ size: 5, fileCount: 1 });
  });
});

describe("remembered receiver ids", () => {
  it("puts the last one used at the front, once", () => {
    expect(rememberId(["111111111", "222222222"], "222222222")).toEqual(["222222222", "111111111"]);
    expect(rememberId([], "333333333")).toEqual(["333333333"]);
  });

  it(`keeps ${REMEMBERED_IDS_MAX}`, () => {
    let ids: string[] = [];
    for (let i = 1; i <= 12; i++) ids = rememberId(ids, `${i}00000000`.slice(0, 9).padEnd(9, "0"));
    expect(ids).toHaveLength(REMEMBERED_IDS_MAX);
    expect(ids[0]).toBe("120000000");
  });

  it("reads stored ids, numbers too, and leaves out what is not an id", () => {
    expect(parseRememberedIds(JSON.stringify(["482913557", 123456789, "nope", "482913557", "012345678"]), isId)).toEqual(["482913557", "123456789"]);
    expect(parseRememberedIds("{}", isId)).toEqual([]);
    expect(parseRememberedIds("[", isId)).toEqual([]);
  });
});
