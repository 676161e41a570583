import { describe, expect, it } from "vitest";
import { WRITE_WINDOW_BYTES, BUFFER_HIGH_BYTES, bytesDone, CHUNK_BYTES, chunkRanges, decodeFrame, encodeControl, mustPause, ReceiveTracker, resumePoint, type ControlFrame } from "./protocol";

const HASH = "a".repeat(64);

describe("frames", () => {
  it("round-trips every control frame", () => {
    const frames: ControlFrame[] = [
      { t: "file", file: 2, offset: 65536, size: 100000 },
      { t: "end", file: 2, hash: HASH },
      { t: "done" },
      { t: "resume", file: 1, offset: 10 },
      { t: "ok", file: 0 },
      { t: "bad", file: 0 },
      { t: "ack", bytes: 1048576 },
      { t: "cancel", reason: "user" },
      { t: "error", reason: "disk full" },
    ];
    for (const frame of frames) expect(decodeFrame(encodeControl(frame))).toEqual(frame);
  });

  it("passes binary data as a chunk", () => {
    const bytes = new ArrayBuffer(8);
    expect(decodeFrame(bytes)).toEqual({ t: "chunk", bytes });
  });

  it("refuses what is not a frame", () => {
    for (const text of ["nope", "{}", '{"t":"file","file":-1,"offset":0,"size":1}', '{"t":"file","file":0,"offset":5,"size":1}', '{"t":"end","file":0,"hash":"XYZ"}', '{"t":"resume","file":0}', '{"t":"ack","bytes":-1}', "null", JSON.stringify({ t: "error", reason: "x".repeat(20000) })])
      expect(decodeFrame(text), text).toBeNull();
  });
});

describe("chunks and flow control", () => {
  it("cuts a file into 64 KiB ranges from the offset", () => {
    expect([...chunkRanges(CHUNK_BYTES * 2 + 1, 0)]).toEqual([
      [0, CHUNK_BYTES],
      [CHUNK_BYTES, CHUNK_BYTES * 2],
      [CHUNK_BYTES * 2, CHUNK_BYTES * 2 + 1],
    ]);
    expect([...chunkRanges(100, 40, 50)]).toEqual([
      [40, 90],
      [90, 100],
    ]);
    expect([...chunkRanges(100, 100)]).toEqual([]);
    expect([...chunkRanges(0, 0)]).toEqual([]);
  });

  it("pauses above 8 MiB buffered", () => {
    expect(mustPause(BUFFER_HIGH_BYTES)).toBe(false);
    expect(mustPause(BUFFER_HIGH_BYTES + 1)).toBe(true);
  });

  it("pauses while more than the write window is not yet written by the receiver", () => {
    expect(mustPause(0, WRITE_WINDOW_BYTES, 0)).toBe(false);
    expect(mustPause(0, WRITE_WINDOW_BYTES + 1, 0)).toBe(true);
    expect(mustPause(0, WRITE_WINDOW_BYTES + 1, 1)).toBe(false);
  });
});

describe("resume", () => {
  const files = [
    { size: 10, kind: 0 },
    { size: 0, kind: 1 },
    { size: 20, kind: 0 },
    { size: 0, kind: 0 },
  ];

  it("starts at the first file not whole, from the bytes held", () => {
    expect(resumePoint(files, [])).toEqual({ file: 0, offset: 0 });
    expect(resumePoint(files, [10, 0, 7])).toEqual({ file: 2, offset: 7 });
    expect(resumePoint(files, [10, 0, 20])).toBeNull();
  });

  it("never trusts more bytes than the file has", () => {
    expect(resumePoint([{ size: 5, kind: 0 }], [3])).toEqual({ file: 0, offset: 3 });
    expect(resumePoint([{ size: 5, kind: 0 }], [9])).toBeNull();
  });

  it("counts the bytes done across files", () => {
    expect(bytesDone(files, 2, 5)).toBe(15);
  });
});

describe("the receiver's tracker", () => {
  const files = [
    { size: 5, kind: 0 },
    { size: 3, kind: 0 },
  ];
  const buf = (n: number) => new ArrayBuffer(n);

  it("places chunks at their offsets and ends each file", () => {
    const tracker = new ReceiveTracker(files);
    expect(tracker.take({ t: "file", file: 0, offset: 0, size: 5 })).toEqual({ kind: "start", file: 0, offset: 0 });
    expect(tracker.take({ t: "chunk", bytes: buf(3) })).toMatchObject({ kind: "write", file: 0, offset: 0 });
    expect(tracker.take({ t: "chunk", bytes: buf(2) })).toMatchObject({ kind: "write", file: 0, offset: 3 });
    expect(tracker.take({ t: "end", file: 0, hash: HASH })).toEqual({ kind: "end", file: 0, hash: HASH });
    tracker.ask(1, 2);
    expect(tracker.take({ t: "file", file: 1, offset: 2, size: 3 })).toEqual({ kind: "start", file: 1, offset: 2 });
    expect(tracker.position).toEqual({ file: 1, bytes: 2 });
    expect(tracker.take({ t: "chunk", bytes: buf(1) })).toMatchObject({ offset: 2 });
    expect(tracker.take({ t: "end", file: 1, hash: HASH })).toMatchObject({ kind: "end" });
    expect(tracker.take({ t: "done" })).toEqual({ kind: "done" });
  });

  it("fails on bytes outside a file, past its end, an early end or a start elsewhere than asked", () => {
    expect(new ReceiveTracker(files).take({ t: "chunk", bytes: buf(1) })).toMatchObject({ kind: "fail" });
    const past = new ReceiveTracker(files);
    past.take({ t: "file", file: 1, offset: 0, size: 3 });
    expect(past.take({ t: "chunk", bytes: buf(4) })).toMatchObject({ kind: "fail" });
    const early = new ReceiveTracker(files);
    early.take({ t: "file", file: 0, offset: 0, size: 5 });
    early.take({ t: "chunk", bytes: buf(4) });
    expect(early.take({ t: "end", file: 0, hash: HASH })).toMatchObject({ kind: "fail" });
    expect(early.take({ t: "done" })).toMatchObject({ kind: "fail" });
    const moved = new ReceiveTracker(files);
    moved.ask(0, 3);
    expect(moved.take({ t: "file", file: 0, offset: 0, size: 5 })).toMatchObject({ kind: "fail", reason: "wrong offset" });
    expect(new ReceiveTracker(files).take({ t: "file", file: 0, offset: 0, size: 6 })).toMatchObject({ kind: "fail" });
    expect(new ReceiveTracker(files).take({ t: "file", file: 7, offset: 0, size: 5 })).toMatchObject({ kind: "fail" });
  });
});
