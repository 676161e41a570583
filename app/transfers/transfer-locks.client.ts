/**
 * One tab at a time works on a saved transfer: an upload (persist.ts, localStorage) or a download
 * the page writes itself (parallel-download.client.ts, IndexedDB). Every tab of an account reads
 * the same saved lists after a reload; without this, two tabs would resume the same upload and
 * fight over its offset, or write the same file at once. Each transfer a page works on holds a Web
 * Lock named after it (ids are unique across uploads and downloads); the browser releases it when
 * the page goes (closed, reloaded, crashed). A page that finds the lock taken shows the transfer as
 * running in another tab, leaves it alone and waits in the lock's queue: when the owning page goes,
 * it takes the transfer over. Without the Web Locks API (an older browser, a page served over plain
 * HTTP on another host) every page claims every transfer, as before.
 */
export class TransferLocks {
  private readonly releases = new Map<string, () => void>();
  private readonly waiting = new Map<string, AbortController>();

  constructor(
    private readonly account: string,
    private readonly locks: LockManager | undefined = typeof navigator !== "undefined" ? navigator.locks : undefined,
  ) {}

  private name(id: string) {
    return `ferry.transfer.${this.account}.${id}`;
  }

  /** Takes transfer `id` if no other page holds it; true when this page may work on it. */
  claim(id: string): Promise<boolean> {
    const locks = this.locks;
    if (!locks) return Promise.resolve(true);
    if (this.releases.has(id)) return Promise.resolve(true);
    return new Promise((resolve) => {
      locks
        .request(this.name(id), { ifAvailable: true }, (lock) => {
          if (!lock) return resolve(false);
          resolve(true);
          return this.hold(id);
        })
        .catch(() => resolve(true));
    });
  }

  /** Calls `granted` once the page holding transfer `id` lets it go (then this page holds it). */
  await(id: string, granted: () => void) {
    const locks = this.locks;
    if (!locks || this.waiting.has(id)) return;
    const abort = new AbortController();
    this.waiting.set(id, abort);
    locks
      .request(this.name(id), { signal: abort.signal }, () => {
        this.waiting.delete(id);
        const held = this.hold(id);
        granted();
        return held;
      })
      .catch(() => this.waiting.delete(id));
  }

  /** This page is done with transfer `id` (finished, cancelled): the next page in line may take it. */
  release(id: string) {
    this.waiting.get(id)?.abort();
    this.waiting.delete(id);
    this.releases.get(id)?.();
    this.releases.delete(id);
  }

  private hold(id: string): Promise<void> {
    return new Promise<void>((release) => this.releases.set(id, release));
  }
}
