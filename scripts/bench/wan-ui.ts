import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { chmod, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { once } from "node:events";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import { blake3File } from "../../server/uploads/hash";
import { startNginx } from "./baselines";
import { ROOT, type BenchUser, startEngineProcess } from "./engine";
import { connectFerry } from "./ferry";
import { freePort, log, run, startChild, stopChild, tempDir, waitFor } from "./lifecycle";
import { median } from "./series";
import { failure } from "./report";
import { launchChromium } from "./ui";
import { bridgeToServer, CLIENT_NS, clientCc, delayDaemonCpuSeconds, inNamespace, linkDown, linkUp, machineCpu, pageDownload, type Profile, SERVER_IP, SERVER_NS, serverCc } from "./wan-link";

/**
 * Part `wan`, the web client's rows (issue 16): over the emulated link, Chromium inside the client
 * namespace uses the real web UI (remix-serve and the engine inside the server namespace, both
 * reached at 198.18.2.2 through the link, as a user's browser reaches them):
 *  - `wan_ui_upload_vs_chromium_put`: the UI's upload of a file (parallel chunks,
 *    app/transfers/chunked-upload.client.ts), client CUBIC, from handing over the file to
 *    "Uploaded" in the panel ÷ the same Chromium sending the same file in one `xhr.send(file)` PUT
 *    to nginx WebDAV (also in the server namespace), windowed: a PUT still running at the window's
 *    end is rated by the bytes nginx's socket received by then (`ss`), then aborted;
 *  - `wan_ui_parallel_download_vs_single`: the UI's page-written download (parallel ranges,
 *    app/transfers/parallel-download.client.ts, written into the Origin Private File System as
 *    tests/e2e/parallel-download.spec.ts does, BLAKE3-checked) from the click on Download to "Saved
 *    and checked" ÷ one `fetch` of the same signed URL in the same Chromium (one stream, as the
 *    browser's download manager takes it), windowed, server CUBIC.
 * Rates in bytes/s (MB/s = 10^6 B/s in the report). docs/bench.md, "WAN: the web client's rows".
 */

const MIB = 1024 * 1024;
/** The client namespace's address (wan-link.sh): the server's sockets towards it are the link's. */
const CLIENT_ADDRESS = "198.18.1.2";

/** Per profile: file sizes and the baselines' windows (seconds), chosen so a round takes tens of seconds. */
export const WAN_UI_PLAN: Record<"a" | "b", { uploadBytes: number; downloadBytes: number; putWindow: number; singleWindow: number; uiTimeoutS: number }> = {
  // 100 Mbit/s, 100 ms, 2 %: one CUBIC stream carries ~0.15 MB/s.
  a: { uploadBytes: 32 * MIB, downloadBytes: 64 * MIB, putWindow: 30, singleWindow: 30, uiTimeoutS: 300 },
  // 1 Gbit/s, 20 ms, 0.1 %: one CUBIC stream carries ~3-7 MB/s.
  b: { uploadBytes: 256 * MIB, downloadBytes: 256 * MIB, putWindow: 20, singleWindow: 20, uiTimeoutS: 240 },
};
export type WanUiProfile = keyof typeof WAN_UI_PLAN;
export const isWanUiProfile = (p: Profile): p is WanUiProfile => p in WAN_UI_PLAN;

export interface WanUiSeries {
  /** Bytes per second of each round. */
  samples: number[];
  /** Per round: seconds timed, and whether a window cut the transfer (its rate is bytes received ÷ time). */
  seconds: number[];
  cut: boolean[];
  /** Per round: the most requests of the transfer in flight at once (UI only), and how many there were. */
  mostInFlight: number[];
  requests: number[];
  /** Per round (UI only): each request as [first byte's offset, MiB, start s, end s] from the round's start. */
  timeline: [number, number, number, number][][];
  /** Per round: the congestion control of the sending side's sockets 3 s into the transfer (`ss -ti`; empty: it ended sooner). */
  cc: string[][];
  /** Per round: the share of both cores busy (every process, the delay daemon and interrupts included). */
  machineBusy: number[];
  best: number | null;
  median: number | null;
  error?: string;
}

export interface WanUiProfileResult {
  profile: WanUiProfile;
  uploadBytes: number;
  downloadBytes: number;
  putWindowSeconds: number;
  singleWindowSeconds: number;
  series: { ui_upload: WanUiSeries; chromium_put: WanUiSeries; ui_parallel_download: WanUiSeries; chromium_single_download: WanUiSeries };
  /** best ÷ best (null with a reason in the series' error). */
  uploadRatio: number | null;
  downloadRatio: number | null;
  delayCpuSeconds: number | null;
  wallSeconds: number;
  error?: string;
}

type SeriesName = keyof WanUiProfileResult["series"];
const SERIES: SeriesName[] = ["ui_upload", "chromium_put", "ui_parallel_download", "chromium_single_download"];
const emptySeries = (): WanUiSeries => ({ samples: [], seconds: [], cut: [], mostInFlight: [], requests: [], timeline: [], cc: [], machineBusy: [], best: null, median: null });

async function writeRandomFile(file: string, size: number) {
  const out = createWriteStream(file, { highWaterMark: MIB });
  for (let written = 0; written < size; written += MIB) if (!out.write(randomBytes(Math.min(MIB, size - written)))) await once(out, "drain");
  out.end();
  await once(out, "finish");
}

/** The web client (built when stale, as the e2e run does) under remix-serve inside the server namespace, on every address there. */
async function startWebInNamespace(engineApiPort: number, salt: string, port: number): Promise<{ stop(): Promise<void> }> {
  const build = await run(process.execPath, ["--import", "tsx", "tests/support/e2e-build.ts"], 600_000, { cwd: ROOT });
  if (build.code !== 0) throw new Error(`web build failed: ${build.stderr.trim().split("\n").slice(-3).join(" ")}`);
  const child = startChild("ip", inNamespace(SERVER_NS, process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"]), {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "0.0.0.0",
      FERRY_ENGINE_URL: `http://127.0.0.1:${engineApiPort}`,
      FERRY_API_PORT: "",
      FERRY_HASHID_SALT: salt,
      FERRY_DATA_DIR: await tempDir("wan-web"),
      FERRY_ENGLISH_ONLY: "1",
    },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  // The port is bridged to the host's loopback (control only).
  await waitFor("remix-serve in the server namespace", 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`remix-serve exited with ${child.exitCode}: ${stderr.trim()}`);
    return (await fetch(`http://127.0.0.1:${port}/favicon.svg`)).ok ? true : undefined;
  });
  log(`  web pid ${child.pid} at http://${SERVER_IP}:${port} (in ${SERVER_NS})`);
  return { stop: () => stopChild(child) };
}

