import { ErrorCode } from "../../contract/errors";
import { CHUNK_HEADER, missingRanges, parseRanges, RANGES_HEADER, type ByteRange } from "../../contract/upload-chunks";
import { ChunkPlan, fileChunkSize, type FlightRate, rangeBytes, StreamCount, type TakeHint, uncovered } from "./chunk-plan";

/** A refusal of the file server: its envelope's code and data when it sent one. */
export class ChunkRequestError extends Error {
  constructor(readonly status: number, readonly code: number | undefined, readonly data: unknown) {
    super(`upload request failed (${status}${code === undefined ? "" : `, ${code}`})`);
  }
}

export interface ChunkedUploadOptions {
  file: File;
  /** The upload's URL when it was created before (a resume); null: create it. */
  uploadUrl: string | null;
  /** `POST` target of the creation (`/uploads/`). */
  endpoint: string;
  token: string;
  metadata: Record<string, string>;
  partMB: number;
  loopback: boolean;
  retryDelays: readonly number[];
  onUploadUrl(url: string): void;
  /** Bytes stored across all chunks plus those on their way. */
  onProgress(bytes: number): void;
  /** Bytes the engine confirmed (for the saved list). */
  onStored(bytes: number): void;
  onSuccess(): void;
  onError(error: unknown): void;
}

/** How often the stream count is reconsidered. */
const WINDOW_MS = 2000;
const TUS = { "Tus-Resumable": "1.0.0" };

const base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(""));

/** The refusal a reply's status and body make: the engine's envelope, or a server error by status. */
function refusal(status: number, body: string): ChunkRequestError {
  let code: number | undefined;
  let data: unknown;
  try {
    const envelope = JSON.parse(body) as {
      code?: unknown;
      data?: unknown;
    };
    if (typeof envelope.code === "number") code = envelope.code;
    data = envelope.data;
  } catch {
    // Not the engine's envelope (a proxy's page).
  }
  if (code === undefined && status >= 500) code = ErrorCode.ServerError;
  return new ChunkRequestError(status, code, data);
}

async function errorOf(response: Response): Promise<ChunkRequestError> {
  return refusal(response.status, await response.text().catch(() => ""));
}

/**
 * One file over Ferry's parallel chunks (docs/file-server.md, "Parallel chunks (Ferry extension)"):
 * created with a tus POST (or found again by its URL, whose HEAD lists the stored ranges), then the
 * missing bytes as chunks on several connections at once (chunk-plan.ts decides which and how many),
 * each retried on its own from the first byte the engine lacks.
 */
export class ChunkedUpload {
  url: string | null;
  private stored: ByteRange[] = [];
  private plan: ChunkPlan | null = null;
  private readonly count: StreamCount;
  private readonly requests = new Set<XMLHttpRequest>();
  private readonly sending = new Map<XMLHttpRequest, number>();
  /** Per request in flight: its length and when it was sent (for the tail's rates). */
  private readonly flights = new Map<XMLHttpRequest, { bytes: number; sentAt: number }>();
  /** Chunks sent or waiting to be retried. */
  private busy = 0;
  private stopped = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastSample = { time: 0, bytes: 0 };
  /** The rate of the last chunk that finished (bytes/s; 0 before). */
  private lastRate = 0;

  constructor(private readonly options: ChunkedUploadOptions) {
    this.url = options.uploadUrl;
    this.count = new StreamCount({ loopback: options.loopback });
  }

  start() {
    void this.begin().catch((error: unknown) => this.fail(error));
  }

  /** Stops every chunk; `terminate` also deletes what the engine holds. */
  async abort(terminate: boolean) {
    this.stop();
    if (terminate && this.url)
      await fetch(this.url, {
        method: "DELETE",
        headers: this.headers(),
      }).catch(() => undefined);
  }

  private headers(): Record<string, string> {
    return { ...TUS, Authorization: `Bearer ${this.options.token}` };
  }

  private async begin() {
    if (this.url) {
      const found = await this.head();
      // Expired or removed: a new upload from the first byte, as tus-js-client does.
      if (!found) this.url = null;
    }
    if (!this.url) {
      await this.create();
      this.stored = [];
    }
    if (this.stopped) return;
    this.plan = new ChunkPlan(missingRanges(this.stored, this.options.file.size), fileChunkSize(this.options.file.size, this.options.partMB));
    this.report();
    this.lastSample = { time: Date.now(), bytes: this.progressBytes() };
    this.timer = setInterval(() => this.adapt(), WINDOW_MS);
    this.fill();
  }

  private async create() {
    const metadata = Object.entries(this.options.metadata)
      .map(([key, value]) => `${key} ${base64(value)}`)
      .join(",");
    const response = await fetch(this.options.endpoint, {
      method: "POST",
      headers: {
        ...this.headers(),
        "Upload-Length": String(this.options.file.size),
        "Upload-Metadata": metadata,
      },
    });
    if (response.status !== 201) throw await errorOf(response);
    const location = response.headers.get("Location");
    if (!location) throw new ChunkRequestError(response.status, undefined, null);
    this.url = new URL(location, this.options.endpoint).href;
    this.options.onUploadUrl(this.url);
  }

  /** The stored ranges from HEAD; false when the upload is gone (404/410). */
  private async head(): Promise<boolean> {
    const response = await fetch(this.url!, {
      method: "HEAD",
      headers: this.headers(),
      cache: "no-store",
    });
    if (response.status === 404 || response.status === 410) return false;
    if (!response.ok) throw await errorOf(response);
    this.stored = parseRanges(response.headers.get(RANGES_HEADER)) ?? [[0, Number(response.headers.get("Upload-Offset") ?? 0)]];
    return true;
  }

