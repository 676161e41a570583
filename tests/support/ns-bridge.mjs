// Runs inside a network namespace (`ip netns exec wl-srv node ns-bridge.mjs …`) and pipes between
// TCP in the namespace and path-named Unix sockets, which are not bound to a network namespace, so
// the host's namespace and the namespace reach each other without any interface on the host
// (tests/support/wan-link.ts starts it and holds the host's side):
//   ns-bridge.mjs unix-to-tcp DIR PORT...       listens on DIR/PORT.sock, connects to 127.0.0.1:PORT
//                                               of the namespace (the bench drives its servers in wl-srv)
//   ns-bridge.mjs tcp-to-unix DIR HOST PORT...  listens on HOST:PORT of the namespace, connects to
//                                               DIR/PORT.sock (a browser in wl-cli reaches the host's
//                                               e2e servers through the link)
// Prints "bridged" once every listener is up; SIGTERM / SIGINT end it.
import { createConnection, createServer } from "node:net";
import { rmSync } from "node:fs";
import path from "node:path";

const [mode, dir, ...rest] = process.argv.slice(2);
const host = mode === "tcp-to-unix" ? rest.shift() : undefined;
const ports = rest;
if (!["unix-to-tcp", "tcp-to-unix"].includes(mode ?? "") || !dir || (mode === "tcp-to-unix" && !host) || ports.length === 0) {
  process.stderr.write("usage: ns-bridge.mjs unix-to-tcp DIR PORT... | tcp-to-unix DIR HOST PORT...\n");
  process.exit(2);
}
let listening = 0;
for (const port of ports) {
  const file = path.join(dir, `${port}.sock`);
  const server = createServer((client) => {
    const upstream = mode === "unix-to-tcp" ? createConnection({ host: "127.0.0.1", port: Number(port) }) : createConnection({ path: file });
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
  });
  server.on("error", (error) => {
    process.stderr.write(`ns-bridge: ${error.message}\n`);
    process.exit(1);
  });
  const ready = () => {
    if (++listening === ports.length) process.stdout.write("bridged\n");
  };
  if (mode === "unix-to-tcp") {
    rmSync(file, { force: true });
    server.listen(file, ready);
  } else {
    server.listen(Number(port), host, ready);
  }
}
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));
