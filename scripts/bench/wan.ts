import { chmod, link, writeFile } from "node:fs/promises";
import path from "node:path";
import { startNginx } from "./baselines";
import { startEngineProcess } from "./engine";
import { connectFerry } from "./ferry";
import { freePort, log, tempDir } from "./lifecycle";
import type { Page } from "@playwright/test";
import { median } from "./series";
import { failure } from "./report";
import { launchChromium } from "./ui";
import {
  bridgeToServer,
  CLIENT_NS,
  clientDownload,
  delayDaemonCpuSeconds,
  linkDown,
  linkUp,
  machineCpu,
  measureLinkRate,
  pageDownload,
  type Profile,
  PROFILES,
  SERVER_IP,
  SERVER_NS,
  serverCc,
  tryServerFq,
  type WindowedTransfer,
} from "./wan-link";

/**
 * Part `wan` (issue 16): downloads over the emulated wide-area link, as ratios to the link's rate
 * measured in the same run. Per profile: the link is built, the engine (the production build, as
 * the other parts start it) and nginx (the loopback baseline's config) run inside the server
 * namespace on the same test file, curl inside the client namespace downloads it, and iperf3 with
 * four parallel streams measures what the link carries before and after the rounds.
 */

/** Seconds each transfer may take: curl stops there and the rate is what arrived in that window. */
export const WAN_WINDOW_SECONDS: Record<Profile, number> = { a: 12, b: 8, c: 8 };
const LINK_STREAMS = 4;
const CONTENDERS = ["engine_bbr", "nginx_bbr", "engine_cubic", "nginx_cubic", "engine_chromium_bbr"] as const;
export type WanContender = (typeof CONTENDERS)[number];

export interface WanSeries {
  /** Bytes per second of each round (MB/s = 10^6 B/s in the report). */
  samples: number[];
  /** Per round: stopped by the window before the file's end. */
  cut: boolean[];
  /** Per round: the share of both cores busy during the transfer (every process and interrupt). */
  machineBusy: number[];
  best: number | null;
  median: number | null;
  error?: string;
}

export interface WanProfileResult {
  profile: Profile;
  nominal: (typeof PROFILES)[Profile];
  windowSeconds: number;
  /** wan-link.sh's description of what it built. */
  link?: string;
  /** null: the fq qdisc is on the server's interface; else why it is not (BBR then paces by itself). */
  fq?: string | null;
  /** Link rate (iperf3, server BBR, 4 streams), bytes per second, before and after the rounds. */
  linkRate: { before: number | null; after: number | null; best: number | null };
  series: Record<WanContender, WanSeries>;
  /** CPU seconds the delay daemon used during the profile. */
  delayCpuSeconds: number | null;
  wallSeconds: number;
  /** Why the profile has no numbers (the link, a server or the setup failed). */
  error?: string;
}

const emptySeries = (): WanSeries => ({ samples: [], cut: [], machineBusy: [], best: null, median: null });

