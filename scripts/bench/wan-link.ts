import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { bridgeToServer as bridge, CLIENT_NS, inNamespace, linkDown as down, linkUp as up, type Profile, SERVER_IP, SERVER_NS, wanLink, wanLinkScript } from "../../tests/support/wan-link";
import { ROOT } from "./engine";
import { log, onCleanup, run, startChild, stopChild } from "./lifecycle";

/**
 * The bench's use of the emulated wide-area link (issue 16). The link itself (namespaces, profiles,
 * wan-link.sh, the Unix-socket bridges) is tests/support/wan-link.ts, shared with the e2e suite.
 * Servers run inside wl-srv; the bench, in the host's namespace, reaches their control ports
 * through Unix sockets (tests/support/ns-bridge.mjs); the timed clients (curl, iperf3) run inside
 * wl-cli, so every timed byte crosses the link and nothing touches the host's interfaces.
 */

export { CLIENT_NS, inNamespace, type Profile, PROFILES, SERVER_IP, SERVER_NS } from "../../tests/support/wan-link";
export const WAN_LINK = wanLinkScript(ROOT);
const STATE = process.env.WL_STATE || "/tmp/wan-link";

let linkIsUp = false;
let downRegistered = false;

/**
 * Builds the link (replacing one already up). The whole RTT sits on the client → server direction
 * (`--delay-on up`): a download's data then passes the delay daemon untouched and only its ACKs
 * are held, which TCP sees as the same RTT at a fraction of the emulator's CPU (docs/bench.md).
 */
export async function linkUp(profile: Profile): Promise<string> {
  if (!downRegistered) {
    downRegistered = true;
    // Ctrl-C or a crash: the namespaces and the delay daemon never outlive the bench.
    onCleanup(async () => {
      if (linkIsUp) await linkDown();
    });
  }
  linkIsUp = true;
  return up(profile, { delayOn: "up", srvCc: "bbr", cliCc: "cubic" });
}

export async function linkDown(): Promise<void> {
  linkIsUp = false;
  await down();
}

/** The server end's congestion control for new connections (the sender of a download). */
export const serverCc = (algo: "bbr" | "cubic") => wanLink(["cc", "srv", algo]);

/** The client end's congestion control for new connections (the sender of an upload). */
export const clientCc = (algo: "bbr" | "cubic") => wanLink(["cc", "cli", algo]);

/** Tries the fq qdisc on the server's interface; null when set, else why not. */
export async function tryServerFq(): Promise<string | null> {
  const result = await run("ip", ["netns", "exec", SERVER_NS, "tc", "qdisc", "replace", "dev", "wl-s", "root", "fq"], 10_000);
  return result.code === 0 ? null : result.stderr.trim() || `tc exit ${result.code}`;
}

/**
 * Makes 127.0.0.1:PORT of the host reach 127.0.0.1:PORT of the server namespace, for each port
 * (control traffic only: sign-in, the socket's commands, readiness checks). Its namespace process
 * is the bench's child, stopped on Ctrl-C.
 */
export async function bridgeToServer(ports: number[]): Promise<{ stop(): Promise<void> }> {
  let child: ReturnType<typeof startChild> | undefined;
  const opened = await bridge(ports, (command, args) => (child = startChild(command, args)));
  return {
    async stop() {
      await opened.stop();
      if (child) await stopChild(child);
    },
  };
}

/** iperf3's `--json` report: the receiver's rate over the whole test, in bit/s. */
export function parseIperf(json: string): number {
  const report = JSON.parse(json) as { error?: string; end?: { sum_received?: { bits_per_second?: number } } };
  if (report.error) throw new Error(`iperf3: ${report.error}`);
  const bps = report.end?.sum_received?.bits_per_second;
  if (typeof bps !== "number" || !(bps > 0)) throw new Error("iperf3 reported no received rate");
  return bps;
}

