import { afterEach, describe, expect, it, vi } from "vitest";
import { PageDownload, type PageDownloadRecord } from "./parallel-download.client";

/**
 * A page-written download against a scripted file server whose ranges arrive slowly (the clock
 * moves 100 ms per 64 KiB piece), so idle streams at the end split the ranges still running (work
 * stealing): the file on "disk" must be the file byte for byte, the split requests must stop
 * reading at their split point, and the saved record must never name a range not wholly written.
 */

const MIB = 1024 * 1024;
const SIZE = 4 * MIB;
const CHUNK = 2 * MIB;
const source = new Uint8Array(SIZE).map((_v, i) => (i * 7 + (i >> 9)) & 255);

interface Request {
  start: number;
  end: number;
  cancelled: boolean;
  sent: number;
}

describe("page-written download: ranges split for idle streams", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("writes every byte once, stops split requests at their split point, and saves only ranges wholly written, also after a piece fails", async () => {
    let clock = 0;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    const disk = new Uint8Array(SIZE);
    const written: [number, number][] = [];
    const writable = {
      truncate: async () => undefined,
      write: async ({ position, data }: { position: number; data: Uint8Array }) => {
        disk.set(data, position);
        written.push([position, position + data.length]);
      },
      close: async () => undefined,
      abort: async () => undefined,
    };
    const handle = { createWritable: async () => writable, getFile: async () => ({ size: SIZE }) };
    const requests: Request[] = [];
    let failed = false;
    vi.stubGlobal("fetch", async (_url: string, init: { headers: { Range: string } }) => {
      const [, a, b] = /bytes=(\d+)-(\d+)/.exec(init.headers.Range)!;
      const request: Request = { start: Number(a), end: Number(b) + 1, cancelled: false, sent: 0 };
      requests.push(request);
      let at = request.start;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= request.end) return controller.close();
          // The first range's first request breaks off once, past the middle of its first half.
          if (request.start === 0 && at > 1.15 * MIB && !failed) {
            failed = true;
            return controller.error(new TypeError("network"));
          }
          const n = Math.min(64 * 1024 + 13, request.end - at);
          controller.enqueue(source.slice(at, at + n));
          at += n;
          request.sent = at - request.start;
          clock += 100;
          return new Promise((resolve) => setTimeout(resolve, 20));
        },
        cancel() {
          request.cancelled = true;
        },
      });
      return { status: 206, headers: new Headers({ "content-range": `bytes ${request.start}-${request.end - 1}/${SIZE}`, etag: "x" }), body } as unknown as Response;
    });
    const covered = (start: number, end: number) => {
      const sorted = [...written].sort((x, y) => x[0] - y[0]);
      let at = start;
      for (const [s, e] of sorted) if (s <= at && e > at) at = e;
      return at >= end;
    };
    const badSaves: number[] = [];
    const record: PageDownloadRecord = { id: "1", account: "a", groupId: 1, path: "/f", name: "f", size: SIZE, hash: null, etag: null, chunk: CHUNK, done: [], handle: handle as unknown as FileSystemFileHandle, createTime: 0 };
    const download = new PageDownload(record, {
      ticket: async () => "http://files/download/f",
      progress: () => undefined,
      hasher: {} as never,
      save: async (saved) => {
        for (const index of saved.done) if (!covered(index * CHUNK, Math.min(SIZE, (index + 1) * CHUNK))) badSaves.push(index);
      },
    });
    await download.run();

    expect(Buffer.from(disk).equals(Buffer.from(source))).toBe(true);
    expect(badSaves).toEqual([]);
    expect(record.done.sort()).toEqual([0, 1]);
    // Ranges were split: some requests start inside a range, and the requests they were cut from stopped reading there.
    const splits = requests.filter((r) => r.start % CHUNK !== 0);
    expect(splits.length).toBeGreaterThan(0);
    for (const split of splits) {
      const cut = requests.find((r) => r.start < split.start && r.end > split.start && r.cancelled);
      expect(cut, `the request cut at ${split.start}`).toBeDefined();
      // It read at most one piece past the split point before it was stopped.
      expect(cut!.start + cut!.sent).toBeLessThanOrEqual(split.start + 64 * 1024 + 13);
    }
    // The piece that broke off was asked again from where it was, not the whole range.
    expect(failed).toBe(true);
    expect(requests.filter((r) => r.start === 0)).toHaveLength(2);
  }, 60_000);
});
