import { existsSync, readFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { ROOT } from "./engine";
import { log, onCleanup, run, startChild, stopChild, tempDir, waitFor } from "./lifecycle";

/**
 * The emulated wide-area link of ../shared/tools/wan-link.sh (issue 16): namespaces wl-cli (client
 * 198.18.1.2) and wl-srv (server 198.18.2.2) joined through wl-rtr, which adds delay, loss and a
 * rate cap. Servers run inside wl-srv; the bench, in the host's namespace, reaches their control
 * ports through Unix sockets (ns-bridge.mjs); the timed clients (curl, iperf3) run inside wl-cli,
 * so every timed byte crosses the link and nothing touches the host's interfaces.
 */

export const WAN_LINK = process.env.FERRY_WAN_LINK || path.resolve(ROOT, "../shared/tools/wan-link.sh");
export const SERVER_NS = "wl-srv";
export const CLIENT_NS = "wl-cli";
export const SERVER_IP = "198.18.2.2";
const STATE = process.env.WL_STATE || "/tmp/wan-link";

export type Profile = "a" | "b" | "c";
/** The profiles of wan-link.sh: rate (bit/s), round-trip time, loss. */
export const PROFILES: Record<Profile, { bitsPerSecond: number; rttMs: number; lossPct: number }> = {
  a: { bitsPerSecond: 100e6, rttMs: 100, lossPct: 2 },
  b: { bitsPerSecond: 1e9, rttMs: 20, lossPct: 0.1 },
  c: { bitsPerSecond: 1e9, rttMs: 50, lossPct: 0 },
};

async function wanLink(args: string[], timeoutMs = 120_000): Promise<string> {
  const result = await run(WAN_LINK, args, timeoutMs);
  if (result.code !== 0) throw new Error(`wan-link.sh ${args.join(" ")}: exit ${result.code} ${result.stderr.trim().split("\n").slice(-2).join(" ")}`);
  return result.stdout.trim();
}

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
  return wanLink(["up", profile, "--delay-on", "up", "--srv-cc", "bbr", "--cli-cc", "cubic"]);
}

export async function linkDown(): Promise<void> {
  linkIsUp = false;
  await wanLink(["down"]);
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

/** `ip netns exec NS COMMAND ARGS…` as argv. */
export const inNamespace = (ns: string, command: string, args: string[]) => ["netns", "exec", ns, command, ...args];

/**
 * Makes 127.0.0.1:PORT of the host reach 127.0.0.1:PORT of the server namespace, for each port
 * (control traffic only: sign-in, the socket's commands, readiness checks).
 */
export async function bridgeToServer(ports: number[]): Promise<{ stop(): Promise<void> }> {
  const dir = await tempDir("ns-bridge");
  const child = startChild("ip", inNamespace(SERVER_NS, process.execPath, [path.join(ROOT, "scripts/bench/ns-bridge.mjs"), dir, ...ports.map(String)]));
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor("the namespace bridge", 15_000, async () => {
    if (child.exitCode !== null) throw new Error(`ns-bridge exited with ${child.exitCode}: ${output.trim()}`);
    return output.includes("bridged") ? true : undefined;
  });
  const servers: Server[] = [];
  const open = new Set<Socket>();
  for (const port of ports) {
    const server = createServer((client) => {
      open.add(client);
      client.once("close", () => open.delete(client));
      const upstream = createConnection({ path: path.join(dir, `${port}.sock`) });
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop);
      upstream.on("error", drop);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    servers.push(server);
  }
  return {
    async stop() {
      for (const socket of open) socket.destroy();
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
      await stopChild(child);
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
