/**
 * The data channel's protocol of a direct P2P transfer (docs/p2p.md, "Browser"): one ordered
 * channel, JSON control frames as text and the file's bytes as binary chunks of CHUNK_BYTES.
 * Pure: peer.client.ts moves the frames; this module says what they mean.
 *
 * Sender → receiver: `file` (a file starts at `offset`), binary chunks, `end` (with the sender's
 * BLAKE3), `done` (every file sent). Receiver → sender: `resume` (send file `file` from `offset`:
 * the bytes it really has), `ok` (file checked), `bad` (hash differs: send it again from 0),
 * `cancel`, `ack` (bytes written so far: the sender keeps at most WRITE_WINDOW_BYTES unwritten, so a
 * disk slower than the network does not pile chunks up in the receiver's memory). Both: `error`.
 */

export const CHUNK_BYTES = 64 * 1024;
/** The channel's `bufferedAmountLowThreshold`: sending resumes when the buffer drains to this. */
export const BUFFER_LOW_BYTES = 1024 * 1024;
/** Sending pauses while more than this waits in the channel's buffer. */
export const BUFFER_HIGH_BYTES = 8 * 1024 * 1024;
/** The receiver says how much it has written after every this many bytes. */
export const ACK_EVERY_BYTES = 1024 * 1024;
/** Bytes sent but not yet written by the receiver that the sender allows before it waits. */
export const WRITE_WINDOW_BYTES = 16 * 1024 * 1024;
/** Longest control frame taken (a path is at most 4096 characters). */
export const CONTROL_MAX_CHARS = 16 * 1024;

export type ControlFrame =
  | { t: "file"; file: number; offset: number; size: number }
  | { t: "end"; file: number; hash: string }
  | { t: "done" }
  | { t: "resume"; file: number; offset: number }
  | { t: "ok"; file: number }
  | { t: "bad"; file: number }
  | { t: "ack"; bytes: number }
  | { t: "cancel"; reason?: string }
  | { t: "error"; reason: string };

export type Frame = ControlFrame | { t: "chunk"; bytes: ArrayBuffer };

const count = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const HASH = /^[0-9a-f]{64}$/;

export function encodeControl(frame: ControlFrame): string {
  return JSON.stringify(frame);
}

/** A message of the channel as a frame; null for what is not one (it ends the transfer: the peer is not this page). */
export function decodeFrame(data: string | ArrayBuffer): Frame | null {
  if (typeof data !== "string") return { t: "chunk", bytes: data };
  if (data.length > CONTROL_MAX_CHARS) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== "object") return null;
  const f = raw as Record<string, unknown>;
  switch (f.t) {
    case "file":
      return count(f.file) && count(f.offset) && count(f.size) && f.offset <= f.size ? { t: "file", file: f.file, offset: f.offset, size: f.size } : null;
    case "end":
      return count(f.file) && typeof f.hash === "string" && HASH.test(f.hash) ? { t: "end", file: f.file, hash: f.hash } : null;
    case "done":
      return { t: "done" };
    case "resume":
      return count(f.file) && count(f.offset) ? { t: "resume", file: f.file, offset: f.offset } : null;
    case "ok":
    case "bad":
      return count(f.file) ? { t: f.t, file: f.file } : null;
    case "ack":
      return count(f.bytes) ? { t: "ack", bytes: f.bytes } : null;
    case "cancel":
      return typeof f.reason === "string" ? { t: "cancel", reason: f.reason.slice(0, 255) } : { t: "cancel" };
    case "error":
      return { t: "error", reason: typeof f.reason === "string" ? f.reason.slice(0, 255) : "" };
    default:
      return null;
  }
}

/** The byte ranges [start, end) a file is sent in from `offset`. */
export function* chunkRanges(size: number, offset: number, chunk = CHUNK_BYTES): Generator<[number, number]> {
  for (let start = Math.min(offset, size); start < size; start += chunk) yield [start, Math.min(size, start + chunk)];
}

/**
 * Whether the sender must wait before the next chunk: the channel's buffer is above 8 MiB, or more
 * than WRITE_WINDOW_BYTES it sent (on this channel) are not yet written by the receiver.
 */
