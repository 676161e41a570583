import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import type { SocketArgs, SocketCommand, SocketResults } from "../../contract/files";
import { BatchUploads, type BatchContext } from "./batch-uploads.client";
import type { Hasher } from "./hasher.client";
import { TransferStore } from "./store";
import { TransferStatus } from "./types";

/**
 * Batches against a scripted file server: each `POST /uploads/batch` is answered by the next
 * answer the script has for its first file (the engine's per-file reply, a proxy's 5xx page, or the network breaking
 * off), and `exists`/`attributes` by the files the "engine" holds. What the page sends is read back
 * from the batch's header, so a file sent twice would show.
 */

/** The engine's reply; or a failure of the whole request, after which the engine holds its files (`lands`) or none. */
type Answer = "engine" | { network: true; lands: boolean } | { status: number; body: string; lands: boolean };

interface Sent {
  paths: string[];
}

/** Answers by the first file of a request, in turn; a request without one left gets the engine's reply. */
let script: Record<string, Answer[]> = {};
let sent: Sent[] = [];
/** Paths the engine placed, with their sizes. */
let placed = new Map<string, number>();

async function headerOf(body: Blob): Promise<{ files: { path: string; size: number }[] }> {
  const bytes = new Uint8Array(await body.arrayBuffer());
  const length = new DataView(bytes.buffer).getUint32(0, false);
  return JSON.parse(new TextDecoder().decode(bytes.slice(4, 4 + length))) as { files: { path: string; size: number }[] };
}

