import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The emulated wide-area link of ../shared/tools/wan-link.sh (issue 16), shared by the bench
 * (scripts/bench/wan-link.ts) and the e2e suite (tests/e2e/wan-upload.spec.ts): namespaces wl-cli
 * (client 198.18.1.2) and wl-srv (server 198.18.2.2) joined through wl-rtr, which adds delay, loss
 * and a rate cap. Nothing is added to the host's own namespace, so the only ways between a namespace
 * and the host's loopback are path-named Unix sockets (not bound to a network namespace), piped by
 * ns-bridge.mjs. The names are global: one user of the link at a time (the test lock).
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

export const SERVER_NS = "wl-srv";
export const CLIENT_NS = "wl-cli";
export const SERVER_IP = "198.18.2.2";
export const CLIENT_IP = "198.18.1.2";

export type Profile = "a" | "b" | "c";
/** The profiles of wan-link.sh: rate (bit/s), round-trip time, loss. */
export const PROFILES: Record<Profile, { bitsPerSecond: number; rttMs: number; lossPct: number }> = {
  a: { bitsPerSecond: 100e6, rttMs: 100, lossPct: 2 },
  b: { bitsPerSecond: 1e9, rttMs: 20, lossPct: 0.1 },
  c: { bitsPerSecond: 1e9, rttMs: 50, lossPct: 0 },
};

/** Where wan-link.sh is looked for, in order: FERRY_WAN_LINK (alone when set), the repository's sibling `shared/`, /work/shared. */
export function wanLinkCandidates(root = ROOT): string[] {
  if (process.env.FERRY_WAN_LINK) return [process.env.FERRY_WAN_LINK];
  return [...new Set([path.resolve(root, "../shared/tools/wan-link.sh"), "/work/shared/tools/wan-link.sh"])];
}

/** The first candidate that exists, else the first one (whose use then fails with its path in the message). */
export function wanLinkScript(root = ROOT): string {
  const candidates = wanLinkCandidates(root);
  return candidates.find((file) => existsSync(file)) ?? candidates[0]!;
}

/**
 * Why the link cannot be built here (null when it can): not root, or no wan-link.sh. The message
 * says how to run what needs it.
 */
