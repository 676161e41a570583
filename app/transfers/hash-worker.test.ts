import { blake3 } from "hash-wasm";
import { describe, expect, it } from "vitest";
import type { HashReply, HashRequest, HashWorkerScope } from "./hash-worker";
import { hashWorkerSource } from "./hash-worker.server";

/** Runs the served worker script against a stand-in for the worker's global scope. */
async function startWorker() {
  const replies: HashReply[] = [];
  const waiting: ((reply: HashReply) => void)[] = [];
  const scope: HashWorkerScope = {
    onmessage: null,
    postMessage: (reply) => {
      const next = waiting.shift();
      if (next) next(reply);
      else replies.push(reply);
    },
  };
  new Function("self", await hashWorkerSource())(scope);
  const send = (request: HashRequest) => scope.onmessage!({ data: request });
  const reply = () => new Promise<HashReply>((resolve) => (replies.length > 0 ? resolve(replies.shift()!) : waiting.push(resolve)));
  return { send, reply };
}

describe("the hashing worker script", () => {
  it("answers BLAKE3 of a file of many stream chunks, and of an empty file", async () => {
    const bytes = new Uint8Array(20 * 1024 * 1024 + 123);
    for (let i = 0; i < bytes.length; i += 997) bytes[i] = i % 251;
    const worker = await startWorker();
    worker.send({ job: 1, file: new Blob([bytes]) });
    worker.send({ job: 2, file: new Blob([]) });
    expect(await worker.reply()).toEqual({ job: 1, hash: await blake3(bytes) });
    expect(await worker.reply()).toEqual({ job: 2, hash: await blake3(new Uint8Array()) });
  });

  it("stops a cancelled job", async () => {
    const worker = await startWorker();
    worker.send({ job: 7, file: new Blob([new Uint8Array(32 * 1024 * 1024)]) });
    worker.send({ job: 7, cancel: true });
    expect(await worker.reply()).toEqual({ job: 7, cancelled: true });
  });
});
