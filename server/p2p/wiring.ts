import { P2P_RECEIVE_RENEW_MS } from "../../contract/p2p";
import { createRateLimits } from "../limits/rate-limits";
import type { FileServerPart } from "../fileserver/parts";
import type { Services } from "../services";
import { createP2p, type P2p } from "./service";
import { createDeviceSockets } from "./sockets";

/**
 * One P2P engine per engine's services: the REST routes (allRoutes) and the file server's socket
 * commands (p2pParts) reach the same devices' sockets.
 */
const instances = new WeakMap<Services, { p2p: P2p; log: { current: { warn(obj: object, message: string): void } | null } }>();

export function p2pOf(s: Services, log?: { warn(obj: object, message: string): void }): P2p {
  let entry = instances.get(s);
  if (!entry) {
    const ref: { current: { warn(obj: object, message: string): void } | null } = { current: null };
    const p2p = createP2p({
      db: s.db,
      clock: s.clock,
      settings: s.settings,
      rates: createRateLimits(s.db, s.clock),
      recorder: s.recorder,
      sockets: createDeviceSockets(),
      log: { warn: (obj, message) => ref.current?.warn(obj, message) },
    });
    entry = { p2p, log: ref };
    instances.set(s, entry);
  }
  if (log) entry.log.current = log;
  return entry.p2p;
}

/** The P2P socket commands, and the timer that renews receivers' leases and expires unanswered offers. */
export const p2pParts: FileServerPart = (services, log) => {
  const p2p = p2pOf(services, log);
  const tick = () => {
    p2p.renewLeases().catch((error: unknown) => log.warn({ err: error }, "p2p: renewing receivers' leases failed"));
    p2p.expireDue().catch((error: unknown) => log.warn({ err: error }, "p2p: expiring offers failed"));
  };
  const timer = setInterval(tick, P2P_RECEIVE_RENEW_MS);
  timer.unref();
  return {
    handlers: [],
    commands: {
      p2pRegister: (s, a) => p2p.register(s, a),
      p2pReceive: (s, a) => p2p.receive(s, a),
      p2pOffer: (s, a) => p2p.offer(s, a),
      p2pAnswer: (s, a) => p2p.answer(s, a),
      p2pSignal: (s, a) => p2p.signal(s, a),
      p2pProgress: (s, a) => p2p.progress(s, a),
      p2pFileDone: (s, a) => p2p.fileDone(s, a),
      p2pEnd: (s, a) => p2p.end(s, a),
      p2pFiles: (s, a) => p2p.files(s, a),
    },
    close: async () => clearInterval(timer),
  };
};