  private storedBytes() {
    return rangeBytes(this.stored);
  }

  private progressBytes() {
    let bytes = this.storedBytes();
    for (const sent of this.sending.values()) bytes += sent;
    return Math.min(bytes, this.options.file.size);
  }

  private report() {
    this.options.onProgress(this.progressBytes());
  }

  private adapt() {
    const now = Date.now();
    const bytes = this.progressBytes();
    const rate = ((bytes - this.lastSample.bytes) * 1000) / Math.max(1, now - this.lastSample.time);
    this.lastSample = { time: now, bytes };
    this.count.sample(rate);
    this.fill();
  }

  /** The chunks in flight as the tail planning sees them: bytes still to send and rate so far. */
  private flightRates(now: number): FlightRate[] {
    const out: FlightRate[] = [];
    for (const [xhr, { bytes, sentAt }] of this.flights) {
      const loaded = this.sending.get(xhr) ?? 0;
      out.push({ left: Math.max(0, bytes - loaded), rate: loaded > 0 ? (loaded * 1000) / Math.max(1, now - sentAt) : 0 });
    }
    return out;
  }

  /**
   * Starts chunks until as many run as the stream count allows. `rate`: that of the chunk whose
   * stream asks (bytes/s), so the tail is sized to end together (ChunkPlan.take); a stream with no
   * finished chunk yet takes a whole one.
   */
  private fill(rate = this.lastRate) {
    const plan = this.plan;
    if (this.stopped || !plan) return;
    if (rate > 0) this.lastRate = rate;
    while (this.busy < this.count.streams) {
      const hint: TakeHint | undefined = rate > 0 ? { rate, flights: this.flightRates(Date.now()) } : undefined;
      const range = plan.take(this.count.streams, hint);
      if (!range) break;
      this.busy += 1;
      void this.runChunk(range);
    }
    if (this.busy === 0 && plan.empty) this.finish();
  }

  private finish() {
    const size = this.options.file.size;
    if (missingRanges(this.stored, size).length === 0) {
      this.stop();
      this.options.onSuccess();
      return;
    }
    // Every chunk answered yet a gap is left (a reply's ranges lagged): ask HEAD and send it.
    this.busy += 1;
    void this.head()
      .then(() => {
        this.busy -= 1;
        for (const gap of missingRanges(this.stored, size)) this.plan?.giveBack(gap);
        this.fill();
      })
      .catch((error: unknown) => this.fail(error));
  }

  /**
   * Sends one chunk, retried on its own: after a drop (or a 409 while the engine still holds the
   * dropped request's range) it waits, asks HEAD what arrived and sends only the rest of the chunk.
   * Its retries start over whenever a retry finds more of it stored.
   */
  private async runChunk(range: ByteRange) {
    let rest = range;
    let attempt = 0;
    let rate = 0;
    for (;;) {
      try {
        const sentAt = Date.now();
        await this.send(rest);
        rate = ((rest[1] - rest[0]) * 1000) / Math.max(1, Date.now() - sentAt);
        break;
      } catch (error) {
        if (this.stopped) return;
        const retriable = !(error instanceof ChunkRequestError) || (error.status === 409 && error.code === ErrorCode.InvalidData);
        if (!retriable || attempt >= this.options.retryDelays.length) {
          this.fail(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelays[attempt] ?? 0));
        attempt += 1;
        if (this.stopped) return;
        try {
          await this.head();
        } catch {
          // The retry's own request fails again and counts.
        }
        if (this.stopped) return;
        const left = uncovered(rest, this.stored);
        const first = left[0];
        if (!first) break;
        if (rangeBytes(left) < rest[1] - rest[0]) attempt = 0;
        // Normally one piece (the chunk's end); a second only when the HEAD showed a hole inside it.
        for (const piece of left.slice(1)) this.plan?.giveBack(piece);
        rest = first;
      }
    }
    this.busy -= 1;
    this.report();
    this.options.onStored(this.storedBytes());
    this.fill(rate);
  }

  private send([start, end]: ByteRange): Promise<void> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("PATCH", this.url!);
      for (const [name, value] of Object.entries(this.headers())) xhr.setRequestHeader(name, value);
      xhr.setRequestHeader(CHUNK_HEADER, "1");
      xhr.setRequestHeader("Upload-Offset", String(start));
      xhr.setRequestHeader("Content-Type", "application/offset+octet-stream");
      this.requests.add(xhr);
      this.sending.set(xhr, 0);
      this.flights.set(xhr, { bytes: end - start, sentAt: Date.now() });
      const done = () => {
        this.requests.delete(xhr);
        this.sending.delete(xhr);
        this.flights.delete(xhr);
      };
      xhr.upload.onprogress = (event) => {
        this.sending.set(xhr, event.loaded);
        this.report();
      };
      xhr.onload = () => {
        done();
        if (xhr.status === 204) {
          const ranges = parseRanges(xhr.getResponseHeader(RANGES_HEADER));
          if (ranges) this.stored = ranges;
          resolve();
          return;
        }
        reject(refusal(xhr.status, xhr.responseText));
      };
      xhr.onerror = () => {
        done();
        reject(new Error("network"));
      };
      xhr.onabort = xhr.onerror;
      xhr.send(this.options.file.slice(start, end));
    });
  }

  private stop() {
    this.stopped = true;
    clearInterval(this.timer);
    for (const xhr of this.requests) xhr.abort();
    this.requests.clear();
    this.sending.clear();
    this.flights.clear();
  }

  private fail(error: unknown) {
    if (this.stopped) return;
    this.stop();
    this.options.onError(error);
  }
}
