import type { HashReply } from "./hash-worker";

export const HASH_WORKER_URL = "/transfers/hash-worker.js";
/** Two workers: the machine's cores are shared with the uploads themselves. */
const POOL_SIZE = 2;

interface Job {
  id: number;
  resolve: (hash: string) => void;
  reject: (error: Error) => void;
}

export class HashCancelled extends Error {
  constructor() {
    super("hash cancelled");
    this.name = "HashCancelled";
  }
}

/**
 * BLAKE3 of Files in Web Workers, so a large file is hashed while it uploads without freezing the
 * page. Jobs go to the worker with the fewest waiting; each worker hashes its jobs in order.
 */
export class Hasher {
  private workers: { worker: Worker; jobs: Map<number, Job> }[] = [];
  private nextId = 1;

  hash(file: Blob, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(new HashCancelled());
    const slot = this.slot();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      slot.jobs.set(id, { id, resolve, reject });
      slot.worker.postMessage({ job: id, file });
      signal?.addEventListener("abort", () => slot.worker.postMessage({ job: id, cancel: true }), { once: true });
    });
  }

  private slot() {
    if (this.workers.length < POOL_SIZE && this.workers.every((w) => w.jobs.size > 0)) {
      const worker = new Worker(HASH_WORKER_URL);
      const slot = { worker, jobs: new Map<number, Job>() };
      worker.onmessage = (event: MessageEvent<HashReply>) => {
        const reply = event.data;
        const job = slot.jobs.get(reply.job);
        if (!job) return;
        slot.jobs.delete(reply.job);
        if (reply.hash) job.resolve(reply.hash);
        else job.reject(reply.cancelled ? new HashCancelled() : new Error(reply.error ?? "hash failed"));
      };
      worker.onerror = (event) => {
        // The script did not load or crashed: fail its jobs, start afresh next time.
        event.preventDefault();
        for (const job of slot.jobs.values()) job.reject(new Error(event.message || "hash worker failed"));
        slot.jobs.clear();
        worker.terminate();
        this.workers = this.workers.filter((w) => w !== slot);
      };
      this.workers.push(slot);
      return slot;
    }
    return this.workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
  }
}
