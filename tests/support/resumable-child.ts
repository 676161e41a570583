// A process that uploads a file into a storage through Storage.resumable and is killed (SIGKILL)
// by the storage conformance suite while it runs: run as
//   node --import tsx tests/support/resumable-child.ts
// with FERRY_CHILD = JSON { module, factory, args, path, file }. It begins the upload, prints the
// state, then sends the parts one by one and prints each stored part as one JSON line; the suite
// resumes from what it printed, as the engine resumes from the parts in an upload's record.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Storage } from "../../server/storage/storage";

interface ChildSpec {
  module: string;
  factory: string;
  args: unknown[];
  path: string;
  file: string;
}

const spec = JSON.parse(process.env.FERRY_CHILD ?? "{}") as ChildSpec;
const mod = (await import(pathToFileURL(path.resolve(spec.module)).href)) as Record<string, (...args: unknown[]) => Storage>;
const storage = mod[spec.factory]!(...spec.args);
const bytes = await readFile(spec.file);
const uploads = storage.resumable?.(spec.path);
if (!uploads) throw new Error("no resumable uploads");
const upload = await uploads.begin(bytes.length);
process.stdout.write(`${JSON.stringify({ state: upload.state })}\n`);
for (let n = 1, at = 0; at < bytes.length; n++, at += uploads.partSize) {
  const part = await upload.writePart(n, bytes.subarray(at, Math.min(at + uploads.partSize, bytes.length)));
  process.stdout.write(`${JSON.stringify({ part })}\n`);
}
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
// Kept alive until killed: the suite decides when this process dies.
setInterval(() => undefined, 60_000);
