// An engine's upload store taking a tus upload into an object store, killed (SIGKILL) by
// tests/storage/uploads-object-store.test.ts while it runs: run as
//   node --import tsx tests/support/store-upload-child.ts
// with FERRY_CHILD = JSON { dir, config, id, file, stopAt }. It sends the file's bytes to
// UploadStore.write as one PATCH from offset 0 and, after `stopAt` bytes, waits with the body
// still open, as a client that is still sending when the engine dies.
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { createS3Storage, type S3StorageConfig } from "../../server/storage/s3";
import { UploadStore } from "../../server/uploads/store";

// Kept alive until the test kills it: a body that never ends holds no handle of its own, so once
// the store's sockets go idle the loop would be empty and Node would end the process by itself.
setInterval(() => undefined, 60_000);
const spec = JSON.parse(process.env.FERRY_CHILD ?? "{}") as { dir: string; config: S3StorageConfig; id: string; file: string; stopAt: number };
const storage = createS3Storage(spec.config);
const store = await UploadStore.open(spec.dir, 60_000);
store.uploadsOf = async (metadata) => storage.resumable!(String(metadata?.path));
const bytes = await readFile(spec.file);
const body = Readable.from(
  (async function* () {
    for (let at = 0; at < spec.stopAt; at += 256 * 1024) yield bytes.subarray(at, Math.min(at + 256 * 1024, spec.stopAt));
    await new Promise(() => undefined);
  })(),
);
await store.write(body, spec.id, 0);
