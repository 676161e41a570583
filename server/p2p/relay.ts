import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { langFromHeader, type Lang } from "../../contract/envelope";
import { ErrorCode, errorByCode } from "../../contract/errors";
import { P2P_ACTIVE_STATUSES, P2P_RELAY } from "../../contract/p2p";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import { originAllowed } from "../fileserver/origin";
import type { FileServerPart } from "../fileserver/parts";
import { parseRange } from "../fileserver/range";
import { COMMON_HEADERS } from "../fileserver/send";
import type { Throttle } from "../speed/throttle";
import { STAGING_NAME } from "../storage/paths";
import { STREAM_BUFFER } from "../storage/storage";
import { blake3File } from "../uploads/hash";
import { p2pDb } from "./schema";
import { p2pOf } from "./wiring";

/*
 * The P2P relay on the file server (docs/p2p.md, "Relay and hand-over"): the sender's browser
 * appends a file's bytes with PATCH /p2p/<transfer id>/<file index> (Ferry-Offset), the receiver's
 * reads them with GET (Range), waiting while the sender is still writing. Held bytes live in
 * <data dir>/storage/.ferry-tmp/p2p/<transfer id>/<file index> (beside the uploads' staging, .ferry-tmp/tus) until the transfer ends.
 *
 * Who may: the Bearer socket token's user, the transfer's sender user (PATCH), receiver user (GET) or
 * either (HEAD). An HTTP request names no device (a device is a socket that registered, and one
 * sign-in may hold several), so the check is the user's: a device id is an address, not a
 * credential, and every device of an account acts with that account's sign-in anyway. Anyone else
 * hears 4700 with 404, as for a transfer that does not exist, so ids cannot be probed.
 *
 * Held bytes count against FERRY_P2P_RELAY_MAX_BYTES (this engine process, all transfers) and the
 * settings' maxTransferBytes (per transfer): a PATCH that would go over is refused with 4703 before
 * its body is read (507 for the engine's room, which frees up; 413 for the transfer's cap).
 */

const ACTIVE = [...P2P_ACTIVE_STATUSES] as string[];
const ROUTE = /^\/p2p\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/(\d{1,5})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DIGITS = /^\d{1,16}$/;
/** Orphan held bytes (a transfer ended on another engine, or while this one was stopped) are looked for this often. */
const SWEEP_MS = 10 * 60_000;
/** Progress of a relay write reaches the transfer's row at most this often (and once at its end). */
const PROGRESS_MS = 1000;
const OFFSET = P2P_RELAY.offsetHeader.toLowerCase();
const EXPOSED = `${P2P_RELAY.offsetHeader}, ${P2P_RELAY.sizeHeader}, Content-Range, Content-Length, Accept-Ranges`;

/** What the relay holds of one file, in this process. */
interface Held {
  /** Bytes on the disk (the file's length: what a PATCH wrote, never more). */
  bytes: number;
  /** The transfer's sender user, whose share of the engine's room the bytes take. */
  user: number;
  /** GETs waiting for more bytes. */
  waiters: Set<() => void>;
  /** The PATCH writing now; a newer one stops it (a client's retry after its connection dropped). */
  writer: { stop: AbortController; done: Promise<void> } | null;
  /** BLAKE3 of the whole file, once it reached its size. */
  hash: string | null;
  /** The one hash run of the whole file (a second PATCH or a check waits for it). */
  hashing: Promise<string | null> | null;
  /** Deleted (the transfer ended, or the bytes failed the hash check): writers and readers stop, nothing more is counted. */
  dropped: boolean;
}

/** Why a PATCH stopped before its body's end, when it did not fail. */
type Stopped = { error: FerryError; status: number; extra?: Record<string, string | number> };

const HTTP_STATUS: Partial<Record<number, number>> = {
  [ErrorCode.InvalidToken]: 401,
  [ErrorCode.P2pNoSuchTransfer]: 404,
  [ErrorCode.P2pWrongState]: 409,
};

