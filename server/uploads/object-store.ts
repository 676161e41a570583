import { createBLAKE3, type IHasher } from "hash-wasm";
import type { Readable } from "node:stream";
import { FerryError } from "../errors";
import { type ResumableState, type ResumableUpload, type StoredPart, storageError } from "../storage/storage";

/**
 * Uploads into a space whose storage is an object store (docs/file-server.md, "Uploads into object
 * storage"): the bytes go straight into the store as the parts of one resumable upload
 * (Storage.resumable), never into a local data file. The upload's record keeps the store's state,
 * the parts stored (number, ETag, size) and the BLAKE3 hasher's saved state at the end of the last
 * stored part, written after each part; a restarted engine goes on from there.
 *
 * A stream is cut into parts of the store's part size: the bytes of the part being filled wait in
 * memory (at most one part per upload) and are reported in the upload's offset while this process
 * lives; a crash loses them, and HEAD then answers the offset of the stored parts, from which the
 * client sends again. Each part is hashed just before it is sent, so the saved hasher state always
 * matches the stored parts.
 *
 * Those waiting bytes are bounded engine-wide (PartBudget, FERRY_UPLOAD_BUFFER_BYTES). An upload
 * that starts filling a part claims the whole part from the budget (or the rest of the file, when
 * less), so one that has begun can always finish its part: a budget counted byte by byte would let
 * uploads that each hold most of a part refuse one another for good. When no part fits, a body is
 * refused before it is taken (UploadMemoryFull, 503 with Retry-After; nothing is lost, the client tries
 * again). An upload that sent nothing for FERRY_UPLOAD_BUFFER_IDLE loses its waiting bytes and its
 * claim (its offset goes back to the stored parts, as after a crash), so idle uploads cannot hold
 * the budget for the whole day an upload lives.
 */

/** Why a body was refused for the budget (`data.reason`): the HTTP side answers it with 503 and Retry-After. */

/** Chunks of one upload that may wait for their turn at once (StoreUploadProgress.waitTurn); more are refused (409). */
export const MAX_WAITING_CHUNKS = 8;

/** The right to take the next body of an upload, handed out by waitTurn; `take` checks it. */
export type Turn = object;

/** InvalidData's reason for a body longer than the upload: tus answers it 413, not 409 (which clients resend on). */
export const OVER_LENGTH = "more bytes than the declared Upload-Length";

/** What a take hands back when another request freed its stalled turn. */
const PREEMPTED = Symbol("preempted");
/** What a take's wait for its body hands back when no byte came for the idle time. */
const IDLE = Symbol("idle");

/** A body of an upload into an object store that brings no byte for this long is stopped and its claim freed (at most FERRY_UPLOAD_BUFFER_IDLE). */
export const BODY_IDLE_MS = 60_000;

/**
 * The engine-wide budget of memory for the parts that uploads into object stores fill and send, in
 * bytes claimed. One owner (a user, or a share link's visitors) may claim at most a quarter of it,
 * but always one part when it holds nothing: one sign-in's many uploads cannot shut out the others.
 */
export class PartBudget {
  private used = 0;
  private readonly owners = new Map<string, number>();
  constructor(readonly limit: number) {}

  get held() {
    return this.used;
  }

  /** What one owner may hold at most (but for its first part). */
  get perOwner() {
    return Math.floor(this.limit / 4);
  }

  /** Claims `n` more bytes for `owner` if they fit; false (nothing claimed) when they would pass the limit or the owner's share. */
  take(n: number, owner = ""): boolean {
    const mine = this.owners.get(owner) ?? 0;
    if (this.used + n > this.limit || (mine > 0 && mine + n > this.perOwner)) return false;
    this.used += n;
    this.owners.set(owner, mine + n);
    return true;
  }

  give(n: number, owner = "") {
    this.used -= n;
    const mine = (this.owners.get(owner) ?? 0) - n;
    if (mine > 0) this.owners.set(owner, mine);
    else this.owners.delete(owner);
  }
}

/** What an upload's record keeps of an upload into an object store. */
export interface StoreRecord {
  state: ResumableState;
  /** The parts stored, in order from part 1 (bytes [0, sum of sizes)). */
  parts: StoredPart[];
  /** BLAKE3 (hash-wasm) state after the stored parts' bytes, base64. */
  hasher: string;
}

/** The bytes the stored parts hold, from 0. */
export const storedBytes = (store: StoreRecord) => store.parts.reduce((n, p) => n + p.size, 0);

