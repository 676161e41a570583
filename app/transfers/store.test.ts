import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROGRESS_REFRESH_MS, TransferStore, secondsLeft } from "./store";
import { TransferStatus, type TransferItem } from "./types";

const item = (id: string, patch: Partial<TransferItem> = {}): TransferItem => ({
  id,
  kind: "upload",
  name: `${id}.bin`,
  status: TransferStatus.Uploading,
  currentSize: 0,
  totalSize: 10_000_000,
  createTime: 1,
  errorMsgKey: null,
  speed: 0,
  queued: false,
  paused: false,
  needsFile: false,
  ...patch,
});

describe("TransferStore", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows additions, status changes and removals at once, with a new snapshot each time", () => {
    const store = new TransferStore();
    const seen = vi.fn();
    store.subscribe(seen);
    const empty = store.getSnapshot();
    store.add(item("a"));
    expect(seen).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot()).not.toBe(empty);
    store.update("a", { status: TransferStatus.UploadFailed, errorMsgKey: "error.1008" });
    expect(store.get("a")).toMatchObject({ status: TransferStatus.UploadFailed, errorMsgKey: "error.1008" });
    expect(store.activeCount()).toBe(0);
    store.remove("a");
    expect(store.getSnapshot()).toEqual([]);
    expect(seen).toHaveBeenCalledTimes(3);
  });

  it("refreshes progress at most once a second and measures the speed between refreshes", () => {
    const store = new TransferStore();
    store.add(item("a"));
    const seen = vi.fn();
    store.subscribe(seen);

    store.progress("a", 1000);
    vi.advanceTimersByTime(0);
    expect(seen).toHaveBeenCalledTimes(1);
    expect(store.get("a")?.currentSize).toBe(1000);

    // Many reports within the next second make one refresh, at the second's end, with the last count.
    for (let bytes = 2000; bytes <= 1_001_000; bytes += 1000) {
      store.progress("a", bytes);
      vi.advanceTimersByTime(0.9);
    }
    expect(seen).toHaveBeenCalledTimes(1);
    expect(store.get("a")?.currentSize).toBe(1000);
    vi.advanceTimersByTime(PROGRESS_REFRESH_MS);
    expect(seen).toHaveBeenCalledTimes(2);
    expect(store.get("a")?.currentSize).toBe(1_001_000);
    // 1,000,000 bytes in one second.
    expect(store.get("a")?.speed).toBe(1_000_000);
    expect(secondsLeft(store.get("a")!)).toBe(9);
  });

  it("applies pending bytes with a status change and stops the speed when paused", () => {
    const store = new TransferStore();
    store.add(item("a", { speed: 500 }));
    store.progress("a", 4000);
    store.update("a", { paused: true });
    expect(store.get("a")).toMatchObject({ currentSize: 4000, paused: true, speed: 0 });
    expect(secondsLeft(store.get("a")!)).toBeNull();
  });

  it("counts uploads, checks, downloads and waiting downloads as active", () => {
    const store = new TransferStore();
    store.add(item("a"));
    store.add(item("b", { status: TransferStatus.ServerChecking }));
    store.add(item("c", { status: TransferStatus.Uploaded }));
    store.add(item("d", { kind: "download", status: TransferStatus.WaitDownload }));
    store.add(item("e", { kind: "download", status: TransferStatus.DownloadFailed }));
    expect(store.activeCount()).toBe(3);
  });
});
