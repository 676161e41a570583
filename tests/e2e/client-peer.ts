import { WebSocketServer } from "ws";
import { LOCAL_PROTOCOL_VERSION } from "../../app/client/protocol";
import { E2E_LOCAL_CLIENT_PORTS } from "../support/e2e-env";

/**
 * A stand-in desktop client for e2e tests: a small WebSocket server on one of the configured local
 * ports (the second: the first stays closed, so "first to answer wins" is exercised) answering the
 * check handshake.
 */
export const PEER_PORT = E2E_LOCAL_CLIENT_PORTS[1];

export interface Peer {
  /** Every check request the peer received. */
  checks: unknown[];
  close(): Promise<void>;
}

/** Answers the check handshake with `version` (and `latest`, when given). */
export async function startPeer(version: string, latest?: string): Promise<Peer> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: PEER_PORT });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const checks: unknown[] = [];
  server.on("connection", (socket) => {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { action?: string };
      if (message.action !== "check") return;
      checks.push(message);
      socket.send(JSON.stringify({ action: "check", protocol: LOCAL_PROTOCOL_VERSION, version, ...(latest ? { latest } : {}) }));
    });
  });
  return {
    checks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
