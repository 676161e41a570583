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

/** Answers whether a large batch goes up in the browser (true) or is left to the desktop client (false). */
type ClientPromptHandler = (size: number, threshold: number) => Promise<boolean>;
let clientPrompt: ClientPromptHandler | null = null;

/** The desktop-client dialog (app/client/desktop-client.tsx) answers the client prompt; returns the unsubscribe. */
export function onClientPrompt(handler: ClientPromptHandler): () => void {
  clientPrompt = handler;
  return () => {
    if (clientPrompt === handler) clientPrompt = null;
  };
}

/**
 * A web upload batch of `size` bytes is over the transfer settings' client prompt (`threshold`
 * bytes): asks the user whether to use the desktop client or continue in the browser. Without the
 * dialog on the page (a share visitor's), the batch goes up in the browser.
 */
export function askClientPrompt(size: number, threshold: number): Promise<boolean> {
  return clientPrompt ? clientPrompt(size, threshold) : Promise.resolve(true);
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