/** Bytes the server namespace's sockets on `port` have received (`ss -ti`'s bytes_received, summed). */
async function bytesReceivedOn(port: number): Promise<number> {
  const result = await run("ip", inNamespace(SERVER_NS, "ss", ["-tinH", "state", "established", `( sport = :${port} )`]), 10_000);
  if (result.code !== 0) throw new Error(`ss: exit ${result.code} ${result.stderr.trim()}`);
  let sum = 0;
  for (const match of result.stdout.matchAll(/bytes_received:(\d+)/g)) sum += Number(match[1]);
  return sum;
}

/**
 * The congestion control of the sending side's sockets of a transfer, read with `ss -ti` a few
 * seconds into it: the proof that the timed bytes went with CUBIC.
 */
function sampleCc(ns: string, filter: string, afterMs = 3000): { stop(): Promise<string[]> } {
  const found = new Set<string>();
  let sampling: Promise<void> | null = null;
  const timer = setTimeout(() => {
    sampling = run("ip", inNamespace(ns, "ss", ["-tinH", "state", "established", filter]), 10_000)
      .then((result) => {
        for (const m of result.stdout.matchAll(/\b(cubic|bbr|reno|bic|htcp|vegas|westwood)\b/g)) found.add(m[1]!);
      })
      .catch(() => undefined);
  }, afterMs);
  return {
    async stop() {
      clearTimeout(timer);
      await sampling;
      return [...found].sort();
    },
  };
}

