import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../clock";

/*
 * The transfers in progress (docs/admin-api.md, "Transfer tasks"; docs/file-server.md, "Transfers
 * in progress"). The file server attaches every request that carries a transfer's bytes — a tus
 * PATCH or creation with a body, a Ferry chunk, a batch, a download (a file, a range, a zip, a share
 * visitor's) — under the key of its transfer (an upload's id, a download URL's ticket), so the
 * parallel chunks of one file or the ranges of one parallel download are one transfer. Bytes are
 * counted in memory as they pass (the request's `push`, the response's `write`: one addition per
 * network chunk, no database), the speed over a rolling window of a few seconds by a one-second
 * tick that also keeps the total throughput of the last minutes.
 *
 * Per engine instance: each engine lists the transfers it serves itself (several instances behind
 * one address each hold their own; sharing them is issue 19's).
 */

export type TaskDirection = "upload" | "download";
export type TaskVia = "web" | "client" | "share";

export interface TaskStart {
  /** The transfer the request belongs to: `upload:<id>`, `download:<ticket>`, or unique for a batch. */
  key: string;
  direction: TaskDirection;
  /** Null for a share-link visitor. */
  userId: number | null;
  /** The share link a visitor uses. */
  shareId: string | null;
  /** The share link's owner (a visitor's transfer). */
  ownerId?: number | null;
  groupId: number;
  path: string;
  total: number | null;
  /** Bytes already done when the transfer is first seen (a resumed upload's stored bytes). */
  base?: number;
  address: string | null;
  /** Known at once (a visitor's is "share"); otherwise `resolveVia` tells web from client. */
  via?: TaskVia;
  resolveVia?: () => Promise<TaskVia>;
  zip?: boolean;
  /**
   * Run when the administrator stops the transfer, before its connections are cut (the log learns who
   * stopped it): this request's own, for each request still attached (every range of a parallel download).
   */
  onStopping?: () => void;
  /** Run once (the first request's) after the administrator stopped the transfer and its connections were cut (an upload's staging dropped). */
  onStop?: () => void | Promise<void>;
}

export interface TaskState {
  id: string;
  key: string;
  direction: TaskDirection;
  status: "transferring" | "idle";
  userId: number | null;
  ownerId: number | null;
  shareId: string | null;
  groupId: number;
  path: string;
  total: number | null;
  bytes: number;
  speed: number;
  address: string;
  via: TaskVia;
  zip: boolean;
  connections: number;
  startedAt: number;
}

interface Entry {
  id: string;
  start: TaskStart;
  via: TaskVia;
  bytes: number;
  startedAt: number;
  /** (performance.now(), bytes) once a second, the last WINDOW of them. */
  samples: { at: number; bytes: number }[];
  connections: Set<{ req: IncomingMessage; res: ServerResponse; onStopping?: () => void }>;
  linger: NodeJS.Timeout | null;
  stopHandlers: (() => void | Promise<void>)[];
}

export interface AttachedTask {
  /** The transfer's id in the list. */
  readonly id: string;
  /** The path or total learned after the request began (a batch's header, a zip's files). */
  describe(update: { path?: string; total?: number | null }): void;
}

export interface TaskRegistry {
  /**
   * A request of a transfer begins: listed under its key until its last request ends (and, when
   * the transfer is not complete, LINGER_MS more, shown idle, for the next request of the same
   * upload or download). Null when the administrator stopped that transfer: the caller refuses it.
   */
  attach(start: TaskStart, req: IncomingMessage, res: ServerResponse): AttachedTask | null;
  /** Whether the administrator stopped the transfer of this key (its next requests are refused with 4187). */
  stopped(key: string): boolean;
  /** Refuses a key from now on (an upload made by a creation that was stopped before its id was known), for `ms` (default a day). */
  block(key: string, ms?: number): void;
  /** Names the path or total of the transfer a request belongs to, once known (a batch's header). */
  describe(req: IncomingMessage, update: { path?: string; total?: number | null; groupId?: number }): void;
  list(): TaskState[];
  /** Cuts every connection of the transfer, refuses its key from now on and runs its onStop; false when it is not live. */
  stop(id: string): boolean;
  throughput(): { intervalMs: number; windowMs: number; points: { t: number; upload: number; download: number }[] };
  start(): void;
  stopTimer(): void;
}

const TICK_MS = 1000;
/** Samples the speed is measured over (seconds). */
const WINDOW = 5;
/** Throughput history kept (ms). */
const HISTORY_MS = 5 * 60_000;
/** How long a stopped transfer's key is refused: an upload's staging lives a day, a download URL less. */
const STOPPED_MS = 24 * 3_600_000;

