import { type Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { FerryError } from "../errors";
import { baseName, isReservedName, joinName, normaliseUserPath, parentOf } from "./paths";
import { type ReadRange, type StatResult, STREAM_BUFFER, type Writer } from "./storage";

/**
 * What the storage drivers (local.ts, s3.ts, azure.ts) share: bounded parallel work, the mapping of every
 * method's failures, the checks of a read range and of a new name, and the shell of a Writer (its stream, failure and abort bookkeeping),
 * into which each driver plugs where the bytes go and how they are placed. The object-store drivers
 * also share their key prefix, the names they can list, and the re-chunking of ranged reads.
 */

/**
 * Runs `fn` over `items`, `limit` at a time. After the first failure no new item starts, and the
 * failure is thrown only once every running item has settled: a stopped walk leaves no work behind
 * (a copy's staged tree is removed after the last write into it).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const state: { failure: { error: unknown } | null } = { failure: null };
  const worker = async () => {
    while (next < items.length && !state.failure) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (error) {
        state.failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (state.failure) throw state.failure.error;
  return out;
}

/** Wraps a storage method so that whatever it throws comes out as `toError` maps it (a catalogue error). */
export function guardWith(toError: (err: unknown) => FerryError) {
  return <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        throw toError(err);
      }
    };
}

/** InvalidParameter for offsets that are not whole numbers ≥ 0, an end before the start, or a buffer size of 0. */
export function checkRange(range: ReadRange): void {
  const ok = (n: number | undefined) => n === undefined || (Number.isSafeInteger(n) && n >= 0);
  if (!ok(range.start) || !ok(range.end) || (range.end !== undefined && range.end < (range.start ?? 0)) || range.bufferSize === 0 || !ok(range.bufferSize)) {
    throw new FerryError("InvalidParameter");
  }
}

/** The target (a normalised relative path) must be a name a user may create (NameFormat otherwise); the root is no target. */
export function checkNewName(relative: string): void {
  if (relative === "/") throw new FerryError("InvalidOperation");
  joinName(parentOf(relative), baseName(relative));
}

/** Where a writer's bytes go: the driver's part of a Writer. */
export interface WriterSteps {
  /** The normalised final relative path. */
  path: string;
  /** The catalogue error for any failure (a FerryError passes through). */
  toError(err: unknown): FerryError;
  /** Takes the chunks of one write or writev, in order; may keep them only as copies. */
  write(chunks: Buffer[]): Promise<void>;
  bytesWritten(): number;
  /** After the last byte was taken: makes the data the file at the path, or throws (the writer then aborts). */
  place(): Promise<StatResult>;
  /** Drops the temporary data. Called once, by the first abort, synchronously up to its first await. */
  drop(): Promise<void>;
}

/**
 * A Writer around a driver's steps: the stream (back-pressure, writev), the first failure kept so
 * that write() and commit() agree on it, a failed stream aborting at once (a failed upload keeps
 * nothing: disk full or over quota, the temporary data goes), and one clean-up however many callers
 * ask for it (the stream's error handler, commit, the caller).
 */
export function streamWriter(steps: WriterSteps): Writer {
  let state: "open" | "committing" | "done" = "open";
  let failure: FerryError | null = null;

  /** Remembers the first failure before the stream reports it. */
  const settle = (work: Promise<void>, callback: (err?: Error | null) => void) => {
    work.then(
      () => callback(),
      (err: unknown) => {
        failure ??= steps.toError(err);
        callback(failure);
      },
    );
  };
  const sink = new Writable({
    highWaterMark: STREAM_BUFFER,
    write(chunk: Buffer, _encoding, callback) {
      settle(steps.write([chunk]), callback);
    },
    writev(items, callback) {
      settle(steps.write(items.map((i) => i.chunk as Buffer)), callback);
    },
  });

  let committed = false;
  let aborting: Promise<void> | null = null;
  const abort = (): Promise<void> => {
    if (committed) return Promise.resolve();
    aborting ??= (async () => {
      state = "done";
      sink.destroy();
      await steps.drop();
    })();
    return aborting;
  };

  sink.on("error", (err) => {
    failure ??= steps.toError(err);
    if (state === "open") void abort();
  });

  return {
    path: steps.path,
    get bytesWritten() {
      return steps.bytesWritten();
    },
    stream: sink,
    write(chunk) {
      if (failure) return Promise.reject(failure);
      if (state !== "open" || sink.writableEnded) return Promise.reject(new FerryError("InvalidOperation"));
      return new Promise<void>((resolve, reject) => {
        sink.write(chunk, (err) => (err ? reject(failure ?? steps.toError(err)) : resolve()));
      });
    },
    async commit() {
      if (failure) {
        await abort();
        throw failure;
      }
      if (state !== "open") throw new FerryError("InvalidOperation");
      state = "committing";
      try {
        if (sink.destroyed && !sink.writableFinished) throw new FerryError("InvalidOperation");
        if (!sink.writableEnded) sink.end();
        await finished(sink);
        if (failure) throw failure;
        const result = await steps.place();
        committed = true;
        state = "done";
        return result;
      } catch (err) {
        const mapped = failure ?? steps.toError(err);
        await abort();
        throw mapped;
      }
    },
    abort,
  };
}

