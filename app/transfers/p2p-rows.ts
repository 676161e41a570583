/**
 * The transfer panel's P2P rows (app/p2p/) are run by the P2P session, not by the transfer manager:
 * their ids start with P2P_ROW_PREFIX and their Cancel goes to the session that registered it.
 */
export const P2P_ROW_PREFIX = "p2p:";

const cancels = new Map<string, () => void>();

export const isP2pRow = (id: string) => id.startsWith(P2P_ROW_PREFIX);

/** The session's Cancel of row `id`; the returned function unregisters it. */
export function onP2pCancel(id: string, cancel: () => void): () => void {
  cancels.set(id, cancel);
  return () => {
    if (cancels.get(id) === cancel) cancels.delete(id);
  };
}

export function cancelP2p(id: string) {
  cancels.get(id)?.();
}
