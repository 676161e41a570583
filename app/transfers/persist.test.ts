import { beforeEach, describe, expect, it } from "vitest";
import { loadUploads, sameFile, saveUploads, updateUploads, type SavedUpload } from "./persist";

const saved = (id: string): SavedUpload => ({
  id,
  groupId: 0,
  path: `/docs/${id}.bin`,
  name: `${id}.bin`,
  size: 1234,
  lastModified: 1_700_000_000_000,
  type: "application/octet-stream",
  uploadUrl: `http://127.0.0.1:2480/uploads/${id}`,
  offset: 0,
  createTime: 1_700_000_000,
});

describe("saved uploads", () => {
  beforeEach(() => localStorage.clear());

  it("keeps one list per account across loads", () => {
    saveUploads(localStorage, "alice", [saved("a"), saved("b")]);
    saveUploads(localStorage, "bob", [saved("c")]);
    expect(loadUploads(localStorage, "alice").map((u) => u.id)).toEqual(["a", "b"]);
    expect(loadUploads(localStorage, "bob").map((u) => u.id)).toEqual(["c"]);
    updateUploads(localStorage, "alice", (list) => list.filter((u) => u.id !== "a"));
    expect(loadUploads(localStorage, "alice").map((u) => u.id)).toEqual(["b"]);
    updateUploads(localStorage, "alice", () => []);
    expect(localStorage.getItem("ferry.transfers.alice")).toBeNull();
  });

  it("drops damaged entries and unreadable lists instead of failing", () => {
    localStorage.setItem("ferry.transfers.alice", JSON.stringify([saved("a"), { id: "x", size: "big" }, null]));
    expect(loadUploads(localStorage, "alice").map((u) => u.id)).toEqual(["a"]);
    localStorage.setItem("ferry.transfers.alice", "{not json");
    expect(loadUploads(localStorage, "alice")).toEqual([]);
    localStorage.setItem("ferry.transfers.alice", JSON.stringify({ id: "a" }));
    expect(loadUploads(localStorage, "alice")).toEqual([]);
  });

  it("recognises the same file by name, size and modification time", () => {
    const entry = saved("a");
    expect(sameFile(entry, { name: "a.bin", size: 1234, lastModified: entry.lastModified })).toBe(true);
    expect(sameFile(entry, { name: "a.bin", size: 1235, lastModified: entry.lastModified })).toBe(false);
    expect(sameFile(entry, { name: "a.bin", size: 1234, lastModified: entry.lastModified + 1 })).toBe(false);
    expect(sameFile(entry, { name: "b.bin", size: 1234, lastModified: entry.lastModified })).toBe(false);
  });
});