/** The configured root folder of an object store as a key prefix: "" or "a/b/". PathFormatError for a path that would not stay a folder. */
export function keyPrefix(configPath: string | undefined): string {
  let relative: string;
  try {
    relative = normaliseUserPath(configPath ?? "");
  } catch {
    throw new FerryError("PathFormatError");
  }
  return relative === "/" ? "" : `${relative.slice(1)}/`;
}

/** A rest of a key below a folder that Ferry can name: no empty, dot or reserved segment (a trailing "/" marks a folder). */
export function usableRest(rest: string): boolean {
  const segments = rest.split("/");
  const last = segments.length - 1;
  return segments.every((s, i) => (s === "" ? i === last && i > 0 : s !== "." && s !== ".." && !isReservedName(s)));
}

/** A listed entry's name: one usable segment. */
export const usableName = (name: string): boolean => !name.includes("/") && usableRest(name);

/** Unix seconds of a store's date (0 when it gave none). */
export const seconds = (date: Date | undefined): number => (date ? Math.floor(date.getTime() / 1000) : 0);

/**
 * The bytes of `body` in chunks of exactly `size` (the last one shorter), as the local driver's
 * streams give them; `skip` bytes dropped first and at most `limit` given (a store that answered
 * a Range with more than was asked, or with the whole object, still yields exactly the range).
 */
export async function* rechunk(body: NodeJS.ReadableStream | Readable, size: number, skip: number, limit: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  let toSkip = skip;
  let left = limit;
  try {
    for await (const chunk of body) {
      let buf = chunk as Buffer;
      if (toSkip > 0) {
        const n = Math.min(toSkip, buf.length);
        buf = buf.subarray(n);
        toSkip -= n;
      }
      if (buf.length > left) buf = buf.subarray(0, left);
      left -= buf.length;
      while (held + buf.length >= size) {
        const take = size - held;
        parts.push(buf.subarray(0, take));
        yield Buffer.concat(parts, size);
        parts = [];
        held = 0;
        buf = buf.subarray(take);
      }
      if (buf.length > 0) {
        parts.push(buf);
        held += buf.length;
      }
      if (left === 0) break;
    }
    if (held > 0) yield Buffer.concat(parts, held);
  } finally {
    (body as Readable).destroy?.();
  }
}

/** The chunks of `source`; a failure on the way (the store or the network, mid-body) comes out as `map` makes it. */
export async function* mapFailure<T>(source: AsyncGenerator<T>, map: (err: unknown) => Error): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (err) {
    throw map(err);
  }
}

/** The first offset and the object's size of a Content-Range answer ("bytes 5-9/10"), or null. */
export function contentRange(header: string | undefined): { start: number; total: number | null } | null {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header ?? "");
  return match ? { start: Number(match[1]), total: match[2] === "*" ? null : Number(match[2]) } : null;
}

/** The most one ranged GET of an object store's reader asks for (streamingReader). */
export const READ_WINDOW = 32 * 1024 * 1024;
/** How long an open GET is kept while its reader reads nothing (a paused client). */
const READ_IDLE_MS = 15_000;
/** What its first GET at a position asks for (at least the read's length); each next one in order asks twice as much. */
const FIRST_WINDOW = 1024 * 1024;

