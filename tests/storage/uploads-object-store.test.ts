import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { Upload } from "@tus/server";
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
} from "vitest";
import {
  createS3Storage,
  MIN_SLICE,
  type S3StorageConfig,
} from "../../server/storage/s3";
import type { Storage } from "../../server/storage/storage";
import { blake3Of } from "../../server/uploads/hash";
import { FerryError } from "../../server/errors";
import {
  MAX_WAITING_CHUNKS,
  PartBudget,
} from "../../server/uploads/object-store";
import { OWNER_KEY, UploadStore } from "../../server/uploads/store";
import { S3RVER_KEYS, startS3rver, type S3Server } from "../support/s3";
import { failure, readAll } from "../support/storage-conformance";

/**
 * The upload store taking tus uploads into an object store (server/uploads/object-store.ts,
 * docs/file-server.md, "Uploads into object storage"), against s3rver: the store is the real one,
 * called as tus calls it (create, write per PATCH, getUpload for HEAD, remove for DELETE); the
 * upload's storage is a real S3 storage. The engine's HTTP path over it (tus.ts, chunks.ts,
 * commit.ts) is the same code as for local uploads once the space's storage has `resumable`.
 */

const MIB = 1024 * 1024;
let server: S3Server;
let run = 0;
let dir: string;
let config: S3StorageConfig;
let storage: Storage;
let store: UploadStore;