export const relayParts: FileServerPart = async (services, log) => {
  const p2p = p2pOf(services, log);
  const k = p2pDb(services.db);
  const root = path.join(services.spaces.root, STAGING_NAME, "p2p");
  const max = services.config.p2pRelayMaxBytes;
  const { idleMs, windowBytes } = services.config.p2pRelay;
  /** What one sender user may hold and reserve of the engine's room. */
  const share = Math.floor(max * P2P_RELAY.userShare);
  const held = new Map<string, Held>();
  const byTransfer = new Map<string, { bytes: number; reserved: number }>();
  /** Held and reserved bytes of each sender user. */
  const byUser = new Map<number, number>();
  /** Relay GETs open of each receiver user. */
  const gets = new Map<number, number>();
  /** Transfers whose held bytes were deleted (and when): a request that looked before sees them gone. */
  const droppedIds = new Map<string, number>();
  /** Files whose held bytes are being deleted after a hash mismatch. */
  const dropping = new Set<string>();
  /** Progress reports of each transfer, spaced by PROGRESS_MS: when the last went, and the files whose report waits. */
  const paces = new Map<string, { at: number; pending: Map<number, { row: Target["row"]; h: Held }>; timer: NodeJS.Timeout | null; running: Promise<void> | null }>();
  /** Held bytes of every transfer, and bytes of PATCH bodies admitted but not written yet. */
  let used = 0;
  let reserved = 0;

  const key = (id: string, idx: number) => `${id}/${idx}`;
  const fileOf = (id: string, idx: number) => path.join(root, id, String(idx));
  const totals = (id: string) => {
    let t = byTransfer.get(id);
    if (!t) byTransfer.set(id, (t = { bytes: 0, reserved: 0 }));
    return t;
  };
  /** Counts bytes held and reserved (negative: freed) for the engine, the transfer and its sender user. */
  const account = (sums: { bytes: number; reserved: number }, user: number, bytes: number, res: number) => {
    used += bytes;
    reserved += res;
    sums.bytes += bytes;
    sums.reserved += res;
    const u = (byUser.get(user) ?? 0) + bytes + res;
    if (u > 0) byUser.set(user, u);
    else byUser.delete(user);
  };
  const wake = (h: Held) => {
    for (const w of [...h.waiters]) w();
  };

  async function heldOf(id: string, idx: number, user: number): Promise<Held> {
    const found = held.get(key(id, idx));
    if (found) return found;
    const bytes = await stat(fileOf(id, idx)).then(
      (s) => s.size,
      () => 0,
    );
    // Looked up while another request did the same: one entry wins.
    const again = held.get(key(id, idx));
    if (again) return again;
    const h: Held = { bytes, user, waiters: new Set(), writer: null, hash: null, hashing: null, dropped: false };
    // The transfer ended (or the file failed its hash) while this looked: its bytes are gone (or going), nothing is counted.
    if (droppedIds.has(id) || dropping.has(key(id, idx))) {
      h.dropped = true;
      return h;
    }
    held.set(key(id, idx), h);
    account(totals(id), user, bytes, 0);
    return h;
  }

  /**
   * Stops an entry's writers and readers and takes its bytes off at once (a write landing after this
   * counts nothing: `dropped`); whoever deletes the bytes waits for the entry's writer first.
   */
  function forgetHeld(id: string, idx: number, h: Held) {
    h.dropped = true;
    h.writer?.stop.abort();
    wake(h);
    if (held.get(key(id, idx)) === h) {
      held.delete(key(id, idx));
      account(byTransfer.get(id) ?? { bytes: 0, reserved: 0 }, h.user, -h.bytes, 0);
    }
    return h.writer?.done;
  }

  /** The transfer ended (or is gone): its held bytes are deleted, its writers and readers stop. */
  async function dropTransfer(id: string) {
    // A request that looked before this (HEAD, GET, PATCH) finds the transfer gone, and counts nothing.
    droppedIds.set(id, Date.now());
    const prefix = `${id}/`;
    const writers = [...held].filter(([k2]) => k2.startsWith(prefix)).map(([k2, h]) => forgetHeld(id, Number(k2.slice(prefix.length)), h));
    const t = byTransfer.get(id);
    if (t && t.reserved === 0) byTransfer.delete(id);
    const pace = paces.get(id);
    if (pace?.timer) clearTimeout(pace.timer);
    paces.delete(id);
    // Every writer has stopped before the directory goes (a PATCH's mkdir cannot bring it back).
    await Promise.all(writers);
    await rm(path.join(root, id), { recursive: true, force: true });
  }

  /** One file's held bytes failed the sender's hash: deleted, the sender sends it again from 0. */
  async function dropFile(id: string, idx: number) {
    dropping.add(key(id, idx));
    try {
      const h = held.get(key(id, idx));
      if (h) await forgetHeld(id, idx, h);
      await rm(fileOf(id, idx), { force: true });
    } finally {
      dropping.delete(key(id, idx));
    }
  }

  p2p.relay.onEnded((id) => {
    dropTransfer(id).catch((error: unknown) => log.warn({ err: error, transferId: id }, "p2p relay: deleting an ended transfer's held bytes failed"));
  });
  p2p.relay.onMismatch((id, idx) => dropFile(id, idx).catch((error: unknown) => log.warn({ err: error, transferId: id }, "p2p relay: deleting a file's held bytes failed")));
  p2p.relay.hashOf(async (id, idx) => {
    const h = held.get(key(id, idx));
    return h && !h.dropped ? h.hash : null;
  });

  /** The file's BLAKE3, one run per held file; null when the entry was dropped or replaced meanwhile (or the file is gone). */
  function hashOnce(id: string, idx: number, h: Held): Promise<string | null> {
    if (h.hash !== null) return Promise.resolve(h.hash);
    h.hashing ??= blake3File(fileOf(id, idx))
      .then(
        (hash) => {
          if (held.get(key(id, idx)) !== h || h.dropped) return null;
          h.hash = hash;
          return hash;
        },
        () => null,
      )
      .finally(() => (h.hashing = null));
    return h.hashing;
  }

  /**
   * A file's held bytes as a progress report of path relay: at most one per transfer every PROGRESS_MS
   * (a report due sooner waits, and the newest bytes of its file go then), `now` for a file just whole.
   */
  function report(row: Target["row"], idx: number, h: Held, now: boolean): Promise<void> {
    let pace = paces.get(row.id);
    if (!pace) paces.set(row.id, (pace = { at: 0, pending: new Map(), timer: null, running: null }));
    const p = pace;
    const send = (file: number, entry: Held) => {
      if (entry.dropped) return Promise.resolve();
      const run = p2p.relay.progress(row, file, entry.bytes).catch(() => undefined);
      const all = Promise.all([p.running, run]).then(() => undefined);
      p.running = all;
      void all.finally(() => {
        if (p.running === all) p.running = null;
      });
      return run;
    };
    const wait = Date.now() - p.at;
    if (!now && wait < PROGRESS_MS) {
      p.pending.set(idx, { row, h });
      p.timer ??= setTimeout(() => {
        p.timer = null;
        p.at = Date.now();
        const due = [...p.pending];
        p.pending.clear();
        for (const [file, entry] of due) void send(file, entry.h);
      }, PROGRESS_MS - wait);
      p.timer.unref();
      return Promise.resolve();
    }
    p.pending.delete(idx);
    p.at = Date.now();
    return send(idx, h);
  }

  /**
   * Held bytes of transfers that ended or are gone (ended on another engine process, or while this
   * one was stopped) are deleted; at start, the rest are counted. The directories and this process's
   * entries are both looked at (an entry whose directory never came, or went, is forgotten too).
   */
  async function sweep(count: boolean) {
    const names = new Set<string>(await readdir(root).catch(() => [] as string[]));
    for (const k2 of held.keys()) names.add(k2.slice(0, k2.indexOf("/")));
    for (const id of byTransfer.keys()) names.add(id);
    const now = Date.now();
    for (const [id, at] of droppedIds) if (now - at > SWEEP_MS) droppedIds.delete(id);
    for (const name of names) {
      const row = UUID.test(name) ? await p2p.relay.transfer(name) : undefined;
      if (!row || !ACTIVE.includes(row.status)) {
        await dropTransfer(name);
        continue;
      }
      if (!count) continue;
      for (const file of await readdir(path.join(root, name)).catch(() => [] as string[])) if (/^\d{1,5}$/.test(file)) await heldOf(name, Number(file), row.sender_user_id);
    }
  }
  await sweep(true).catch((error: unknown) => log.warn({ err: error }, "p2p relay: sweeping held bytes failed"));
  const timer = setInterval(() => void sweep(false).catch((error: unknown) => log.warn({ err: error }, "p2p relay: sweeping held bytes failed")), SWEEP_MS);
  timer.unref();

  function cors(req: IncomingMessage, headers: Record<string, string | number>) {
    if (req.headers.origin) {
      headers["access-control-allow-origin"] = req.headers.origin;
      headers["access-control-expose-headers"] = EXPOSED;
      headers.vary = "Origin";
    }
    return headers;
  }

  function refuse(req: IncomingMessage, res: ServerResponse, error: FerryError, lang: Lang, status?: number, extra: Record<string, string | number> = {}) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const code = status ?? HTTP_STATUS[error.code] ?? errorByCode(error.code)?.status ?? 500;
    const head = req.method === "HEAD";
    const body = head ? "" : JSON.stringify(envelope(error.code, lang, error.data, error.vars));
    res.writeHead(code, cors(req, { ...COMMON_HEADERS, ...extra, "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) }));
    res.end(body);
  }

  /** The transfer and file a request names, checked for its caller: the sender, the receiver, or either. */
  async function target(req: IncomingMessage, url: URL, who: "sender" | "receiver" | "either") {
    const m = ROUTE.exec(url.pathname);
    const header = req.headers.authorization ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    const auth = token ? await services.tokens.authenticateSocket(token) : null;
    if (!auth) throw new FerryError("InvalidToken");
    if (!m) throw new FerryError("P2pNoSuchTransfer");
    const [id, idx] = [m[1]!, Number(m[2])];
    const row = await p2p.relay.transfer(id);
    const userId = auth.user.id;
    const party = row && ((who !== "receiver" && row.sender_user_id === userId) || (who !== "sender" && row.receiver_user_id === userId));
    if (!row || !party) throw new FerryError("P2pNoSuchTransfer");
    const s = await p2p.settings();
    if (!s.enabled) throw new FerryError("P2pOff");
    if (!ACTIVE.includes(row.status)) throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
    if (!s.relay) throw new FerryError("P2pPathOff", { path: "relay" }, { path: "relay" });
    const file = await k.selectFrom("p2p_files").select(["size", "kind", "state", "hash"]).where("transfer_id", "=", id).where("idx", "=", idx).executeTakeFirst();
    if (!file || Number(file.kind) !== 0) throw new FerryError("ParameterError", { file: idx, reason: "no such file in the transfer" });
    return { row, id, idx, size: Number(file.size), state: file.state, settings: s };
  }

  type Target = Awaited<ReturnType<typeof target>>;

  async function head(req: IncomingMessage, res: ServerResponse, t: Target) {
    const h = await heldOf(t.id, t.idx, t.row.sender_user_id);
    res.writeHead(200, cors(req, { ...COMMON_HEADERS, [OFFSET]: h.bytes, [P2P_RELAY.sizeHeader.toLowerCase()]: t.size }));
    res.end();
  }

  async function patch(req: IncomingMessage, res: ServerResponse, t: Target, lang: Lang) {
    if (t.state === "done") return refuse(req, res, new FerryError("ParameterError", { file: t.idx, reason: "the receiver has the whole file already" }), lang);
    const offsetHeader = req.headers[OFFSET];
    if (typeof offsetHeader !== "string" || !DIGITS.test(offsetHeader)) return refuse(req, res, new FerryError("ParameterError", { reason: `${P2P_RELAY.offsetHeader} must be the bytes held` }), lang);
    const lengthHeader = req.headers["content-length"];
    if (typeof lengthHeader !== "string" || !DIGITS.test(lengthHeader)) return refuse(req, res, new FerryError("InvalidData", { reason: "a relay PATCH needs its Content-Length" }), lang, 411);
    const offset = Number(offsetHeader);
    const length = Number(lengthHeader);
    const user = t.row.sender_user_id;
    const h = await heldOf(t.id, t.idx, user);
    // The newest PATCH wins: one still writing (its client gone without the connection closing) stops with what it wrote.
    while (h.writer) {
      const before = h.writer;
      before.stop.abort();
      await before.done;
    }
    if (h.dropped || droppedIds.has(t.id)) return refuse(req, res, new FerryError("P2pWrongState", { status: "ended" }, { status: "ended" }), lang);
    // Nothing awaited from here until the writer is set: two PATCHes cannot both pass the checks.
    if (offset !== h.bytes) return refuse(req, res, new FerryError("InvalidData", { reason: `${P2P_RELAY.offsetHeader} is not the bytes held`, offset: h.bytes }), lang, 409, { [OFFSET]: h.bytes });
    if (offset + length > t.size) return refuse(req, res, new FerryError("InvalidData", { reason: "the body ends past the file's size", size: t.size }), lang, 413, { [OFFSET]: h.bytes });
    const sums = totals(t.id);
    const cap = t.settings.maxTransferBytes;
    /** Bytes this PATCH reserved and has not written yet. */
    let mine = 0;
    let written = 0;
    /**
     * Reserves room ahead for the body (a window, not its whole length) so that at least `need` more
     * bytes fit: null, or why it cannot (the transfer's cap; the engine's room; the sender user's share of it).
     */
    const grow = (need: number): Stopped | null => {
      const add = Math.max(need, Math.min(windowBytes, length - written)) - mine;
      if (add <= 0) return null;
      if (cap > 0 && sums.bytes + sums.reserved + add > cap) return { error: new FerryError("P2pRelayFull", { max: cap }), status: 413 };
      if (used + reserved + add > max) return { error: new FerryError("P2pRelayFull", { max }), status: 507, extra: { "retry-after": 60 } };
      if ((byUser.get(user) ?? 0) + add > share) return { error: new FerryError("P2pRelayFull", { max: share }), status: 507, extra: { "retry-after": 60 } };
      account(sums, user, 0, add);
      mine += add;
      return null;
    };
    const first = length > 0 ? grow(0) : null;
    if (first) return refuse(req, res, first.error, lang, first.status, { [OFFSET]: h.bytes, ...first.extra });

    const stop = new AbortController();
    let finished!: () => void;
    h.writer = { stop, done: new Promise<void>((resolve) => (finished = resolve)) };
    let throttle: Throttle | null = null;
    let stopped: Stopped | null = null;
    let failed: unknown = null;
    // The body goes through its own stream: stopping the write (a newer PATCH, no bytes for a while,
    // no room) leaves the request and its connection whole, so the client hears why.
    const body = new PassThrough();
    const gone = () => {
      if (!req.complete) body.destroy(new Error("the client went away"));
    };
    req.once("close", gone);
    req.pipe(body);
    let idle: NodeJS.Timeout | null = null;
    const quiet = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => {
        stopped ??= { error: new FerryError("ClientTimeout"), status: 408 };
        stop.abort();
      }, idleMs);
      idle.unref();
    };
    const onData = () => quiet();
    req.on("data", onData);
    quiet();
    try {
      // A transfer dropped while this waited for the one writing before: nothing is written (nor its directory made again).
      if (h.dropped || droppedIds.has(t.id)) throw new Error("dropped");
      await mkdir(path.join(root, t.id), { recursive: true });
      const handle = await open(fileOf(t.id, t.idx), "a");
      try {
        // The sender user's upload limit on the relay's bytes (server/speed/).
        throttle = await services.speed.throttle(user, 0, "upload");
        const sink = new Writable({
          highWaterMark: STREAM_BUFFER,
          write: (chunk: Buffer, _encoding, done) => {
            if (h.dropped) return done(new Error("dropped"));
            if (mine < chunk.length) {
              const full = grow(chunk.length);
              if (full) {
                stopped ??= full;
                return done(new Error("no room"));
              }
            }
            handle.write(chunk).then(() => {
              // Counted as it lands: a body cut short keeps what was written, and a GET waiting sees it.
              // Not once the file was dropped: its bytes were taken off already, and are deleted.
              if (h.dropped) return done(new Error("dropped"));
              written += chunk.length;
              h.bytes += chunk.length;
              mine -= chunk.length;
              account(sums, user, chunk.length, -chunk.length);
              wake(h);
              void report(t.row, t.idx, h, false);
              done();
            }, done);
          },
        });
        const stages = throttle ? [body, throttle.transform(), sink] : [body, sink];
        await pipeline(stages as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream], { signal: stop.signal });
      } catch (error) {
        failed = error;
      } finally {
        await handle.close();
      }
    } catch (error) {
      failed ??= error;
    } finally {
      if (idle) clearTimeout(idle);
      req.off("data", onData);
      req.off("close", gone);
      req.unpipe(body);
      account(sums, user, 0, -mine);
      mine = 0;
      throttle?.release();
      h.writer = null;
      finished();
    }
    const whole = written > 0 && h.bytes === t.size && !h.dropped;
    if (written > 0 && !h.dropped) await report(t.row, t.idx, h, whole);
    await paces.get(t.id)?.running;
    if (failed) {
      // What the body still sends is read and dropped; the connection closes after the answer.
      req.resume();
      const close = { connection: "close", [OFFSET]: h.bytes };
      // The client went away (nobody reads an answer), a newer PATCH took over, or the disk failed.
      if (res.destroyed || res.socket?.destroyed !== false) return;
      if (h.dropped) return refuse(req, res, new FerryError("P2pWrongState", { status: "ended" }, { status: "ended" }), lang, 409, close);
      // Set in the write's callbacks (TypeScript cannot see it there).
      const why = stopped as Stopped | null;
      if (why) return refuse(req, res, why.error, lang, why.status, { ...why.extra, ...close });
      if (stop.signal.aborted) return refuse(req, res, new FerryError("InvalidData", { reason: "a newer PATCH took over", offset: h.bytes }), lang, 409, close);
      log.warn({ err: failed, transferId: t.id }, "p2p relay: writing held bytes failed");
      return refuse(req, res, new FerryError("CannotWriteFile"), lang, 500, close);
    }
    if (whole) {
      // Whole: its BLAKE3 (one run per file) is compared with the sender's under the transfer's lock
      // (else p2pFileDone compares it when it comes: the relay's hash is set before this compares).
      const hash = await hashOnce(t.id, t.idx, h);
      if (hash !== null && (await p2p.relay.compare(t.id, t.idx, hash)) === "mismatch") {
        return refuse(req, res, new FerryError("P2pHashMismatch", { file: t.idx }), lang, 409, { [OFFSET]: 0 });
      }
    }
    res.writeHead(204, cors(req, { ...COMMON_HEADERS, [OFFSET]: h.bytes }));
    res.end();
  }

  /** Waits until more bytes are held, the file is dropped, the client leaves, or `P2P_RELAY.idleMs` pass: whether more came. */
  function more(h: Held, res: ServerResponse, than: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = () => {
        h.waiters.delete(done);
        clearTimeout(timer);
        res.off("close", done);
        resolve(h.bytes > than && !h.dropped);
      };
      const timer = setTimeout(done, P2P_RELAY.idleMs);
      h.waiters.add(done);
      res.once("close", done);
    });
  }

  async function get(req: IncomingMessage, res: ServerResponse, t: Target, lang: Lang) {
    const range = parseRange(req.headers.range, t.size);
    if (range.kind === "unsatisfiable") {
      const body = "range not satisfiable\n";
      res.writeHead(416, cors(req, { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", "accept-ranges": "bytes", "content-range": `bytes */${t.size}`, "content-length": Buffer.byteLength(body) }));
      res.end(body);
      return;
    }
    // A receiver user's GETs open at once are limited (each may wait for bytes for a while).
    const user = t.row.receiver_user_id;
    const open_ = gets.get(user) ?? 0;
    if (open_ >= P2P_RELAY.getsPerUser) return refuse(req, res, new FerryError("P2pRelayFull", { max: P2P_RELAY.getsPerUser }), lang, 429, { "retry-after": 5 });
    gets.set(user, open_ + 1);
    let handle: Awaited<ReturnType<typeof open>> | null = null;
    let throttle: Throttle | null = null;
    try {
      const start = range.kind === "range" ? range.start : 0;
      const end = range.kind === "range" ? range.end : t.size - 1;
      const headers: Record<string, string | number> = { ...COMMON_HEADERS, "content-type": "application/octet-stream", "accept-ranges": "bytes", "content-length": end - start + 1, [P2P_RELAY.sizeHeader.toLowerCase()]: t.size };
      if (range.kind === "range") headers["content-range"] = `bytes ${start}-${end}/${t.size}`;
      const h = await heldOf(t.id, t.idx, t.row.sender_user_id);
      // The receiver user's download limit (server/speed/).
      throttle = end >= start ? await services.speed.throttle(user, 0, "download") : null;
      res.writeHead(range.kind === "range" ? 206 : 200, cors(req, headers));
      // The status goes now, also when the first bytes wait for the sender.
      res.flushHeaders();
      if (end < start) {
        res.end();
        return;
      }
      const buffer = Buffer.allocUnsafe(Math.min(STREAM_BUFFER, throttle?.pieceSize ?? STREAM_BUFFER, end - start + 1));
      let at = start;
      while (at <= end) {
        if (res.destroyed) return;
        const available = Math.min(h.bytes, end + 1);
        if (available <= at && handle) {
          // No descriptor is held while waiting for the sender.
          await handle.close();
          handle = null;
        }
        if (h.dropped || (available <= at && !(await more(h, res, at)))) {
          // Nothing new for a while (or the bytes are gone): the response ends short; the receiver resumes by Range.
          res.destroy();
          return;
        }
        if (available <= at) continue;
        handle ??= await open(fileOf(t.id, t.idx), "r");
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, available - at), at);
        if (bytesRead === 0) {
          res.destroy();
          return;
        }
        const due = throttle?.take(bytesRead);
        if (due) await due;
        const ok = await new Promise<boolean>((resolve) => {
          if (res.destroyed) return resolve(false);
          const gone = () => resolve(false);
          res.once("close", gone);
          res.write(buffer.subarray(0, bytesRead), (error) => {
            res.off("close", gone);
            resolve(!error);
          });
        });
        if (!ok) return;
        at += bytesRead;
      }
      res.end();
    } finally {
      await handle?.close();
      throttle?.release();
      const n = (gets.get(user) ?? 1) - 1;
      if (n > 0) gets.set(user, n);
      else gets.delete(user);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL) {
    const lang = langFromHeader(req.headers["accept-language"]);
    if (!originAllowed(req.headers.origin, req.headers.host, services.config.webOrigins)) {
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
      res.end("origin not allowed");
      return;
    }
    if (req.method === "OPTIONS") {
      res.writeHead(
        204,
        cors(req, {
          "access-control-allow-methods": "GET, HEAD, PATCH, OPTIONS",
          "access-control-allow-headers": `Authorization, Accept-Language, Content-Type, Range, ${P2P_RELAY.offsetHeader}`,
          "access-control-max-age": 600,
        }),
      );
      res.end();
      return;
    }
    const who = req.method === "PATCH" ? "sender" : req.method === "GET" ? "receiver" : req.method === "HEAD" ? "either" : null;
    if (!who) return refuse(req, res, new FerryError("UnsupportedOperation"), lang, 405);
    let t: Target;
    try {
      t = await target(req, url, who);
    } catch (error) {
      if (error instanceof FerryError) return refuse(req, res, error, lang);
      throw error;
    }
    if (req.method === "HEAD") return head(req, res, t);
    if (req.method === "PATCH") return patch(req, res, t, lang);
    return get(req, res, t, lang);
  }

  return {
    handlers: [{ prefix: P2P_RELAY.path, handle }],
    commands: {},
    async close() {
      clearInterval(timer);
    },
  };
};