/**
 * A positional reader over an object store that reads on from one ranged GET while the reads
 * follow each other (a download asks for 1 MiB after 1 MiB): one request per READ_WINDOW instead
 * of one per read, which on a store across a network is a round trip per MiB (S3 downloads went at
 * 0.14–0.24 of a direct GET, docs/bench.md "objects"). A read at another position, or past the
 * window, opens a new GET there. The windows grow from 1 MiB, doubling while the reads go on in
 * order, up to `window`: a ranged download of a few MiB (a parallel download's piece) asks the store
 * for about what it sends, with no 32 MiB body cut short, and a whole file takes a dozen requests.
 * `open(start, end)` (inclusive end) answers the store's body and the
 * first offset it holds (its Content-Range); it must fail when the object changed since it was
 * opened (If-Match), so no read mixes two contents. Reads are one at a time, as FileReader's are.
 */
export function streamingReader(
  size: number,
  open: (start: number, end: number) => Promise<{ body: NodeJS.ReadableStream | Readable; from: number }>,
  window = READ_WINDOW,
  idleMs = READ_IDLE_MS,
) {
  let current: { position: number; end: number; chunks: AsyncIterator<Buffer>; body: NodeJS.ReadableStream | Readable; held: Buffer | null } | null = null;
  let idle: ReturnType<typeof setTimeout> | null = null;
  const drop = () => {
    (current?.body as Readable | undefined)?.destroy?.();
    current = null;
  };
  /**
   * A window read to its end gives its connection back to the pool: its body is read to its end
   * (which comes at once) instead of destroyed, which would close the keep-alive socket.
   */
  const finish = async () => {
    const done = current;
    if (!done || done.position <= done.end || done.held) return drop();
    current = null;
    try {
      const rest = await done.chunks.next();
      if (!rest.done) (done.body as Readable).destroy?.();
    } catch {
      // The connection went; nothing was owed on it.
    }
  };
  let next = Math.min(FIRST_WINDOW, window);
  const start = async (position: number, want: number) => {
    // Going on in order from the last window: a larger one; elsewhere: from the first size again.
    const inOrder = current !== null && current.position === position;
    await finish();
    next = inOrder ? Math.min(next * 2, window) : Math.min(FIRST_WINDOW, window);
    const end = Math.min(size, position + Math.max(next, want)) - 1;
    const { body, from } = await open(position, end);
    if (from > position) {
      (body as Readable).destroy?.();
      throw new FerryError("CannotReadFile");
    }
    const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    current = { position: from, end, chunks, body, held: null };
    // A store that ignored the range start: what comes before the position is skipped.
    while (current.position < position) {
      const next = await chunks.next();
      if (next.done) throw new FerryError("CannotReadFile");
      const skip = Math.min(position - current.position, next.value.length);
      current.position += skip;
      if (skip < next.value.length) current.held = next.value.subarray(skip);
    }
  };
  return {
    async read(buffer: Uint8Array, length: number, position: number): Promise<number> {
      if (idle) clearTimeout(idle);
      idle = null;
      const want = Math.min(position + length, size, position + buffer.length) - position;
      if (want <= 0) return 0;
      let n = 0;
      let retried = false;
      while (n < want) {
        if (!current || current.position !== position + n || current.position > current.end) await start(position + n, want - n);
        const open = current!;
        let chunk = open.held;
        open.held = null;
        if (!chunk) {
          let next: IteratorResult<Buffer>;
          try {
            next = await open.chunks.next();
          } catch (err) {
            // A body held open while the client was slow may have been cut by the store or the
            // socket's idle timeout: one new request from here (If-Match still guards the content).
            drop();
            if (retried) throw err;
            retried = true;
            continue;
          }
          if (next.done) {
            // The store ended the body before the window's end: the object is shorter than it was.
            drop();
            break;
          }
          chunk = next.value;
        }
        const take = Math.min(chunk.length, want - n, open.end + 1 - open.position);
        buffer.set(chunk.subarray(0, take), n);
        n += take;
        open.position += take;
        if (take < chunk.length && open.position <= open.end) open.held = chunk.subarray(take);
      }
      // A caller that stops reading (a paused or very slow client) does not hold the store's
      // connection: the open body goes after a while, and a later read asks again from there.
      if (current) {
        idle = setTimeout(drop, idleMs);
        idle.unref?.();
      }
      return n;
    },
    async close(): Promise<void> {
      if (idle) clearTimeout(idle);
      idle = null;
      await finish();
    },
  };
}
