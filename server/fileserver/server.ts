import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Duplex } from "node:stream";
import type { FastifyBaseLogger as Logger } from "fastify";
import { WebSocketServer, type WebSocket } from "ws";
import { FILE_SERVER_PATHS, SOCKET_MAX_MESSAGE } from "../../contract/files";
import { originAllowed } from "./origin";

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
  /** The same service with TLS on a second port (2481), when a certificate is configured. */
  tls?: { port: number; cert: string; key: string } | null;
  allowedOrigins: readonly string[];
  handlers: HttpHandler[];
  onSocket(socket: WebSocket, req: IncomingMessage): void;
  log: Logger;
}

export interface FileServer {
  url: string;
  /** The TLS listener's URL (https://…), when TLS is configured. */
  tlsUrl: string | null;
  server: Server;
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
  wss.on("connection", (socket, req) => options.onSocket(socket, req));

  const onRequest: RequestListener = (req, res) => {
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

  const servers: Server[] = [createServer(onRequest)];
  if (options.tls) {
    const [cert, key] = await Promise.all([readFile(options.tls.cert), readFile(options.tls.key)]);
    servers.push(createTlsServer({ cert, key }, onRequest));
  }
  for (const server of servers) {
    // Large uploads and slow readers: no overall request time-out; idle sockets still close.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    server.keepAliveTimeout = 65_000;
    server.on("upgrade", onUpgrade);
  }
  const ports = [options.port, options.tls?.port ?? 0];
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, options.host, () => {
        server.off("error", reject);
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  const bound: number[] = [];
  try {
    for (const [i, server] of servers.entries()) bound.push(await listen(server, ports[i]!));
  } catch (error) {
    for (const server of servers) server.close();
    throw error;
  }
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  const hostPart = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${hostPart}:${bound[0]}`,
    tlsUrl: bound[1] === undefined ? null : `https://${hostPart}:${bound[1]}`,
    server: servers[0]!,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}


