/**
 * `npm run bench`: the engine's transfer speed as ratios to nginx and bare Node measured in the same
 * run on the same file, its memory under load, a large listing, what its logs cost and its transfers
 * into object storage against the AWS SDK (docs/bench.md).
 *   npm run bench -- [--size 1G] [--rounds 3] [--only download,upload,ui,rss,list,logs,wan,ui4g,smallfiles,objects] [--wan-profiles a,b,c] [--wan-ui-only] [--json]
 */
import { link, open, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { blake3File } from "../../server/uploads/hash";
import { type NginxBaseline, type NodeBaseline, startNginx, startNodeServer } from "./baselines";
import * as curl from "./curl";
import { type BenchUser, type EngineProcess, startEngineProcess } from "./engine";
import { type Ferry, connectFerry } from "./ferry";
import { cleanup, installSignalHandlers, log, run, tempDir } from "./lifecycle";
import { measureListing } from "./listing";
import { objectRows, OBJECTS_MAX_SIZE } from "./objects";
import { LOG_PHASES, measureLogCost } from "./logs";
import { type ExtraKey, failure, METRICS, type MetricKey, type Outcome, rounded, table, verdictOf } from "./report";
import { measureRss } from "./rss";
import { type Contender, median, runSeries } from "./series";
import { cpuMeter } from "./chromium";
import { writeTestFile } from "./test-file";
import { smallFilesRow } from "./small-files";
import { ui4gRow, uiRows } from "./ui-rows";
import { measureWan, type WanProfileResult } from "./wan";
import { isWanUiProfile, wanUiRows } from "./wan-ui";
import { type Profile, PROFILES } from "./wan-link";

const MIB = 1024 * 1024;
const PARTS = ["download", "upload", "ui", "rss", "list", "logs", "wan", "ui4g", "smallfiles", "objects"] as const;
type Part = (typeof PARTS)[number];

interface Options {
  size: number;
  rounds: number;
  json: boolean;
  only: Set<Part>;
  listCount: number;
  rssDownloads: number;
  rssUploads: number;
  /** Part logs as an A/A run: both engines without the logs (docs/bench.md, "Log cost"). */
  logsControl: boolean;
  /** Link profiles of part wan. */
  wanProfiles: Profile[];
  /** Part wan runs only the web client's rows (wan-ui.ts), not the download rows. */
  wanUiOnly: boolean;
}

/** "1G", "128M", "512MiB", "1048576": binary units. */
export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?$/i.exec(text.trim());
  if (!match) throw new Error(`--size ${text}: expected a number with an optional K, M, G or T (binary units)`);
  const power = " kmgt".indexOf(match[2]!.toLowerCase() || " ");
  const bytes = Math.round(Number(match[1]) * 1024 ** power);
  if (bytes < MIB) throw new Error(`--size ${text}: at least 1M, or the numbers measure start-up, not transfer`);
  return bytes;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { size: 1024 * MIB, rounds: 3, json: false, only: new Set(PARTS), listCount: 100_000, rssDownloads: 50, rssUploads: 10, logsControl: false, wanProfiles: ["a", "b", "c"], wanUiOnly: false };
  const intOf = (flag: string, value: string | undefined, min: number, max: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} ${value ?? ""}: expected a whole number from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === "--json") options.json = true;
    else if (flag === "--logs-control") options.logsControl = true;
    else if (flag === "--wan-ui-only") options.wanUiOnly = true;
    else if (flag === "--size") options.size = parseSize(value());
    else if (flag === "--rounds") options.rounds = intOf(flag, value(), 1, 20);
    else if (flag === "--list-count") options.listCount = intOf(flag, value(), 1, 1_000_000);
    else if (flag === "--rss-downloads") options.rssDownloads = intOf(flag, value(), 0, 200);
    else if (flag === "--rss-uploads") options.rssUploads = intOf(flag, value(), 0, 50);
    else if (flag === "--only") {
      const parts = value().split(",").filter(Boolean);
      const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p));
      if (unknown.length) throw new Error(`--only: unknown part ${unknown.join(", ")} (known: ${PARTS.join(", ")})`);
      options.only = new Set(parts as Part[]);
    } else if (flag === "--wan-profiles") {
      const profiles = value().split(",").filter(Boolean);
      const unknown = profiles.filter((p) => !(p in PROFILES));
      if (unknown.length || !profiles.length) throw new Error(`--wan-profiles: unknown profile ${unknown.join(", ")} (known: ${Object.keys(PROFILES).join(", ")})`);
      options.wanProfiles = profiles as Profile[];
    } else throw new Error(`unknown option ${flag} (known: --size, --rounds, --only, --list-count, --rss-downloads, --rss-uploads, --logs-control, --wan-profiles, --wan-ui-only, --json)`);
  }
  return options;
}