beforeAll(async () => {
  server = await startS3rver();
});
afterAll(async () => server?.stop());
beforeEach(async () => {
  run++;
  dir = await mkdtemp(path.join(os.tmpdir(), "ferry-uploads-object-store-"));
  config = {
    endpoint: server.endpoint,
    bucket: server.bucket,
    ...S3RVER_KEYS,
    path: `o${run}`,
    sliceSize: MIN_SLICE,
  };
  storage = createS3Storage(config);
  store = await openStore();
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

async function openStore(): Promise<UploadStore> {
  const opened = await UploadStore.open(path.join(dir, "tus"), 60_000);
  const on = createS3Storage(config);
  opened.uploadsOf = async (metadata) => on.resumable!(String(metadata?.path));
  return opened;
}

async function create(
  size: number,
  target = "/up.bin",
  owner?: string
): Promise<string> {
  const id = randomBytes(16).toString("hex");
  await store.create(
    new Upload({
      id,
      size,
      offset: 0,
      metadata: { path: target, ...(owner ? { [OWNER_KEY]: owner } : {}) },
      creation_date: new Date().toISOString(),
    })
  );
  return id;
}

/** A request body in network-sized chunks of uneven length. */
function body(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0, n = 1; at < bytes.length; n++) {
    const size = Math.min(bytes.length - at, 1 + ((n * 7919) % 300_000));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

/** The catalogue name of a rejection, or null when it resolved. */
async function refusal(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    return error instanceof FerryError ? error.errorName : String(error);
  }
}

/** Places the upload's stored parts at its target, as commit does. */
async function complete(id: string, on: Storage = storage) {
  const record = (await store.records.get(id))!;
  return on.resumable!(record.store!.state.path)!
    .resume(record.store!.state)
    .complete(record.store!.parts);
}

/** The upload hashed the whole file, commits, and the store holds exactly it at `at`. */
async function expectCommittedWhole(id: string, file: Buffer, at: string) {
  expect((await store.records.get(id))!.hash).toBe(await blake3Of(Readable.from([file])));
  expect((await complete(id)).size).toBe(file.length);
  expect((await readAll(await storage.createReadStream(at))).equals(file)).toBe(true);
}

describe("uploads into an object store", () => {
  it("takes several PATCHes of uneven sizes as parts, hashes them in order and keeps only the record on the local disk", async () => {
    const file = randomBytes(3 * MIN_SLICE + 4321);
    const id = await create(file.length);
    let offset = 0;
    for (const end of [
      1,
      777_777,
      MIN_SLICE + 3,
      2 * MIN_SLICE + 100_000,
      file.length,
    ]) {
      offset = await store.write(body(file.subarray(offset, end)), id, offset);
      expect(offset).toBe(end);
      expect((await store.getUpload(id)).offset).toBe(end);
      // No data file: only the record (metadata) is on the local disk.
      expect(await readdir(path.join(dir, "tus"))).toEqual([`${id}.json`]);
    }
    const record = (await store.records.get(id))!;
    expect(record.store!.parts.map((p) => p.size)).toEqual([
      MIN_SLICE,
      MIN_SLICE,
      MIN_SLICE,
      4321,
    ]);
    expect(record.hash).toBe(await blake3Of(Readable.from([file])));
    expect(await failure(storage.stat("/up.bin"))).toBe("PathNotFound");
    expect((await complete(id)).size).toBe(file.length);
    expect(
      (await readAll(await storage.createReadStream("/up.bin"))).equals(file)
    ).toBe(true);
  });

  it("refuses a PATCH at another offset than the stored one", async () => {
    const id = await create(10);
    await store.write(body(Buffer.from("abc")), id, 0);
    await expect(
      store.write(body(Buffer.from("x")), id, 2)
    ).rejects.toBeDefined();
    expect((await store.getUpload(id)).offset).toBe(3);
  });

  it("goes on after the engine was killed (SIGKILL) mid-PATCH, from the parts in the record; the hash resumes from its saved state", async () => {
    const file = randomBytes(4 * MIN_SLICE + 123);
    const id = await create(file.length);
    const source = path.join(dir, "source");
    await writeFile(source, file);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "tests/support/store-upload-child.ts"],
      {
        env: {
          ...process.env,
          FERRY_CHILD: JSON.stringify({
            dir: path.join(dir, "tus"),
            config,
            id,
            file: source,
            stopAt: 2 * MIN_SLICE + 3 * MIB,
          }),
        },
        stdio: ["ignore", "inherit", "inherit"],
      }
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once("exit", (_code, signal) => resolve(signal))
    );
    // Two parts stored and three more MiB waiting in the child's memory: then it dies.
    for (
      let i = 0;
      i < 600 && ((await store.records.get(id))?.store?.parts.length ?? 0) < 2;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    // A restarted engine: HEAD answers the stored parts' offset; the client sends the rest from there.
    store = await openStore();
    const offset = (await store.getUpload(id)).offset;
    expect(offset).toBe(2 * MIN_SLICE);
    expect(await store.write(body(file.subarray(offset)), id, offset)).toBe(
      file.length
    );
    const record = (await store.records.get(id))!;
    expect(record.hash).toBe(await blake3Of(Readable.from([file])));
    expect((await complete(id, createS3Storage(config))).size).toBe(
      file.length
    );
    expect(
      (await readAll(await storage.createReadStream("/up.bin"))).equals(file)
    ).toBe(true);
  }, 60_000);

  it("a PATCH whose body stops keeps what arrived for this process; a restart goes back to the stored parts", async () => {
    const file = randomBytes(MIN_SLICE + 2 * MIB);
    const id = await create(file.length);
    const sent = MIN_SLICE + MIB;
    const failing = Readable.from(
      (async function* () {
        yield file.subarray(0, sent);
        throw new Error("connection reset");
      })()
    );
    expect(await store.write(failing, id, 0)).toBe(sent);
    expect((await store.getUpload(id)).offset).toBe(sent);
    store = await openStore();
    expect((await store.getUpload(id)).offset).toBe(MIN_SLICE);
    expect(
      await store.write(body(file.subarray(MIN_SLICE)), id, MIN_SLICE)
    ).toBe(file.length);
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
  });

  it("parallel bodies are taken in byte order: a later one waits, an overlapping one is refused", async () => {
    const file = randomBytes(MIN_SLICE + 1000);
    const id = await create(file.length);
    const progress = (await store.storeProgressOf(id))!;
    const gone = new AbortController();
    const later = progress
      .waitTurn(MIN_SLICE, 10_000, gone.signal)
      .then((turn) =>
        store.writeStore(
          body(file.subarray(MIN_SLICE)),
          id,
          MIN_SLICE,
          1000,
          turn
        )
      );
    await new Promise((r) => setTimeout(r, 100));
    expect(progress.offset).toBe(0);
    await store.writeStore(body(file.subarray(0, MIN_SLICE)), id, 0, MIN_SLICE);
    expect(await later).toBe(1000);
    expect(progress.offset).toBe(file.length);
    expect(await failure(progress.waitTurn(10, 1000, gone.signal))).toBe(
      "InvalidData"
    );
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
  });

  it("a DELETE (remove) or the expiry sweep drops the record and aborts the store's upload; nothing shows at the path", async () => {
    const file = randomBytes(MIN_SLICE + 10);
    const id = await create(file.length);
    await store.write(body(file.subarray(0, MIN_SLICE + 5)), id, 0);
    await store.remove(id);
    expect(await store.records.get(id)).toBeUndefined();
    expect(await readdir(path.join(dir, "tus"))).toEqual([]);
    const other = await create(4, "/swept.bin");
    await store.write(body(Buffer.from("ab")), other, 0);
    expect(await store.sweep(Date.now() + 120_000)).toBe(1);
    expect(await store.records.get(other)).toBeUndefined();
    expect(await storage.list("/")).toEqual([]);
  });

  it("claims a part of the engine's budget per upload filling one: another upload is refused (UploadMemoryFull) before it takes a byte, the one filling its part goes on", async () => {
    store.partBudget = new PartBudget(MIN_SLICE + MIB);
    const a = randomBytes(2 * MIN_SLICE + 10);
    const b = randomBytes(MIN_SLICE + 1000);
    const idA = await create(a.length, "/a.bin");
    const idB = await create(b.length, "/b.bin");
    expect(await store.write(body(a.subarray(0, 3 * MIB)), idA, 0)).toBe(
      3 * MIB
    );
    expect(store.partBudget.held).toBe(MIN_SLICE);
    expect(
      await refusal(store.write(body(b.subarray(0, 4 * MIB)), idB, 0))
    ).toBe("UploadMemoryFull");
    expect((await store.getUpload(idB)).offset).toBe(0);
    // A, which holds its claim, fills its part and the next one although the budget has no room for another.
    expect(
      await store.write(
        body(a.subarray(3 * MIB, MIN_SLICE + 3 * MIB)),
        idA,
        3 * MIB
      )
    ).toBe(MIN_SLICE + 3 * MIB);
    expect((await store.records.get(idA))!.store!.parts).toHaveLength(1);
    expect(store.partBudget.held).toBe(MIN_SLICE);
    expect(await refusal(store.write(body(b), idB, 0))).toBe(
      "UploadMemoryFull"
    );
    // A's last part is stored: its claim goes back and B goes through.
    expect(
      await store.write(
        body(a.subarray(MIN_SLICE + 3 * MIB)),
        idA,
        MIN_SLICE + 3 * MIB
      )
    ).toBe(a.length);
    expect(store.partBudget.held).toBe(0);
    expect(await store.write(body(b), idB, 0)).toBe(b.length);
    expect(store.partBudget.held).toBe(0);
    for (const [id, file, at] of [
      [idA, a, "/a.bin"],
      [idB, b, "/b.bin"],
    ] as const) {
      await expectCommittedWhole(id, file, at);
    }
  });

  it("an idle upload's waiting bytes are dropped after the idle time: HEAD answers the stored parts' offset and the client sends the rest again", async () => {
    const file = randomBytes(2 * MIN_SLICE + 77);
    const id = await create(file.length);
    expect(
      await store.write(body(file.subarray(0, MIN_SLICE + 3 * MIB)), id, 0)
    ).toBe(MIN_SLICE + 3 * MIB);
    expect(await store.dropIdleBuffers(Date.now(), 10 * 60_000)).toBe(0);
    expect((await store.getUpload(id)).offset).toBe(MIN_SLICE + 3 * MIB);
    expect(
      await store.dropIdleBuffers(Date.now() + 10 * 60_000, 10 * 60_000)
    ).toBe(3 * MIB);
    expect((await store.getUpload(id)).offset).toBe(MIN_SLICE);
    expect(store.partBudget.held).toBe(0);
    await expect(
      store.write(
        body(file.subarray(MIN_SLICE + 3 * MIB)),
        id,
        MIN_SLICE + 3 * MIB
      )
    ).rejects.toBeDefined();
    expect(
      await store.write(body(file.subarray(MIN_SLICE)), id, MIN_SLICE)
    ).toBe(file.length);
    await expectCommittedWhole(id, file, "/up.bin");
  });

  it("a record that cannot be written after a stored part fails the PATCH with the disk's error (no silent short write); the client resends from the recorded offset", async () => {
    const file = randomBytes(MIN_SLICE + 2 * MIB);
    const id = await create(file.length);
    // The local disk fills up just when the record with the first part is written.
    const set = store.records.set.bind(store.records);
    let failures = 1;
    store.records.set = async (key, value) => {
      if (value.store?.parts.length && failures-- > 0)
        throw Object.assign(new Error("no space left on device"), {
          code: "ENOSPC",
        });
      return set(key, value);
    };
    expect(
      await refusal(store.write(body(file.subarray(0, MIN_SLICE + MIB)), id, 0))
    ).toBe("DiskFull");
    expect((await store.getUpload(id)).offset).toBe(0);
    expect((await store.records.get(id))!.store!.parts).toEqual([]);
    expect(store.partBudget.held).toBe(0);
    expect(await store.write(body(file), id, 0)).toBe(file.length);
    await expectCommittedWhole(id, file, "/up.bin");
  });

  it("hands the turn to one chunk at a time: two chunks at the same offset cannot both be given it", async () => {
    const file = randomBytes(2 * MIB);
    const id = await create(file.length);
    const progress = (await store.storeProgressOf(id))!;
    const gone = new AbortController();
    const first = progress.waitTurn(0, 10_000, gone.signal);
    const second = progress.waitTurn(0, 10_000, gone.signal);
    expect(
      await store.writeStore(body(file), id, 0, file.length, await first)
    ).toBe(file.length);
    // The second waited while the first held the turn, and now overlaps its bytes.
    expect(await refusal(second)).toBe("InvalidData");
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
  });

  it(`refuses a chunk past ${MAX_WAITING_CHUNKS} waiting for their turn on one upload`, async () => {
    const file = randomBytes(MIN_SLICE + 1000);
    const id = await create(file.length);
    const progress = (await store.storeProgressOf(id))!;
    const gone = new AbortController();
    const waiting = Array.from({ length: MAX_WAITING_CHUNKS }, (_, i) =>
      progress
        .waitTurn(1000 * (i + 1), 60_000, gone.signal)
        .catch((e: unknown) => e)
    );
    const extra = progress
      .waitTurn(1000 * (MAX_WAITING_CHUNKS + 1), 60_000, gone.signal)
      .catch((e: unknown) => e);
    gone.abort();
    const reasons = (await Promise.all([...waiting, extra])).map(
      (e) => ((e as FerryError).data as { reason: string }).reason
    );
    expect(
      reasons
        .slice(0, MAX_WAITING_CHUNKS)
        .every((r) => r.includes("did not arrive"))
    ).toBe(true);
    expect(reasons[MAX_WAITING_CHUNKS]).toContain(
      `at most ${MAX_WAITING_CHUNKS} chunks`
    );
  });

  it("a body that stalls while holding the turn is stopped after the idle time; what it brought stays and the resend from there takes the turn", async () => {
    const file = randomBytes(MIN_SLICE + 3 * MIB);
    const id = await create(file.length);
    const progress = (await store.storeProgressOf(id))!;
    const sent = 2 * MIB;
    // A connection that sent 2 MiB and then nothing more, still open.
    const stalled = Readable.from(
      (async function* () {
        yield file.subarray(0, sent);
        await new Promise(() => undefined);
      })()
    );
    const first = store
      .writeStore(
        stalled,
        id,
        0,
        file.length,
        await progress.waitTurn(0, 100, new AbortController().signal)
      )
      .catch((e: unknown) => e);
    for (let i = 0; i < 200 && progress.offset < sent; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(progress.offset).toBe(sent);
    // The client's resend from what arrived waits for the turn: the stalled body is stopped and the turn goes on.
    const turn = await progress.waitTurn(
      sent,
      100,
      new AbortController().signal
    );
    expect(((await first) as FerryError).errorName).toBe("InvalidData");
    expect(
      await store.writeStore(
        body(file.subarray(sent)),
        id,
        sent,
        file.length - sent,
        turn
      )
    ).toBe(file.length - sent);
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
    expect((await complete(id)).size).toBe(file.length);
  });

  it("a body that stalls with its connection open is stopped after the body idle time: the part it was filling and its claim go, the stored parts stay, and the client resends from there", async () => {
    store.partBudget = new PartBudget(2 * MIN_SLICE);
    store.bodyIdleMs = 200;
    const file = randomBytes(MIN_SLICE + 3 * MIB);
    const id = await create(file.length);
    // A first part stored, then 1 byte and nothing more while the connection stays open.
    const stalled = Readable.from(
      (async function* () {
        yield file.subarray(0, MIN_SLICE);
        yield file.subarray(MIN_SLICE, MIN_SLICE + 1);
        await new Promise(() => undefined);
      })()
    );
    expect(await refusal(store.write(stalled, id, 0))).toBe("InvalidData");
    expect(store.partBudget.held).toBe(0);
    expect((await store.getUpload(id)).offset).toBe(MIN_SLICE);
    expect(
      await store.write(body(file.subarray(MIN_SLICE)), id, MIN_SLICE)
    ).toBe(file.length);
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
    expect((await complete(id)).size).toBe(file.length);
  });

  it("one owner claims at most a quarter of the budget (always one part): its next upload waits (UploadMemoryFull), another owner's goes through", async () => {
    store.partBudget = new PartBudget(4 * MIN_SLICE);
    const file = randomBytes(MIN_SLICE + 10);
    const first = await create(file.length, "/one.bin", "7");
    const second = await create(file.length, "/two.bin", "7");
    const other = await create(file.length, "/three.bin", "8");
    expect(await store.write(body(file.subarray(0, MIB)), first, 0)).toBe(MIB);
    expect(
      await refusal(store.write(body(file.subarray(0, MIB)), second, 0))
    ).toBe("UploadMemoryFull");
    expect((await store.getUpload(second)).offset).toBe(0);
    expect(await store.write(body(file.subarray(0, MIB)), other, 0)).toBe(MIB);
    expect(store.partBudget.held).toBe(2 * MIN_SLICE);
    // The first one's part is stored and its claim smaller: the owner's next upload goes on.
    expect(
      await store.write(body(file.subarray(MIB, MIN_SLICE)), first, MIB)
    ).toBe(MIN_SLICE);
    expect(await store.write(body(file.subarray(0, MIB)), second, 0)).toBe(MIB);
    for (const id of [first, second, other]) await store.remove(id);
    expect(store.partBudget.held).toBe(0);
  });

  it("refuses at creation an upload whose first part is larger than the engine's budget (UploadPartOverMemory), beginning nothing; a file smaller than the budget still goes", async () => {
    store.partBudget = new PartBudget(MIN_SLICE - 1);
    expect(await refusal(create(MIN_SLICE + 1))).toBe("UploadPartOverMemory");
    expect(await readdir(path.join(dir, "tus"))).toEqual([]);
    const small = randomBytes(MIB);
    const id = await create(small.length);
    expect(await store.write(body(small), id, 0)).toBe(small.length);
    expect((await complete(id)).size).toBe(small.length);
  });

  it("a chunk waiting while a part takes longer than the idle time to reach the store counts it as progress and gets its turn (not InvalidData)", async () => {
    let open = () => undefined as void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const on = createS3Storage(config);
    store.uploadsOf = async (metadata) => {
      const uploads = on.resumable!(String(metadata?.path))!;
      return {
        partSize: uploads.partSize,
        begin: (size) => uploads.begin(size),
        resume: (state) => {
          const upload = uploads.resume(state);
          return {
            ...upload,
            state: upload.state,
            writePart: async (n, bytes) => {
              await gate;
              return upload.writePart(n, bytes);
            },
          };
        },
      };
    };
    const file = randomBytes(MIN_SLICE + MIB);
    const id = await create(file.length);
    const progress = (await store.storeProgressOf(id))!;
    const first = store.write(body(file.subarray(0, MIN_SLICE)), id, 0);
    for (let i = 0; i < 200 && progress.offset < MIN_SLICE; i++)
      await new Promise((r) => setTimeout(r, 10));
    const waiting = progress
      .waitTurn(MIN_SLICE, 100, new AbortController().signal)
      .then(
        (turn) => ({ turn }),
        (error: unknown) => ({ error })
      );
    // The part stays on its way for several idle times.
    await new Promise((r) => setTimeout(r, 500));
    open();
    expect(await first).toBe(MIN_SLICE);
    const waited = await waiting;
    expect(
      "error" in waited ? (waited.error as FerryError).errorName : "turn"
    ).toBe("turn");
    expect(
      await store.writeStore(
        body(file.subarray(MIN_SLICE)),
        id,
        MIN_SLICE,
        MIB,
        (waited as { turn: object }).turn
      )
    ).toBe(MIB);
    expect((await store.records.get(id))!.hash).toBe(
      await blake3Of(Readable.from([file]))
    );
  });

  it("an empty chunk in a body takes no claim of the budget", async () => {
    const file = randomBytes(MIB);
    const id = await create(file.length);
    expect(await store.write(Readable.from([Buffer.alloc(0)]), id, 0)).toBe(0);
    expect(store.partBudget.held).toBe(0);
    expect(
      await store.write(
        Readable.from([Buffer.alloc(0), file, Buffer.alloc(0)]),
        id,
        0
      )
    ).toBe(MIB);
    expect(store.partBudget.held).toBe(0);
    expect((await complete(id)).size).toBe(MIB);
  });
});
