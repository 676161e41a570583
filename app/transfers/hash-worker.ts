/**
 * The hashing Web Worker's program: BLAKE3 (the contract's HASH_ALGORITHM) of a File, read as a
 * stream, off the page's thread. The worker script is this function's source after hash-wasm's
 * BLAKE3 bundle (`hash-worker.server.ts`), so it must not use anything from outside its body.
 *
 * Messages in: `{ job, file }` to hash, `{ job, cancel: true }` to stop. Out: `{ job, hash }`,
 * `{ job, error }` or `{ job, cancelled: true }`. Jobs of one worker run one after another.
 */
export interface HashRequest {
  job: number;
  file?: Blob;
  cancel?: boolean;
}
export interface HashReply {
  job: number;
  hash?: string;
  error?: string;
  cancelled?: boolean;
}
export interface HashWorkerScope {
  onmessage: ((event: { data: HashRequest }) => void) | null;
  postMessage(reply: HashReply): void;
}
export interface Blake3 {
  init(): unknown;
  update(data: Uint8Array): unknown;
  digest(format: "hex"): string;
}

export function hashWorkerMain(scope: HashWorkerScope, createBLAKE3: () => Promise<Blake3>) {
  const cancelled = new Set<number>();
  let queue = Promise.resolve();
  // The file's own stream rather than `slice().arrayBuffer()` per piece: no large buffer per
  // piece to allocate and collect, and in Chromium ~15% less CPU for the same bytes (docs/bench.md,
  // "UI upload"), which the upload and the engine need on the same cores.
  // One instance for every job (they run one after another; `init` starts each afresh): a folder of
  // thousands of small files does not instantiate the WebAssembly module once per file.
  let instance: Promise<Blake3> | null = null;
  const run = async (job: number, file: Blob) => {
    try {
      const hasher = await (instance ??= createBLAKE3().catch((error: unknown) => {
        instance = null;
        throw error;
      }));
      hasher.init();
      const reader = file.stream().getReader();
      // One read always under way: the browser fetches the next piece of the file (in its own
      // process) while this thread hashes the current one.
      let next = reader.read();
      for (;;) {
        if (cancelled.delete(job)) {
          await reader.cancel();
          return scope.postMessage({ job, cancelled: true });
        }
        const { done, value } = await next;
        if (done) break;
        next = reader.read();
        hasher.update(value);
      }
      scope.postMessage({ job, hash: hasher.digest("hex") });
    } catch (error) {
      scope.postMessage({ job, error: String(error) });
    }
  };
  scope.onmessage = (event) => {
    const { job, file, cancel } = event.data;
    if (cancel) cancelled.add(job);
    else if (file) queue = queue.then(() => run(job, file));
  };
}
