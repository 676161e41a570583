import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { hashWorkerMain } from "./hash-worker";

let source: Promise<string> | undefined;

/**
 * The hashing worker's script: hash-wasm's stand-alone BLAKE3 bundle (it defines `hashwasm`) and
 * the worker program. The classic Remix compiler cannot emit a worker entry, so the script is
 * assembled here once and served by a resource route.
 */
export function hashWorkerSource(): Promise<string> {
  source ??= readFile(createRequire(import.meta.url).resolve("hash-wasm/dist/blake3.umd.min.js"), "utf8").then(
    (blake3) => `${blake3}\n;(${hashWorkerMain.toString()})(self, globalThis.hashwasm.createBLAKE3);\n`,
  );
  return source;
}
