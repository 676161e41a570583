/** Events other parts of the page react to: a listing refresh after an upload or new folders, the size-overflow dialog. */
export type TransferEvent =
  | { type: "upload-committed"; groupId: number; path: string }
  /** The empty folders of a dropped tree were created under `path`. */
  | { type: "folders-created"; groupId: number; path: string }
  | { type: "size-overflow"; limit: number };

const listeners = new Set<(event: TransferEvent) => void>();

export function onTransferEvent(listener: (event: TransferEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function emitTransferEvent(event: TransferEvent) {
  // A listener that throws must not keep the others (or the transfer) from going on.
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (error) {
      console.error(error);
    }
  }
}