export const mustPause = (bufferedAmount: number, sent = 0, written = sent) => bufferedAmount > BUFFER_HIGH_BYTES || sent - written > WRITE_WINDOW_BYTES;

export interface ManifestFile {
  size: number;
  /** 0 a file, 1 an empty folder (nothing to send). */
  kind: number;
}

/**
 * Where to (re)start: the first file (in manifest order) the receiver has not got whole, and the bytes
 * of it it really has. `have[i]` is what the receiver holds of file i (the file on the disk, the
 * upload's stored bytes); a file it checked is `size`. null: nothing left to send.
 */
export function resumePoint(files: readonly ManifestFile[], have: readonly number[]): { file: number; offset: number } | null {
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    if (file.kind === 1) continue;
    const held = have[i] ?? 0;
    if (held < file.size) return { file: i, offset: Math.max(0, Math.min(held, file.size)) };
  }
  return null;
}

export type ReceiveStep =
  | { kind: "start"; file: number; offset: number }
  | { kind: "write"; file: number; offset: number; bytes: ArrayBuffer }
  | { kind: "end"; file: number; hash: string }
  | { kind: "done" }
  | { kind: "cancel"; reason: string }
  | { kind: "fail"; reason: string };

/**
 * The receiver's reading of the sender's frames: which file the chunks belong to and where they go.
 * Refuses (a `fail` step) what breaks the protocol: chunks outside a file, past its size, a start at
 * another offset than the one asked for, an end before all bytes came.
 */
export class ReceiveTracker {
  private current: { file: number; next: number; size: number } | null = null;
  /** The offset each file was asked from (resume): the sender must start there. */
  private asked = new Map<number, number>();

  constructor(private readonly files: readonly ManifestFile[]) {}

  /** The receiver asked for `file` from `offset` (it sends `resume`). */
  ask(file: number, offset: number) {
    this.asked.set(file, offset);
  }

  /** Bytes of the current file received so far (for progress). */
  get position(): { file: number; bytes: number } | null {
    return this.current && { file: this.current.file, bytes: this.current.next };
  }

  take(frame: Frame): ReceiveStep | null {
    switch (frame.t) {
      case "file": {
        const meta = this.files[frame.file];
        if (!meta || meta.kind === 1 || frame.size !== meta.size) return { kind: "fail", reason: "unknown file" };
        const asked = this.asked.get(frame.file);
        if (asked !== undefined && asked !== frame.offset) return { kind: "fail", reason: "wrong offset" };
        this.current = { file: frame.file, next: frame.offset, size: frame.size };
        return { kind: "start", file: frame.file, offset: frame.offset };
      }
      case "chunk": {
        const cur = this.current;
        if (!cur) return { kind: "fail", reason: "bytes outside a file" };
        if (frame.bytes.byteLength === 0 || cur.next + frame.bytes.byteLength > cur.size) return { kind: "fail", reason: "bytes past the end" };
        const offset = cur.next;
        cur.next += frame.bytes.byteLength;
        return { kind: "write", file: cur.file, offset, bytes: frame.bytes };
      }
      case "end": {
        const cur = this.current;
        if (!cur || cur.file !== frame.file || cur.next !== cur.size) return { kind: "fail", reason: "early end" };
        this.current = null;
        this.asked.delete(frame.file);
        return { kind: "end", file: frame.file, hash: frame.hash };
      }
      case "done":
        return this.current ? { kind: "fail", reason: "early end" } : { kind: "done" };
      case "cancel":
        return { kind: "cancel", reason: frame.reason ?? "" };
      case "error":
        return { kind: "fail", reason: frame.reason };
      default:
        // Frames the receiver sends itself are not for it.
        return null;
    }
  }
}

/** Bytes of a transfer done: whole files before `file` plus `bytes` of it. */
export function bytesDone(files: readonly ManifestFile[], file: number, bytes: number): number {
  let done = 0;
  for (let i = 0; i < file && i < files.length; i++) if (files[i]!.kind !== 1) done += files[i]!.size;
  return done + bytes;
}