export function wanLinkUnavailable(root = ROOT): string | null {
  const how =
    "It needs root (network namespaces, iptables, tc) and ../shared/tools/wan-link.sh: run as root, with the script at " +
    `${wanLinkCandidates(root).join(" or ")} (or FERRY_WAN_LINK=/path/to/wan-link.sh), e.g. \`sudo -E npx playwright test tests/e2e/wan-upload.spec.ts\`.`;
  if (process.getuid?.() !== 0) return `The emulated WAN link cannot be built: not running as root (uid ${process.getuid?.()}). ${how}`;
  const script = wanLinkCandidates(root).find((file) => existsSync(file));
  if (!script) return `The emulated WAN link cannot be built: wan-link.sh not found. ${how}`;
  return null;
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`) and collects its output. */
export function runCommand(command: string, args: string[], timeoutMs: number): Promise<CommandResult> {
  return collectOutput(spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] }), timeoutMs);
}

/** Waits for a started child to end (killed after `timeoutMs`), with what it wrote (also the bench's `run`). */
export function collectOutput(child: ChildProcess, timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: signal === "SIGKILL" ? `${stderr}\n(killed after ${timeoutMs} ms)` : stderr });
    });
  });
}

/** `wan-link.sh ARGS…`; its stdout, or an error with the end of its stderr. */
export async function wanLink(args: string[], timeoutMs = 120_000, root = ROOT): Promise<string> {
  const result = await runCommand(wanLinkScript(root), args, timeoutMs);
  if (result.code !== 0) throw new Error(`wan-link.sh ${args.join(" ")}: exit ${result.code} ${result.stderr.trim().split("\n").slice(-2).join(" ")}`);
  return result.stdout.trim();
}

export interface LinkOptions {
  /** Congestion control of the server end (the sender of downloads) and of the client end (the sender of uploads). */
  srvCc?: "bbr" | "cubic" | "reno";
  cliCc?: "bbr" | "cubic" | "reno";
  /**
   * Which direction holds the delay: `both` halves the RTT; `up` (client → server) is cheapest for
   * downloads, `down` for uploads (the delay daemon then queues only ACKs; TCP sees the same RTT).
   */
  delayOn?: "both" | "up" | "down";
}

/** Builds the link with a profile (a, b, c, none or RATE:RTT_MS:LOSS_PCT), replacing one already up; wan-link.sh's summary line. */
export async function linkUp(profile: string, { srvCc = "bbr", cliCc = "cubic", delayOn = "both" }: LinkOptions = {}): Promise<string> {
  const summary = await wanLink(["up", profile, "--delay-on", delayOn, "--srv-cc", srvCc, "--cli-cc", cliCc]);
  await linkSettled();
  return summary;
}

/**
 * Waits until no address of the two ends is still tentative (IPv6 duplicate address detection on
 * the new veths, about a second): a browser started before that sees the address appear and fails
 * its requests in flight with ERR_NETWORK_CHANGED.
 */
export async function linkSettled(timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let tentative = "";
    for (const ns of [CLIENT_NS, SERVER_NS]) {
      const result = await runCommand("ip", ["-n", ns, "addr", "show", "tentative"], 10_000);
      if (result.code !== 0) throw new Error(`ip -n ${ns} addr show tentative: exit ${result.code} ${result.stderr.trim()}`);
      tentative += result.stdout.trim();
    }
    if (!tentative) return;
    if (Date.now() > deadline) throw new Error(`the link's addresses are still tentative after ${timeoutMs} ms: ${tentative}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Removes the namespaces and the delay daemon. */
export async function linkDown(): Promise<void> {
  await wanLink(["down"]);
}

/** `ip netns exec NS COMMAND ARGS…` as argv. */
export const inNamespace = (ns: string, command: string, args: string[]) => ["netns", "exec", ns, command, ...args];

export interface Bridge {
  stop(): Promise<void>;
}

/** How a bridge starts its namespace process (the bench passes its own, so Ctrl-C stops it). */
export type StartChild = (command: string, args: string[]) => ChildProcess;
const spawnChild: StartChild = (command, args) => spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });

function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Pipes every connection `server` accepts to a new connection made by `connect`. */
function pipeEach(server: Server, open: Set<Socket>, connect: () => Socket) {
  server.on("connection", (client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    const upstream = connect();
    open.add(upstream);
    upstream.once("close", () => open.delete(upstream));
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
  });
}

/** Starts ns-bridge.mjs inside `ns` and waits for its "bridged" line. */
async function startNamespaceSide(ns: string, args: string[], start: StartChild): Promise<ChildProcess> {
  const child = start("ip", inNamespace(ns, process.execPath, [path.join(ROOT, "tests/support/ns-bridge.mjs"), ...args]));
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`ns-bridge in ${ns} did not start within 15 s: ${output.trim()}`)), 15_000);
    const check = () => {
      if (!output.includes("bridged")) return;
      clearTimeout(timer);
      resolve();
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => fail(new Error(`ns-bridge in ${ns} exited with ${code}: ${output.trim()}`)));
    child.once("error", fail);
  });
  return child;
}

const listen = (server: Server, ...args: [string] | [number, string]) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(...(args as [number, string]), () => resolve());
  });

/**
 * Makes 127.0.0.1:PORT of the host reach 127.0.0.1:PORT of the server namespace, for each port:
 * how the bench, in the host's namespace, drives servers it started in wl-srv (control traffic only).
 */
