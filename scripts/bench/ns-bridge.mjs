// Runs inside a network namespace (`ip netns exec wl-srv node ns-bridge.mjs DIR PORT...`): for each
// PORT, a Unix socket DIR/PORT.sock whose connections are piped to 127.0.0.1:PORT of the namespace.
// Path-named Unix sockets are not bound to a network namespace, so the bench, in the host's
// namespace, reaches a server of the namespace through them without any interface on the host.
import { createConnection, createServer } from "node:net";
import { rmSync } from "node:fs";
import path from "node:path";

const [dir, ...ports] = process.argv.slice(2);
if (!dir || ports.length === 0) {
  process.stderr.write("usage: ns-bridge.mjs DIR PORT...\n");
  process.exit(2);
}
let listening = 0;
for (const port of ports) {
  const file = path.join(dir, `${port}.sock`);
  rmSync(file, { force: true });
  createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: Number(port) });
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
  }).listen(file, () => {
    if (++listening === ports.length) process.stdout.write("bridged\n");
  });
}
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));
