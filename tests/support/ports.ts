import { createServer } from "node:net";

/** A TCP port free on 127.0.0.1 right now (for engine processes a test starts itself). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