export function createTaskRegistry(clock: Clock, options: { lingerMs?: number } = {}): TaskRegistry {
  const lingerMs = options.lingerMs ?? 3000;
  const byKey = new Map<string, Entry>();
  const byId = new Map<string, Entry>();
  const stoppedKeys = new Map<string, number>();
  const byRequest = new WeakMap<IncomingMessage, Entry>();
  /** Bytes moved by all transfers since start, by direction (the throughput's source). */
  const moved = { upload: 0, download: 0 };
  let last = { at: performance.now(), upload: 0, download: 0 };
  const history: { t: number; upload: number; download: number }[] = [];
  let timer: NodeJS.Timeout | null = null;

  const remove = (entry: Entry) => {
    if (entry.linger) clearTimeout(entry.linger);
    if (byKey.get(entry.start.key) === entry) byKey.delete(entry.start.key);
    byId.delete(entry.id);
  };

  const speedOf = (entry: Entry, now: number) => {
    const oldest = entry.samples[0];
    if (!oldest || now - oldest.at < 200) return 0;
    return Math.max(0, ((entry.bytes - oldest.bytes) * 1000) / (now - oldest.at));
  };

  const tick = () => {
    const now = performance.now();
    for (const entry of byId.values()) {
      entry.samples.push({ at: now, bytes: entry.bytes });
      if (entry.samples.length > WINDOW + 1) entry.samples.shift();
    }
    const seconds = (now - last.at) / 1000;
    if (seconds > 0) {
      history.push({ t: clock.now(), upload: (moved.upload - last.upload) / seconds, download: (moved.download - last.download) / seconds });
      while (history.length > HISTORY_MS / TICK_MS) history.shift();
    }
    last = { at: now, upload: moved.upload, download: moved.download };
    const wall = clock.now();
    for (const [key, until] of stoppedKeys) if (until <= wall) stoppedKeys.delete(key);
  };

  /** The last connection of a transfer ended: gone at once when it is complete, else idle for lingerMs. */
  const settle = (entry: Entry, res: ServerResponse, req: IncomingMessage) => {
    if (entry.connections.size > 0 || !byId.has(entry.id)) return;
    const { total, direction } = entry.start;
    const complete = (total !== null && entry.bytes >= total) || (direction === "download" && res.writableFinished && req.headers.range === undefined);
    if (complete) return remove(entry);
    entry.linger = setTimeout(() => remove(entry), lingerMs);
    entry.linger.unref();
  };

  return {
    attach(start, req, res) {
      if (stoppedKeys.has(start.key)) return null;
      let entry = byKey.get(start.key);
      if (!entry) {
        const created: Entry = {
          id: randomUUID(),
          start,
          via: start.via ?? "web",
          bytes: start.base ?? 0,
          startedAt: clock.now(),
          samples: [{ at: performance.now(), bytes: start.base ?? 0 }],
          connections: new Set(),
          linger: null,
          stopHandlers: start.onStop ? [start.onStop] : [],
        };
        entry = created;
        byKey.set(start.key, created);
        byId.set(created.id, created);
        if (!start.via && start.resolveVia) {
          start.resolveVia().then(
            (via) => (created.via = via),
            () => undefined,
          );
        }
      } else if (entry.linger) {
        clearTimeout(entry.linger);
        entry.linger = null;
      }
      const e = entry;
      byRequest.set(req, e);
      const connection = { req, res, onStopping: start.onStopping };
      e.connections.add(connection);
      const direction = start.direction;
      if (direction === "upload") {
        // What arrived while the request was being admitted is buffered, not yet read by anyone.
        e.bytes += req.readableLength;
        moved.upload += req.readableLength;
        // The body's bytes as the HTTP parser hands them over (before any consumer reads them).
        const push = req.push.bind(req) as (chunk: unknown, encoding?: BufferEncoding) => boolean;
        req.push = ((chunk: unknown, encoding?: BufferEncoding) => {
          if (chunk) {
            const n = (chunk as Uint8Array).length ?? 0;
            e.bytes += n;
            moved.upload += n;
          }
          return push(chunk, encoding);
        }) as typeof req.push;
      } else {
        // The body's bytes as they are handed to the connection (a file's, a range's, a zip's).
        const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const n = typeof chunk === "string" ? Buffer.byteLength(chunk) : ((chunk as Uint8Array | null)?.length ?? 0);
          e.bytes += n;
          moved.download += n;
          return write(chunk, ...rest);
        }) as typeof res.write;
      }
      res.once("close", () => {
        e.connections.delete(connection);
        settle(e, res, req);
      });
      return {
        id: e.id,
        describe(update) {
          e.start = { ...e.start, ...update };
        },
      };
    },

    stopped: (key) => stoppedKeys.has(key),

    block(key, ms = STOPPED_MS) {
      stoppedKeys.set(key, clock.now() + ms);
    },

    describe(req, update) {
      const e = byRequest.get(req);
      if (e) e.start = { ...e.start, ...update };
    },

    list() {
      const now = performance.now();
      return [...byId.values()].map((e) => ({
        id: e.id,
        key: e.start.key,
        direction: e.start.direction,
        status: e.connections.size > 0 ? "transferring" : "idle",
        userId: e.start.userId,
        ownerId: e.start.ownerId ?? null,
        shareId: e.start.shareId,
        groupId: e.start.groupId,
        path: e.start.path,
        total: e.start.total,
        bytes: e.bytes,
        speed: e.connections.size > 0 ? speedOf(e, now) : 0,
        address: e.start.address ?? "",
        via: e.via,
        zip: e.start.zip ?? false,
        connections: e.connections.size,
        startedAt: e.startedAt,
      }));
    },

    stop(id) {
      const entry = byId.get(id);
      if (!entry) return false;
      stoppedKeys.set(entry.start.key, clock.now() + STOPPED_MS);
      remove(entry);
      // Each attached request's own handler: every cut range of a parallel download is logged as stopped by the server.
      for (const { onStopping } of entry.connections) {
        try {
          onStopping?.();
        } catch {
          // The cut matters more than its note.
        }
      }
      const closing = [...entry.connections].map(
        ({ req, res }) =>
          new Promise<void>((resolve) => {
            if (res.closed) return resolve();
            res.once("close", () => resolve());
            // The socket, not only the response: a body still arriving stops arriving.
            req.socket.destroy();
            res.destroy();
          }),
      );
      void Promise.all(closing).then(async () => {
        for (const handler of entry.stopHandlers) await Promise.resolve(handler()).catch(() => undefined);
      });
      return true;
    },

    throughput() {
      return { intervalMs: TICK_MS, windowMs: HISTORY_MS, points: [...history] };
    },

    start() {
      if (timer) return;
      last = { at: performance.now(), upload: moved.upload, download: moved.download };
      timer = setInterval(tick, TICK_MS);
      timer.unref();
    },

    stopTimer() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
