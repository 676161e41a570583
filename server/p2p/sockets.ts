import type { SocketEvent } from "../../contract/files";
import type { SocketChannel } from "../fileserver/socket";

/**
 * Where P2P events go (docs/p2p.md): one socket per key, `receiver:<user id>:<device id>` (the device's open
 * receiver page) and `sender:<transfer id>` (the sender's socket of that transfer). This process's
 * sockets only; issue 19 puts a pub/sub behind the same interface so that the two parties may be on
 * different engine instances.
 */
export interface DeviceSockets {
  /** Makes `channel` the socket of `key`; returns the one it replaced (another socket), if any. */
  bind(key: string, channel: SocketChannel): SocketChannel | null;
  /** Forgets `key` if `channel` (or anyone, when left out) holds it; whether it did. */
  unbind(key: string, channel?: SocketChannel): boolean;
  /** Whether a socket holds `key` here. */
  has(key: string): boolean;
  /** Sends to the socket of `key`; false when there is none. */
  push(key: string, event: SocketEvent): boolean;
  /** The keys `channel` held, forgotten (its socket closed). */
  drop(channel: SocketChannel): string[];
}

/** A device id is unique only while it exists (a pruned or deleted one may be issued again): the key names its user too. */
export const receiverKey = (userId: number, deviceId: string) => `receiver:${userId}:${deviceId}`;
export const senderKey = (transferId: string) => `sender:${transferId}`;

export function createDeviceSockets(): DeviceSockets {
  const byKey = new Map<string, SocketChannel>();
  const byChannel = new Map<number, Set<string>>();
  const forget = (key: string, channel: SocketChannel) => {
    const keys = byChannel.get(channel.id);
    keys?.delete(key);
    if (keys && keys.size === 0) byChannel.delete(channel.id);
  };
  return {
    bind(key, channel) {
      const before = byKey.get(key) ?? null;
      if (before && before.id !== channel.id) forget(key, before);
      byKey.set(key, channel);
      let keys = byChannel.get(channel.id);
      if (!keys) byChannel.set(channel.id, (keys = new Set()));
      keys.add(key);
      return before && before.id !== channel.id ? before : null;
    },
    unbind(key, channel) {
      const held = byKey.get(key);
      if (!held || (channel && held.id !== channel.id)) return false;
      byKey.delete(key);
      forget(key, held);
      return true;
    },
    has: (key) => byKey.has(key),
    push(key, event) {
      const channel = byKey.get(key);
      if (!channel || channel.closed.aborted) return false;
      channel.push(event);
      return true;
    },
    drop(channel) {
      const keys = [...(byChannel.get(channel.id) ?? [])];
      for (const key of keys) if (byKey.get(key)?.id === channel.id) byKey.delete(key);
      byChannel.delete(channel.id);
      return keys;
    },
  };
}
