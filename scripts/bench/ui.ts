import { link, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import type { PlannedChunk } from "./browser-ceiling";
import { cpuMeter, launchMeasuredChromium, PAGE_NAME_SHIM } from "./chromium";
import { ROOT, type BenchUser, type EngineProcess } from "./engine";
import { freePort, log, run, startChild, stopChild, tempDir, waitFor } from "./lifecycle";
import { median } from "./series";

/**
 * An upload as a person makes it: the built web client under remix-serve against the bench's
 * engine, Debian's Chromium driven by Playwright (as playwright.config.ts does), sign in, open
 * /personal, give the upload input the file, wait until the transfer panel shows it uploaded.
 * The time runs from handing over the file to that moment, so it holds the browser's BLAKE3 of
 * the file, the tus PATCHes and the commit — everything the person waits for.
 */

const MIB = 1024 * 1024;

/** One UI round. Times in seconds from handing over the file; null when not seen. */
export interface UiRound {
  mibS: number;
  seconds: number;
  /** Until the row said "Checking on the server" (every byte sent), then until it said "Uploaded". */
  sendSeconds: number | null;
  checkSeconds: number | null;
  /** CPU seconds (user + system) of the browser process and all its descendants during the round (null: not found). */
  cpuSeconds: number | null;
  /** CPU seconds of the engine process (its threads included) during the round. */
  engineCpuSeconds: number;
  /** The PATCH requests (Ferry's parallel chunks, or tus's one PATCH), most in flight at once, and their plan in start order. */
  requests: number;
  mostInFlight: number;
  chunks: PlannedChunk[];
  /** Why `chunks` cannot be replayed (a retried or failed request, offsets that do not tile the file). */
  planError?: string;
  /** The last PATCH's response arrived (the engine stored the file's last byte and said so). */
  lastByteSeconds: number | null;
  /** The page sent `commit` on its socket, and the engine's reply arrived. */
  commitSentSeconds: number | null;
  commitReplySeconds: number | null;
  /** The row said "Checking on the server" and "Uploaded" (a MutationObserver in the page, reported through a binding). */
  checkingShownSeconds: number | null;
  uploadedShownSeconds: number | null;
  /** uploadedShownSeconds − lastByteSeconds: what the person waits after the last byte. */
  lastByteToUploadedSeconds: number | null;
}

export interface UiResult {
  rounds: UiRound[];
  samples: number[];
  /** Per round: seconds until every byte was sent, then until the commit was shown (null: not seen). */
  phases: { sendSeconds: number | null; checkSeconds: number | null }[];
  best: number;
  median: number;
}

/** The built web client under remix-serve against `engine` (built first when the sources changed). */
export async function startWeb(engine: EngineProcess): Promise<{ url: string; stop(): Promise<void> }> {
  // Builds only when the sources changed since the last build (the same step the e2e run takes).
  const build = await run(process.execPath, ["--import", "tsx", "tests/support/e2e-build.ts"], 600_000, { cwd: ROOT });
  if (build.code !== 0) throw new Error(`web build failed: ${build.stderr.trim().split("\n").slice(-3).join(" ")}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startChild(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      FERRY_ENGINE_URL: engine.apiUrl,
      FERRY_API_PORT: "",
      FERRY_HASHID_SALT: engine.salt,
      FERRY_DATA_DIR: await tempDir("web"),
      FERRY_ENGLISH_ONLY: "1",
    },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  await waitFor("remix-serve", 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`remix-serve exited with ${child.exitCode}: ${stderr.trim()}`);
    return (await fetch(`${url}/favicon.svg`)).ok ? true : undefined;
  });
  log(`web pid ${child.pid} at ${url}`);
  return { url, stop: () => stopChild(child) };
}

async function signIn(page: Page, web: string, user: BenchUser) {
  await page.goto(`${web}/signin`);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
  await page.getByLabel("Account", { exact: true }).fill(user.account);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 30_000 });
}

/**
 * Waits until the transfer panel's row of `name` says Uploaded (throws when it says the upload
 * failed); returns when the bytes were all sent (the row said "Checking on the server"), or null
 * when that state was too short to see.
 */
async function uploaded(page: Page, name: string, timeoutMs: number): Promise<bigint | null> {
  const row = page.getByRole("region", { name: "Transfers", exact: true }).getByRole("listitem", { name, exact: true });
  const status = row.getByText(/^(Checking on the server|Uploaded|Upload failed)/);
  await status.waitFor({ timeout: timeoutMs });
  let sent: bigint | null = process.hrtime.bigint();
  let text = await status.innerText().catch(() => "");
  if (!/^(Uploaded|Upload failed)/.test(text)) {
    const final = row.getByText(/^(Uploaded|Upload failed)/);
    await final.waitFor({ timeout: timeoutMs });
    text = await final.innerText();
  } else sent = null;
  if (text !== "Uploaded") throw new Error(`the transfer panel says: ${text.replace(/\s+/g, " ")}`);
  return sent;
}

/** Signs `user` in on the web client at `web` (small-files.ts too). */
export { signIn as signInPage };

// Every browser of the bench comes from chromium.ts; wan.ts and wan-ui.ts import it from here.
export { launchChromium } from "./chromium";

/** The transfer panel's row states, seen by a MutationObserver in the page the moment React writes them. */
const ROW_STATES = ["Checking on the server", "Uploaded", "Upload failed"] as const;

/**
 * What a round's requests and socket frames show, in the bench's clock (each event is stamped when
 * Playwright hands it over, a millisecond or so after the browser saw it).
 */
class RoundWatch {
  private on = false;
  private running = 0;
  most = 0;
  /** Per PATCH in start order: its offset. */
  starts: { offset: number }[] = [];
  lastEnd: bigint | null = null;
  failed = 0;
  commitId: number | null = null;
  commitSent: bigint | null = null;
  commitReply: bigint | null = null;
  readonly shown = new Map<string, bigint>();

  constructor(page: Page) {
    const isPatch = (r: Request) => r.method() === "PATCH" && r.url().includes("/uploads/");
    page.on("request", (r) => {
      if (!this.on || !isPatch(r)) return;
      this.running += 1;
      this.most = Math.max(this.most, this.running);
      this.starts.push({ offset: Number(r.headers()["upload-offset"] ?? NaN) });
    });
    const end = (failed: boolean) => (r: Request) => {
      if (!this.on || !isPatch(r)) return;
      this.running = Math.max(0, this.running - 1);
      if (failed) this.failed += 1;
      else this.lastEnd = process.hrtime.bigint();
    };
    page.on("requestfinished", end(false));
    page.on("requestfailed", end(true));
    const parse = (payload: string | Buffer) => {
      try {
        return JSON.parse(payload.toString()) as { id?: number; cmd?: string };
      } catch {
        return {};
      }
    };
    page.on("websocket", (ws) => {
      ws.on("framesent", ({ payload }) => {
        const m = parse(payload);
        if (this.on && m.cmd === "commit" && typeof m.id === "number") {
          this.commitId = m.id;
          this.commitSent = process.hrtime.bigint();
        }
      });
      ws.on("framereceived", ({ payload }) => {
        if (this.on && this.commitId !== null && this.commitReply === null && parse(payload).id === this.commitId) this.commitReply = process.hrtime.bigint();
      });
    });
  }

  begin() {
    Object.assign(this, { on: true, running: 0, most: 0, starts: [], lastEnd: null, failed: 0, commitId: null, commitSent: null, commitReply: null });
    this.shown.clear();
  }

  end() {
    this.on = false;
  }

  /**
   * The chunks in start order with their lengths from the next offset up, and how many were in
   * flight when each started, from the page's own Resource Timing of the PATCHes (`spans`: start
   * and response end, sorted by start; Playwright's events, and its Request.timing() that mixes
   * wall and monotonic clocks, showed a 4th request in flight where the page never had more than
   * 3); an error when they do not tile [0, size) once each.
   */
  plan(size: number, spans: [number, number][]): { chunks: PlannedChunk[]; error?: string } {
    const offsets = this.starts.map((s) => s.offset).sort((a, b) => a - b);
    const error =
      this.failed > 0
        ? `${this.failed} PATCH requests failed (retried)`
        : offsets.some((o, i) => !Number.isInteger(o) || (i > 0 && o === offsets[i - 1]))
          ? "PATCH offsets missing or repeated (a chunk was retried)"
          : offsets[0] !== 0
            ? "no PATCH started at offset 0"
            : spans.length !== this.starts.length
              ? `the page timed ${spans.length} PATCHes, Playwright saw ${this.starts.length}`
              : undefined;
    if (error) return { chunks: [], error };
    const endOf = new Map(offsets.map((o, i) => [o, offsets[i + 1] ?? size]));
    const inFlight = (start: number) => spans.filter(([s, e]) => s <= start && e > start).length;
    return { chunks: this.starts.map((s, i) => ({ start: s.offset, end: endOf.get(s.offset)!, inFlight: inFlight(spans[i]![0]) })) };
  }
}

/**
 * Uploads the file through the UI `rounds` times, each under a new name. `between` runs untimed
 * before each round and after it (with the round's numbers): the send ceilings go there, so that
 * they take turns with the UI rounds and replay the chunks a round sent.
 */
export async function measureUiUpload(opts: {
  engine: EngineProcess;
  user: BenchUser;
  file: string;
  size: number;
  rounds: number;
  timeoutMs: number;
  /** Name of the uploaded files ("ui" → ui-1.bin, …). */
  prefix?: string;
  between?: { before?(round: number): Promise<void>; after?(round: number, result: UiRound): Promise<void> };
}): Promise<UiResult> {
  const web = await startWeb(opts.engine);
  const { browser, cpu } = await launchMeasuredChromium("ui");
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    const watch = new RoundWatch(page);
    await page.exposeFunction("benchRowState", (name: string, state: string) => {
      const key = `${name}|${state}`;
      if (!watch.shown.has(key)) watch.shown.set(key, process.hrtime.bigint());
    });
    await signIn(page, web.url, opts.user);
    await page.goto(`${web.url}/personal`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
    await page.evaluate(PAGE_NAME_SHIM);
    // Room for every chunk of a 4 GiB round (the default buffer keeps 250 entries).
    await page.evaluate(() => performance.setResourceTimingBufferSize(100_000));
    await page.evaluate((states) => {
      const seen = new Set<string>();
      const report = (window as unknown as { benchRowState(name: string, state: string): void }).benchRowState;
      const check = () => {
        for (const row of document.querySelectorAll('[aria-label="Transfers"] li[aria-label]')) {
          const name = row.getAttribute("aria-label") ?? "";
          const text = row.textContent ?? "";
          for (const state of states) {
            if (!text.includes(state) || seen.has(`${name}|${state}`)) continue;
            seen.add(`${name}|${state}`);
            report(name, state);
          }
        }
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    }, ROW_STATES as unknown as string[]);
    const input = page.getByLabel("Upload files", { exact: true });
    // Each round a new name (no overwrite question), each a hard link of the same bytes.
    const dir = await tempDir("ui");
    const rounds: UiRound[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      await opts.between?.before?.(round);
      const name = `${opts.prefix ?? "ui"}-${round}.bin`;
      const file = path.join(dir, name);
      await link(opts.file, file);
      // A clean disk at the start of every round, as for the curl uploads (main.ts).
      await run("sync", [], 300_000);
      await page.evaluate(() => performance.clearResourceTimings());
      watch.begin();
      const cpuOf = cpu();
      const engineCpuOf = await cpuMeter(opts.engine.pid);
      const started = process.hrtime.bigint();
      await input.setInputFiles(file);
      const sent = await uploaded(page, name, opts.timeoutMs);
      const ended = process.hrtime.bigint();
      const cpuSeconds = cpuOf();
      const engineCpuSeconds = engineCpuOf();
      // The observer's report may trail the locator by a moment.
      for (let i = 0; i < 20 && !watch.shown.has(`${name}|Uploaded`); i++) await new Promise((r) => setTimeout(r, 25));
      watch.end();
      await rm(file);
      const since = (t: bigint | null | undefined) => (t === null || t === undefined ? null : Number(t - started) / 1e9);
      const seconds = Number(ended - started) / 1e9;
      const stored = await stat(path.join(opts.user.homeDir, name));
      if (stored.size !== opts.size) throw new Error(`the UI stored ${stored.size} bytes of ${opts.size}`);
      await rm(path.join(opts.user.homeDir, name));
      await run("sync", [], 300_000);
      // The chunk XHRs go to the upload's URL under /uploads/ (the creation POST is a fetch, HEAD too).
      const spans = await page.evaluate(() =>
        (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
          .filter((e) => e.initiatorType === "xmlhttprequest" && new URL(e.name).pathname.includes("/uploads/"))
          .map((e): [number, number] => [e.startTime, e.responseEnd])
          .sort((a, b) => a[0] - b[0]),
      );
      const plan = watch.plan(opts.size, spans);
      const mostInFlight = plan.chunks.length ? Math.max(...plan.chunks.map((c) => c.inFlight)) : watch.most;
      const lastByteSeconds = since(watch.lastEnd);
      const uploadedShownSeconds = since(watch.shown.get(`${name}|Uploaded`));
      const r: UiRound = {
        mibS: opts.size / MIB / seconds,
        seconds,
        sendSeconds: sent === null ? null : Number(sent - started) / 1e9,
        checkSeconds: sent === null ? null : Number(ended - sent) / 1e9,
        cpuSeconds,
        engineCpuSeconds,
        requests: watch.starts.length,
        mostInFlight,
        chunks: plan.chunks,
        ...(plan.error ? { planError: plan.error } : {}),
        lastByteSeconds,
        commitSentSeconds: since(watch.commitSent),
        commitReplySeconds: since(watch.commitReply),
        checkingShownSeconds: since(watch.shown.get(`${name}|Checking on the server`)),
        uploadedShownSeconds,
        lastByteToUploadedSeconds: lastByteSeconds === null || uploadedShownSeconds === null ? null : uploadedShownSeconds - lastByteSeconds,
      };
      rounds.push(r);
      const f = (v: number | null) => (v === null ? "?" : v.toFixed(2));
      const after = (v: number | null) => (v === null || lastByteSeconds === null ? "?" : (v - lastByteSeconds).toFixed(2));
      log(
        `  ui round ${round}/${opts.rounds}: ${r.mibS.toFixed(0)} MiB/s (${seconds.toFixed(2)} s; ${r.requests} PATCHes, at most ${r.mostInFlight} at once; ` +
          `last byte stored at ${f(lastByteSeconds)} s, then commit sent +${after(r.commitSentSeconds)}, replied +${after(r.commitReplySeconds)}, "Uploaded" shown +${after(uploadedShownSeconds)} s` +
          `${cpuSeconds === null ? "" : `; Chromium CPU ${cpuSeconds.toFixed(2)} s`}, engine CPU ${engineCpuSeconds.toFixed(2)} s)`,
      );
      await opts.between?.after?.(round, r);
    }
    const samples = rounds.map((r) => r.mibS);
    return { rounds, samples, phases: rounds.map((r) => ({ sendSeconds: r.sendSeconds, checkSeconds: r.checkSeconds })), best: Math.max(...samples), median: median(samples)! };
  } finally {
    await browser.close();
    await web.stop();
  }
}
