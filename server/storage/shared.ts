import { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { FerryError } from "../errors";
import { baseName, joinName, parentOf } from "./paths";
import { type ReadRange, type StatResult, STREAM_BUFFER, type Writer } from "./storage";

/**
 * What the storage drivers (local.ts, s3.ts) share: bounded parallel work, the mapping of every
 * method's failures, the checks of a read range and of a new name, and the shell of a Writer (its stream, failure and abort bookkeeping),
 * into which each driver plugs where the bytes go and how they are placed.
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