/** Requests matching `match` in flight on `page`: the most at once and how many started, from `start()` on. */
function inFlight(page: Page, match: (request: Request) => boolean, span: (request: Request) => [number, number]) {
  let now = 0;
  let most = 0;
  let count = 0;
  let on = false;
  let t0 = 0;
  const open = new Map<Request, [number, number, number, number]>();
  let timeline: [number, number, number, number][] = [];
  const at = () => Math.round((performance.now() - t0) / 100) / 10;
  page.on("request", (request) => {
    if (!on || !match(request)) return;
    now += 1;
    count += 1;
    most = Math.max(most, now);
    const [offset, bytes] = span(request);
    const entry: [number, number, number, number] = [offset, Math.round((bytes / MIB) * 100) / 100, at(), -1];
    open.set(request, entry);
    timeline.push(entry);
  });
  const end = (request: Request) => {
    if (!on || !match(request)) return;
    now = Math.max(0, now - 1);
    const entry = open.get(request);
    if (entry) entry[3] = at();
    open.delete(request);
  };
  page.on("requestfinished", end);
  page.on("requestfailed", end);
  return {
    start() {
      on = true;
      now = most = count = 0;
      t0 = performance.now();
      timeline = [];
      open.clear();
    },
    stop() {
      on = false;
      return { most, count, timeline };
    },
  };
}

const PUT_PAGE = `<!doctype html><meta charset="utf-8"><title>One PUT</title>
<label for="file">File to send</label> <input type="file" id="file">`;

