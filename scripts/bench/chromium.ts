import { readdirSync, readFileSync } from "node:fs";
import { type Browser, chromium } from "@playwright/test";
import { log, onCleanup, run } from "./lifecycle";

/**
 * The bench's Chromium: one launch helper for every part (UI rounds, send ceilings, WAN), and the
 * CPU the browser spends, read from /proc for the browser process and all its descendants (the
 * renderer, the network service that reads and sends files, the GPU process, …).
 */

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

/** CPU ticks of `root` and all its descendants, by pid. */
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

let hz: number | undefined;
async function clockTicksPerSecond(): Promise<number> {
  if (hz) return hz;
  const out = await run("getconf", ["CLK_TCK"], 10_000).catch(() => null);
  const n = Number(out?.stdout.trim());
  hz = Number.isInteger(n) && n > 0 ? n : 100;
  return hz;
}

/**
 * The bench's TypeScript runs through tsx, whose esbuild keeps function names by wrapping named
 * functions in `__name(…)`; a function handed to `page.evaluate` keeps those calls, and the page
 * has no `__name`. Run this in a page (after each navigation) before such an evaluate.
 */
export const PAGE_NAME_SHIM = "globalThis.__name = globalThis.__name || ((f) => f)";

/** Starts a CPU reading of `pid` and its descendants; the function it returns gives their CPU seconds since then. */
export async function cpuMeter(pid: number): Promise<() => number> {
  const perSecond = await clockTicksPerSecond();
  const before = treeTicks(pid);
  return () => ticksBetween(before, treeTicks(pid)) / perSecond;
}

export interface MeasuredBrowser {
  browser: Browser;
  /** Starts a CPU reading; the function it returns gives the browser tree's CPU seconds since then (null: its process was not found). */
  cpu(): () => number | null;
}

/** launchChromium, plus the browser process found among the bench's children, for CPU readings. */
export async function launchMeasuredChromium(what: string): Promise<MeasuredBrowser> {
  const perSecond = await clockTicksPerSecond();
  const earlier = chromiumChildren();
  const browser = await launchChromium();
  const found = [...chromiumChildren()].filter((pid) => !earlier.has(pid));
  const pid = found.length === 1 ? found[0]! : null;
  if (pid === null) log(`  ${what}: ${found.length} new Chromium processes under the bench, not 1: no CPU seconds`);
  return {
    browser,
    cpu() {
      if (pid === null) return () => null;
      const before = treeTicks(pid);
      return () => ticksBetween(before, treeTicks(pid)) / perSecond;
    },
  };
}
