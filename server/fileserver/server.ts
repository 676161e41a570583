import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as HttpsServer } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";
import type { FastifyBaseLogger as Logger } from "fastify";
import { WebSocketServer, type WebSocket } from "ws";
import { FILE_SERVER_PATHS, SOCKET_MAX_MESSAGE } from "../../contract/files";
import { originAllowed } from "./origin";
import { lingerAfterAnswer } from "./linger";

/**
 * The file server (default port 2480): WebSocket commands, tus uploads, ranged downloads and
 * previews on one plain node:http server (docs/file-server.md). Bytes never go through the REST
 * API or the web process. Handlers own a path prefix; the socket lives at /ws.
 */

export interface HttpHandler {
  /** Requests whose path starts with this prefix go to `handle`. */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> | void;
}

export interface FileServerOptions {
  host: string;
  port: number;
  /** The TLS port (2481): the same service with TLS, listening while a certificate is in use. */
  tlsPort: number;
  /** The certificate (PEM, the leaf then its chain) and key to serve at start; null: none yet. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** Non-TLS connections disabled: the plain port is not opened (docs/file-server.md, "TLS"). */
  plainDisabled?: boolean;
  allowedOrigins: readonly string[];
  handlers: HttpHandler[];
  onSocket(socket: WebSocket, req: IncomingMessage): void;
  log: Logger;
}

export interface FileServer {
  /** The plain listener's URL (http://…); its last port while it is closed. */
  readonly url: string;
  /** Whether the plain port is open (it is not while non-TLS connections are disabled). */
  readonly plainListening: boolean;
  /** The TLS listener's URL (https://…) while it listens. */
  readonly tlsUrl: string | null;
  /**
   * Serves this certificate on the TLS port from now on, without a restart: the listener's secure
   * context is swapped (connections already made keep theirs, new ones get this one), or the
   * listener starts when it was not listening.
   */
  serveCertificate(pem: { cert: string | Buffer; key: string | Buffer }): Promise<void>;
  /** Closes the TLS port and its connections (no certificate any more). */
  stopTls(): Promise<void>;
  /** Opens or closes the plain port; closing it ends its connections and sockets at once. */
  setPlain(open: boolean): Promise<void>;
  close(): Promise<void>;
}

function plain(res: ServerResponse, status: number, text: string) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store" });
  res.end(text);
}

export async function startFileServer(options: FileServerOptions): Promise<FileServer> {
  const wss = new WebSocketServer({ noServer: true, maxPayload: SOCKET_MAX_MESSAGE });
  // Sockets upgraded on the plain port: an upgraded connection leaves the http server's own
  // bookkeeping, so closing the plain port ends these by hand.
  const plainSockets = new Set<WebSocket>();
  wss.on("connection", (socket, req) => {
    if (!(req.socket as Partial<TLSSocket>).encrypted) {
      plainSockets.add(socket);
      socket.once("close", () => plainSockets.delete(socket));
    }
    options.onSocket(socket, req);
  });

  const onRequest: RequestListener = (req, res) => {
    lingerAfterAnswer(req, res);
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://file-server");
    } catch {
      plain(res, 400, "bad request");
      return;
    }
    if (url.pathname === FILE_SERVER_PATHS.health) {
      plain(res, 200, "ok");
      return;
    }
    const handler = options.handlers.find((h) => url.pathname.startsWith(h.prefix));
    if (!handler) {
      plain(res, 404, "not found");
      return;
    }
    Promise.resolve(handler.handle(req, res, url)).catch((error: unknown) => {
      options.log.error({ err: error, path: url.pathname }, "file server request failed");
      plain(res, 500, "server error");
    });
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = (req.url ?? "").split("?")[0];
    if (pathname !== FILE_SERVER_PATHS.socket || !originAllowed(req.headers.origin, req.headers.host, options.allowedOrigins)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
  };

  const plainServer = createServer(onRequest);
  const tlsServer: HttpsServer = createTlsServer({}, onRequest);
  for (const server of [plainServer, tlsServer]) {
    // Large uploads and slow readers: no overall request time-out; idle sockets still close.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    server.keepAliveTimeout = 65_000;
    server.on("upgrade", onUpgrade);
  }
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, options.host, () => {
        server.off("error", reject);
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  const shut = (server: Server) =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  let plainPort = options.port;
  let tlsPort = options.tlsPort;

  const serveCertificate = async (pem: { cert: string | Buffer; key: string | Buffer }) => {
    tlsServer.setSecureContext({ cert: pem.cert, key: pem.key });
    // A port of 0 (tests) is picked once and kept, so clients that learned it keep reaching it.
    if (!tlsServer.listening) tlsPort = await listen(tlsServer, tlsPort);
  };
  try {
    if (!options.plainDisabled) plainPort = await listen(plainServer, plainPort);
    if (options.tls) await serveCertificate(options.tls);
  } catch (error) {
    await Promise.all([shut(plainServer), shut(tlsServer)]);
    throw error;
  }

  return {
    get url() {
      return `http://${hostPart}:${plainPort}`;
    },
    get plainListening() {
      return plainServer.listening;
    },
    get tlsUrl() {
      return tlsServer.listening ? `https://${hostPart}:${tlsPort}` : null;
    },
    serveCertificate,
    stopTls: () => shut(tlsServer),
    async setPlain(open) {
      if (open) {
        if (!plainServer.listening) plainPort = await listen(plainServer, plainPort);
        return;
      }
      const closed = shut(plainServer);
      for (const socket of plainSockets) socket.terminate();
      await closed;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await Promise.all([shut(plainServer), shut(tlsServer)]);
    },
  };
}
