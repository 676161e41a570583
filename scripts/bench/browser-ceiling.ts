import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { Browser } from "@playwright/test";
import { log, onCleanup, run } from "./lifecycle";
import { median } from "./series";
import { launchChromium } from "./ui";

/**
 * The browser's own ceiling for the UI upload: how fast this Chromium sends the test file in one
 * request to a server that does nothing with it. The same browser build and launch arguments as
 * the UI rounds (ui.ts), the file set on an `<input type=file>`, sent with `xhr.send(file)` as the
 * web client sends a whole File (app/transfers/file-source.ts) — no hashing, no tus, no engine.
 * `ui_upload_vs_nginx_put` cannot rise above `ceiling ÷ nginx PUT` on the same machine.
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
 * A bare HTTP server inside the bench process: `GET /` is the page, `PUT /discard/<round>` counts
 * the body's bytes, drops them, and answers with the count. Closed at the end and at cleanup.
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

interface Proc {
  ppid: number;
  comm: string;
  /** utime + stime in clock ticks. */
  ticks: number;
}

/** Every process of the machine from /proc/<pid>/stat (fields after the command name: state, ppid, … utime at 11, stime at 12). */
function processes(): Map<number, Proc> {
  const all = new Map<number, Proc>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      all.set(Number(name), { ppid: Number(fields[1]), comm: stat.slice(stat.indexOf("(") + 1, close), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // Gone between readdir and read.
    }
  }
  return all;
}

/** CPU ticks of `root` and all its descendants (renderers under the zygote, the network service, …), by pid. */
function treeTicks(root: number): Map<number, number> {
  const all = processes();
  const ticks = new Map<number, number>();
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    const proc = all.get(pid);
    if (!proc || ticks.has(pid)) continue;
    ticks.set(pid, proc.ticks);
    for (const [child, p] of all) if (p.ppid === pid) queue.push(child);
  }
  return ticks;
}

/** CPU between two snapshots; a process started in between counts whole, one that ended in between is lost (none do during a send). */
function ticksBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ticks] of after) sum += ticks - (before.get(pid) ?? 0);
  return sum;
}

/** Chromium children of the bench process (Playwright spawns the browser from this process; Debian's wrapper execs into it). */
const chromiumChildren = () => new Set([...processes()].filter(([, p]) => p.ppid === process.pid && p.comm === "chromium").map(([pid]) => pid));

async function clockTicksPerSecond(): Promise<number> {
  const out = await run("getconf", ["CLK_TCK"], 10_000).catch(() => null);
  const n = Number(out?.stdout.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
}

export async function measureBrowserCeiling(opts: { file: string; size: number; rounds: number; timeoutMs: number }): Promise<CeilingResult> {
  const server = await startDiscardServer(opts.timeoutMs);
  const hz = await clockTicksPerSecond();
  let browser: Browser | undefined;
  try {
    const earlier = chromiumChildren();
    browser = await launchChromium();
    const found = [...chromiumChildren()].filter((pid) => !earlier.has(pid));
    const browserPid = found.length === 1 ? found[0]! : null;
    if (browserPid === null) log(`  ceiling: ${found.length} new Chromium processes under the bench, not 1: no CPU seconds`);
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const input = page.getByLabel("File to send", { exact: true });
    const result: Omit<CeilingResult, "best" | "median"> = { samples: [], cpuSeconds: browserPid === null ? null : [], pageSeconds: [], nodeSeconds: [], receiverCpuSeconds: [] };
    for (let round = 1; round <= opts.rounds; round++) {
      // A clean disk at the start of every round, as for the UI and the curl uploads.
      await run("sync", [], 300_000);
      // Untimed: a new File each round, like the UI's input.
      await input.setInputFiles(opts.file);
      const path = `/discard/${round}`;
      const cpuBefore = browserPid === null ? null : treeTicks(browserPid);
      const ownBefore = process.cpuUsage();
      const started = process.hrtime.bigint();
      const sent = await page.evaluate(
        ({ path, timeoutMs }) =>
          new Promise<{ ms: number; status: number; body: string; size: number }>((resolve, reject) => {
            const file = document.querySelector<HTMLInputElement>("#file")?.files?.[0];
            if (!file) return reject(new Error("the file input holds no file"));
            const xhr = new XMLHttpRequest();
            xhr.open("PUT", path);
            xhr.timeout = timeoutMs;
            let start = 0;
            xhr.onload = () => resolve({ ms: performance.now() - start, status: xhr.status, body: xhr.responseText, size: file.size });
            xhr.onerror = () => reject(new Error("the XHR failed (network error)"));
            xhr.onabort = () => reject(new Error("the XHR was aborted"));
            xhr.ontimeout = () => reject(new Error(`the XHR timed out after ${timeoutMs} ms`));
            start = performance.now();
            xhr.send(file);
          }),
        { path, timeoutMs: opts.timeoutMs },
      );
      const nodeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const own = process.cpuUsage(ownBefore);
      const cpu = cpuBefore === null ? null : ticksBetween(cpuBefore, treeTicks(browserPid!)) / hz;
      const got = server.received.get(path);
      if (sent.size !== opts.size) throw new Error(`round ${round}: the page's File has ${sent.size} bytes, not ${opts.size}`);
      if (sent.status !== 200 || got !== opts.size || sent.body !== String(opts.size)) {
        const what = got === undefined ? "no complete body" : `${got} bytes`;
        throw new Error(`round ${round}: the server received ${what} of ${opts.size} (HTTP ${sent.status}, answer "${sent.body.slice(0, 40)}")`);
      }
      const seconds = sent.ms / 1000;
      result.samples.push(opts.size / MIB / seconds);
      result.pageSeconds.push(seconds);
      result.nodeSeconds.push(nodeSeconds);
      result.receiverCpuSeconds.push((own.user + own.system) / 1e6);
      if (cpu !== null) result.cpuSeconds!.push(cpu);
      const cpuText = cpu === null ? "" : `, Chromium CPU ${cpu.toFixed(2)} s`;
      log(`  ceiling round ${round}/${opts.rounds}: ${result.samples.at(-1)!.toFixed(0)} MiB/s (${seconds.toFixed(2)} s in the page, ${nodeSeconds.toFixed(2)} s from Node${cpuText})`);
    }
    return { ...result, best: Math.max(...result.samples), median: median(result.samples)! };
  } finally {
    await browser?.close();
    await server.stop();
  }
}
