import { RECONNECT_DELAY_MS, RECONNECT_MAX_TRIES } from "../files/connection.client";
import { CHECK_TIMEOUT_MS, checkReply, clientPush, LOCAL_PROTOCOL_VERSION, parseFrame, type CheckRequest } from "./protocol";

export type LocalClientState =
  /** No client answered yet; `tries` failed rounds since the last connection. */
  | { status: "searching"; tries: number }
  | { status: "connected"; port: number; protocol: string; version: string; latest?: string }
  /** 50000 silent rounds: the page stops looking until it is reloaded (spec section 9). */
  | { status: "gave-up" };

export interface ProbeOptions {
  ports: readonly number[];
  /** wss:// (pages served over https, which may not open plain sockets) or ws://. */
  secure: boolean;
  host?: string;
  WebSocket?: typeof WebSocket;
  /** Silent rounds before giving up (RECONNECT_MAX_TRIES). */
  maxTries?: number;
}

/**
 * Looks for the local desktop transfer client (REFERENCE.md, "Desktop client"): each round asks
 * every configured port at once with the `check` handshake and keeps the first that answers. A
 * silent round is retried every 6 s, up to 50000 times; the count starts again after a connection.
 * A round against nothing listening costs one refused localhost connection per port.
 */
export class LocalClientProbe {
  state: LocalClientState = { status: "searching", tries: 0 };
  private readonly options: ProbeOptions;
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt: WebSocket[] = [];
  private socket: WebSocket | null = null;
  private stopped = false;

  constructor(options: ProbeOptions) {
    this.options = options;
  }

  start() {
    this.round();
  }

  /** Asks again at once, e.g. right after the user started the client; the 6 s rhythm follows from here. */
  retryNow() {
    if (this.stopped || this.state.status === "connected" || this.attempt.length > 0) return;
    clearTimeout(this.timer);
    this.round();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.closeAttempt();
    this.socket?.close();
    this.socket = null;
  }

  private setState(state: LocalClientState) {
    this.state = state;
    this.listeners.forEach((listener) => listener());
  }

  private closeAttempt(keep?: WebSocket) {
    for (const socket of this.attempt) if (socket !== keep) socket.close();
    this.attempt = [];
  }

  private round() {
    if (this.stopped || this.options.ports.length === 0) return;
    const Socket = this.options.WebSocket ?? WebSocket;
    const scheme = this.options.secure ? "wss" : "ws";
    const host = this.options.host ?? "127.0.0.1";
    let silent = 0;
    const attempt: WebSocket[] = [];
    this.attempt = attempt;

    const portFailed = (socket: WebSocket, timeout: ReturnType<typeof setTimeout>) => {
      clearTimeout(timeout);
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close();
      if (this.attempt !== attempt || ++silent < attempt.length) return;
      this.attempt = [];
      this.scheduleNext();
    };

    for (const port of this.options.ports) {
      let socket: WebSocket;
      try {
        socket = new Socket(`${scheme}://${host}:${port}`);
      } catch {
        // A port the browser refuses outright (e.g. a blocked one) is simply silent.
        silent++;
        continue;
      }
      attempt.push(socket);
      const timeout = setTimeout(() => portFailed(socket, timeout), CHECK_TIMEOUT_MS);
      socket.onopen = () => socket.send(JSON.stringify({ action: "check", protocol: LOCAL_PROTOCOL_VERSION } satisfies CheckRequest));
      socket.onmessage = (event) => {
        const reply = parseFrame(checkReply, event.data);
        if (!reply) return;
        clearTimeout(timeout);
        if (this.attempt !== attempt) return socket.close();
        this.closeAttempt(socket);
        this.adopt(socket, port, reply);
      };
      socket.onclose = socket.onerror = () => portFailed(socket, timeout);
    }
    if (attempt.length === 0) {
      this.attempt = [];
      this.scheduleNext();
    }
  }

  private adopt(socket: WebSocket, port: number, reply: { protocol: string; version: string; latest?: string }) {
    this.socket = socket;
    const lost = () => {
      if (this.socket !== socket) return;
      socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close();
      this.socket = null;
      if (this.stopped) return;
      this.setState({ status: "searching", tries: 0 });
      this.timer = setTimeout(() => this.round(), RECONNECT_DELAY_MS);
    };
    socket.onmessage = (event) => {
      if (parseFrame(clientPush, event.data)) lost();
    };
    socket.onclose = socket.onerror = lost;
    this.setState({ status: "connected", port, protocol: reply.protocol, version: reply.version, ...(reply.latest ? { latest: reply.latest } : {}) });
  }

  private scheduleNext() {
    if (this.stopped) return;
    const tries = this.state.status === "searching" ? this.state.tries + 1 : 1;
    if (tries >= (this.options.maxTries ?? RECONNECT_MAX_TRIES)) return this.setState({ status: "gave-up" });
    this.setState({ status: "searching", tries });
    this.timer = setTimeout(() => this.round(), RECONNECT_DELAY_MS);
  }
}
