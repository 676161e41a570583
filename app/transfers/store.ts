import { isActive, isFileRow, type TransferItem } from "./types";

/** Spec section 4: the progress on screen changes at most once a second. */
export const PROGRESS_REFRESH_MS = 1000;

/**
 * The panel's list of transfers, for `useSyncExternalStore`. Structural changes (an item added, a
 * status change, a removal) show at once; byte counts are collected and shown at most once per
 * PROGRESS_REFRESH_MS, when the speed is measured too (bytes moved since the last refresh).
 */
export class TransferStore {
  private items: readonly TransferItem[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly pending = new Map<string, number>();
  private readonly samples = new Map<string, { time: number; bytes: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlush = -Infinity;

  constructor(private readonly now: () => number = () => Date.now()) {}

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): readonly TransferItem[] => this.items;

  get(id: string): TransferItem | undefined {
    return this.items.find((item) => item.id === id);
  }

  activeCount(): number {
    return this.items.filter((item) => isActive(item) && isFileRow(item)).length;
  }

  add(item: TransferItem) {
    this.items = [...this.items.filter((i) => i.id !== item.id), item];
    this.emit();
  }

  /** Many items at once (a folder's files): one change for the page. */
  addMany(items: readonly TransferItem[]) {
    if (items.length === 0) return;
    const ids = new Set(items.map((item) => item.id));
    this.items = [...this.items.filter((i) => !ids.has(i.id)), ...items];
    this.emit();
  }

  /** Changes of many items at once (a batch's answer): one change for the page. */
  updateMany(patches: ReadonlyMap<string, Partial<Omit<TransferItem, "id">>>) {
    if (patches.size === 0) return;
    let changed = false;
    this.items = this.items.map((item) => {
      const patch = patches.get(item.id);
      if (!patch) return item;
      changed = true;
      return this.patched(item, patch);
    });
    if (changed) this.emit();
  }

  removeMany(ids: readonly string[]) {
    const gone = new Set(ids);
    for (const id of gone) {
      this.pending.delete(id);
      this.samples.delete(id);
    }
    const before = this.items.length;
    this.items = this.items.filter((item) => !gone.has(item.id));
    if (this.items.length !== before) this.emit();
  }

  /** A change the user must see now (status, pause, error); pending progress of the item goes with it. */
  update(id: string, patch: Partial<Omit<TransferItem, "id">>) {
    let changed = false;
    this.items = this.items.map((item) => {
      if (item.id !== id) return item;
      changed = true;
      return this.patched(item, patch);
    });
    if (changed) this.emit();
  }

  private patched(item: TransferItem, patch: Partial<Omit<TransferItem, "id">>): TransferItem {
    const id = item.id;
    const bytes = this.pending.get(id);
    this.pending.delete(id);
    const next = { ...item, ...(bytes !== undefined ? { currentSize: bytes } : {}), ...patch };
    // Speed is only meaningful while bytes move; a stop or a restart starts a new measurement.
    if (next.status !== item.status || next.paused || next.queued || next.errorMsgKey) {
      this.samples.delete(id);
      if (patch.speed === undefined) next.speed = 0;
    }
    return next;
  }

  /** Bytes moved so far; shown at the next refresh (at most one per PROGRESS_REFRESH_MS). */
  progress(id: string, bytes: number) {
    this.pending.set(id, bytes);
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastFlush + PROGRESS_REFRESH_MS - this.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  remove(id: string) {
    this.pending.delete(id);
    this.samples.delete(id);
    const before = this.items.length;
    this.items = this.items.filter((item) => item.id !== id);
    if (this.items.length !== before) this.emit();
  }

  private flush() {
    this.timer = undefined;
    const time = this.now();
    this.lastFlush = time;
    if (this.pending.size === 0) return;
    this.items = this.items.map((item) => {
      const bytes = this.pending.get(item.id);
      if (bytes === undefined) return item;
      const sample = this.samples.get(item.id);
      this.samples.set(item.id, { time, bytes });
      let speed = item.speed;
      if (sample && time > sample.time) {
        const measured = ((bytes - sample.bytes) * 1000) / (time - sample.time);
        // Half the last refresh, half the new one: steadier than raw, still quick to follow a change.
        speed = Math.max(0, item.speed > 0 ? (item.speed + measured) / 2 : measured);
      }
      return { ...item, currentSize: bytes, speed };
    });
    this.pending.clear();
    this.emit();
  }

  private emit() {
    for (const listener of [...this.listeners]) listener();
  }
}

/** Seconds left at the current speed; null when not measurable. */
export function secondsLeft(item: Pick<TransferItem, "currentSize" | "totalSize" | "speed">): number | null {
  if (item.speed <= 0 || item.totalSize < 0) return null;
  return Math.max(0, Math.ceil((item.totalSize - item.currentSize) / item.speed));
}