async function measureProfile(profile: WanUiProfile, rounds: number): Promise<WanUiProfileResult> {
  const plan = WAN_UI_PLAN[profile];
  const result: WanUiProfileResult = {
    profile,
    uploadBytes: plan.uploadBytes,
    downloadBytes: plan.downloadBytes,
    putWindowSeconds: plan.putWindow,
    singleWindowSeconds: plan.singleWindow,
    series: Object.fromEntries(SERIES.map((s) => [s, emptySeries()])) as WanUiProfileResult["series"],
    uploadRatio: null,
    downloadRatio: null,
    delayCpuSeconds: null,
    wallSeconds: 0,
  };
  const started = Date.now();
  const stops: (() => Promise<void>)[] = [];
  try {
    log(await linkUp(profile));
    // Both ends CUBIC before the first connection: a socket keeps the congestion control of its
    // route when it was opened, and the browser reuses keep-alive connections (an upload's for a
    // later download), so switching between the phases would leave BBR on reused connections.
    await clientCc("cubic");
    await serverCc("cubic");
    const delayCpuStart = delayDaemonCpuSeconds();
    const [apiPort, filePort, nginxPort, webPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const bridge = await bridgeToServer([apiPort, filePort, nginxPort, webPort]);
    stops.push(() => bridge.stop());
    const engine = await startEngineProcess(await tempDir("wan-ui-engine"), {}, { netns: SERVER_NS, apiPort, filePort });
    stops.push(() => engine.stop());
    const user: BenchUser = await engine.createUser("bench");
    const ferry = await connectFerry(engine, user);
    stops.push(() => ferry.close());
    const files = await tempDir("wan-ui-files");
    await writeFile(path.join(files, "put.html"), PUT_PAGE);
    const uploadFile = path.join(files, "upload.bin");
    await writeRandomFile(uploadFile, plan.uploadBytes);
    const downloadFile = path.join(files, "download.bin");
    await writeRandomFile(downloadFile, plan.downloadBytes);
    const downloadHash = await blake3File(downloadFile);
    const nginx = await startNginx(files, { netns: SERVER_NS, port: nginxPort });
    stops.push(() => nginx.stop());
    const web = await startWebInNamespace(apiPort, engine.salt, webPort);
    stops.push(() => web.stop());

    // Chromium inside the client namespace. The pages are plain http at 198.18.2.2, which is not a
    // secure context; the flag makes the web's and the file server's origins count as one (as
    // 127.0.0.1 does in e2e, and https does for users) so the Origin Private File System is there.
    const secure = [webPort, filePort, nginxPort].map((p) => `http://${SERVER_IP}:${p}`).join(",");
    const wrapper = path.join(await tempDir("wan-ui-chromium"), "chromium");
    await writeFile(wrapper, `#!/bin/sh\nexec ip netns exec ${CLIENT_NS} /usr/bin/chromium --unsafely-treat-insecure-origin-as-secure=${secure} "$@"\n`);
    await chmod(wrapper, 0o755);
    const browser = await launchChromium(wrapper);
    stops.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    // The OS save dialog cannot be driven: showSaveFilePicker hands out a real OPFS file (as in e2e).
    await context.addInitScript(() => {
      (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async (options?: { suggestedName?: string }) => {
        const root = await navigator.storage.getDirectory();
        return root.getFileHandle(options?.suggestedName ?? "download", { create: true });
      };
    });
    const web1 = `http://${SERVER_IP}:${webPort}`;
    const ui = await context.newPage();
    ui.setDefaultTimeout(120_000);
    await ui.goto(`${web1}/signin`);
    await ui.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await ui.getByLabel("Account", { exact: true }).fill(user.account);
    await ui.getByLabel("Password", { exact: true }).fill(user.password);
    await ui.getByRole("button", { name: "Sign in", exact: true }).click();
    await ui.waitForURL((url) => !url.pathname.startsWith("/signin"));
    const putPage = await context.newPage();
    await putPage.goto(`http://${SERVER_IP}:${nginxPort}/files/put.html`);
    const filePage = await context.newPage();
    await filePage.goto(`http://${SERVER_IP}:${filePort}/health`);
    const patches = inFlight(
      ui,
      (r) => r.method() === "PATCH" && r.url().includes("/uploads/"),
      (r) => [Number(r.headers()["upload-offset"] ?? -1), Number(r.headers()["content-length"] ?? 0)],
    );
    const ranges = inFlight(
      ui,
      (r) => r.url().includes("/download/") && r.headers().range !== undefined,
      (r) => {
        const m = /^bytes=(\d+)-(\d+)/.exec(r.headers().range ?? "");
        return m ? [Number(m[1]), Number(m[2]) - Number(m[1]) + 1] : [-1, 0];
      },
    );
    // FERRY_BENCH_TRACE=1: every request and WebSocket frame of the UI page in a transfer's first seconds, on stderr (where its start goes).
    const tracing = process.env.FERRY_BENCH_TRACE === "1";
    let traceT0: number | null = null;
    if (tracing) {
      const trace = (what: string) => {
        if (traceT0 === null) return;
        const at = (performance.now() - traceT0) / 1000;
        if (at < 6) log(`    trace ${at.toFixed(3)} s ${what}`);
      };
      ui.on("request", (r) => trace(`request ${r.method()} ${r.url().replace(/\?.*$/, "").slice(0, 90)}`));
      ui.on("requestfinished", (r) => trace(`finished ${r.method()} ${r.url().replace(/\?.*$/, "").slice(0, 90)}`));
      ui.on("websocket", (ws) => {
        ws.on("framesent", (f) => trace(`ws sent ${String(f.payload).slice(0, 80)}`));
        ws.on("framereceived", (f) => trace(`ws received ${String(f.payload).slice(0, 60)}`));
      });
    }
    const panelRow = (name: string) => ui.getByRole("region", { name: "Transfers", exact: true }).getByRole("listitem", { name, exact: true });

    const timed = async (name: SeriesName, body: () => Promise<{ bytes: number; seconds: number; cut: boolean; most?: number; count?: number; timeline?: [number, number, number, number][]; cc?: string[] }>) => {
      const s = result.series[name];
      if (s.error) return;
      try {
        const cpu = machineCpu();
        const t = await body();
        const after = machineCpu();
        const rate = t.bytes / t.seconds;
        s.samples.push(rate);
        s.seconds.push(t.seconds);
        s.cut.push(t.cut);
        if (t.most !== undefined) s.mostInFlight.push(t.most);
        if (t.count !== undefined) s.requests.push(t.count);
        if (t.timeline) s.timeline.push(t.timeline);
        s.cc.push(t.cc ?? []);
        s.machineBusy.push((after.busy - cpu.busy) / Math.max(1, after.total - cpu.total));
        const streams = (t.most === undefined ? "" : `; ${t.count} requests, at most ${t.most} at once`) + (t.cc?.length ? `; sender ${t.cc.join("+")}` : "");
        log(`  ${name}: ${(rate / 1e6).toFixed(3)} MB/s (${(t.bytes / 1e6).toFixed(1)} MB in ${t.seconds.toFixed(1)} s${t.cut ? ", window" : ""}${streams}; both cores ${(100 * s.machineBusy.at(-1)!).toFixed(0)} % busy)`);
      } catch (error) {
        s.error = failure(error);
        log(`  ${name} failed: ${s.error}`);
      }
    };

    const uiUpload = (round: number) =>
      timed("ui_upload", async () => {
        const name = `up-${round}.bin`;
        const copy = path.join(files, name);
        await rm(copy, { force: true });
        await run("ln", [uploadFile, copy], 10_000);
        // The tab the user looks at: a background tab's animation frames are held back (Playwright's
        // click waited ~2 s for "stable" on the Download button, and its waits for the panel's text poll by frames).
        await ui.bringToFront();
        await ui.goto(`${web1}/personal`);
        await ui.locator("html[data-hydrated]").waitFor({ state: "attached" });
        const input = ui.getByLabel("Upload files", { exact: true });
        patches.start();
        traceT0 = performance.now();
        const cc = sampleCc(CLIENT_NS, `( dport = :${filePort} )`);
        const t0 = process.hrtime.bigint();
        await input.setInputFiles(copy);
        const status = panelRow(name).getByText(/^(Uploaded|Upload failed)/);
        await status.waitFor({ timeout: plan.uiTimeoutS * 1000 });
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        const { most, count, timeline } = patches.stop();
        const text = await status.innerText();
        if (text !== "Uploaded") throw new Error(`the transfer panel says: ${text.replace(/\s+/g, " ")}`);
        const stored = path.join(user.homeDir, name);
        const size = (await stat(stored)).size;
        if (size !== plan.uploadBytes) throw new Error(`the UI stored ${size} bytes of ${plan.uploadBytes}`);
        await rm(stored);
        return { bytes: plan.uploadBytes, seconds, cut: false, most, count, timeline, cc: await cc.stop() };
      });

    const chromiumPut = (round: number) =>
      timed("chromium_put", async () => {
        await putPage.bringToFront();
        await putPage.getByLabel("File to send", { exact: true }).setInputFiles(uploadFile);
        const target = `/put/put-${round}.bin`;
        const cc = sampleCc(CLIENT_NS, `( dport = :${nginxPort} )`);
        const t0 = process.hrtime.bigint();
        await putPage.evaluate((target) => {
          const file = document.querySelector<HTMLInputElement>("#file")!.files![0]!;
          const state = { done: false, status: 0, ms: 0, error: "" };
          (window as unknown as { put: unknown }).put = state;
          const xhr = new XMLHttpRequest();
          (window as unknown as { xhr: XMLHttpRequest }).xhr = xhr;
          xhr.open("PUT", target);
          const start = performance.now();
          xhr.onload = () => Object.assign(state, { done: true, status: xhr.status, ms: performance.now() - start });
          xhr.onerror = () => Object.assign(state, { done: true, error: "network error" });
          xhr.send(file);
        }, target);
        const windowNs = BigInt(plan.putWindow) * 1_000_000_000n;
        for (;;) {
          const state = await putPage.evaluate(() => (window as unknown as { put: { done: boolean; status: number; ms: number; error: string } }).put);
          if (state.done) {
            if (state.error || (state.status !== 201 && state.status !== 204)) throw new Error(`the PUT ended with ${state.error || `HTTP ${state.status}`}`);
            await rm(path.join(nginx.putDir, path.basename(target)), { force: true });
            return { bytes: plan.uploadBytes, seconds: state.ms / 1000, cut: false, cc: await cc.stop() };
          }
          const elapsed = process.hrtime.bigint() - t0;
          if (elapsed >= windowNs) {
            // What crossed the link by now: the bytes nginx's socket received (request line and headers included, ~0.3 KB).
            const bytes = await bytesReceivedOn(nginxPort);
            const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
            await putPage.evaluate(() => (window as unknown as { xhr: XMLHttpRequest }).xhr.abort());
            if (bytes <= 0) throw new Error("nginx's socket received no bytes in the window");
            return { bytes, seconds, cut: true, cc: await cc.stop() };
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      });

    const uiDownload = (round: number) =>
      timed("ui_parallel_download", async () => {
        const name = `down-${round}.bin`;
        // Untimed, over the control bridge: the file lands with its BLAKE3 recorded, as an upload leaves it.
        await ferry.upload(downloadFile, plan.downloadBytes, downloadHash, `/${name}`, 300_000);
        // The tab the user looks at: a background tab's animation frames are held back (Playwright's
        // click waited ~2 s for "stable" on the Download button, and its waits for the panel's text poll by frames).
        await ui.bringToFront();
        await ui.goto(`${web1}/personal`);
        await ui.locator("html[data-hydrated]").waitFor({ state: "attached" });
        await ui.getByRole("region", { name: /^Files in/ }).getByRole("checkbox", { name: `Select row ${name}` }).check();
        ranges.start();
        traceT0 = performance.now();
        const cc = sampleCc(SERVER_NS, `( sport = :${filePort} and dst ${CLIENT_ADDRESS} )`);
        const t0 = process.hrtime.bigint();
        await ui.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Download", exact: true }).click();
        if (tracing && traceT0 !== null) log(`    trace ${((performance.now() - traceT0) / 1000).toFixed(3)} s Playwright's click returned`);
        const status = panelRow(name).getByText(/^(Saved and checked|Saved; not verified|Saved by your browser|Download failed)/);
        await status.waitFor({ timeout: plan.uiTimeoutS * 1000 });
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        const { most, count, timeline } = ranges.stop();
        const text = await status.innerText();
        if (!text.startsWith("Saved and checked")) throw new Error(`the transfer panel says: ${text.replace(/\s+/g, " ")}`);
        const saved = await ui.evaluate(async (fileName) => {
          const root = await navigator.storage.getDirectory();
          const size = (await (await root.getFileHandle(fileName)).getFile()).size;
          await root.removeEntry(fileName);
          return size;
        }, name);
        if (saved !== plan.downloadBytes) throw new Error(`the page saved ${saved} bytes of ${plan.downloadBytes}`);
        await rm(path.join(user.homeDir, name), { force: true });
        return { bytes: plan.downloadBytes, seconds, cut: false, most, count, timeline, cc: await cc.stop() };
      });

    const singleDownload = () =>
      timed("chromium_single_download", async () => {
        if (!(await stat(path.join(user.homeDir, "single.bin")).catch(() => null))) await ferry.upload(downloadFile, plan.downloadBytes, downloadHash, "/single.bin", 300_000);
        const signed = new URL(await ferry.downloadUrl("/single.bin"));
        const url = `http://${SERVER_IP}:${filePort}${signed.pathname}${signed.search}`;
        const cc = sampleCc(SERVER_NS, `( sport = :${filePort} and dst ${CLIENT_ADDRESS} )`);
        await filePage.bringToFront();
        const t = await pageDownload(filePage, url, plan.singleWindow * 1000);
        return { ...t, cc: await cc.stop() };
      });

    await mkdir(nginx.putDir, { recursive: true });
    for (let round = 1; round <= rounds; round++) {
      log(` profile ${profile}, web client round ${round}/${rounds}`);
      // Uploads: the client is the sender, CUBIC as a stock desktop; downloads: the server, CUBIC (an untuned server).
      const up: (() => Promise<void>)[] = [() => uiUpload(round), () => chromiumPut(round)];
      const down: (() => Promise<void>)[] = [() => uiDownload(round), () => singleDownload()];
      if (round % 2 === 0) {
        up.reverse();
        down.reverse();
      }
      for (const step of [...up, ...down]) await step();
    }
    const delayCpuEnd = delayDaemonCpuSeconds();
    result.delayCpuSeconds = delayCpuStart !== null && delayCpuEnd !== null ? delayCpuEnd - delayCpuStart : null;
  } catch (error) {
    result.error = failure(error);
    log(`  profile ${profile} (web client): ${result.error}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => log(`  stopping: ${failure(error)}`));
    await linkDown().catch((error: unknown) => log(`  wan-link.sh down: ${failure(error)}`));
  }
  for (const s of Object.values(result.series)) {
    s.best = s.samples.length ? Math.max(...s.samples) : null;
    s.median = median(s.samples);
  }
  const ratio = (a: WanUiSeries, b: WanUiSeries) => (a.best !== null && b.best !== null && b.best > 0 ? a.best / b.best : null);
  result.uploadRatio = ratio(result.series.ui_upload, result.series.chromium_put);
  result.downloadRatio = ratio(result.series.ui_parallel_download, result.series.chromium_single_download);
  result.wallSeconds = (Date.now() - started) / 1000;
  return result;
}

/** The web client's WAN rows for each of `profiles` that has them (a and b), each with its own link and servers. */
export async function measureWanUi(options: { profiles: Profile[]; rounds: number }): Promise<WanUiProfileResult[]> {
  if (process.getuid?.() !== 0) throw new Error("the link emulator needs root (network namespaces)");
  const results: WanUiProfileResult[] = [];
  for (const profile of options.profiles) if (isWanUiProfile(profile)) results.push(await measureProfile(profile, options.rounds));
  return results;
}

type Row = { value: number | null; reason?: string };
const UI_PROFILES: WanUiProfile[] = ["a", "b"];

/**
 * The two headline rows and their per-profile lines for main.ts. A headline is the lower of the
 * profiles measured (the goal holds on `a` and `b` alike); a profile that failed makes it null with
 * its reason, never a number of the other profile alone.
 */
export async function wanUiRows(profiles: Profile[], rounds: number): Promise<{ details: WanUiProfileResult[] | string; raw: Record<string, number | null>; headline: Record<"wan_ui_upload_vs_chromium_put" | "wan_ui_parallel_download_vs_single", Row>; extra: Record<string, Row> }> {
  const raw: Record<string, number | null> = {};
  const extra: Record<string, Row> = {};
  const asked = UI_PROFILES.filter((p) => profiles.includes(p));
  if (!asked.length) {
    const reason = "not measured (--wan-profiles has neither a nor b)";
    return { details: [], raw, extra, headline: { wan_ui_upload_vs_chromium_put: { value: null, reason }, wan_ui_parallel_download_vs_single: { value: null, reason } } };
  }
  let results: WanUiProfileResult[];
  try {
    results = await measureWanUi({ profiles: asked, rounds });
  } catch (error) {
    const reason = failure(error);
    log(`wan (web client): ${reason}`);
    return { details: reason, raw, extra, headline: { wan_ui_upload_vs_chromium_put: { value: null, reason }, wan_ui_parallel_download_vs_single: { value: null, reason } } };
  }
  const mb = (v: number | null) => (v === null ? null : v / 1e6);
  const rows = { upload: [] as Row[], download: [] as Row[] };
  for (const r of results) {
    const p = r.profile;
    const s = r.series;
    for (const name of SERIES) raw[`wan_${p}_${name}_mb_s`] = mb(s[name].best);
    const why = (a: WanUiSeries, b: WanUiSeries) => r.error ?? a.error ?? b.error ?? "no round finished";
    const up: Row = r.uploadRatio === null ? { value: null, reason: `${p}: ${why(s.ui_upload, s.chromium_put)}` } : { value: r.uploadRatio };
    const down: Row = r.downloadRatio === null ? { value: null, reason: `${p}: ${why(s.ui_parallel_download, s.chromium_single_download)}` } : { value: r.downloadRatio };
    extra[`wan_${p}_ui_upload_vs_chromium_put`] = up;
    extra[`wan_${p}_ui_parallel_download_vs_single`] = down;
    rows.upload.push(up);
    rows.download.push(down);
  }
  const lowest = (list: Row[]): Row => {
    const missing = list.find((r) => r.value === null);
    if (missing) return missing;
    const value = Math.min(...list.map((r) => r.value!));
    return { value };
  };
  return { details: results, raw, extra, headline: { wan_ui_upload_vs_chromium_put: lowest(rows.upload), wan_ui_parallel_download_vs_single: lowest(rows.download) } };
}