export async function freshHasherState(): Promise<string> {
  const hasher = await createBLAKE3(256);
  hasher.init();
  return Buffer.from(hasher.save()).toString("base64");
}

/** The live side of an upload into an object store (one per upload the engine has seen bytes of since it started). */
export class StoreUploadProgress {
  /**
   * Bytes after the stored parts (in memory only), as the chunks that arrived: copied into one
   * buffer once, when a part is cut from them. `held` counts them and the part being sent.
   */
  private pending: Buffer[] = [];
  held = 0;
  /** What this upload claims of the budget while it holds bytes: the part it fills (0 when it holds none). */
  private claimed = 0;
  /** When a body last brought bytes or ended (Date.now()), for dropIdle. */
  private lastActive = Date.now();
  /** Set when the upload is terminated, committed or dropped. */
  dropped = false;
  /**
   * Who takes the next body (one at a time: the bytes go to the store in order): a turn waitTurn
   * handed out, or a take under way; null when free. Claimed in the same step as it is checked, so
   * two requests can never both be given it.
   */
  private holder: Turn | null = null;
  /** Stops the take under way where it waits for its body's next bytes (waitTurn, when the body stalled); null while it sends a part. */
  private preemptTake: (() => void) | null = null;
  /** A part is on its way to the store: chunks waiting for their turn count it as progress. */
  private sending = false;
  /** Chunks in waitTurn now. */
  private waiters = 0;
  /** Called when a take ends or the offset moves. */
  private readonly waiting = new Set<() => void>();
  private persisting: Promise<void> = Promise.resolve();

  private constructor(
    readonly upload: ResumableUpload,
    public record: StoreRecord,
    private readonly hasher: IHasher,
    /** Writes the record (atomically); called after each stored part, one at a time. */
    private readonly save: (record: StoreRecord, hash: string | null) => Promise<void>,
    private readonly budget: PartBudget,
    /** Whose claims these are (PartBudget's per-owner share): the user, or the share link of a visitor's upload. */
    private readonly owner: string,
  ) {}

  static async open(upload: ResumableUpload, record: StoreRecord, save: (record: StoreRecord, hash: string | null) => Promise<void>, budget: PartBudget, owner = ""): Promise<StoreUploadProgress> {
    const hasher = await createBLAKE3(256);
    hasher.load(Buffer.from(record.hasher, "base64"));
    return new StoreUploadProgress(upload, record, hasher, save, budget, owner);
  }

  get size() {
    return this.record.state.size;
  }

  get stored() {
    return storedBytes(this.record);
  }

  /** The offset a client goes on from: the stored parts and the bytes waiting in memory. */
  get offset() {
    return this.stored + this.held;
  }

  private get busy() {
    return this.holder !== null;
  }

