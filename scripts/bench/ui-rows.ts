import path from "node:path";
import { rm } from "node:fs/promises";
import { type CeilingRound, type CeilingSession, startCeiling, summarize } from "./browser-ceiling";
import type { BenchUser, EngineProcess } from "./engine";
import { log, run, tempDir } from "./lifecycle";
import { failure, outcome, type PartRows, ratio } from "./report";
import { median } from "./series";
import { writeTestFile } from "./test-file";
import { measureUiUpload, type UiRound } from "./ui";

/**
 * Parts `ui` and `ui4g` (docs/bench.md): the web client's upload on loopback against Chromium's
 * own send ceilings, and the wait from a 4 GiB upload's last byte to "Uploaded".
 */

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Median CPU seconds per GiB sent over the rounds that have a reading. */
const cpuPerGib = (rounds: { cpuSeconds: number | null }[], size: number) => median(rounds.flatMap((r) => (r.cpuSeconds === null ? [] : [(r.cpuSeconds * GIB) / size])));

/**
 * Turn about, per round: Chromium sends the file in one XHR (the single ceiling), the UI uploads it,
 * then Chromium sends the chunks that UI round sent, in the same order, as many in flight as the UI
 * had (the sliced ceiling: the same connections). Headline: UI best ÷ sliced-ceiling best.
 */
export async function uiRows(opts: { engine: EngineProcess; user: BenchUser; file: string; size: number; rounds: number; timeoutMs: number; nginxPut: number | null; nginxPutReason?: string }): Promise<PartRows> {
  const single: CeilingRound[] = [];
  const sliced: CeilingRound[] = [];
  let singleError: string | undefined;
  let slicedError: string | undefined;
  let ceiling: CeilingSession | undefined;
  try {
    ceiling = await startCeiling({ file: opts.file, size: opts.size, timeoutMs: opts.timeoutMs });
  } catch (error) {
    singleError = slicedError = `no browser ceiling: ${failure(error)}`;
    log(singleError);
  }
  const headline: PartRows["headline"] = {};
  const extra: PartRows["extra"] = {};
  const raw: PartRows["raw"] = {};
  const details: PartRows["details"] = {};
  let uiRounds: UiRound[] = [];
  let uiBest: number | null = null;
  let uiReason: string | undefined;
  try {
    const ui = await measureUiUpload({
      ...opts,
      // The UI waits for the browser's hash and the commit as well: three times the bound.
      timeoutMs: opts.timeoutMs * 3,
      between: {
        before: async (round) => {
          if (!ceiling || singleError) return;
          try {
            single.push(await ceiling.single(round));
          } catch (error) {
            singleError = failure(error);
            log(`  ceiling (single) failed: ${singleError}`);
          }
        },
        after: async (round, r) => {
          if (!ceiling || slicedError) return;
          if (r.planError) {
            // This round cannot be replayed; the next may.
            log(`  ceiling (sliced) round ${round} skipped: ${r.planError}`);
            return;
          }
          try {
            sliced.push(await ceiling.sliced(round, r.chunks));
          } catch (error) {
            slicedError = failure(error);
            log(`  ceiling (sliced) failed: ${slicedError}`);
          }
        },
      },
    });
    uiRounds = ui.rounds;
    uiBest = ui.best;
    details.ui = ui;
  } catch (error) {
    uiReason = failure(error);
    log(`ui: ${uiReason}`);
  } finally {
    await ceiling?.stop();
  }
  const singleSeries = summarize(single, singleError);
  const slicedSeries = summarize(sliced, slicedError ?? (sliced.length === 0 && uiRounds.length ? "no UI round could be replayed: " + (uiRounds.find((r) => r.planError)?.planError ?? "") : undefined));
  details.ui_browser_ceiling = singleSeries;
  details.ui_browser_ceiling_sliced = slicedSeries;
  raw.ui_upload_mib_s = uiBest;
  raw.browser_send_ceiling_mib_s = singleSeries.best;
  raw.browser_send_ceiling_sliced_mib_s = slicedSeries.best;
  // Browser CPU per GiB sent, median of the rounds: one XHR, the UI's slices alone, the UI (slices, hash worker, page).
  raw.browser_cpu_s_per_gib_single = cpuPerGib(single, opts.size);
  raw.browser_cpu_s_per_gib_sliced = cpuPerGib(sliced, opts.size);
  raw.browser_cpu_s_per_gib_ui = cpuPerGib(uiRounds, opts.size);
  // The engine's own CPU in the UI rounds: it shares the two cores with the browser (the ceilings' receiver does next to nothing).
  raw.engine_cpu_s_per_gib_ui = cpuPerGib(uiRounds.map((r) => ({ cpuSeconds: r.engineCpuSeconds })), opts.size);
  const slicedReason = uiReason ?? slicedSeries.error ?? "no sliced ceiling";
  headline.ui_upload_vs_nginx_put = outcome(ratio(uiBest, opts.nginxPut), uiReason ?? opts.nginxPutReason ?? "nginx PUT baseline missing");
  headline.ui_upload_vs_browser_ceiling_same_connections = outcome(ratio(uiBest, slicedSeries.best), slicedReason);
  // Each UI round against the replay of its own chunks, right after it.
  const paired = uiRounds.flatMap((r, i) => {
    const c = sliced[i];
    return c && !r.planError ? [r.mibS / c.mibS] : [];
  });
  if (paired.length === uiRounds.length) details.ui_vs_sliced_ceiling_paired = { samples: paired, median: median(paired) };
  extra.ui_vs_browser_ceiling = outcome(ratio(uiBest, singleSeries.best), uiReason ?? singleSeries.error);
  extra.sliced_ceiling_vs_single = outcome(ratio(slicedSeries.best, singleSeries.best), slicedSeries.error ?? singleSeries.error ?? uiReason);
  extra.ceiling_vs_nginx_put = outcome(ratio(singleSeries.best, opts.nginxPut), singleSeries.error ?? (single.length ? (opts.nginxPutReason ?? "nginx PUT baseline missing") : (uiReason ?? "no ceiling round")));
  details.ui_vs_browser_ceiling = extra.ui_vs_browser_ceiling.value;
  details.ceiling_vs_nginx_put = extra.ceiling_vs_nginx_put.value;
  return { headline, extra, raw, details };
}

