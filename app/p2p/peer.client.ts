import type { SocketEvent } from "../../contract/files";
import type { FileCommandError, FileConnection } from "../files/connection.client";
import { Hasher } from "../transfers/hasher.client";
import { onP2pCancel, P2P_ROW_PREFIX } from "../transfers/p2p-rows";
import { TransferStatus, type P2pRow, type P2pRowState, type TransferItem, type UploadItem, type UploadTarget } from "../transfers/types";
import { transferStore } from "../transfers/use-transfers";
import { deviceKey } from "./device.client";
import { formatDeviceId } from "./device-id";
import type { PickedItem, RemoteFile } from "./picked";
import { ACK_EVERY_BYTES, BUFFER_LOW_BYTES, bytesDone, chunkRanges, decodeFrame, encodeControl, mustPause, ReceiveTracker, resumePoint, type ControlFrame, type ManifestFile } from "./protocol";

/**
 * The browser side of point to point (docs/p2p.md, "Browser"): this page's device, the receiver's
 * offers, and the direct path: one RTCPeerConnection per transfer, signalled through the file
 * server's socket, with one ordered data channel carrying protocol.ts's frames.
 */

/** The data channel must open within this time of the answer, else the direct path failed. */
export const DIRECT_OPEN_MS = 8000;
/** Progress reported to the engine at most this often (it keeps 2 a second). */
const PROGRESS_REPORT_MS = 1000;

export interface OfferFile {
  path: string;
  size: number;
  kind: number;
}

export interface IncomingOffer {
  transferId: string;
  from: { account: string; deviceId: string };
  files: OfferFile[];
  totalBytes: number;
  fileCount: number;
  folderCount: number;
  createdAt: number;
}

/** Where an accepted transfer goes: a folder of the receiver's Ferry space, or this computer. */
export type ReceiveTarget = { kind: "ferry"; folder: string } | { kind: "local"; directory: FileSystemDirectoryHandle | null };

export interface ReceiverState {
  deviceId: string | null;
  /** Registration failed: the engine's message. */
  error: string | null;
  receiving: boolean;
  /** Another tab of this browser took receiving over (event p2p.replaced). */
  replaced: boolean;
  offers: readonly IncomingOffer[];
}

/** What the sender sends (picked.ts): a file from this computer or its Ferry space, or an empty folder. */
export type SendEntry = PickedItem;

/** Bytes fetched per ranged GET of a Ferry file (cut into CHUNK_BYTES frames). */
const REMOTE_WINDOW_BYTES = 4 * 1024 * 1024;

interface Source {
  size: number;
  read(start: number, end: number): Promise<ArrayBuffer>;
  hash(): Promise<string>;
}

function localSource(file: File, session: P2pSession): Source {
  return { size: file.size, read: (start, end) => file.slice(start, end).arrayBuffer(), hash: () => session.hash(file) };
}

/** A Ferry file: its bytes by Range requests (a window at a time), its BLAKE3 as the engine recorded it. */
async function remoteSource(remote: RemoteFile, connection: FileConnection): Promise<Source> {
  const { url } = await connection.cmd("download", { groupId: remote.groupId, paths: [remote.path] });
  const href = connection.href(url);
  let window: { start: number; bytes: ArrayBuffer } | null = null;
  return {
    size: remote.size,
    async read(start, end) {
      if (!window || start < window.start || end > window.start + window.bytes.byteLength) {
        const last = Math.min(remote.size, start + REMOTE_WINDOW_BYTES) - 1;
        const response = await fetch(href, { headers: { Range: `bytes=${start}-${last}` } });
        if (response.status !== 206 && !(response.status === 200 && start === 0)) throw new Error(`range answered ${response.status}`);
        window = { start, bytes: await response.arrayBuffer() };
      }
      return window.bytes.slice(start - window.start, end - window.start);
    },
    async hash() {
      const attributes = await connection.cmd("attributes", { groupId: remote.groupId, paths: [remote.path] });
      if (!attributes.hash) throw new Error("no recorded hash");
      return attributes.hash;
    },
  };
}

type Uploader = (items: UploadItem[], target: UploadTarget) => void;

const errorText = (error: unknown) => (error && typeof error === "object" && "message" in error ? String((error as FileCommandError).message) : String(error));

