/**
 * The bare Node baseline: `GET /<name>` streams `<dir>/<name>` with `createReadStream(highWaterMark
 * 1 MiB).pipe(res)` and nothing else — no auth, no Range, no hashing. It shows what Node itself
 * reaches on this machine, so the engine's ratio to it isolates the engine's own overhead.
 *   node --import tsx scripts/bench/node-server.ts <dir> <port>
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";

const [dir, port] = process.argv.slice(2);
if (!dir || !port) {
  process.stderr.write("usage: node-server.ts <dir> <port>\n");
  process.exit(2);
}

createServer((req, res) => {
  const name = path.basename(decodeURIComponent((req.url ?? "/").split("?")[0]!));
  const file = path.join(dir, name);
  stat(file).then(
    (info) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": info.size });
      createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
    },
    () => {
      res.writeHead(404).end();
    },
  );
}).listen(Number(port), "127.0.0.1", () => process.stdout.write("listening\n"));

process.once("SIGTERM", () => process.exit(0));
