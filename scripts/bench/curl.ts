import { run } from "./lifecycle";

/**
 * Transfers with curl, timed by curl itself (`%{time_total}`), so the client's process start-up is
 * never part of a number and every server is driven by the same client code.
 */

export interface Transfer {
  status: number;
  bytes: number;
  seconds: number;
}

const MIB = 1024 * 1024;
export const mibPerSecond = (t: Transfer) => t.bytes / MIB / t.seconds;

const WRITE_OUT = "\\n%{http_code} %{size_download} %{size_upload} %{time_total}\\n";

function parse(stdout: string, upload: boolean): Transfer {
  const [code, down, up, total] = stdout.trimEnd().split("\n").at(-1)!.split(" ").map(Number);
  return { status: code!, bytes: upload ? up! : down!, seconds: total! };
}

async function curl(args: string[], timeoutMs: number, upload: boolean): Promise<Transfer> {
  // --noproxy: loopback only, whatever the shell's proxy settings say.
  const result = await run("curl", ["--silent", "--show-error", "--noproxy", "*", "--max-time", String(Math.ceil(timeoutMs / 1000)), "--write-out", WRITE_OUT, ...args], timeoutMs + 5000);
  if (result.code !== 0) throw new Error(`curl ${args.join(" ")}: exit ${result.code} ${result.stderr.trim()}`);
  return parse(result.stdout, upload);
}

/** GET to /dev/null; `args`: more of curl's options (part objects: an S3 signature). */
export async function download(url: string, timeoutMs: number, args: string[] = []): Promise<Transfer> {
  const t = await curl(["--output", "/dev/null", ...args, url], timeoutMs, false);
  if (t.status !== 200) throw new Error(`GET ${url} answered HTTP ${t.status}`);
  return t;
}

/**
 * Sends a whole file as the request body, streamed from disk (`-T`; `--data-binary @file` would
 * first read all of it into curl's memory). `Expect:` is cleared so no 100-continue round trip
 * differs between servers.
 */
export async function upload(method: "PUT" | "PATCH", url: string, file: string, headers: Record<string, string>, timeoutMs: number): Promise<Transfer> {
  const headerArgs = Object.entries({ Expect: "", ...headers }).flatMap(([k, v]) => ["-H", `${k}:${v ? ` ${v}` : ""}`]);
  const t = await curl(["-X", method, "-T", file, "--output", "/dev/null", ...headerArgs, url], timeoutMs, true);
  if (t.status < 200 || t.status > 299) throw new Error(`${method} ${url} answered HTTP ${t.status}`);
  return t;
}