export async function bridgeToServer(ports: number[], start: StartChild = spawnChild): Promise<Bridge> {
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-ns-bridge-"));
  const servers: Server[] = [];
  const open = new Set<Socket>();
  let child: ChildProcess | undefined;
  try {
    child = await startNamespaceSide(SERVER_NS, ["unix-to-tcp", dir, ...ports.map(String)], start);
    for (const port of ports) {
      const server = createServer();
      pipeEach(server, open, () => createConnection({ path: path.join(dir, `${port}.sock`) }));
      servers.push(server);
      await listen(server, port, "127.0.0.1");
    }
  } catch (error) {
    await closeAll(servers, open, child, dir);
    throw error;
  }
  return { stop: () => closeAll(servers, open, child, dir) };
}

/**
 * Makes HOST:PORT inside namespace `ns` (by default the server's address on the link) reach
 * 127.0.0.1:PORT of the host, for each port: how a browser in wl-cli reaches the e2e run's web and
 * engine through the link. Every byte crosses the link; the host side is a plain pipe.
 */
export async function exposeInNamespace(ports: number[], { ns = SERVER_NS, host = SERVER_IP, start = spawnChild }: { ns?: string; host?: string; start?: StartChild } = {}): Promise<Bridge> {
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-ns-bridge-"));
  const servers: Server[] = [];
  const open = new Set<Socket>();
  let child: ChildProcess | undefined;
  try {
    for (const port of ports) {
      const server = createServer();
      pipeEach(server, open, () => createConnection({ host: "127.0.0.1", port }));
      servers.push(server);
      await listen(server, path.join(dir, `${port}.sock`));
    }
    child = await startNamespaceSide(ns, ["tcp-to-unix", dir, host, ...ports.map(String)], start);
  } catch (error) {
    await closeAll(servers, open, child, dir);
    throw error;
  }
  return { stop: () => closeAll(servers, open, child, dir) };
}

async function closeAll(servers: Server[], open: Set<Socket>, child: ChildProcess | undefined, dir: string) {
  for (const socket of open) socket.destroy();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  if (child) await stopProcess(child);
  rmSync(dir, { recursive: true, force: true });
}

export interface LinkCounters {
  /** Bytes and packets the router has passed on to the server end (client → server, after loss). */
  upBytes: number;
  upPackets: number;
  /** Packets the router dropped on purpose (the profile's loss), per direction. */
  upDropped: number;
  downDropped: number;
}

/**
 * The router's counters (wl-rtr): what crossed the link towards the server and what its loss rule
 * dropped in each direction, so a test can see that its bytes went over the lossy link.
 */
export async function linkCounters(): Promise<LinkCounters> {
  const link = await runCommand("ip", ["-n", "wl-rtr", "-j", "-s", "link", "show", "dev", "wl-rs"], 10_000);
  if (link.code !== 0) throw new Error(`ip -n wl-rtr link show: exit ${link.code} ${link.stderr.trim()}`);
  const [stats] = JSON.parse(link.stdout) as { stats64: { tx: { bytes: number; packets: number } } }[];
  if (!stats) throw new Error("wl-rs has no statistics (is the link up?)");
  const rules = await runCommand("ip", inNamespace("wl-rtr", "iptables-save", ["-c", "-t", "filter"]), 10_000);
  if (rules.code !== 0) throw new Error(`iptables-save in wl-rtr: exit ${rules.code} ${rules.stderr.trim()}`);
  const dropped = (from: string, to: string) => {
    for (const line of rules.stdout.split("\n")) {
      const match = /^\[(\d+):\d+\] -A FORWARD -i (\S+) -o (\S+) .*statistic.* -j DROP/.exec(line);
      if (match && match[2] === from && match[3] === to) return Number(match[1]);
    }
    return 0;
  };
  return { upBytes: stats.stats64.tx.bytes, upPackets: stats.stats64.tx.packets, upDropped: dropped("wl-rc", "wl-rs"), downDropped: dropped("wl-rs", "wl-rc") };
}
