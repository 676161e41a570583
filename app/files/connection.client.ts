import { type SocketArgs, type SocketCommand, type SocketEvent, type SocketReply, type SocketResults } from "../../contract/files";
import { ErrorCode } from "../../contract/errors";
import type { FileServerInfo } from "./file-server-context";
import { fileServerUrls } from "./file-server-url";

/** Spec section 9: reconnect every 6 s, up to 50000 tries; the counter resets on connect. */
export const RECONNECT_DELAY_MS = 6000;
export const RECONNECT_MAX_TRIES = 50_000;

/** A share visitor's link is no longer usable (expired, cancelled, gone, disabled, bound elsewhere): like an invalid token. */
const SHARE_GONE_CODES: readonly number[] = [ErrorCode.LinkExpired, ErrorCode.LinkBroken, ErrorCode.ShareUrlNotExist, ErrorCode.LinkDisabled, ErrorCode.LinkBound];

/** A command the engine refused; `message` is the engine's translated text. */
export class FileCommandError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = "FileCommandError";
  }
}

export type ConnectionState = "connecting" | "open" | "closed";

interface Pending {
  id: number;
  cmd: string;
  args: unknown;
  resolve: (data: unknown) => void;
  reject: (error: FileCommandError) => void;
}

export interface FileConnectionOptions {
  /** The engine no longer accepts the token (1009, or a refused login): the page shows the logout notice. */
  onInvalidToken?: () => void;
  /** A WebSocket constructor (the browser's by default). */
  WebSocket?: typeof WebSocket;
}

/**
 * The page's one socket to the file server. Logs in with the socket token, queues commands while
 * (re)connecting, and retries every 6 s after a drop. Commands that were sent when the socket
 * dropped fail with Disconnected rather than being sent twice: a repeated move or remove could act
 * on what the first one already changed.
 */
export class FileConnection {
  readonly httpUrl: string;
  readonly token: string;
  /** A share visitor's token: logs in with `{ shareToken }` (docs/file-server.md, "Share visitors"). */
  readonly share: boolean;
  state: ConnectionState = "connecting";
  private readonly wsUrl: string;
  private readonly options: FileConnectionOptions;
  private socket: WebSocket | null = null;
  private queue: Pending[] = [];
  private sent = new Map<number, Pending>();
  private nextId = 1;
  private tries = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private listeners = new Set<() => void>();
  private eventListeners = new Set<(event: SocketEvent) => void>();
  private stopped = false;

  constructor(info: FileServerInfo, location: Pick<Location, "protocol" | "hostname">, options: FileConnectionOptions = {}) {
    const urls = fileServerUrls(info, location);
    this.httpUrl = urls.httpUrl;
    this.wsUrl = urls.wsUrl;
    this.token = info.token;
    this.share = info.share ?? false;
    this.options = options;
    this.connect();
  }

  /**
   * The address of a file-server URL the engine hands out (`/download/…`, `/preview/…`, the tus
   * endpoint): those are relative to the file server, not to the page. Appended rather than resolved
   * with `new URL`, so a configured base URL with a path (behind a proxy) keeps it.
   */
  href(url: string): string {
    return `${this.httpUrl}${url}`;
  }

  cmd<C extends SocketCommand>(cmd: C, args: SocketArgs<C>): Promise<SocketResults[C]> {
    if (this.stopped) return Promise.reject(this.disconnected());
    return new Promise((resolve, reject) => {
      const pending: Pending = { id: this.nextId++, cmd, args, resolve: resolve as (data: unknown) => void, reject };
      if (this.state === "open") this.send(pending);
      else this.queue.push(pending);
    });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events the engine pushes for the signed-in user (a new notice: docs/file-server.md, "Events"). */
  onEvent(listener: (event: SocketEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Ends the connection for good (page unload, sign-out); waiting commands fail. */
  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close();
    this.failAll();
    this.setState("closed");
  }

  private setState(state: ConnectionState) {
    if (this.state === state) return;
    this.state = state;
    this.listeners.forEach((listener) => listener());
  }

  private disconnected() {
    return new FileCommandError("error.4189", ErrorCode.Disconnected);
  }

  private failAll() {
    const error = this.disconnected();
    for (const pending of [...this.sent.values(), ...this.queue]) pending.reject(error);
    this.sent.clear();
    this.queue = [];
  }

  private send(pending: Pending) {
    this.sent.set(pending.id, pending);
    this.socket?.send(JSON.stringify({ id: pending.id, cmd: pending.cmd, args: pending.args }));
  }

  private connect() {
    if (this.stopped) return;
    this.setState("connecting");
    const Socket = this.options.WebSocket ?? WebSocket;
    const socket = new Socket(this.wsUrl);
    this.socket = socket;
    const loginId = this.nextId++;
    socket.onopen = () => socket.send(JSON.stringify({ id: loginId, cmd: "login", args: this.share ? { shareToken: this.token } : { token: this.token } }));
    socket.onmessage = (event) => {
      let reply: SocketReply;
      try {
        reply = JSON.parse(String(event.data)) as SocketReply;
      } catch {
        return;
      }
      // A message without an id is an event, not a reply.
      if (typeof reply.id !== "number") {
        const pushed = reply as unknown as SocketEvent;
        if (typeof pushed.event === "string") this.eventListeners.forEach((listener) => listener(pushed));
        return;
      }
      if (reply.id === loginId) {
        if (reply.code !== 200) return this.invalidToken();
        this.tries = 0;
        this.setState("open");
        const queued = this.queue;
        this.queue = [];
        queued.forEach((pending) => this.send(pending));
        return;
      }
      const pending = this.sent.get(reply.id);
      if (!pending) return;
      this.sent.delete(reply.id);
      if (reply.code === 200) pending.resolve(reply.data);
      else {
        pending.reject(new FileCommandError(reply.message, reply.code, reply.data));
        if (reply.code === ErrorCode.InvalidToken || (this.share && SHARE_GONE_CODES.includes(reply.code))) this.invalidToken();
      }
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      const error = this.disconnected();
      this.sent.forEach((pending) => pending.reject(error));
      this.sent.clear();
      if (this.stopped) return;
      if (++this.tries > RECONNECT_MAX_TRIES) return this.close();
      this.setState("connecting");
      this.timer = setTimeout(() => this.connect(), RECONNECT_DELAY_MS);
    };
  }

  private invalidToken() {
    this.close();
    this.options.onInvalidToken?.();
  }
}
