import { describe, expect, it } from "vitest";
import { listSortOf, readListSort, writeListSort } from "./list-sort";

const KEYS = ["account", "fullname"] as const;

describe("a console list's order in its address", () => {
  it("reads a field the engine sorts by, ascending unless it says desc", () => {
    expect(readListSort(new URLSearchParams("orderBy=account&order=desc"), KEYS)).toEqual({ key: "account", order: "descending" });
    expect(readListSort(new URLSearchParams("orderBy=fullname&order=asc"), KEYS)).toEqual({ key: "fullname", order: "ascending" });
    expect(readListSort(new URLSearchParams("orderBy=fullname"), KEYS)).toEqual({ key: "fullname", order: "ascending" });
  });

  it("takes any other field for no order, so the engine never sees it", () => {
    for (const query of ["", "order=desc", "orderBy=email&order=asc", "orderBy=ACCOUNT", "orderBy=password_hash"]) expect(readListSort(new URLSearchParams(query), KEYS)).toBeNull();
  });

  it("writes the engine's names back, and nothing for no order", () => {
    expect(writeListSort(new URLSearchParams("page=2"), { key: "account", order: "descending" }).toString()).toBe("page=2&orderBy=account&order=desc");
    expect(writeListSort(new URLSearchParams("page=2"), null).toString()).toBe("page=2");
  });

  it("turns the table's next order into the list's: a header of another field is no order", () => {
    expect(listSortOf({ key: "account", order: "ascending" }, KEYS)).toEqual({ key: "account", order: "ascending" });
    expect(listSortOf({ key: "online", order: "ascending" }, KEYS)).toBeNull();
    expect(listSortOf(null, KEYS)).toBeNull();
  });
});
