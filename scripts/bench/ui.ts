import { link, rm, stat } from "node:fs/promises";
import path from "node:path";
import { type Browser, chromium, type Page } from "@playwright/test";
import { ROOT, type BenchUser, type EngineProcess } from "./engine";
import { freePort, log, onCleanup, run, startChild, stopChild, tempDir, waitFor } from "./lifecycle";
import { median } from "./series";

/**
 * An upload as a person makes it: the built web client under remix-serve against the bench's
 * engine, Debian's Chromium driven by Playwright (as playwright.config.ts does), sign in, open
 * /personal, give the upload input the file, wait until the transfer panel shows it uploaded.
 * The time runs from handing over the file to that moment, so it holds the browser's BLAKE3 of
 * the file, the tus PATCHes and the commit — everything the person waits for.
 */

const MIB = 1024 * 1024;

export interface UiResult {
  samples: number[];
  /** Per round: seconds until every byte was sent, then until the commit was shown (null: not seen). */
  phases: { sendSeconds: number | null; checkSeconds: number | null }[];
  best: number;
  median: number;
}

async function startWeb(engine: EngineProcess): Promise<{ url: string; stop(): Promise<void> }> {
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

/**
 * Debian's Chromium, headless, with the launch arguments of playwright.config.ts; also closed at
 * cleanup (error, Ctrl-C). Every browser the bench starts comes from here, so all measure alike.
 * `executablePath`: the WAN part's wrapper that runs the same Chromium inside the client namespace.
 */
export async function launchChromium(executablePath = "/usr/bin/chromium"): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  onCleanup(() => browser.close());
  return browser;
}

export async function measureUiUpload(opts: { engine: EngineProcess; user: BenchUser; file: string; size: number; rounds: number; timeoutMs: number }): Promise<UiResult> {
  const web = await startWeb(opts.engine);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await signIn(page, web.url, opts.user);
    await page.goto(`${web.url}/personal`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
    const input = page.getByLabel("Upload files", { exact: true });
    // Each round a new name (no overwrite question), each a hard link of the same bytes.
    const dir = await tempDir("ui");
    const samples: number[] = [];
    const phases: UiResult["phases"] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      const name = `ui-${round}.bin`;
      const file = path.join(dir, name);
      await link(opts.file, file);
      // A clean disk at the start of every round, as for the curl uploads (main.ts).
      await run("sync", [], 300_000);
      const started = process.hrtime.bigint();
      await input.setInputFiles(file);
      const sent = await uploaded(page, name, opts.timeoutMs);
      const ended = process.hrtime.bigint();
      const seconds = Number(ended - started) / 1e9;
      phases.push(sent === null ? { sendSeconds: null, checkSeconds: null } : { sendSeconds: Number(sent - started) / 1e9, checkSeconds: Number(ended - sent) / 1e9 });
      const stored = await stat(path.join(opts.user.homeDir, name));
      if (stored.size !== opts.size) throw new Error(`the UI stored ${stored.size} bytes of ${opts.size}`);
      await rm(path.join(opts.user.homeDir, name));
      await run("sync", [], 300_000);
      const speed = opts.size / MIB / seconds;
      samples.push(speed);
      const phase = phases.at(-1)!;
      const split = phase.sendSeconds === null ? "" : `: bytes sent after ${phase.sendSeconds.toFixed(2)} s, commit shown ${phase.checkSeconds!.toFixed(2)} s later`;
      log(`  ui round ${round}/${opts.rounds}: ${speed.toFixed(0)} MiB/s (${seconds.toFixed(2)} s${split})`);
    }
    return { samples, phases, best: Math.max(...samples), median: median(samples)! };
  } finally {
    await browser.close();
    await web.stop();
  }
}
