import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ROOT } from "./engine";
import { freePort, log, run, startChild, stopChild, tempDir, waitFor } from "./lifecycle";

/**
 * The baselines every engine number is divided by, measured in the same run on the same file:
 * nginx (static download and WebDAV PUT) and a bare Node stream server (download, PUT to disk,
 * PUT discarded).
 */

export interface Baseline {
  /** Base URL; `${url}/files/<name>` downloads a file of the shared folder. */
  url: string;
  stop(): Promise<void>;
}

export interface NginxBaseline extends Baseline {
  /** `${putUrl}/<name>` takes a WebDAV PUT; the file lands in `putDir`. */
  putUrl: string;
  putDir: string;
}

export interface NodeBaseline extends Baseline {
  /** `${putUrl}/<name>` writes the body to `putDir` through a 1 MiB write stream. */
  putUrl: string;
  /** `${discardUrl}/<name>` reads the body and drops it. */
  discardUrl: string;
  putDir: string;
}

const NGINX_CANDIDATES = ["/usr/sbin/nginx", "/usr/bin/nginx"];

/** Finds nginx, installing Debian's package when it is missing (the machine allows apt). */
async function nginxBinary(): Promise<string> {
  const found = NGINX_CANDIDATES.find((p) => existsSync(p));
  if (found) return found;
  log("nginx is missing: apt-get install -y nginx (about a minute)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = await run("apt-get", ["update", "-qq"], 300_000, { env });
  if (update.code !== 0) throw new Error(`apt-get update failed: ${update.stderr.trim().slice(-500)}`);
  const install = await run("apt-get", ["install", "-y", "-qq", "nginx"], 600_000, { env });
  if (install.code !== 0) throw new Error(`apt-get install nginx failed: ${install.stderr.trim().slice(-500)}`);
  const installed = NGINX_CANDIDATES.find((p) => existsSync(p));
  if (!installed) throw new Error("nginx installed but its binary was not found");
  return installed;
}

/**
 * nginx as one process (`master_process off`): the engine is one Node event loop, so one nginx
 * worker is the fair opponent. `sendfile off` and 1 MiB output buffers make it copy through user
 * space like Node does; request bodies are buffered in 1 MiB and spill to a temp path on the same
 * disk as the PUT target, so the PUT ends in a rename like the engine's commit.
 */
export async function startNginx(filesDir: string, placement?: { netns: string; port: number }): Promise<NginxBaseline> {
  const binary = await nginxBinary();
  const dir = await tempDir("nginx");
  const putDir = path.join(dir, "put");
  for (const sub of ["put", "body", "proxy", "fastcgi", "uwsgi", "scgi"]) await mkdir(path.join(dir, sub));
  // In a namespace (the WAN part) it listens on every address there; the caller bridges the port to the host's loopback.
  const port = placement?.port ?? (await freePort());
  const listen = placement ? `0.0.0.0:${port}` : `127.0.0.1:${port}`;
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/octet-stream;
  sendfile off;
  output_buffers 1 1m;
  client_max_body_size 0;
  client_body_buffer_size 1m;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen ${listen};
    location /files/ { alias ${filesDir}/; }
    location /put/ {
      alias ${putDir}/;
      dav_methods PUT DELETE;
      dav_access user:rw;
    }
  }
}
`;
  const confFile = path.join(dir, "nginx.conf");
  await writeFile(confFile, conf);
  // -e: nginx opens its error log before reading the config; keep it out of /var/log.
  const args = ["-p", dir, "-c", confFile, "-e", path.join(dir, "error.log")];
  const child = placement ? startChild("ip", ["netns", "exec", placement.netns, binary, ...args]) : startChild(binary, args);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor("nginx", 15_000, async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr.trim()}`);
    return (await fetch(`${url}/files/`)).status > 0 ? true : undefined;
  });
  log(`nginx pid ${child.pid} at ${url}`);
  return { url, putUrl: `${url}/put`, putDir, stop: () => stopChild(child) };
}

/**
 * scripts/bench/node-server.ts as its own process, serving `filesDir` at /files/ and taking PUTs
 * into a temp dir on the same disk as nginx's `putDir`.
 */
export async function startNodeServer(filesDir: string): Promise<NodeBaseline> {
  const port = await freePort();
  const putDir = await tempDir("node-put");
  const child = startChild(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/bench/node-server.ts"), filesDir, String(port), putDir], { cwd: ROOT });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor("the Node baseline server", 30_000, async () => {
    if (child.exitCode !== null) throw new Error(`node server exited with ${child.exitCode}: ${stderr.trim()}`);
    return (await fetch(`${url}/files/none`)).status === 404 ? true : undefined;
  });
  log(`node baseline pid ${child.pid} at ${url}`);
  return { url, putUrl: `${url}/put`, discardUrl: `${url}/discard`, putDir, stop: () => stopChild(child) };
}
