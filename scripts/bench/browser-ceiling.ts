import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { launchMeasuredChromium, type MeasuredBrowser, PAGE_NAME_SHIM } from "./chromium";
import { log, onCleanup, run } from "./lifecycle";
import { median } from "./series";

/**
 * The browser's own ceiling for the UI upload: how fast this Chromium sends the test file to a
 * server that does nothing with it. The same browser build and launch arguments as the UI rounds
 * (chromium.ts), the file set on an `<input type=file>` — no hashing, no tus, no engine. Two ways:
 *
 * - **single**: the whole File in one `xhr.send(file)`, as the web client sends a file below its
 *   chunk threshold (app/transfers/file-source.ts);
 * - **sliced**: the same chunks as a UI round sent (`xhr.send(file.slice(start, end))` each, as
 *   app/transfers/chunked-upload.client.ts does), in the same order and with the same number of
 *   requests in flight as that round had when each chunk started (ui.ts records it).
 *
 * The UI cannot send faster than the sliced ceiling of its own plan on the same machine.
 */

const MIB = 1024 * 1024;

export interface CeilingResult {
  /** MiB/s of each round, timed in the page from `xhr.send` to `load`. */
  samples: number[];
  best: number;
  median: number;
  /** Per round: CPU seconds (user + system) of the browser process and all its descendants; null when they were not found. */
  cpuSeconds: number[] | null;
  /** Per round: the page's seconds (the samples' time) and the same send seen from Node (adds the DevTools round trip). */
  pageSeconds: number[];
  nodeSeconds: number[];
  /** Per round: CPU seconds of the bench process, i.e. the discarding server (it runs in-process) and Playwright's side. */
  receiverCpuSeconds: number[];
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>Send ceiling</title>
<label for="file">File to send</label> <input type="file" id="file">`;

/**
 * A bare HTTP server inside the bench process: `GET /` is the page, `PUT /discard/<anything>`
 * counts the body's bytes, drops them, and answers with the count. Closed at the end and at cleanup.
 */
async function startDiscardServer(timeoutMs: number): Promise<{ url: string; received: Map<string, number>; stop(): Promise<void> }> {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
      return;
    }
    if (req.method === "PUT" && req.url?.startsWith("/discard/")) {
      let bytes = 0;
      req.on("data", (chunk: Buffer) => (bytes += chunk.length));
      req.once("end", () => {
        received.set(req.url!, bytes);
        res.writeHead(200, { "content-type": "text/plain" }).end(String(bytes));
      });
      return;
    }
    res.writeHead(404).end();
  });
  // Node's default request time-out (300 s) would cut a slow send short of the bench's own bound.
  server.requestTimeout = timeoutMs;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const stop = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  onCleanup(stop);
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, stop };
}

/** One chunk of a UI round: [start, end) of the file, and how many chunk requests were in flight once it started (itself included). */
export interface PlannedChunk {
  start: number;
  end: number;
  inFlight: number;
}

export interface CeilingRound {
  /** MiB/s, timed in the page from the first `send` to the last `load`. */
  mibS: number;
  pageSeconds: number;
  /** The same send seen from Node (adds the DevTools round trip). */
  nodeSeconds: number;
  /** CPU seconds (user + system) of the browser process and all its descendants; null when not found. */
  cpuSeconds: number | null;
  /** CPU seconds of the bench process, i.e. the discarding server (in-process) and Playwright's side. */
  receiverCpuSeconds: number;
  /** Sliced rounds: requests sent, and the most in flight at once in the page. */
  requests?: number;
  mostInFlight?: number;
}

export interface CeilingSeries {
  rounds: CeilingRound[];
  best: number | null;
  median: number | null;
  error?: string;
}

/** best / median of a series' rounds. */
export function summarize(rounds: CeilingRound[], error?: string): CeilingSeries {
  const samples = rounds.map((r) => r.mibS);
  return { rounds, best: samples.length ? Math.max(...samples) : null, median: median(samples), ...(error ? { error } : {}) };
}

export interface CeilingSession {
  /** One round of the whole File in one XHR. */
  single(round: number): Promise<CeilingRound>;
  /** One round of `plan`'s slices, as many in flight as the plan says. */
  sliced(round: number, plan: PlannedChunk[]): Promise<CeilingRound>;
  stop(): Promise<void>;
}

type PageResult = { ms: number; statuses: number[]; bodies: string[]; size: number; mostInFlight: number };

/** In the page: sends `chunks` (or the whole file when null), each chunk started once fewer than its `inFlight` run. */
function sendInPage(page: Page, prefix: string, chunks: PlannedChunk[] | null, timeoutMs: number): Promise<PageResult> {
  return page.evaluate(
    ({ prefix, chunks, timeoutMs }) =>
      new Promise<PageResult>((resolve, reject) => {
        const file = document.querySelector<HTMLInputElement>("#file")?.files?.[0];
        if (!file) return reject(new Error("the file input holds no file"));
        const list = chunks ?? [{ start: 0, end: file.size, inFlight: 1 }];
        const statuses: number[] = new Array<number>(list.length).fill(0);
        const bodies: string[] = new Array<string>(list.length).fill("");
        let next = 0;
        let running = 0;
        let done = 0;
        let most = 0;
        let start = 0;
        const fail = (why: string) => reject(new Error(why));
        const pump = () => {
          while (next < list.length && running < list[next]!.inFlight) {
            const i = next++;
            const chunk = list[i]!;
            const xhr = new XMLHttpRequest();
            xhr.open("PUT", `${prefix}/${chunk.start}`);
            xhr.timeout = timeoutMs;
            xhr.onload = () => {
              statuses[i] = xhr.status;
              bodies[i] = xhr.responseText;
              running -= 1;
              done += 1;
              if (done === list.length) resolve({ ms: performance.now() - start, statuses, bodies, size: file.size, mostInFlight: most });
              else pump();
            };
            xhr.onerror = () => fail(`the XHR of [${chunk.start}, ${chunk.end}) failed (network error)`);
            xhr.onabort = () => fail("an XHR was aborted");
            xhr.ontimeout = () => fail(`an XHR timed out after ${timeoutMs} ms`);
            running += 1;
            most = Math.max(most, running);
            // The whole File itself when not sliced: Chromium's network service then reads the file by its path.
            xhr.send(chunks === null ? file : file.slice(chunk.start, chunk.end));
          }
        };
        start = performance.now();
        pump();
      }),
    { prefix, chunks, timeoutMs },
  );
}

/**
 * Starts the discarding server and a Chromium with its page; each round sets the test file on the
 * page's input again (untimed, like the UI's input) and sends it after a `sync`.
 */
export async function startCeiling(opts: { file: string; size: number; timeoutMs: number }): Promise<CeilingSession> {
  const server = await startDiscardServer(opts.timeoutMs);
  let measured: MeasuredBrowser | undefined;
  try {
    measured = await launchMeasuredChromium("ceiling");
    const page = await measured.browser.newPage();
    await page.goto(`${server.url}/`);
    await page.evaluate(PAGE_NAME_SHIM);
    const input = page.getByLabel("File to send", { exact: true });
    const browser = measured;
    const once = async (kind: "single" | "sliced", round: number, plan: PlannedChunk[] | null): Promise<CeilingRound> => {
      // A clean disk at the start of every round, as for the UI and the curl uploads.
      await run("sync", [], 300_000);
      await input.setInputFiles(opts.file);
      const prefix = `/discard/${kind}-${round}`;
      const cpu = browser.cpu();
      const ownBefore = process.cpuUsage();
      const started = process.hrtime.bigint();
      const sent = await sendInPage(page, prefix, plan, opts.timeoutMs);
      const nodeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const own = process.cpuUsage(ownBefore);
      const cpuSeconds = cpu();
      if (sent.size !== opts.size) throw new Error(`${kind} round ${round}: the page's File has ${sent.size} bytes, not ${opts.size}`);
      const list = plan ?? [{ start: 0, end: opts.size, inFlight: 1 }];
      let total = 0;
      list.forEach((chunk, i) => {
        const length = chunk.end - chunk.start;
        const got = server.received.get(`${prefix}/${chunk.start}`);
        if (sent.statuses[i] !== 200 || got !== length || sent.bodies[i] !== String(length)) {
          const what = got === undefined ? "no complete body" : `${got} bytes`;
          throw new Error(`${kind} round ${round}: the server received ${what} of [${chunk.start}, ${chunk.end}) (HTTP ${sent.statuses[i]})`);
        }
        total += got;
      });
      if (total !== opts.size) throw new Error(`${kind} round ${round}: the server received ${total} bytes in all, not ${opts.size}`);
      const pageSeconds = sent.ms / 1000;
      const result: CeilingRound = { mibS: opts.size / MIB / pageSeconds, pageSeconds, nodeSeconds, cpuSeconds, receiverCpuSeconds: (own.user + own.system) / 1e6 };
      if (plan) Object.assign(result, { requests: plan.length, mostInFlight: sent.mostInFlight });
      const shape = plan ? `, ${plan.length} slices, at most ${sent.mostInFlight} in flight` : "";
      const cpuText = cpuSeconds === null ? "" : `, Chromium CPU ${cpuSeconds.toFixed(2)} s`;
      log(`  ceiling (${kind}) round ${round}: ${result.mibS.toFixed(0)} MiB/s (${pageSeconds.toFixed(2)} s in the page, ${nodeSeconds.toFixed(2)} s from Node${shape}${cpuText})`);
      return result;
    };
    return {
      single: (round) => once("single", round, null),
      sliced: (round, plan) => once("sliced", round, plan),
      async stop() {
        await browser.browser.close();
        await server.stop();
      },
    };
  } catch (error) {
    await measured?.browser.close();
    await server.stop();
    throw error;
  }
}