/** A folder the user picks on this computer (File System Access); null where the browser has none or the user backed out. */
export async function pickLocalFolder(): Promise<FileSystemDirectoryHandle | null> {
  const picker = (window as unknown as { showDirectoryPicker?: (options?: { mode?: "readwrite" }) => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker;
  if (typeof picker !== "function") return null;
  try {
    return await picker({ mode: "readwrite" });
  } catch {
    return null;
  }
}

export const localFoldersSupported = () => typeof window !== "undefined" && typeof (window as { showDirectoryPicker?: unknown }).showDirectoryPicker === "function";

/** The page's P2P session: one per file-server connection. */
export class P2pSession {
  private state: ReceiverState = { deviceId: null, error: null, receiving: false, replaced: false, offers: [] };
  private readonly listeners = new Set<() => void>();
  private registering: Promise<string> | null = null;
  private readonly links = new Map<string, PeerLink>();
  private readonly hasher = new Hasher();
  private readonly unsubscribe: (() => void)[] = [];
  private wasOpen = false;

  constructor(
    readonly connection: FileConnection,
    readonly account: string,
    readonly upload: Uploader,
  ) {
    this.unsubscribe.push(connection.onEvent((event) => this.onEvent(event)));
    this.unsubscribe.push(
      connection.subscribe(() => {
        // A new socket is a new session for the engine: register again, and receive again if on.
        if (connection.state === "open" && !this.wasOpen && this.state.deviceId) {
          this.registering = null;
          void this.register().then(() => (this.state.receiving ? this.setReceiving(true) : undefined));
        }
        this.wasOpen = connection.state === "open";
      }),
    );
    this.wasOpen = connection.state === "open";
    void clearStaging();
  }

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = () => this.state;

  private set(patch: Partial<ReceiverState>) {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener();
  }

  /** This browser's device for the account (made on first use); the socket is that device from now on. */
  register(): Promise<string> {
    this.registering ??= this.connection.cmd("p2pRegister", { deviceKey: deviceKey(this.account) }).then(
      ({ deviceId }) => {
        this.set({ deviceId, error: null });
        return deviceId;
      },
      (error: unknown) => {
        this.registering = null;
        this.set({ error: errorText(error) });
        throw error;
      },
    );
    return this.registering;
  }

  /** Turns receiving on or off for this tab (p2pReceive); offers arrive only while it is on. */
  async setReceiving(allow: boolean) {
    const deviceId = await this.register();
    this.set({ receiving: allow, replaced: false });
    try {
      await this.connection.cmd("p2pReceive", { deviceId, allow });
    } catch (error) {
      this.set({ receiving: false, error: errorText(error) });
      return;
    }
    if (!allow) this.set({ offers: [] });
  }

  async decline(transferId: string) {
    this.set({ offers: this.state.offers.filter((o) => o.transferId !== transferId) });
    await this.connection.cmd("p2pAnswer", { transferId, accept: false });
  }

  /** The offer's whole manifest: the offer event carries its first entries only, p2pFiles pages through the rest. */
  private async allFiles(offer: IncomingOffer): Promise<OfferFile[]> {
    const count = offer.fileCount + offer.folderCount;
    if (offer.files.length >= count) return offer.files;
    const files: OfferFile[] = [];
    while (files.length < count) {
      const page = await this.connection.cmd("p2pFiles", { transferId: offer.transferId, offset: files.length });
      if (page.files.length === 0) break;
      files.push(...page.files.map((f) => ({ path: f.path, size: f.size, kind: f.kind })));
    }
    return files;
  }

  /** Accepts an offer: the link waits for the sender's WebRTC offer, then takes the files into `target`. */
  async accept(offer: IncomingOffer, target: ReceiveTarget) {
    const files = await this.allFiles(offer);
    const link = new PeerLink(this, "receive", offer.transferId, `${offer.from.account} (${formatDeviceId(offer.from.deviceId)})`, files);
    this.links.set(offer.transferId, link);
    link.showRow("connecting");
    try {
      if (target.kind === "ferry") await this.ensureFolder(target.folder);
      await this.connection.cmd("p2pAnswer", target.kind === "ferry" ? { transferId: offer.transferId, accept: true, target: "ferry", folder: target.folder } : { transferId: offer.transferId, accept: true, target: "local" });
    } catch (error) {
      this.links.delete(offer.transferId);
      link.close();
      transferStore.remove(link.rowId);
      throw error;
    }
    this.set({ offers: this.state.offers.filter((o) => o.transferId !== offer.transferId) });
    link.receiveInto(target);
  }

  /** Makes a folder of the Ferry space and its parents (one that is there already is fine). */
  async ensureFolder(folder: string) {
    let parent = "/";
    for (const name of folder.split("/").filter(Boolean)) {
      await this.connection.cmd("mkdir", { groupId: 0, path: parent, name }).catch(() => undefined);
      parent = parent === "/" ? `/${name}` : `${parent}/${name}`;
    }
  }

  /** Offers `entries` to device `to` (the status call said it is ready); the files go once the receiver accepts. */
  async send(to: string, peerAccount: string, entries: readonly SendEntry[]): Promise<string> {
    const fromDevice = await this.register();
    const files = entries.map((e) =>
      "file" in e ? { path: e.path, size: e.file.size, kind: 0 as const } : "remote" in e ? { path: e.path, size: e.remote.size, kind: 0 as const } : { path: e.path, size: 0, kind: 1 as const },
    );
    const { transferId } = await this.connection.cmd("p2pOffer", { to, fromDevice, files, hold: false });
    const link = new PeerLink(this, "send", transferId, `${peerAccount} (${formatDeviceId(to)})`, files, entries);
    this.links.set(transferId, link);
    link.showRow("offered");
    return transferId;
  }

  /** A link ended: forgotten. */
  drop(transferId: string) {
    this.links.delete(transferId);
  }

  hash(blob: Blob) {
    return this.hasher.hash(blob);
  }

  private onEvent(event: SocketEvent) {
    switch (event.event) {
      case "p2p.offer":
        if (this.state.receiving) this.set({ offers: [...this.state.offers.filter((o) => o.transferId !== event.data.transferId), event.data] });
        return;
      case "p2p.answer":
        this.links.get(event.data.transferId)?.answered(event.data.accept);
        return;
      case "p2p.signal":
        void this.links.get(event.data.transferId)?.signal(event.data.data);
        return;
      case "p2p.end": {
        this.set({ offers: this.state.offers.filter((o) => o.transferId !== event.data.transferId) });
        this.links.get(event.data.transferId)?.endedByPeer(event.data.status);
        return;
      }
      case "p2p.replaced":
        this.set({ receiving: false, replaced: true, offers: [] });
        return;
      default:
        return;
    }
  }

  close() {
    this.unsubscribe.forEach((u) => u());
    for (const link of this.links.values()) link.close();
  }
}

/** Writes received files: into a folder of this computer the user picked, or into the browser's private storage (OPFS) first. */
interface FileSink {
  /** Bytes of file `path` already there (0 when it is new). */
  open(path: string, offset: number): Promise<void>;
  write(bytes: ArrayBuffer): Promise<void>;
  /** Closes the file; its content for the hash check and what happens next. */
  finish(): Promise<File>;
  mkdir(path: string): Promise<void>;
  abort(): Promise<void>;
}

async function directoryOf(root: FileSystemDirectoryHandle, segments: readonly string[]): Promise<FileSystemDirectoryHandle> {
  let dir = root;
  for (const name of segments) dir = await dir.getDirectoryHandle(name, { create: true });
  return dir;
}

class DirectorySink implements FileSink {
  private writable: FileSystemWritableFileStream | null = null;
  private handle: FileSystemFileHandle | null = null;

  constructor(private readonly root: FileSystemDirectoryHandle) {}

  async open(path: string, offset: number) {
    const segments = path.split("/");
    const dir = await directoryOf(this.root, segments.slice(0, -1));
    this.handle = await dir.getFileHandle(segments.at(-1)!, { create: true });
    this.writable = await this.handle.createWritable({ keepExistingData: offset > 0 });
    if (offset > 0) await this.writable.seek(offset);
    else await this.writable.truncate(0);
  }

  async write(bytes: ArrayBuffer) {
    await this.writable!.write(bytes);
  }

  async finish() {
    await this.writable!.close();
    this.writable = null;
    return this.handle!.getFile();
  }

  async mkdir(path: string) {
    await directoryOf(this.root, path.split("/"));
  }

  async abort() {
    await this.writable?.abort().catch(() => undefined);
    this.writable = null;
  }
}

const STAGING_PREFIX = "p2p-";

const stagingLock = (name: string) => `ferry-${name}`;

/**
 * Staged files no open page holds: each page holds a lock on what it staged for as long as it is
 * open (its uploads read the files after the transfer ended); once it is gone, nothing reads them
 * (an upload interrupted by a reload asks for its file again).
 */
async function clearStaging() {
  try {
    const root = await navigator.storage.getDirectory();
    const names: string[] = [];
    for await (const name of (root as unknown as { keys(): AsyncIterable<string> }).keys()) if (name.startsWith(STAGING_PREFIX)) names.push(name);
    for (const name of names)
      await navigator.locks.request(stagingLock(name), { ifAvailable: true }, async (lock) => {
        if (lock) await root.removeEntry(name, { recursive: true }).catch(() => undefined);
      });
  } catch {
    // No private storage or locks in this browser: nothing is removed.
  }
}

/** The browser's private storage for one transfer: what is received goes to the Ferry space or the downloads from there. */
async function stagingSink(transferId: string): Promise<DirectorySink> {
  const root = await navigator.storage.getDirectory();
  const name = `${STAGING_PREFIX}${transferId}`;
  // Held until the page goes: another tab must not clear what this one's uploads still read.
  void navigator.locks?.request(stagingLock(name), () => new Promise<void>(() => undefined));
  return new DirectorySink(await root.getDirectoryHandle(name, { create: true }));
}

function saveByDownload(file: File, name: string) {
  const url = URL.createObjectURL(file);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** One transfer between this page and the other device. */
class PeerLink {
  readonly rowId: string;
  private pc: RTCPeerConnection | null = null;
  private channel: RTCDataChannel | null = null;
  private remoteSet = false;
  private candidates: RTCIceCandidateInit[] = [];
  private openTimer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  private readonly manifest: ManifestFile[];
  private readonly total: number;
  private readonly unregister: () => void;
  private lastReport = 0;
  /** Sender: where the receiver asked to (re)start. */
  private resumeAt: { file: number; offset: number } | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly session: P2pSession,
    private readonly direction: "send" | "receive",
    private readonly transferId: string,
    private readonly peer: string,
    private readonly files: readonly OfferFile[],
    private readonly entries: readonly SendEntry[] = [],
  ) {
    this.rowId = `${P2P_ROW_PREFIX}${transferId}`;
    this.manifest = files.map((f) => ({ size: f.size, kind: f.kind }));
    this.total = files.reduce((sum, f) => sum + (f.kind === 1 ? 0 : f.size), 0);
    this.unregister = onP2pCancel(this.rowId, () => void this.cancel());
  }

  showRow(state: P2pRowState) {
    const first = this.files.find((f) => f.kind !== 1) ?? this.files[0];
    const item: TransferItem = {
      id: this.rowId,
      kind: this.direction === "send" ? "upload" : "download",
      name: first ? (first.path.split("/")[0] ?? first.path) : "",
      status: this.direction === "send" ? TransferStatus.Uploading : TransferStatus.Downloading,
      currentSize: 0,
      totalSize: this.total,
      createTime: Math.floor(Date.now() / 1000),
      errorMsgKey: null,
      speed: 0,
      queued: false,
      paused: false,
      needsFile: false,
      p2p: { direction: this.direction, peer: this.peer, path: null, state, entries: this.files.length },
    };
    transferStore.add(item);
  }

  private row(patch: Partial<P2pRow>, item: Partial<Omit<TransferItem, "id" | "p2p">> = {}) {
    const current = transferStore.get(this.rowId);
    if (!current?.p2p) return;
    transferStore.update(this.rowId, { ...item, p2p: { ...current.p2p, ...patch } });
  }

  private progress(done: number) {
    transferStore.progress(this.rowId, done);
  }

  /** The receiver answered the offer (sender side). */
  answered(accept: boolean) {
    if (this.direction !== "send" || this.ended) return;
    if (!accept) {
      this.finish("declined");
      return;
    }
    this.row({ state: "connecting" });
    void this.connect(true);
  }

  /** The receiver accepted: wait for the sender's WebRTC offer. */
  receiveInto(target: ReceiveTarget) {
    this.target = target;
    void this.connect(false);
  }

  private target: ReceiveTarget | null = null;

  private async connect(offerer: boolean) {
    const pc = new RTCPeerConnection({ iceServers: [] });
    this.pc = pc;
    pc.onicecandidate = (event) => {
      if (event.candidate) void this.sendSignal({ candidate: event.candidate.toJSON() });
    };
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === "failed") this.fail("p2p.reason.closed");
    };
    this.openTimer = setTimeout(() => {
      if (this.channel?.readyState !== "open") this.fail("p2p.reason.no-direct");
    }, DIRECT_OPEN_MS);
    if (offerer) {
      this.useChannel(pc.createDataChannel("ferry-p2p", { ordered: true }));
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      await this.sendSignal({ sdp: pc.localDescription?.toJSON() });
    } else {
      pc.ondatachannel = (event) => this.useChannel(event.channel);
      for (const data of this.early.splice(0)) await this.signal(data);
    }
  }

  private early: unknown[] = [];

  private async sendSignal(data: unknown) {
    if (this.ended) return;
    try {
      await this.session.connection.cmd("p2pSignal", { transferId: this.transferId, data });
    } catch {
      this.fail("p2p.reason.no-direct");
    }
  }

  /** An SDP or ICE candidate from the other side. */
  async signal(data: unknown) {
    const pc = this.pc;
    if (this.ended || !data || typeof data !== "object") return;
    if (!pc) {
      // The sender's offer may come before this side's answer call has returned.
      this.early.push(data);
      return;
    }
    const d = data as { sdp?: RTCSessionDescriptionInit; candidate?: RTCIceCandidateInit };
    try {
      if (d.sdp && typeof d.sdp.type === "string") {
        await pc.setRemoteDescription(d.sdp);
        this.remoteSet = true;
        for (const c of this.candidates.splice(0)) await pc.addIceCandidate(c);
        if (d.sdp.type === "offer") {
          await pc.setLocalDescription(await pc.createAnswer());
          await this.sendSignal({ sdp: pc.localDescription?.toJSON() });
        }
      } else if (d.candidate) {
        if (this.remoteSet) await pc.addIceCandidate(d.candidate);
        else this.candidates.push(d.candidate);
      }
    } catch {
      this.fail("p2p.reason.no-direct");
    }
  }

  private useChannel(channel: RTCDataChannel) {
    this.channel = channel;
    channel.binaryType = "arraybuffer";
    channel.bufferedAmountLowThreshold = BUFFER_LOW_BYTES;
    channel.onbufferedamountlow = () => this.wakeUp();
    channel.onopen = () => {
      clearTimeout(this.openTimer);
      this.row({ state: "running", path: "direct" });
      if (this.direction === "receive") void this.startReceiving();
    };
    channel.onclose = () => {
      if (!this.ended) this.fail("p2p.reason.closed");
    };
    channel.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
      const frame = decodeFrame(event.data);
      if (!frame) return this.fail("p2p.reason.protocol");
      if (this.direction === "send") this.onSenderFrame(frame);
      else this.onReceiverFrame(frame);
    };
  }

  private control(frame: ControlFrame) {
    if (this.channel?.readyState === "open") this.channel.send(encodeControl(frame));
  }

  private wakeUp() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private sleep() {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  // ---- sender ----

  private onSenderFrame(frame: ReturnType<typeof decodeFrame>) {
    if (!frame) return;
    if (frame.t === "ack") {
      this.written = Math.max(this.written, frame.bytes);
      this.wakeUp();
    } else if (frame.t === "resume") {
      const start = this.resumeAt === null;
      this.resumeAt = { file: frame.file, offset: frame.offset };
      if (start) void this.sendFiles();
      else this.wakeUp();
    } else if (frame.t === "ok") {
      // Every file checked by the receiver: the transfer is done on this side too.
      this.checked.add(frame.file);
      if (this.manifest.every((f, i) => f.kind === 1 || this.checked.has(i))) this.finish("done");
    } else if (frame.t === "bad") this.fail("p2p.reason.hash");
    else if (frame.t === "cancel") this.finish("failed", "p2p.reason.cancelled-peer");
    else if (frame.t === "error") this.fail("p2p.reason.closed");
  }

  private readonly checked = new Set<number>();
  /** Bytes sent on this channel, and how many of them the receiver said it wrote (`ack`). */
  private sent = 0;
  private written = 0;

  private async sendFiles() {
    const channel = this.channel!;
    let from = this.resumeAt!;
    try {
      for (let i = from.file; i < this.entries.length; i++) {
        const entry = this.entries[i]!;
        if ("folder" in entry) continue;
        let file: Source;
        try {
          file = "file" in entry ? localSource(entry.file, this.session) : await remoteSource(entry.remote, this.session.connection);
        } catch {
          return this.fail("p2p.reason.read");
        }
        const offset = i === from.file ? Math.min(from.offset, file.size) : 0;
        // The hash of the whole file from its source, prefix included (a resume hashes it again).
        const hashing = file.hash();
        hashing.catch(() => undefined);
        this.control({ t: "file", file: i, offset, size: file.size });
        for (const [start, end] of chunkRanges(file.size, offset)) {
          if (this.ended) return;
          while (mustPause(channel.bufferedAmount, this.sent, this.written)) await this.sleep();
          if (this.ended) return;
          let bytes: ArrayBuffer;
          try {
            bytes = await file.read(start, end);
          } catch {
            return this.fail("p2p.reason.read");
          }
          channel.send(bytes);
          this.sent += bytes.byteLength;
          this.progress(bytesDone(this.manifest, i, end));
        }
        const hash = await hashing;
        this.control({ t: "end", file: i, hash });
        await this.session.connection.cmd("p2pFileDone", { transferId: this.transferId, file: i, hash }).catch(() => undefined);
      }
      this.control({ t: "done" });
      this.progress(this.total);
      from = { file: this.entries.length, offset: 0 };
      this.resumeAt = from;
    } catch {
      this.fail("p2p.reason.read");
    }
  }

  // ---- receiver ----

  private tracker: ReceiveTracker | null = null;
  private sink: FileSink | null = null;
  /** Writes happen in order, one at a time. */
  private writing: Promise<void> = Promise.resolve();
  private writeFailed = false;
  /** Bytes written on this channel, and the count last told to the sender. */
  private wroteBytes = 0;
  private ackedBytes = 0;

  private async startReceiving() {
    const target = this.target!;
    try {
      this.sink = target.kind === "local" && target.directory ? new DirectorySink(target.directory) : await stagingSink(this.transferId);
      for (const f of this.files) {
        if (f.kind !== 1) continue;
        // Empty folders: made where the files go (files make their own folders as they land).
        if (target.kind === "ferry") await this.session.ensureFolder(`${target.folder}/${f.path}`);
        else await this.sink.mkdir(f.path);
      }
    } catch {
      return this.fail("p2p.reason.write");
    }
    this.tracker = new ReceiveTracker(this.manifest);
    const start = resumePoint(this.manifest, []);
    if (!start) {
      this.control({ t: "resume", file: this.files.length, offset: 0 });
      return void this.receivedAll();
    }
    this.tracker.ask(start.file, start.offset);
    this.control({ t: "resume", file: start.file, offset: start.offset });
  }

  private onReceiverFrame(frame: NonNullable<ReturnType<typeof decodeFrame>>) {
    const step = this.tracker?.take(frame);
    if (!step) return;
    const sink = this.sink!;
    const queue = (work: () => Promise<void>) => {
      this.writing = this.writing.then(async () => {
        if (this.ended || this.writeFailed) return;
        try {
          await work();
        } catch {
          this.writeFailed = true;
          this.fail("p2p.reason.write");
        }
      });
    };
    switch (step.kind) {
      case "start":
        queue(() => sink.open(this.files[step.file]!.path, step.offset));
        return;
      case "write": {
        const done = bytesDone(this.manifest, step.file, step.offset + step.bytes.byteLength);
        queue(async () => {
          await sink.write(step.bytes);
          this.wroteBytes += step.bytes.byteLength;
          if (this.wroteBytes - this.ackedBytes >= ACK_EVERY_BYTES) {
            this.ackedBytes = this.wroteBytes;
            this.control({ t: "ack", bytes: this.wroteBytes });
          }
          this.progress(done);
          this.report(step.file, step.offset + step.bytes.byteLength);
        });
        return;
      }
      case "end":
        queue(() => this.checkFile(step.file, step.hash));
        return;
      case "done":
        queue(() => this.receivedAll());
        return;
      case "cancel":
        this.finish("failed", "p2p.reason.cancelled-peer");
        return;
      case "fail":
        this.fail("p2p.reason.protocol");
        return;
    }
  }

  private report(file: number, bytes: number, force = false) {
    const now = Date.now();
    if (!force && now - this.lastReport < PROGRESS_REPORT_MS) return;
    this.lastReport = now;
    void this.session.connection.cmd("p2pProgress", { transferId: this.transferId, file, bytes, path: "direct" }).catch(() => undefined);
  }

  /** A file ended: its BLAKE3 from what was written must be the sender's; then it goes where the receiver chose. */
  private async checkFile(index: number, senderHash: string) {
    const written = await this.sink!.finish();
    const hash = await this.session.hash(written);
    if (hash !== senderHash) {
      this.control({ t: "bad", file: index });
      return this.fail("p2p.reason.hash");
    }
    this.report(index, written.size, true);
    await this.session.connection.cmd("p2pFileDone", { transferId: this.transferId, file: index, hash });
    this.control({ t: "ok", file: index });
    const path = this.files[index]!.path;
    const target = this.target!;
    if (target.kind === "ferry") this.session.upload([{ file: written, relativePath: path }], { groupId: 0, path: target.folder });
    else if (!target.directory) saveByDownload(written, path.split("/").at(-1) ?? path);
  }

  private async receivedAll() {
    this.progress(this.total);
    await this.session.connection.cmd("p2pEnd", { transferId: this.transferId, result: "done" }).catch(() => undefined);
    this.finish("done");
  }

  // ---- both ----

  endedByPeer(status: string) {
    if (this.ended) return;
    if (status === "done") this.finish("done");
    else if (status === "declined") this.finish("declined");
    else if (status === "cancelled") this.finish("cancelled");
    else this.finish("failed", "p2p.reason.cancelled-peer");
  }

  private async cancel() {
    if (this.ended) return;
    this.control({ t: "cancel", reason: "user" });
    await this.session.connection.cmd("p2pEnd", { transferId: this.transferId, result: "cancelled", reason: "cancelled by the user" }).catch(() => undefined);
    this.finish("cancelled");
  }

  private fail(reason: string) {
    if (this.ended) return;
    void this.session.connection.cmd("p2pEnd", { transferId: this.transferId, result: "failed", reason: reason.replace(/^p2p\.reason\./, "") }).catch(() => undefined);
    this.finish("failed", reason);
  }

  private finish(state: "done" | "failed" | "declined" | "cancelled", reason?: string) {
    if (this.ended) return;
    this.ended = true;
    const ok = state === "done";
    const status = this.direction === "send" ? (ok ? TransferStatus.Uploaded : TransferStatus.UploadFailed) : ok ? TransferStatus.Downloaded : TransferStatus.DownloadFailed;
    this.row({ state, reason }, { status, ...(ok ? { currentSize: this.total } : {}), speed: 0 });
    this.close();
  }

  close() {
    this.ended = true;
    clearTimeout(this.openTimer);
    this.wakeUp();
    void this.sink?.abort();
    try {
      this.channel?.close();
      this.pc?.close();
    } catch {
      // Already closed.
    }
    this.unregister();
    this.session.drop(this.transferId);
  }
}

let current: P2pSession | null = null;

/** The page's P2P session for this connection (a new connection, after a sign-in, makes a new one). */
export function p2pSession(connection: FileConnection, account: string, upload: Uploader): P2pSession {
  if (current && current.connection === connection && current.account === account) return current;
  current?.close();
  current = new P2pSession(connection, account, upload);
  return current;
}
