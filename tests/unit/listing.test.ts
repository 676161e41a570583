import { describe, expect, it } from "vitest";
import { FILE_TYPES, fileTypeCode, type Listing, listingEntries } from "../../contract/files";

describe("the list reply's columns", () => {
  it("codes each file type by its place in FILE_TYPES", () => {
    expect(FILE_TYPES.map(fileTypeCode)).toEqual([0, 1, 2]);
  });

  it("turns back into one row per entry, in the listing's order", () => {
    const listing: Listing = {
      path: "/docs",
      names: ["b", "a", "<img src=x onerror=alert(1)>", "z.txt"],
      types: [1, 2, 0, 0],
      sizes: [0, 0, 12, 3_000_000_000],
      times: [1_700_000_000, 0, 1_763_868_000, 1],
    };
    expect(listingEntries(listing)).toEqual([
      { name: "b", file_type: "Folder", size: 0, time: 1_700_000_000 },
      { name: "a", file_type: "VirtualFolder", size: 0, time: 0 },
      { name: "<img src=x onerror=alert(1)>", file_type: "File", size: 12, time: 1_763_868_000 },
      { name: "z.txt", file_type: "File", size: 3_000_000_000, time: 1 },
    ]);
    expect(listingEntries({ path: "/", names: [], types: [], sizes: [], times: [] })).toEqual([]);
  });
});
