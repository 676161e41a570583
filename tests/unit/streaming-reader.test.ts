import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { streamingReader } from "../../server/storage/shared";

/**
 * The positional reader of the object-store drivers (server/storage/shared.ts): reads that follow
 * each other come from one ranged request per window; the requests are counted here against an
 * object held in memory, answered as a store does (a body in chunks, its first offset).
 */
const MIB = 1024 * 1024;

function store(object: Buffer, { chunk = 64 * 1024, ignoreStart = false, shortBy = 0 } = {}) {
  const asked: [number, number][] = [];
  const open = async (start: number, end: number) => {
    asked.push([start, end]);
    const from = ignoreStart ? 0 : start;
    const bytes = object.subarray(from, Math.max(from, end + 1 - shortBy));
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk));
    return { body: Readable.from(pieces), from };
  };
  return { asked, open };
}

async function readAll(reader: ReturnType<typeof streamingReader>, size: number, step: number) {
  const out = Buffer.alloc(size);
  const buffer = new Uint8Array(step);
  let at = 0;
  for (;;) {
    const n = await reader.read(buffer, step, at);
    if (n === 0) break;
    out.set(buffer.subarray(0, n), at);
    at += n;
  }
  return out.subarray(0, at);
}

describe("streamingReader", () => {
  it("reads a whole object in order with one request per window, the windows doubling from 1 MiB up to the largest, byte-identical", async () => {
    const object = randomBytes(9 * MIB + 123);
    const { asked, open } = store(object);
    const reader = streamingReader(object.length, open, 2 * MIB);
    expect((await readAll(reader, object.length, MIB)).equals(object)).toBe(true);
    expect(asked).toEqual([
      [0, MIB - 1],
      [MIB, 3 * MIB - 1],
      [3 * MIB, 5 * MIB - 1],
      [5 * MIB, 7 * MIB - 1],
      [7 * MIB, 9 * MIB - 1],
      [9 * MIB, object.length - 1],
    ]);
    await reader.close();
  });

  it("asks the store for about what a ranged download of a few MiB takes, not a whole window", async () => {
    const object = randomBytes(40 * MIB);
    const { asked, open } = store(object);
    const reader = streamingReader(object.length, open);
    const buffer = new Uint8Array(MIB);
    for (let at = 12 * MIB; at < 15 * MIB; at += MIB) {
      expect(await reader.read(buffer, MIB, at)).toBe(MIB);
      expect(Buffer.from(buffer).equals(object.subarray(at, at + MIB))).toBe(true);
    }
    await reader.close();
    expect(asked).toEqual([
      [12 * MIB, 13 * MIB - 1],
      [13 * MIB, 15 * MIB - 1],
    ]);
  });

  it("opens a new request where a read does not follow the last one, and asks at least for the read's length", async () => {
    const object = randomBytes(3 * MIB);
    const { asked, open } = store(object);
    const reader = streamingReader(object.length, open, MIB / 2);
    const buffer = new Uint8Array(MIB);
    expect(await reader.read(buffer, 100, 0)).toBe(100);
    expect(await reader.read(buffer, MIB, 2 * MIB)).toBe(MIB);
    expect(Buffer.from(buffer).equals(object.subarray(2 * MIB))).toBe(true);
    expect(asked).toEqual([
      [0, MIB / 2 - 1],
      [2 * MIB, 3 * MIB - 1],
    ]);
    await reader.close();
  });

  it("skips what a store sends before the position when it ignored the range's start", async () => {
    const object = randomBytes(MIB);
    const { open } = store(object, { ignoreStart: true });
    const reader = streamingReader(object.length, open, MIB);
    const buffer = new Uint8Array(1000);
    expect(await reader.read(buffer, 1000, 5000)).toBe(1000);
    expect(Buffer.from(buffer).equals(object.subarray(5000, 6000))).toBe(true);
  });

  it("refuses a body that starts after the position asked for (CannotReadFile)", async () => {
    const reader = streamingReader(100, async () => ({ body: Readable.from([Buffer.alloc(10)]), from: 50 }));
    await expect(reader.read(new Uint8Array(10), 10, 0)).rejects.toMatchObject({ errorName: "CannotReadFile" });
  });

  it("gives fewer bytes, then 0, when the store's body ends early (the object shrank)", async () => {
    const object = randomBytes(1000);
    const { open } = store(object, { shortBy: 400 });
    const reader = streamingReader(object.length, open, MIB);
    const buffer = new Uint8Array(1000);
    expect(await reader.read(buffer, 1000, 0)).toBe(600);
    expect(Buffer.from(buffer.subarray(0, 600)).equals(object.subarray(0, 600))).toBe(true);
  });
});

describe("streamingReader after a cut body", () => {
  it("asks again once from where it stopped when the open body fails, and fails when the new one fails too", async () => {
    const object = randomBytes(MIB);
    const asked: number[] = [];
    let cuts = 1;
    const open = async (start: number, end: number) => {
      asked.push(start);
      const bytes = object.subarray(start, end + 1);
      async function* body() {
        yield bytes.subarray(0, 1000);
        if (cuts-- > 0) throw new Error("socket timeout");
        yield bytes.subarray(1000);
      }
      return { body: Readable.from(body()), from: start };
    };
    const reader = streamingReader(object.length, open, MIB);
    const buffer = new Uint8Array(MIB);
    expect(await reader.read(buffer, 1000, 0)).toBe(1000);
    // The open body is cut after its first 1000 bytes: the next read asks again at 1000.
    expect(await reader.read(buffer, 5000, 1000)).toBe(5000);
    expect(Buffer.from(buffer.subarray(0, 5000)).equals(object.subarray(1000, 6000))).toBe(true);
    expect(asked).toEqual([0, 1000]);
    cuts = 2;
    await expect(reader.read(buffer, MIB, 500_000)).rejects.toThrow("socket timeout");
  });
});

describe("streamingReader and the store's connections", () => {
  function tracked(object: Buffer) {
    const bodies: Readable[] = [];
    const open = async (start: number, end: number) => {
      const body = Readable.from([object.subarray(start, end + 1)]);
      bodies.push(body);
      return { body, from: start };
    };
    return { bodies, open };
  }

  it("reads each window's body to its end (its connection goes back to the pool) rather than cutting it", async () => {
    const object = randomBytes(4 * MIB);
    const { bodies, open } = tracked(object);
    const reader = streamingReader(object.length, open, 2 * MIB);
    expect((await readAll(reader, object.length, MIB)).equals(object)).toBe(true);
    await reader.close();
    expect(bodies).toHaveLength(3);
    expect(bodies.map((b) => b.readableEnded)).toEqual([true, true, true]);
  });

  it("lets the open body go when the caller stops reading for a while, and asks again from there", async () => {
    const object = randomBytes(MIB);
    const { bodies, open } = tracked(object);
    const reader = streamingReader(object.length, open, MIB, 50);
    const buffer = new Uint8Array(1000);
    expect(await reader.read(buffer, 1000, 0)).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(bodies[0]!.destroyed).toBe(true);
    expect(await reader.read(buffer, 1000, 1000)).toBe(1000);
    expect(Buffer.from(buffer).equals(object.subarray(1000, 2000))).toBe(true);
    expect(bodies).toHaveLength(2);
    await reader.close();
  });
});