const SIZE_4G = 4 * GIB;

/**
 * Part `ui4g`: a 4 GiB file through the UI, `rounds` times; per round the seconds from the last
 * chunk's reply (the engine stored the last byte) to the panel's row saying "Uploaded". Headline:
 * the median of the rounds. Uses the test file when it is 4 GiB (`--size 4G`), else writes its own
 * next to it and removes it at the end.
 */
export async function ui4gRow(opts: { engine: EngineProcess; user: BenchUser; file: string; size: number; rounds: number }): Promise<PartRows> {
  let file = opts.file;
  let own: string | null = null;
  // main.ts's bound for a transfer of this size (10 MiB/s), three times: the UI also hashes and commits.
  const timeoutMs = (60_000 + (SIZE_4G / (10 * MIB)) * 1000) * 3;
  const result: PartRows = { headline: {}, extra: {}, raw: {}, details: {} };
  try {
    if (opts.size !== SIZE_4G) {
      own = path.join(await tempDir("ui4g"), "bench-4g.bin");
      log("writing a 4 GiB test file for the UI's 4 GiB rounds…");
      await writeTestFile(own, SIZE_4G);
      await run("sync", [], 300_000);
      file = own;
    }
    const ui = await measureUiUpload({ engine: opts.engine, user: opts.user, file, size: SIZE_4G, rounds: opts.rounds, timeoutMs, prefix: "ui4g" });
    result.details.ui4g = ui;
    const waits = ui.rounds.map((r) => r.lastByteToUploadedSeconds);
    const seen = waits.filter((w): w is number => w !== null);
    result.raw.ui4g_upload_mib_s = ui.best;
    result.headline.upload_4g_last_byte_to_uploaded_s =
      seen.length === waits.length ? { value: median(seen) } : { value: null, reason: `the last chunk's reply or "Uploaded" was not seen in ${waits.length - seen.length} of ${waits.length} rounds` };
  } catch (error) {
    result.headline.upload_4g_last_byte_to_uploaded_s = { value: null, reason: failure(error) };
  } finally {
    if (own) await rm(own, { force: true });
  }
  return result;
}
