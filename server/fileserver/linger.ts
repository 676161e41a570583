import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A request whose answer went out before its body was read — a refused upload (4209, 4210, 4205,
 * a wrong offset, a bad token…) or any early error — is read on and thrown away for a bounded
 * while, then its connection is closed (docs/file-server.md, "Refused bodies").
 *
 * Why read on at all: a browser reads the answer only once it has sent its body, or once sending
 * fails; closing at once would often lose the refusal (the reset also drops the answer still in
 * the client's buffer), and the web would retry blindly instead of following the engine's limit.
 * Why bounded: without it a client could stream an endless body into the engine (the file server
 * has no overall request time-out, for large uploads), costing bandwidth and a socket for ever.
 * Node's own behaviour after an answer is to discard the rest of the body however long it is.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;
export const LINGER_MS = 10_000;

/** How often a lingering connection's received bytes are looked at. */
const LINGER_POLL_MS = 50;

export function lingerAfterAnswer(req: IncomingMessage, res: ServerResponse, limits = { bytes: LINGER_BYTES, ms: LINGER_MS }): void {
  res.once("finish", () => {
    // Node discards the rest of the body itself (IncomingMessage._dump: the parser drops it without
    // a 'data' event), so what it discards is counted from the socket's received bytes. The socket
    // may be gone already (closed by the client, or taken off a request the server destroyed).
    const socket = req.socket as IncomingMessage["socket"] | null;
    // The body was read to its end (an upload's bytes, or none at all): nothing to bound.
    if (req.complete || !socket || socket.destroyed) return;
    const from = socket.bytesRead;
    const started = Date.now();
    const timer = setInterval(() => {
      if (req.complete || socket.destroyed) return clearInterval(timer);
      if (socket.bytesRead - from > limits.bytes || Date.now() - started > limits.ms) {
        clearInterval(timer);
        socket.destroy();
      }
    }, LINGER_POLL_MS);
    timer.unref();
  });
}
