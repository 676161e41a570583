/**
 * The bare Node baselines, no auth, no Range, no hashing — what Node itself reaches on this
 * machine, so the engine's ratios to them isolate the engine's own overhead:
 * - `GET /<name>` streams `<dir>/<name>` with `createReadStream(highWaterMark 1 MiB).pipe(res)`.
 * - `PUT /discard/<name>` reads the body and drops it, answers 200 with the byte count: the most any
 *   Node HTTP server takes in here (Node reads the socket in 64 KiB chunks, JavaScript per chunk).
 * - `PUT /put/<name>` writes the body to `<putDir>/<name>` through `createWriteStream(highWaterMark
 *   1 MiB)` with `pipeline`, answers 201 when the last byte is written (to the page cache, no fsync).
 *   node --import tsx scripts/bench/node-server.ts <dir> <port> <putDir>
 */
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";

const [dir, port, putDir] = process.argv.slice(2);
if (!dir || !port || !putDir) {
  process.stderr.write("usage: node-server.ts <dir> <port> <putDir>\n");
  process.exit(2);
}

/** `route`: the URL's first segment with its slashes, "/discard/" or "/put/". */
function put(req: IncomingMessage, res: ServerResponse, route: string | undefined, name: string) {
  if (route === "/discard/") {
    let bytes = 0;
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(String(bytes)));
  } else if (route === "/put/") {
    pipeline(req, createWriteStream(path.join(putDir!, name), { highWaterMark: 1024 * 1024 })).then(
      () => res.writeHead(201).end(),
      (error: Error) => res.writeHead(500).end(error.message),
    );
  } else {
    req.resume();
    res.writeHead(404).end();
  }
}

createServer((req, res) => {
  const name = path.basename(decodeURIComponent((req.url ?? "/").split("?")[0]!));
  if (req.method === "PUT") {
    put(req, res, /^\/\w+\//.exec(req.url ?? "")?.[0], name);
    return;
  }
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