/** Writes every dirty page of the machine to disk (and with it the deletions of earlier rounds). */
const syncDisk = async () => void (await run("sync", [], 300_000));

/** Empties a folder the uploads wrote into and flushes the disk, so one round's write-back does not slow the next. */
async function clearAndSync(dir: string, keep: (name: string) => boolean = () => false): Promise<void> {
  for (const name of await readdir(dir)) if (!keep(name)) await rm(path.join(dir, name), { recursive: true, force: true });
  await syncDisk();
}

/** Seconds an fsync of `file` takes: what nginx leaves undone at the end of a PUT and the engine does at commit. */
async function fsyncSeconds(file: string): Promise<number> {
  const started = process.hrtime.bigint();
  const handle = await open(file, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}


async function bench(options: Options) {
  const outcomes = Object.fromEntries(METRICS.map((m) => [m.key, { value: null, reason: "not measured (--only)" }])) as Record<MetricKey, Outcome>;
  const raw: Record<string, number | null> = {};
  const details: Record<string, unknown> = { size_bytes: options.size, rounds: options.rounds, node: process.version };
  const extra: Partial<Record<ExtraKey, Outcome>> = {};
  const set = (key: MetricKey, value: number | null, reason?: string) => (outcomes[key] = value === null ? { value, reason: reason ?? "no number" } : { value });
  const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? a / b : null);
  const measured = (value: number | null, reason: string | undefined): Outcome => (value === null ? { value, reason: reason ?? "no number" } : { value });
  // Per-transfer bound: even a slow disk moves 10 MiB/s.
  const transferTimeout = 60_000 + (options.size / (10 * MIB)) * 1000;

  const work = await tempDir("work");
  const filesDir = path.join(work, "files");
  const file = path.join(filesDir, "bench.bin");
  log(`writing a ${(options.size / MIB).toFixed(0)} MiB test file in ${work}…`);
  await writeTestFile(file, options.size);
  const hash = await blake3File(file);
  // The test file's own write-back must not run under the first timed rounds.
  await syncDisk();

  const started = async <T>(what: string, start: () => Promise<T>): Promise<T | string> => {
    try {
      return await start();
    } catch (error) {
      log(`${what} did not start: ${(error as Error).message}`);
      return `${what} did not start: ${failure(error)}`;
    }
  };
  const needs = (...parts: Part[]) => parts.some((p) => options.only.has(p));
  const notNeeded = "not needed by the parts asked for";
  const nginx = needs("download", "upload", "ui") ? await started<NginxBaseline>("nginx", () => startNginx(filesDir)) : notNeeded;
  const node = needs("download", "upload") ? await started<NodeBaseline>("the Node baseline", () => startNodeServer(filesDir)) : notNeeded;
  const engine = needs("download", "upload", "ui", "rss", "list", "ui4g", "smallfiles", "objects") ? await started<EngineProcess>("the engine", async () => startEngineProcess(await tempDir("engine"))) : notNeeded;
  let user: BenchUser | string = typeof engine === "string" ? engine : "";
  let ferry: Ferry | string = typeof engine === "string" ? engine : "";
  if (typeof engine !== "string") {
    try {
      user = await engine.createUser("bench");
      ferry = await connectFerry(engine, user);
      // The same inode as the baselines serve, so all read the same cached pages.
      await link(file, path.join(user.homeDir, "bench.bin"));
    } catch (error) {
      user = ferry = `engine setup failed: ${failure(error)}`;
      log(ferry);
    }
  }
  const reasonOf = (...parts: unknown[]) => parts.find((p): p is string => typeof p === "string");

  if (options.only.has("download")) {
    log("downloads (curl → /dev/null)…");
    const contenders: Contender[] = [];
    if (typeof nginx !== "string") contenders.push({ name: "nginx", once: () => curl.download(`${nginx.url}/files/bench.bin`, transferTimeout) });
    if (typeof node !== "string") contenders.push({ name: "node", once: () => curl.download(`${node.url}/files/bench.bin`, transferTimeout) });
    if (typeof ferry !== "string") contenders.push({ name: "engine", once: async () => curl.download(await ferry.downloadUrl("/bench.bin"), transferTimeout) });
    // One untimed round: the file's pages come into the cache, the servers' code warms up.
    const r = await runSeries(contenders, options.rounds, 1);
    details.downloads = r;
    raw.nginx_download_mib_s = r.nginx?.best ?? null;
    raw.node_download_mib_s = r.node?.best ?? null;
    raw.engine_download_mib_s = r.engine?.best ?? null;
    const engineReason = reasonOf(ferry) ?? r.engine?.error;
    set("download_vs_nginx", ratio(raw.engine_download_mib_s, raw.nginx_download_mib_s), engineReason ?? reasonOf(nginx) ?? r.nginx?.error);
    set("download_vs_node", ratio(raw.engine_download_mib_s, raw.node_download_mib_s), engineReason ?? reasonOf(node) ?? r.node?.error);
  }

  let nginxPut: number | null = null;
  let nginxPutReason: string | undefined;
  if (options.only.has("upload") || options.only.has("ui")) {
    log("uploads (curl -T, whole file in one request)…");
    const contenders: Contender[] = [];
    // Every round of every contender starts on a clean disk: `sync` before it (untimed) writes back
    // whatever an earlier round, the test file or a neighbour left dirty, and the deletions.
    // nginx's PUT and then an fsync of the file it wrote, the fsync started the moment curl returns.
    const putFsync: number[] = [];
    const putSeconds: number[] = [];
    const enginePhases: { patchSeconds: number; commitSeconds: number; engineCpuSeconds: number | null }[] = [];
    if (typeof nginx !== "string") {
      contenders.push({
        name: "nginx_put",
        before: syncDisk,
        once: async (round) => {
          const t = await curl.upload("PUT", `${nginx.putUrl}/bench-${round + 1}.bin`, file, {}, transferTimeout);
          // nginx answers with the bytes in the page cache: the fsync gives it the durability of
          // the engine's commit (upload_vs_nginx_put_durable); without it, upload_vs_nginx_put.
          if (round >= 0) {
            putSeconds.push(t.seconds);
            putFsync.push(await fsyncSeconds(path.join(nginx.putDir, `bench-${round + 1}.bin`)));
          }
          return t;
        },
        after: () => clearAndSync(nginx.putDir),
      });
    }
    if (options.only.has("upload") && typeof node !== "string") {
      // What Node itself takes in here: the body dropped (the most any Node HTTP server reaches)
      // and the body written in 1 MiB batches (plain Node's own write path, no fsync).
      contenders.push({
        name: "node_put_discard",
        before: syncDisk,
        once: (round) => curl.upload("PUT", `${node.discardUrl}/bench-${round + 1}.bin`, file, {}, transferTimeout),
      });
      contenders.push({
        name: "node_put_disk",
        before: syncDisk,
        once: (round) => curl.upload("PUT", `${node.putUrl}/bench-${round + 1}.bin`, file, {}, transferTimeout),
        after: () => clearAndSync(node.putDir),
      });
    }
    if (options.only.has("upload") && typeof ferry !== "string" && typeof user !== "string") {
      const home = user.homeDir;
      contenders.push({
        name: "engine_upload",
        before: syncDisk,
        once: async (round) => {
          const cpu = typeof engine === "string" ? null : await cpuMeter(engine.pid);
          const t = await ferry.upload(file, options.size, hash, `/upload-${round + 1}.bin`, transferTimeout);
          // Where the engine's time goes: the PATCH (bytes written and hashed as they land), the commit (fsync, place), its CPU.
          if (round >= 0) enginePhases.push({ patchSeconds: t.patchSeconds, commitSeconds: t.commitSeconds, engineCpuSeconds: cpu?.() ?? null });
          return t;
        },
        after: () => clearAndSync(home, (name) => !name.startsWith("upload-")),
      });
    }
    // No warm-up: nothing to cache on a write path, and a round costs a gigabyte of disk writes.
    const r = await runSeries(contenders, options.rounds, 0);
    details.uploads = r;
    nginxPut = raw.nginx_put_mib_s = r.nginx_put?.best ?? null;
    nginxPutReason = reasonOf(nginx) ?? r.nginx_put?.error;
    if (putSeconds.length) {
      // nginx's PUT followed by an fsync of what it wrote: the same durability as the engine's commit.
      const durable = putSeconds.map((s, i) => options.size / MIB / (s + putFsync[i]!));
      details.nginx_put_durable = { samples: durable, fsyncSeconds: putFsync, best: Math.max(...durable), median: median(durable) };
    }
    if (enginePhases.length) details.engine_upload_phases = enginePhases;
    const durable = (details.nginx_put_durable as { samples: number[]; best: number } | undefined) ?? null;
    raw.nginx_put_durable_mib_s = durable?.best ?? null;
    if (options.only.has("upload")) {
      raw.engine_upload_mib_s = r.engine_upload?.best ?? null;
      const engineReason = reasonOf(ferry) ?? r.engine_upload?.error;
      set("upload_vs_nginx_put_durable", ratio(raw.engine_upload_mib_s, raw.nginx_put_durable_mib_s), engineReason ?? nginxPutReason);
      extra.upload_vs_nginx_put = measured(ratio(raw.engine_upload_mib_s, nginxPut), engineReason ?? nginxPutReason);
      details.upload_vs_nginx_put = extra.upload_vs_nginx_put.value;
      // Each engine round against the nginx round just before it (same minute, same neighbours).
      const e = r.engine_upload?.samples ?? [];
      const n = r.nginx_put?.samples ?? [];
      const paired = e.slice(0, n.length).map((v, i) => v / n[i]!);
      if (paired.length) details.upload_paired_ratios = { samples: paired, median: median(paired) };
      const pairedDurable = e.slice(0, durable?.samples.length ?? 0).map((v, i) => v / durable!.samples[i]!);
      if (pairedDurable.length) details.upload_paired_ratios_vs_durable = { samples: pairedDurable, median: median(pairedDurable) };
      // The engine against what Node itself reaches in the same run.
      raw.node_put_discard_mib_s = r.node_put_discard?.best ?? null;
      raw.node_put_disk_mib_s = r.node_put_disk?.best ?? null;
      const nodeReason = (name: string) => reasonOf(node) ?? r[name]?.error;
      const discardVsPut = ratio(raw.node_put_discard_mib_s, nginxPut);
      const diskVsPut = ratio(raw.node_put_disk_mib_s, nginxPut);
      const engineVsDisk = ratio(raw.engine_upload_mib_s, raw.node_put_disk_mib_s);
      details.node_put_discard_vs_nginx_put = discardVsPut;
      details.node_put_disk_vs_nginx_put = diskVsPut;
      details.engine_upload_vs_node_put_disk = engineVsDisk;
      extra.node_put_discard_vs_nginx_put = measured(discardVsPut, nodeReason("node_put_discard") ?? nginxPutReason);
      extra.node_put_disk_vs_nginx_put = measured(diskVsPut, nodeReason("node_put_disk") ?? nginxPutReason);
      extra.engine_upload_vs_node_put_disk = measured(engineVsDisk, reasonOf(ferry) ?? r.engine_upload?.error ?? nodeReason("node_put_disk"));
      // Each engine round against the Node disk round just before it.
      const d = r.node_put_disk?.samples ?? [];
      const pairedNode = e.slice(0, d.length).map((v, i) => v / d[i]!);
      if (pairedNode.length) details.upload_paired_ratios_vs_node_put_disk = { samples: pairedNode, median: median(pairedNode) };
    }
  }

  // Before the listing: 100,000 entries grow the heap, and Node keeps the pages for a while.
  if (options.only.has("rss")) {
    log(`engine RSS during ${options.rssDownloads} downloads and ${options.rssUploads} uploads…`);
    if (typeof ferry === "string" || typeof engine === "string" || typeof user === "string") set("rss_mb_peak", null, reasonOf(ferry, engine, user));
    else {
      try {
        const rss = await measureRss({
          pid: engine.pid,
          ferry,
          file,
          fileUserPath: "/bench.bin",
          size: options.size,
          hash,
          downloads: options.rssDownloads,
          uploads: options.rssUploads,
          // 60 transfers share the machine: each gets the time of all of them at the slow-disk rate.
          timeoutMs: transferTimeout * (options.rssDownloads / 10 + options.rssUploads),
        });
        details.rss = rss;
        const all = rss.downloadsOk === options.rssDownloads && rss.uploadsOk === options.rssUploads;
        // A peak under a partial load would flatter the engine.
        set("rss_mb_peak", all ? rss.peakMiB : null, all ? undefined : `only ${rss.downloadsOk}/${options.rssDownloads} downloads and ${rss.uploadsOk}/${options.rssUploads} uploads finished: ${rss.errors[0] ?? ""}`);
      } catch (error) {
        set("rss_mb_peak", null, failure(error));
      }
      await clearAndSync(user.homeDir, (name) => !name.startsWith("rss-upload-"));
    }
  }

  if (options.only.has("list")) {
    log(`listing a folder of ${options.listCount} files…`);
    if (typeof ferry === "string" || typeof user === "string") set("list_100k_ms", null, reasonOf(ferry, user));
    else {
      try {
        const listing = await measureListing(ferry, user.homeDir, options.listCount, 5);
        details.listing = listing;
        set("list_100k_ms", listing.medianMs);
        if (options.listCount !== 100_000) details.list_count_note = `measured on ${options.listCount} entries, not 100,000`;
      } catch (error) {
        set("list_100k_ms", null, failure(error));
      }
    }
  }

  if (options.only.has("logs")) {
    log("log cost: the same uploads, ranged downloads and logged operations on an engine with its logs and one without, turn about…");
    const keys = { upload: "log_upload_vs_off", download: "log_download_vs_off", ops: "log_ops_vs_off" } as const;
    try {
      const cost = await measureLogCost({ file, size: options.size, rounds: options.rounds, timeoutMs: transferTimeout, control: options.logsControl });
      details.logs = cost;
      for (const phase of LOG_PHASES) {
        const p = cost.phases[phase];
        raw[`log_${phase}_on_${p.unit === "ops/s" ? "ops_s" : "mib_s"}`] = p.bestOn;
        raw[`log_${phase}_off_${p.unit === "ops/s" ? "ops_s" : "mib_s"}`] = p.bestOff;
        set(keys[phase], p.ratio, "no round finished");
      }
      // A baseline that logged, or a measured engine that did not, would make the ratios meaningless.
      const { on, off } = cost.rows;
      const wrote = on.operations === cost.expectedRows.operations && on.transfers === cost.expectedRows.transfers;
      if (!wrote || off.operations + off.transfers > 0) {
        const reason = `log rows: the engine${options.logsControl ? " (control: both without logs)" : ""} with logs wrote ${on.operations}/${cost.expectedRows.operations} operations and ${on.transfers}/${cost.expectedRows.transfers} transfers, the one without ${off.operations + off.transfers} rows (must be 0)`;
        log(reason);
        for (const phase of LOG_PHASES) set(keys[phase], null, reason);
      } else if (options.logsControl) {
        // Not a log cost: the noise floor of two identical engines, never a headline number.
        const aa = LOG_PHASES.map((phase) => `${phase} ${cost.phases[phase].ratio?.toFixed(3) ?? "null"} (paired median ${cost.phases[phase].pairedMedian?.toFixed(3) ?? "null"})`).join(", ");
        for (const phase of LOG_PHASES) set(keys[phase], null, `--logs-control: both engines without logs, A ÷ B: ${aa}`);
      }
    } catch (error) {
      for (const phase of LOG_PHASES) set(keys[phase], null, failure(error));
    }
  }

  if (options.only.has("ui")) {
    log("upload through the web UI (Chromium), turn about with Chromium's own sends to a discarding server (one XHR; the UI's chunks)…");
    if (typeof engine === "string" || typeof user === "string") {
      for (const key of ["ui_upload_vs_nginx_put", "ui_upload_vs_browser_ceiling_same_connections"] as const) set(key, null, reasonOf(engine, user));
    } else {
      const rows = await uiRows({ engine, user, file, size: options.size, rounds: options.rounds, timeoutMs: transferTimeout, nginxPut, nginxPutReason });
      for (const [key, o] of Object.entries(rows.headline)) set(key as MetricKey, o.value, o.reason);
      Object.assign(extra, rows.extra);
      Object.assign(raw, rows.raw);
      Object.assign(details, rows.details);
    }
  }

  if (options.only.has("ui4g")) {
    log("a 4 GiB upload through the web UI: from the last chunk's reply to \"Uploaded\"…");
    if (typeof engine === "string" || typeof user === "string") set("upload_4g_last_byte_to_uploaded_s", null, reasonOf(engine, user));
    else {
      const rows = await ui4gRow({ engine, user, file, size: options.size, rounds: options.rounds });
      for (const [key, o] of Object.entries(rows.headline)) set(key as MetricKey, o.value, o.reason);
      Object.assign(raw, rows.raw);
      Object.assign(details, rows.details);
    }
  }

  if (options.only.has("smallfiles")) {
    log("5,000 files of 4 KiB: one folder through the web UI (batches) against Chromium PUT-ing them to nginx, 6 in flight…");
    if (typeof engine === "string" || typeof user === "string") set("small_files_ui_vs_nginx_put", null, reasonOf(engine, user));
    else {
      const rows = await smallFilesRow({ engine, user, rounds: options.rounds });
      for (const [key, o] of Object.entries(rows.headline)) set(key as MetricKey, o.value, o.reason);
      Object.assign(raw, rows.raw);
      Object.assign(details, rows.details);
    }
  }

  if (options.only.has("objects")) {
    log(`object storage: uploads and downloads through the engine into s3rver against the AWS SDK driving it directly (${(Math.min(options.size, OBJECTS_MAX_SIZE) / MIB).toFixed(0)} MiB)…`);
    if (typeof engine === "string") for (const key of ["objects_upload_vs_sdk", "objects_download_vs_sdk"] as const) set(key, null, engine);
    else {
      const rows = await objectRows({ engine, file, size: options.size, hash, rounds: options.rounds, timeoutMs: transferTimeout });
      for (const [key, o] of Object.entries(rows.headline)) set(key as MetricKey, o.value, o.reason);
      Object.assign(extra, rows.extra);
      Object.assign(raw, rows.raw);
      Object.assign(details, rows.details);
    }
  }

  if (options.only.has("wan") && !options.wanUiOnly) {
    log(`WAN downloads over the emulated link, profiles ${options.wanProfiles.join(", ")} (curl in the client namespace, engine and nginx in the server namespace)…`);
    const vsLink = { a: "wan_a_download_vs_link", b: "wan_b_download_vs_link", c: "wan_c_download_vs_link" } as const;
    let results: WanProfileResult[] = [];
    let wanError: string | undefined;
    try {
      results = await measureWan({ file, rounds: options.rounds, profiles: options.wanProfiles });
    } catch (error) {
      wanError = failure(error);
      log(`wan: ${wanError}`);
    }
    details.wan = results;
    for (const p of ["a", "b", "c"] as const) {
      const r = results.find((x) => x.profile === p);
      const reason = wanError ?? (r ? (r.error ?? (r.linkRate.best === null ? "the link's rate could not be measured (iperf3)" : undefined)) : "not measured (--wan-profiles)");
      const mb = (v: number | null | undefined) => (v === null || v === undefined ? null : v / 1e6);
      const link = mb(r?.linkRate.best);
      const s = r?.series;
      raw[`wan_${p}_link_mb_s`] = link;
      for (const c of ["engine_bbr", "nginx_bbr", "engine_cubic", "nginx_cubic", "engine_chromium_bbr"] as const) raw[`wan_${p}_${c}_mb_s`] = mb(s?.[c].best);
      set(vsLink[p], ratio(mb(s?.engine_bbr.best), link), reason ?? s?.engine_bbr.error);
      set(`wan_${p}_chromium_download_vs_link`, ratio(mb(s?.engine_chromium_bbr.best), link), reason ?? s?.engine_chromium_bbr.error);
      extra[`wan_${p}_engine_vs_nginx`] = measured(ratio(mb(s?.engine_bbr.best), mb(s?.nginx_bbr.best)), reason ?? s?.engine_bbr.error ?? s?.nginx_bbr.error);
      extra[`wan_${p}_nginx_vs_link`] = measured(ratio(mb(s?.nginx_bbr.best), link), reason ?? s?.nginx_bbr.error);
      extra[`wan_${p}_cubic_vs_link`] = measured(ratio(mb(s?.engine_cubic.best), link), reason ?? s?.engine_cubic.error);
      extra[`wan_${p}_nginx_cubic_vs_link`] = measured(ratio(mb(s?.nginx_cubic.best), link), reason ?? s?.nginx_cubic.error);
    }
  }
  if (options.only.has("wan")) {
    // The web client's rows (wan-ui.ts): profiles a and b, each with its own link, engine, nginx and remix-serve.
    log(`WAN, the web client: UI upload and page-written download in Chromium (client namespace) against one PUT / one stream, profiles ${options.wanProfiles.filter(isWanUiProfile).join(", ") || "none"}…`);
    const wanUi = await wanUiRows(options.wanProfiles, options.rounds);
    details.wan_ui = wanUi.details;
    Object.assign(raw, wanUi.raw);
    Object.assign(extra, wanUi.extra);
    for (const [key, o] of Object.entries(wanUi.headline)) set(key as MetricKey, o.value, o.reason);
  }

  if (typeof ferry !== "string") await ferry.close();
  return { outcomes, raw, details, extra };
}

async function main() {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  installSignalHandlers();
  let exitCode = 0;
  try {
    const { outcomes, raw, details, extra } = await bench(options);
    if (options.json) {
      const headline = Object.fromEntries(METRICS.map((m) => [m.key, rounded(m.key, outcomes[m.key].value)]));
      const reasons = Object.fromEntries(METRICS.filter((m) => outcomes[m.key].value === null).map((m) => [m.key, outcomes[m.key].reason]));
      const verdicts = Object.fromEntries(METRICS.map((m) => [m.key, verdictOf(m.key, outcomes[m.key].value)]));
      process.stdout.write(`${JSON.stringify({ ...headline, ...raw, reasons, verdicts, details, date: new Date().toISOString() })}\n`);
    } else {
      const header = `Ferry bench — ${(options.size / MIB).toFixed(0)} MiB file, best of ${options.rounds} round(s), ${new Date().toISOString()}`;
      process.stdout.write(table(outcomes, raw, header, extra));
    }
  } catch (error) {
    log(`failed: ${(error as Error).stack}`);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  process.exit(exitCode);
}

await main();