async function measureProfile(profile: Profile, file: string, rounds: number): Promise<WanProfileResult> {
  const windowSeconds = WAN_WINDOW_SECONDS[profile];
  const result: WanProfileResult = {
    profile,
    nominal: PROFILES[profile],
    windowSeconds,
    linkRate: { before: null, after: null, best: null },
    series: Object.fromEntries(CONTENDERS.map((c) => [c, emptySeries()])) as Record<WanContender, WanSeries>,
    delayCpuSeconds: null,
    wallSeconds: 0,
  };
  const started = Date.now();
  const stops: (() => Promise<void>)[] = [];
  try {
    result.link = await linkUp(profile);
    log(result.link);
    result.fq = await tryServerFq();
    if (result.fq) log(`  fq on the server's interface: ${result.fq} (BBR paces by itself)`);
    const delayCpuStart = delayDaemonCpuSeconds();
    // The namespace is new and empty: ports free on the host's loopback (for the bridge) are free there too.
    const [apiPort, filePort, nginxPort] = [await freePort(), await freePort(), await freePort()];
    const bridge = await bridgeToServer([apiPort, filePort, nginxPort]);
    stops.push(() => bridge.stop());
    const engine = await startEngineProcess(await tempDir("wan-engine"), {}, { netns: SERVER_NS, apiPort, filePort });
    stops.push(() => engine.stop());
    const user = await engine.createUser("bench");
    const ferry = await connectFerry(engine, user);
    stops.push(() => ferry.close());
    await link(file, path.join(user.homeDir, "bench.bin"));
    const nginx = await startNginx(path.dirname(file), { netns: SERVER_NS, port: nginxPort });
    stops.push(() => nginx.stop());

    // Both servers are reached at the server namespace's own address, through the link.
    const engineUrl = async () => {
      const signed = new URL(await ferry.downloadUrl("/bench.bin"));
      return `http://${SERVER_IP}:${filePort}${signed.pathname}${signed.search}`;
    };
    const nginxUrl = `http://${SERVER_IP}:${nginxPort}/files/${path.basename(file)}`;

    // The bench's Chromium, launched inside the client namespace through a wrapper (Playwright talks
    // to it over pipes, which cross namespaces). A page of the engine's file origin reads the signed
    // URL with fetch and counts the body's bytes: the browser's network stack over the link, no disk.
    const wrapper = path.join(await tempDir("wan-chromium"), "chromium");
    await writeFile(wrapper, `#!/bin/sh\nexec ip netns exec ${CLIENT_NS} /usr/bin/chromium "$@"\n`);
    await chmod(wrapper, 0o755);
    let page: Page | undefined;
    try {
      const browser = await launchChromium(wrapper);
      stops.push(() => browser.close());
      page = await browser.newPage();
      await page.goto(`http://${SERVER_IP}:${filePort}/health`);
    } catch (error) {
      result.series.engine_chromium_bbr.error = `Chromium in ${CLIENT_NS}: ${failure(error)}`;
      log(`  ${result.series.engine_chromium_bbr.error}`);
    }
    const chromiumDownload = (url: string): Promise<WindowedTransfer> => pageDownload(page!, url, windowSeconds * 1000);

    const measureLink = async (when: "before" | "after") => {
      await serverCc("bbr");
      try {
        const rate = await measureLinkRate(windowSeconds, LINK_STREAMS);
        result.linkRate[when] = rate;
        log(`  link rate ${when}: ${(rate / 1e6).toFixed(1)} MB/s (${((rate * 8) / 1e6).toFixed(0)} Mbit/s, iperf3, ${LINK_STREAMS} streams, server BBR)`);
      } catch (error) {
        log(`  link rate ${when}: ${failure(error)}`);
      }
    };
    const once = async (name: WanContender, url: () => Promise<string>, download: (url: string) => Promise<WindowedTransfer> = (u) => clientDownload(u, windowSeconds)) => {
      const s = result.series[name];
      if (s.error) return;
      try {
        const target = await url();
        const cpu = machineCpu();
        const t = await download(target);
        const after = machineCpu();
        const rate = t.bytes / t.seconds;
        s.samples.push(rate);
        s.cut.push(t.cut);
        s.machineBusy.push((after.busy - cpu.busy) / Math.max(1, after.total - cpu.total));
        log(`  ${name}: ${(rate / 1e6).toFixed(2)} MB/s (${(t.bytes / 1e6).toFixed(0)} MB in ${t.seconds.toFixed(1)} s${t.cut ? ", window" : ""}; both cores ${(100 * s.machineBusy.at(-1)!).toFixed(0)} % busy)`);
      } catch (error) {
        s.error = failure(error);
        log(`  ${name} failed: ${s.error}`);
      }
    };

    await measureLink("before");
    for (let round = 0; round < rounds; round++) {
      log(` profile ${profile}, round ${round + 1}/${rounds}`);
      for (const cc of ["bbr", "cubic"] as const) {
        await serverCc(cc);
        // Turn about, and the other one first in every other round.
        const pair: [WanContender, () => Promise<string>][] = [
          [`engine_${cc}`, engineUrl],
          [`nginx_${cc}`, async () => nginxUrl],
        ];
        if (round % 2 === 1) pair.reverse();
        for (const [name, url] of pair) await once(name, url);
        if (cc === "bbr" && page) await once("engine_chromium_bbr", engineUrl, chromiumDownload);
      }
    }
    await measureLink("after");
    const rates = [result.linkRate.before, result.linkRate.after].filter((r): r is number => r !== null);
    result.linkRate.best = rates.length ? Math.max(...rates) : null;
    const delayCpuEnd = delayDaemonCpuSeconds();
    result.delayCpuSeconds = delayCpuStart !== null && delayCpuEnd !== null ? delayCpuEnd - delayCpuStart : null;
  } catch (error) {
    result.error = failure(error);
    log(`  profile ${profile}: ${result.error}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => log(`  stopping: ${failure(error)}`));
    // Every run ends with the link taken down, also after a failure.
    await linkDown().catch((error: unknown) => log(`  wan-link.sh down: ${failure(error)}`));
  }
  for (const s of Object.values(result.series)) {
    s.best = s.samples.length ? Math.max(...s.samples) : null;
    s.median = median(s.samples);
  }
  result.wallSeconds = (Date.now() - started) / 1000;
  return result;
}

/** The WAN part: each profile in turn, each with its own link, engine and nginx. */
export async function measureWan(options: { file: string; rounds: number; profiles: Profile[] }): Promise<WanProfileResult[]> {
  if (process.getuid?.() !== 0) throw new Error("the link emulator needs root (network namespaces)");
  const results: WanProfileResult[] = [];
  for (const profile of options.profiles) results.push(await measureProfile(profile, options.file, options.rounds));
  return results;
}
