import WebSocket from "ws";
import type { SocketArgs, SocketCommand, SocketReply, SocketResults } from "../../contract/files";

/**
 * A typed client of the file server's WebSocket commands (docs/file-server.md), for engine tests:
 * `const fs = await connectFiles(t.fileUrl, user.socketToken); const r = await fs.cmd("list", { groupId: 0, path: "/" });`
 * `cmd` resolves with the whole reply (check `code`); `ok` insists on code 200 and returns `data`.
 */
export interface FileClient {
  socket: WebSocket;
  cmd<C extends SocketCommand>(cmd: C, args: SocketArgs<C>): Promise<SocketReply<SocketResults[C]>>;
  /** Sends any text frame (forged or malformed commands) and waits for the reply with `id`. */
  raw(text: string, id: number): Promise<SocketReply<unknown>>;
  ok<C extends SocketCommand>(cmd: C, args: SocketArgs<C>): Promise<SocketResults[C]>;
  close(): Promise<void>;
}

export async function openSocket(fileUrl: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(`${fileUrl.replace(/^http/, "ws")}/ws`, { headers });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
    socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
  return socket;
}

/** Opens a socket and logs in with `socketToken` (pass null to stay logged out). */
export async function connectFiles(fileUrl: string, socketToken: string | null, headers: Record<string, string> = {}): Promise<FileClient> {
  const socket = await openSocket(fileUrl, headers);
  const waiting = new Map<number, (reply: SocketReply<unknown>) => void>();
  socket.on("message", (data) => {
    const reply = JSON.parse(String(data)) as SocketReply<unknown>;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  let nextId = 1;
  const raw = (text: string, id: number) =>
    new Promise<SocketReply<unknown>>((resolve, reject) => {
      waiting.set(id, resolve);
      socket.send(text, (error) => error && reject(error));
    });
  const client: FileClient = {
    socket,
    raw,
    cmd: (cmd, args) => {
      const id = nextId++;
      return raw(JSON.stringify({ id, cmd, args }), id) as never;
    },
    async ok(cmd, args) {
      const reply = await client.cmd(cmd, args);
      if (reply.code !== 200) throw new Error(`${cmd} ${JSON.stringify(args)} → ${reply.code} ${reply.message}`);
      return reply.data;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once("close", () => resolve());
        socket.close();
      }),
  };
  if (socketToken !== null) {
    const login = await client.cmd("login", { token: socketToken });
    if (login.code !== 200) throw new Error(`file-server login failed: ${login.code} ${login.message}`);
  }
  return client;
}