/** Debian's iperf3, installed when missing (the machine allows apt; the bench does the same for nginx). */
async function ensureIperf3(): Promise<void> {
  if (existsSync("/usr/bin/iperf3")) return;
  log("iperf3 is missing: apt-get install -y iperf3…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], 300_000, { env });
  const install = await run("apt-get", ["install", "-y", "-qq", "iperf3"], 600_000, { env });
  if (install.code !== 0 || !existsSync("/usr/bin/iperf3")) throw new Error(`apt-get install iperf3 failed: ${install.stderr.trim().slice(-300)}`);
}

/**
 * The link's rate as TCP carries it: iperf3 from the server namespace to the client namespace
 * (`-R`), `streams` parallel streams for `seconds`, with the server's congestion control of the
 * moment. Bytes per second of payload.
 */
export async function measureLinkRate(seconds: number, streams: number): Promise<number> {
  await ensureIperf3();
  const port = "5201";
  const server = startChild("ip", inNamespace(SERVER_NS, "iperf3", ["--server", "--one-off", "--bind", SERVER_IP, "--port", port]));
  try {
    let result: Awaited<ReturnType<typeof run>> | undefined;
    // The server needs a moment to listen; a refused connection is retried.
    for (let attempt = 0; attempt < 20; attempt++) {
      result = await run("ip", inNamespace(CLIENT_NS, "iperf3", ["--client", SERVER_IP, "--port", port, "--reverse", "--parallel", String(streams), "--time", String(seconds), "--json"]), (seconds + 30) * 1000);
      if (result.code === 0 || !/refused/i.test(result.stdout + result.stderr)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!result || result.code !== 0) throw new Error(`iperf3 client: exit ${result?.code} ${(result?.stdout ?? "").slice(-300)} ${(result?.stderr ?? "").trim()}`);
    return parseIperf(result.stdout) / 8;
  } finally {
    await stopChild(server);
  }
}

export interface WindowedTransfer {
  status: number;
  bytes: number;
  seconds: number;
  /** True when curl stopped at --max-time before the last byte (the rate is bytes ÷ the window). */
  cut: boolean;
}

/**
 * curl's `--write-out` line after a download that may have been stopped by `--max-time` (exit 28):
 * the bytes received so far and the time are still a rate. Any other failure is an error.
 */
export function parseWindowed(stdout: string, exitCode: number | null): WindowedTransfer {
  if (exitCode !== 0 && exitCode !== 28) throw new Error(`curl exit ${exitCode}`);
  const line = stdout.trimEnd().split("\n").at(-1) ?? "";
  const [status, bytes, seconds] = line.split(" ").map(Number);
  if (!Number.isFinite(status) || !Number.isFinite(bytes) || !Number.isFinite(seconds) || !(seconds! > 0)) throw new Error(`curl wrote no transfer line: ${JSON.stringify(line)}`);
  // A stopped download keeps the status of its headers; a failure before them has none.
  if (status !== 200) throw new Error(`HTTP ${status}`);
  return { status: status!, bytes: bytes!, seconds: seconds!, cut: exitCode === 28 };
}

/**
 * GET `url` with `fetch` in a page of the bench's Chromium (inside the client namespace), counting
 * the body's bytes, for at most `windowMs`: the browser's own network stack over the link.
 */
export async function pageDownload(page: Page, url: string, windowMs: number): Promise<WindowedTransfer> {
  const t = await page.evaluate(
    async ({ url, windowMs }) => {
      const started = performance.now();
      // A stalled link must not hang the bench: the fetch is aborted well after the window.
      const abort = new AbortController();
      setTimeout(() => abort.abort(), windowMs + 30_000);
      const res = await fetch(url, { cache: "no-store", signal: abort.signal });
      const reader = res.body!.getReader();
      let bytes = 0;
      let cut = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (performance.now() - started >= windowMs) {
          cut = true;
          await reader.cancel();
          break;
        }
      }
      return { status: res.status, bytes, seconds: (performance.now() - started) / 1000, cut };
    },
    { url, windowMs },
  );
  if (t.status !== 200) throw new Error(`HTTP ${t.status}`);
  return t;
}

/** GET `url` with curl inside the client namespace, to /dev/null, for at most `maxSeconds`. */
export async function clientDownload(url: string, maxSeconds: number): Promise<WindowedTransfer> {
  const args = ["--silent", "--show-error", "--noproxy", "*", "--max-time", String(maxSeconds), "--output", "/dev/null", "--write-out", "\\n%{http_code} %{size_download} %{time_total}\\n", url];
  const result = await run("ip", inNamespace(CLIENT_NS, "curl", args), (maxSeconds + 30) * 1000);
  try {
    return parseWindowed(result.stdout, result.code);
  } catch (error) {
    throw new Error(`curl ${url} from ${CLIENT_NS}: ${(error as Error).message} ${result.stderr.trim()}`);
  }
}

/** Jiffies of the whole machine, busy and total (/proc/stat's first line): both cores, every process and interrupt. */
export function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU seconds the link's delay daemon has used so far (null when it is not running). */
export function delayDaemonCpuSeconds(): number | null {
  try {
    const pid = readFileSync(path.join(STATE, "delay.pid"), "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the command.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
