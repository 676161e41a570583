import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { startNginx } from "./baselines";
import { cpuMeter, launchMeasuredChromium, PAGE_NAME_SHIM } from "./chromium";
import type { BenchUser, EngineProcess } from "./engine";
import { log, run, tempDir } from "./lifecycle";
import { failure, type MetricKey, type Outcome } from "./report";
import { median } from "./series";
import { signInPage, startWeb } from "./ui";

/**
 * Part `smallfiles`, row `small_files_ui_vs_nginx_put` (docs/bench.md, "Many small files"):
 * 5,000 files of 4 KiB uploaded through the UI as one folder (Playwright's setInputFiles on the
 * "Upload folder" input, until the batch's summary row says every file was uploaded) ÷ Chromium
 * PUT-ing the same files from a page to the bench's nginx (WebDAV), 6 requests in flight. Both in
 * files per second, from handing the folder to the page until the last file is stored; turn about,
 * best of `rounds` each.
 */

export const SMALL_FILES = 5000;
export const SMALL_FILE_BYTES = 4096;
const PUTS_IN_FLIGHT = 6;

export interface SmallFilesRows {
  headline: Partial<Record<MetricKey, Outcome>>;
  raw: Record<string, number | null>;
  details: Record<string, unknown>;
}


/** The folder `<dir>/<name>` of `count` files of random bytes. */
async function makeFolder(dir: string, name: string, count: number, size: number) {
  const folder = path.join(dir, name);
  await mkdir(folder, { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(path.join(folder, `f${String(i).padStart(5, "0")}.bin`), randomBytes(size));
  return folder;
}

/** One UI round: the folder through the "Upload folder" input, until the summary row says all files are uploaded. */
async function uiRound(page: Page, web: string, folder: string, count: number, timeoutMs: number): Promise<number> {
  // A fresh page each round: the panel starts empty.
  await page.goto(`${web}/personal`);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
  const name = path.basename(folder);
  const summary = page.getByRole("region", { name: "Transfers", exact: true }).getByRole("listitem", { name: `${name} (${count} files)`, exact: true });
  const started = process.hrtime.bigint();
  await page.getByLabel("Upload folder", { exact: true }).setInputFiles(folder);
  await summary.getByText(`${count} of ${count} uploaded`, { exact: true }).waitFor({ timeout: timeoutMs });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return count / seconds;
}

/** One baseline round: a page of nginx's origin PUTs every file of the folder input to nginx, PUTS_IN_FLIGHT at once. */
async function nginxRound(page: Page, putUrl: string, folder: string, round: number, count: number, timeoutMs: number): Promise<number> {
  await page.setContent('<input type="file" webkitdirectory multiple aria-label="folder">');
  // tsx names the page function's helpers (`__name`): defined in the page first.
  await page.evaluate(PAGE_NAME_SHIM);
  const started = process.hrtime.bigint();
  await page.getByLabel("folder").setInputFiles(folder);
  const stored = await page.evaluate(
    async ({ base, round: r, inFlight }) => {
      const input = document.querySelector("input")!;
      const files = Array.from(input.files ?? []);
      let next = 0;
      let ok = 0;
      const worker = async () => {
        while (next < files.length) {
          const file = files[next++]!;
          const response = await fetch(`${base}/r${r}-${file.name}`, { method: "PUT", body: file });
          if (response.ok) ok += 1;
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      return ok;
    },
    { base: putUrl, round, inFlight: PUTS_IN_FLIGHT },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (stored !== count) throw new Error(`nginx stored ${stored} of ${count} files`);
  void timeoutMs;
  return count / seconds;
}

export async function smallFilesRow(opts: { engine: EngineProcess; user: BenchUser; rounds: number; count?: number; timeoutMs?: number }): Promise<SmallFilesRows> {
  const count = opts.count ?? SMALL_FILES;
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const dir = await tempDir("small-files");
  let folder = await makeFolder(dir, "small-1", count, SMALL_FILE_BYTES);
  const ui: number[] = [];
  const put: number[] = [];
  let uiError: string | undefined;
  let putError: string | undefined;
  const nginx = await startNginx(await tempDir("small-files-nginx"));
  const web = await startWeb(opts.engine);
  const { browser, cpu } = await launchMeasuredChromium("smallfiles");
  const cpuOf: { ui: { browser: number | null; engine: number }[]; put: { browser: number | null }[] } = { ui: [], put: [] };
  try {
    const uiPage = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await signInPage(uiPage, web.url, opts.user);
    await uiPage.evaluate(PAGE_NAME_SHIM);
    const putPage = await browser.newPage();
    // Any page of nginx's origin: the PUTs are same-origin, as the UI's are to its file server.
    await putPage.goto(`${nginx.url}/files/`);
    for (let round = 1; round <= opts.rounds; round++) {
      // A new folder name each round (no name question), the same bytes.
      const next = path.join(dir, `small-${round}`);
      if (next !== folder) {
        await rename(folder, next);
        folder = next;
      }
      await run("sync", [], 300_000);
      try {
        const browserCpu = cpu();
        const rate = await nginxRound(putPage, nginx.putUrl, folder, round, count, timeoutMs);
        cpuOf.put.push({ browser: browserCpu() });
        put.push(rate);
        log(`  small files round ${round}/${opts.rounds}: nginx PUT ${rate.toFixed(0)} files/s (${(count / rate).toFixed(1)} s; Chromium CPU ${cpuOf.put.at(-1)!.browser?.toFixed(1) ?? "?"} s)`);
      } catch (error) {
        putError = failure(error);
        log(`  small files round ${round}: nginx PUT failed: ${putError}`);
      }
      for (const name of await readdir(nginx.putDir)) await rm(path.join(nginx.putDir, name), { force: true });
      await run("sync", [], 300_000);
      try {
        const browserCpu = cpu();
        const engineCpu = await cpuMeter(opts.engine.pid);
        const rate = await uiRound(uiPage, web.url, folder, count, timeoutMs);
        cpuOf.ui.push({ browser: browserCpu(), engine: engineCpu() });
        ui.push(rate);
        const landed = (await readdir(path.join(opts.user.homeDir, path.basename(folder)))).length;
        if (landed !== count) throw new Error(`the UI stored ${landed} of ${count} files`);
        const c = cpuOf.ui.at(-1)!;
        log(`  small files round ${round}/${opts.rounds}: UI ${rate.toFixed(0)} files/s (${(count / rate).toFixed(1)} s; Chromium CPU ${c.browser?.toFixed(1) ?? "?"} s, engine CPU ${c.engine.toFixed(1)} s)`);
      } catch (error) {
        uiError = failure(error);
        log(`  small files round ${round}: UI failed: ${uiError}`);
      }
      await rm(path.join(opts.user.homeDir, path.basename(folder)), { recursive: true, force: true });
    }
  } finally {
    await browser.close().catch(() => undefined);
    await web.stop();
    await nginx.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const uiBest = ui.length ? Math.max(...ui) : null;
  const putBest = put.length ? Math.max(...put) : null;
  const value = uiBest !== null && putBest !== null && putBest > 0 ? uiBest / putBest : null;
  return {
    headline: { small_files_ui_vs_nginx_put: value === null ? { value, reason: uiError ?? putError ?? "no number" } : { value } },
    raw: { small_files_ui_files_s: uiBest, small_files_nginx_put_files_s: putBest },
    details: { small_files: { files: count, bytes: SMALL_FILE_BYTES, putsInFlight: PUTS_IN_FLIGHT, ui, nginxPut: put, cpuSeconds: cpuOf, uiMedian: median(ui), nginxPutMedian: median(put) } },
  };
}