class FakeXhr {
  status = 0;
  responseText = "";
  upload: { onprogress: ((event: { loaded: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open() {}
  setRequestHeader() {}
  abort() {
    this.onabort?.();
  }
  send(body: Blob) {
    void (async () => {
      const header = await headerOf(body);
      sent.push({ paths: header.files.map((f) => f.path) });
      const answer = script[header.files[0]!.path]?.shift() ?? "engine";
      if (answer === "engine" || answer.lands) for (const file of header.files) placed.set(file.path, file.size);
      if (answer !== "engine" && "network" in answer) return this.onerror?.();
      if (answer === "engine") {
        this.status = 200;
        this.responseText = JSON.stringify({ code: 200, data: { files: header.files.map((f) => ({ path: f.path, ok: true, size: f.size, hash: "" })) } });
      } else {
        this.status = answer.status;
        this.responseText = answer.body;
      }
      this.onload?.();
    })();
  }
}

const asked: string[] = [];
function context(): BatchContext {
  const cmd = async <C extends SocketCommand>(name: C, args: SocketArgs<C>): Promise<SocketResults[C]> => {
    asked.push(name);
    if (name === "exists") {
      const { target, names } = args as SocketArgs<"exists">;
      const dir = target === "/" ? "" : target;
      return { existing: names.filter((n) => placed.has(`${dir}/${n}`)) } as unknown as SocketResults[C];
    }
    if (name === "attributes") {
      const path = (args as SocketArgs<"attributes">).paths[0]!;
      // The engine records a batch's hashes after the group: `unrecorded` asks go without one.
      const recorded = placed.has(path) && hashCheck && (unrecorded.set(path, (unrecorded.get(path) ?? 0) - 1).get(path) ?? 0) < 0;
      return { file_size: placed.get(path) ?? -1, hash: recorded ? `h:${path.slice(path.lastIndexOf("/") + 1)}` : null } as unknown as SocketResults[C];
    }
    throw new Error(`unexpected ${name}`);
  };
  return { connection: { httpUrl: "http://files", token: "t", href: (url: string) => `http://files${url}`, cmd }, partMB: 0, hashCheck } as unknown as BatchContext;
}

/** Whether the page hashes its files (the engine's hash check); the page's hash of a file is `h:<name>`. */
let hashCheck = false;
/** Per path, how many `attributes` asks the engine answers before its hash is recorded. */
let unrecorded = new Map<string, number>();
const hasher = { hash: async (file: File) => (hashCheck ? `h:${file.name}` : "") } as unknown as Hasher;
const files = (names: string[]) => names.map((name) => ({ file: new File([`content of ${name}`], name), groupId: 0, path: `/pics/${name}`, overwrite: false }));

/** Runs the batches of a pick until nothing is left to send. */
async function upload(names: string[], retryDelays: number[] = [0, 0]) {
  const store = new TransferStore();
  const ctx = context();
  const batches: BatchUploads = new BatchUploads(store, hasher, () => batches.pump(2 - batches.running(), ctx), { retryDelays, busyRetryMs: 0, recordWaitsMs: [0, 0, 0] });
  const pump = () => batches.pump(2 - batches.running(), ctx);
  batches.add(files(names), "pics", ctx);
  pump();
  await settle(store);
  return { store, batches, ctx, summary: () => store.getSnapshot().find((item) => item.batch)!, row: (name: string) => store.getSnapshot().find((item) => item.name === name && !item.batch)! };
}

/** Waits until no file of the store is on its way. */
async function settle(store: TransferStore) {
  await vi.waitFor(() => {
    const open = store.getSnapshot().filter((item) => item.status === TransferStatus.Uploading || item.status === TransferStatus.ServerChecking);
    if (open.length > 0) throw new Error(`${open.length} still running`);
  });
}

describe("batch uploads: failures of a whole batch", () => {
  beforeEach(() => {
    script = {};
    sent = [];
    placed = new Map();
    asked.length = 0;
    hashCheck = false;
    unrecorded = new Map();
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("a 502 of the proxy is retried by itself after asking which files landed: the landed ones are not sent again", async () => {
    // The first batch (a.txt, b.txt) reached the engine, but the proxy answered 502.
    script = { "/pics/a.txt": [{ status: 502, body: "<html>Bad Gateway</html>", lands: true }] };
    const { summary, row } = await upload(["a.txt", "b.txt", "c.txt", "d.txt"]);
    expect(asked).toContain("exists");
    // Each file once: the batch answered 502 was not sent again (both its files had landed).
    expect(sent.flatMap((s) => s.paths).sort()).toEqual(["/pics/a.txt", "/pics/b.txt", "/pics/c.txt", "/pics/d.txt"]);
    expect(sent[0]!.paths).toEqual(["/pics/a.txt", "/pics/b.txt"]);
    for (const name of ["a.txt", "b.txt", "c.txt", "d.txt"]) expect(row(name).status).toBe(TransferStatus.Uploaded);
    expect(summary().batch).toEqual({ files: 4, uploaded: 4, failed: 0, retryable: 0 });
  });

  it("an engine's 5xx is retried too, and a batch still failing after the last retry fails its files with the server's message, Retry offered", async () => {
    // Nothing lands: the engine failed before placing them.
    const serverError = { status: 500, body: JSON.stringify({ code: ErrorCode.ServerError, msg: "Server error" }), lands: false };
    script = { "/pics/a.txt": [serverError, serverError, serverError] };
    // Two files make two batches of one.
    const { summary, row } = await upload(["a.txt", "b.txt"], [0, 0]);
    expect(sent.filter((s) => s.paths.includes("/pics/a.txt"))).toHaveLength(3);
    expect(row("a.txt").status).toBe(TransferStatus.UploadFailed);
    expect(row("a.txt").errorMsgKey).toBe(`error.${ErrorCode.ServerError}`);
    expect(row("b.txt").status).toBe(TransferStatus.Uploaded);
    expect(summary().batch).toEqual({ files: 2, uploaded: 1, failed: 1, retryable: 1 });
  });

  it("a whole-batch refusal of the engine (a full disk) is not retried", async () => {
    script = { "/pics/a.txt": [{ status: 500, body: JSON.stringify({ code: ErrorCode.DiskFull }), lands: false }] };
    const { row } = await upload(["a.txt", "b.txt"], [0, 0]);
    expect(sent.filter((s) => s.paths.includes("/pics/a.txt"))).toHaveLength(1);
    expect(row("a.txt").errorMsgKey).toBe(`error.${ErrorCode.DiskFull}`);
  });

  it("a batch broken off by the network is sent again without the files that had landed", async () => {
    script = { "/pics/a.txt": [{ network: true, lands: true }] };
    const { summary } = await upload(["a.txt", "b.txt"], [0]);
    expect(sent.map((s) => s.paths).sort()).toEqual([["/pics/a.txt"], ["/pics/b.txt"]]);
    expect(summary().batch).toEqual({ files: 2, uploaded: 2, failed: 0, retryable: 0 });
  });

  it("after a drop, a landed file whose hash the engine has not recorded yet is asked about again, not sent again", async () => {
    hashCheck = true;
    script = { "/pics/a.txt": [{ network: true, lands: true }] };
    // The engine is still recording a.txt's group when the page asks: two answers without a hash.
    unrecorded.set("/pics/a.txt", 2);
    const { summary, row } = await upload(["a.txt", "b.txt"], [0]);
    expect(asked.filter((name) => name === "attributes")).toHaveLength(3);
    expect(sent.map((s) => s.paths).sort()).toEqual([["/pics/a.txt"], ["/pics/b.txt"]]);
    expect(row("a.txt").status).toBe(TransferStatus.Uploaded);
    expect(summary().batch).toEqual({ files: 2, uploaded: 2, failed: 0, retryable: 0 });
  });

  it("a file of the same size and no recorded hash after every wait is not taken for ours: it is sent again", async () => {
    hashCheck = true;
    script = { "/pics/a.txt": [{ network: true, lands: true }] };
    unrecorded.set("/pics/a.txt", 10);
    await upload(["a.txt", "b.txt"], [0]);
    // 1 ask + 3 waits, then a.txt goes again (the engine, holding it, would say "name taken").
    expect(asked.filter((name) => name === "attributes")).toHaveLength(4);
    expect(sent.map((s) => s.paths).sort()).toEqual([["/pics/a.txt"], ["/pics/a.txt"], ["/pics/b.txt"]]);
  });

  it("the user's Retry of files whose batch failed as a whole asks which landed first and sends only the others", async () => {
    // No automatic retry left: the batch fails at once, the engine holding none of it.
    script = { "/pics/c.txt": [{ network: true, lands: false }], "/pics/d.txt": [{ network: true, lands: false }] };
    const { store, batches, ctx, summary, row } = await upload(["c.txt", "d.txt"], []);
    expect(row("c.txt").status).toBe(TransferStatus.UploadFailed);
    expect(row("c.txt").errorMsgKey).toBe("transfers.error.network");
    expect(summary().batch).toMatchObject({ failed: 2, retryable: 2 });
    // Meanwhile c.txt is on the server all the same (the answer, not the request, was lost): Retry does not send it again.
    placed.set("/pics/c.txt", row("c.txt").totalSize);
    asked.length = 0;
    sent = [];
    await batches.retry(summary().id, ctx);
    await settle(store);
    expect(asked).toContain("exists");
    expect(sent.map((s) => s.paths)).toEqual([["/pics/d.txt"]]);
    expect(row("c.txt").status).toBe(TransferStatus.Uploaded);
    expect(row("d.txt").status).toBe(TransferStatus.Uploaded);
    expect(summary().batch).toEqual({ files: 2, uploaded: 2, failed: 0, retryable: 0 });
  });

  it("the summary offers Retry only for refusals a Retry may change; a refused file's own Retry asks nothing first", async () => {
    // The engine refuses a.txt (no permission) and b.txt (a server error of that file).
    const refusing = class extends FakeXhr {
      override send(body: Blob) {
        void (async () => {
          const header = await headerOf(body);
          sent.push({ paths: header.files.map((f) => f.path) });
          this.status = 200;
          this.responseText = JSON.stringify({
            code: 200,
            data: {
              files: header.files.map((f) =>
                f.path.endsWith("a.txt") ? { path: f.path, ok: false, code: ErrorCode.PermissionDenied } : f.path.endsWith("b.txt") ? { path: f.path, ok: false, code: ErrorCode.ServerError } : { path: f.path, ok: true, size: f.size, hash: "" },
              ),
            },
          });
          this.onload?.();
        })();
      }
    };
    vi.stubGlobal("XMLHttpRequest", refusing);
    const { store, batches, ctx, summary, row } = await upload(["a.txt", "b.txt", "c.txt"]);
    expect(summary().batch).toEqual({ files: 3, uploaded: 1, failed: 2, retryable: 1 });
    asked.length = 0;
    sent = [];
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    // The summary's Retry sends b.txt only (a.txt would meet the same refusal); nothing is asked: the engine said what it did.
    await batches.retry(summary().id, ctx);
    await settle(store);
    expect(asked).toEqual([]);
    expect(sent.map((s) => s.paths)).toEqual([["/pics/b.txt"]]);
    expect(summary().batch).toEqual({ files: 3, uploaded: 2, failed: 1, retryable: 0 });
    // a.txt's own Retry still sends it (the permission may have been granted since).
    await batches.retry(row("a.txt").id, ctx);
    await settle(store);
    expect(sent.map((s) => s.paths)).toEqual([["/pics/b.txt"], ["/pics/a.txt"]]);
    expect(summary().batch).toEqual({ files: 3, uploaded: 3, failed: 0, retryable: 0 });
  });
});
