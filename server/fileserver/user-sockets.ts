import type { SocketEvent } from "../../contract/files";

/** One signed-in socket, as the registry sees it: `push` re-checks the socket's token before it sends. */
export interface UserSocket {
  push(event: SocketEvent): void;
}

/**
 * The signed-in sockets of this engine process, by user, so that a change for a user (a notice) can
 * reach their open pages without a request (docs/file-server.md, "Events"). Share visitors and
 * sockets not yet logged in are not here. Another engine instance's sockets hear only of changes
 * made through that instance; a page still catches up at its next navigation.
 */
export function createUserSockets() {
  const byUser = new Map<number, Set<UserSocket>>();
  return {
    /** Registers a logged-in socket; returns the way to forget it (logout, another login, close). */
    add(userId: number, socket: UserSocket): () => void {
      let set = byUser.get(userId);
      if (!set) byUser.set(userId, (set = new Set()));
      set.add(socket);
      return () => {
        set.delete(socket);
        if (set.size === 0 && byUser.get(userId) === set) byUser.delete(userId);
      };
    },
    /** The users among `userIds` with at least one open socket here. */
    online(userIds: number[]): number[] {
      return [...new Set(userIds)].filter((id) => byUser.has(id));
    },
    push(userId: number, event: SocketEvent) {
      for (const socket of byUser.get(userId) ?? []) socket.push(event);
    },
  };
}

export type UserSockets = ReturnType<typeof createUserSockets>;