  /**
   * Takes a body's bytes at `offset` (which must be this.offset), with the `turn` waitTurn gave
   * (or none, when no other body is being taken), sending every full part (and the
   * last one when the file is complete) before taking more. Returns the bytes taken; a body that
   * stops early keeps what arrived. A part the store refuses, or a record that cannot be written
   * after it, drops the bytes after the recorded parts and fails (CannotWriteFile, or the local
   * disk's error): the client goes on from the recorded offset. An upload that holds no bytes and
   * finds no room for its next part in the budget fails with UploadMemoryFull before taking a byte. A
   * body that brought nothing for the idle time while a chunk waited for its turn is stopped there
   * (InvalidData, 409: what it brought stays; waitTurn gives the turn on). A body that brings no
   * byte for `idleMs` is stopped too: the bytes of the part it was filling are dropped and the
   * claim given back (the offset goes back to the stored parts, as after dropIdle), so a stalled
   * connection kept open cannot hold a part of the budget (InvalidData, 409; the client resends).
   */
  async take(body: AsyncIterable<Buffer>, offset: number, limit: number, turn?: Turn, idleMs = BODY_IDLE_MS): Promise<number> {
    if (offset !== this.offset || this.holder !== (turn ?? null)) throw new FerryError("InvalidData", { reason: "Upload-Offset is not the stored offset" });
    const mine: Turn = turn ?? {};
    this.holder = mine;
    this.lastActive = Date.now();
    let preempt = () => undefined as void;
    const preempted = new Promise<typeof PREEMPTED>((resolve) => (preempt = () => resolve(PREEMPTED)));
    const chunks = body[Symbol.asyncIterator]();
    let taken = 0;
    try {
      for (;;) {
        // Only a wait for the body can be stopped, never a part on its way to the store.
        this.lastActive = Date.now();
        this.preemptTake = preempt;
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), idleMs)));
        const next = await Promise.race([chunks.next(), preempted, idle]).finally(() => clearTimeout(timer));
        this.preemptTake = null;
        if (next === PREEMPTED) throw new FerryError("InvalidData", { reason: "no bytes arrived for too long: another request took the turn" });
        if (next === IDLE) {
          // Stalled: whole parts are stored, the part being filled goes with its claim.
          this.release();
          throw new FerryError("InvalidData", { reason: "no bytes arrived for too long: send again from the stored offset" });
        }
        if (next.done) break;
        const chunk = next.value;
        if (this.dropped) throw new FerryError("UploadNotFound");
        // An empty chunk brings nothing: it must not take a claim that holds no byte (dropIdle frees only held bytes).
        if (chunk.length === 0) continue;
        if (taken + chunk.length > limit || this.offset + chunk.length > this.size) throw new FerryError("InvalidData", { reason: OVER_LENGTH });
        if (this.claimed === 0) {
          const claim = Math.min(this.record.state.partSize, this.size - this.stored);
          if (!this.budget.take(claim, this.owner)) throw new FerryError("UploadMemoryFull");
          this.claimed = claim;
        }
        // A copy: the caller may reuse its buffer, and a slice would keep a larger one alive.
        this.pending.push(Buffer.from(chunk));
        this.held += chunk.length;
        taken += chunk.length;
        this.lastActive = Date.now();
        try {
          await this.sendFull();
        } catch (error) {
          // Not the body's end: the store or the local disk failed, which the client must hear of.
          throw error instanceof FerryError ? error : storageError(error);
        }
      }
    } catch (error) {
      if (error instanceof FerryError) throw error;
      // The body stopped (the client went away): what arrived stays.
    } finally {
      this.holder = null;
      this.preemptTake = null;
      // As `for await` would: the source is let go (a stalled one's pending read settles on its own).
      void chunks.return?.()?.catch(() => undefined);
      this.lastActive = Date.now();
      if (this.dropped) this.release();
      this.wake();
    }
    return taken;
  }

  /** Gives back a turn waitTurn handed out whose body was never taken (the request failed before). */
  releaseTurn(turn: Turn) {
    if (this.holder !== turn) return;
    this.holder = null;
    this.wake();
  }

  /** Forgets the bytes after the stored parts and gives their claim back to the budget. */
  private release() {
    this.budget.give(this.claimed, this.owner);
    this.claimed = 0;
    this.held = 0;
    this.pending = [];
  }

  /** The upload is terminated, committed or dropped: its bytes in memory go (a body being taken stops at its next chunk). */
  drop() {
    this.dropped = true;
    this.release();
    this.wake();
  }

  /**
   * Drops the waiting bytes of an upload that took none for `idleMs` (no body being taken): the
   * offset goes back to the stored parts and the client sends the rest again from there (HEAD
   * tells it). Returns the bytes freed.
   */
  dropIdle(now: number, idleMs: number): number {
    if (this.busy || this.held === 0 || now - this.lastActive < idleMs) return 0;
    const freed = this.held;
    this.release();
    this.wake();
    return freed;
  }

  private wake() {
    for (const wake of [...this.waiting]) wake();
  }

  /**
   * Waits until a chunk starting at `start` can be taken: every byte before it in (the offset is
   * `start`) and no other body being taken, then hands out the turn to take it (to pass to `take`,
   * or to `releaseTurn`). Parallel chunks on an object store are thereby taken in byte order, each
   * waiting with its body unread (TCP holds it). Fails with InvalidData (409, which the web retries
   * after asking HEAD) when the bytes before it stop arriving for `idleMs`, when it overlaps stored
   * bytes, when MAX_WAITING_CHUNKS already wait, or when `signal` aborts (the client went away).
   * A body being taken that brought no byte for `idleMs` is stopped, so a stalled connection does
   * not hold the turn until its socket times out: its client's resend (or the next chunk) goes on.
   */
  async waitTurn(start: number, idleMs: number, signal: AbortSignal): Promise<Turn> {
    let waiting = false;
    try {
      for (;;) {
        if (this.dropped) throw new FerryError("UploadNotFound");
        if (start < this.offset) throw new FerryError("InvalidData", { reason: "the chunk overlaps stored bytes" });
        if (start === this.offset && !this.busy) {
          // Checked and claimed in one step: no other waiter or PATCH can pass in between.
          const turn: Turn = {};
          this.holder = turn;
          this.lastActive = Date.now();
          return turn;
        }
        if (!waiting) {
          if (this.waiters >= MAX_WAITING_CHUNKS) throw new FerryError("InvalidData", { reason: `at most ${MAX_WAITING_CHUNKS} chunks of an upload wait for their turn: send fewer at once` });
          this.waiters++;
          waiting = true;
        }
        const before = this.offset;
        const partsBefore = this.record.parts.length;
        const woke = await new Promise<"woken" | "idle" | "aborted">((resolve) => {
          const done = (value: "woken" | "idle" | "aborted") => {
            clearTimeout(timer);
            this.waiting.delete(wake);
            signal.removeEventListener("abort", aborted);
            resolve(value);
          };
          const wake = () => done("woken");
          const aborted = () => done("aborted");
          // A part on its way to the store is progress too, however long the store takes.
          const timer = setTimeout(() => done(this.offset !== before || this.sending || this.record.parts.length !== partsBefore ? "woken" : "idle"), idleMs);
          this.waiting.add(wake);
          if (signal.aborted) aborted();
          else signal.addEventListener("abort", aborted, { once: true });
        });
        if (woke === "aborted") throw new FerryError("InvalidData", { reason: "the bytes before the chunk did not arrive: send them first" });
        if (woke === "idle") {
          // Nothing arrived for idleMs: a take holding the turn all that time is stalled; free it and look again.
          if (this.preemptTake && Date.now() - this.lastActive >= idleMs) {
            this.preemptTake();
            continue;
          }
          throw new FerryError("InvalidData", { reason: "the bytes before the chunk did not arrive: send them first" });
        }
      }
    } finally {
      if (waiting) this.waiters--;
    }
  }

  /** The first `length` pending bytes as one new buffer (the only copy made of them); the rest stays pending. */
  private cut(length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let at = 0;
    while (at < length) {
      const first = this.pending[0]!;
      const n = Math.min(first.length, length - at);
      first.copy(out, at, 0, n);
      at += n;
      if (n === first.length) this.pending.shift();
      else this.pending[0] = first.subarray(n);
    }
    return out;
  }

  private async sendFull() {
    this.sending = true;
    try {
      await this.sendParts();
    } finally {
      this.sending = false;
    }
  }

  private async sendParts() {
    const partSize = this.record.state.partSize;
    while (this.held >= partSize || (this.held > 0 && this.offset === this.size)) {
      const length = Math.min(partSize, this.held);
      const bytes = this.cut(length);
      const before = this.hasher.save();
      this.hasher.update(bytes);
      let part: StoredPart;
      try {
        part = await this.upload.writePart(this.record.parts.length + 1, bytes);
      } catch (error) {
        // The part and what followed it are not stored: the hash goes back to the stored parts, the client resends.
        this.hasher.load(before);
        this.release();
        throw error instanceof FerryError && error.errorName === "UploadNotFound" ? error : new FerryError("CannotWriteFile");
      }
      if (this.dropped) throw new FerryError("UploadNotFound");
      const previous = this.record;
      const record: StoreRecord = { ...previous, parts: [...previous.parts, part], hasher: Buffer.from(this.hasher.save()).toString("base64") };
      const hash = storedBytes(record) === this.size ? this.hasher.digest("hex") : null;
      try {
        await this.persist(() => this.save(record, hash));
        if (this.dropped) throw new FerryError("UploadNotFound");
      } catch (error) {
        if (error instanceof FerryError && error.errorName === "UploadNotFound") throw error;
        // The part is in the store but not in the record: back to what the record says (the part
        // is sent again under the same number, which the store replaces), so a restart and this
        // process agree on the offset, and the client hears of the failure instead of a short write.
        this.hasher.load(before);
        this.release();
        throw storageError(error);
      }
      this.record = record;
      this.held -= length;
      // The next part (maybe the shorter last one) claims no more than this one did.
      const next = this.held === 0 ? 0 : Math.min(this.record.state.partSize, this.size - this.stored);
      this.budget.give(this.claimed - next, this.owner);
      this.claimed = next;
      this.wake();
    }
  }

  /** Runs `save` after the saves before it (one record write at a time per upload). */
  persist(save: () => Promise<void>): Promise<void> {
    const next = this.persisting.then(() => (this.dropped ? undefined : save()));
    this.persisting = next.catch(() => undefined);
    return next;
  }
}

/**
 * A body as Buffers, for `StoreUploadProgress.take`. A take that stops early (refused) leaves the
 * stream as it is: destroying a request would close its connection before the refusal is sent
 * (the file server reads on and discards the rest, server/fileserver/linger.ts).
 */
export async function* buffersOf(readable: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of readable.iterator({ destroyOnReturn: false })) yield typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
}
