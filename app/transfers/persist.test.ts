import { beforeEach, describe, expect, it } from "vitest";
import { chunkSize } from "./chunk-plan";
import { loadUploads, resumesInChunks, sameFile, saveUploads, updateUploads, type SavedUpload } from "./persist";

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

  it("an upload created in chunks resumes in chunks after the part size grew so the plan alone would send one stream", () => {
    const MIB = 1024 * 1024;
    const size = 20 * MIB;
    // Part size 4 MB when it started: five chunks; part size 0 now: one 16 MiB chunk would not make two.
    expect(resumesInChunks({ uploadUrl: null }, size, chunkSize(4))).toBe(true);
    expect(resumesInChunks({ uploadUrl: null }, size, chunkSize(0))).toBe(false);
    const started = { ...saved("c"), size, chunked: true };
    expect(resumesInChunks(started, size, chunkSize(0))).toBe(true);
    // The flag survives the saved list (a reload).
    saveUploads(localStorage, "alice", [started]);
    const [back] = loadUploads(localStorage, "alice");
    expect(back?.chunked).toBe(true);
    expect(resumesInChunks(back!, size, chunkSize(0))).toBe(true);
    // Without an upload on the server (started over after a refused commit) the plan decides again.
    expect(resumesInChunks({ ...started, uploadUrl: null }, size, chunkSize(0))).toBe(false);
    // A one-stream upload keeps following the plan.
    expect(resumesInChunks(saved("d"), size, chunkSize(0))).toBe(false);
  });
});
