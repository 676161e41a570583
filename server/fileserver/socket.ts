import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger as Logger } from "fastify";
import type { WebSocket } from "ws";
import type * as z from "zod";
import { langFromHeader, type Lang } from "../../contract/envelope";
import { ErrorCode } from "../../contract/errors";
import { type SocketCommand, type SocketEvent, type SocketReply, type SocketResults, socketCommands, socketRequest } from "../../contract/files";
import type { AuthUser, Tokens } from "../auth/tokens";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import type { ClientRegistry } from "./clients";
import type { ShareSockets } from "./share-socket";
import type { UserSockets } from "./user-sockets";

/**
 * One WebSocket connection of the file server (docs/file-server.md, "Commands"). The first command
 * must be `login` with the sign-in's websocket token; every later command re-checks that token, so
 * a logout, a password change or a lock ends the socket's rights at once. Commands run one at a
 * time per socket in arrival order; each gets exactly one reply carrying its id.
 */

export interface SocketSession {
  user: AuthUser;
  sessionId: string;
  lang: Lang;
  /** Set when a share-link visitor's command runs on the owner's behalf (share-socket.ts): only that link's uploads are reachable. */
  shareLinkId?: string;
  /** Aborted when the socket closes: a folder walk the command started stops (docs/security.md, "Folder walks"). */
  signal?: AbortSignal;
  /** The caller's address (the operation and transfer logs). */
  address?: string | null;
  /** Set when the socket is a desktop client's (the transfer log's `via`). */
  client?: boolean;
  /** The socket itself, for commands that push events to it later (point to point, server/p2p/). */
  channel?: SocketChannel;
}

/** One signed-in socket as a command sees it: pushed events keep their order and go only while the socket is still signed in as the command's user. */
export interface SocketChannel {
  /** Unique among this engine process's sockets. */
  readonly id: number;
  push(event: SocketEvent): void;
  /** Aborted when the socket closes. */
  readonly closed: AbortSignal;
}

let socketSeq = 0;

type Args<C extends SocketCommand> = z.output<(typeof socketCommands)[C]>;
export type CommandHandler<C extends Exclude<SocketCommand, "login">> = (session: SocketSession, args: Args<C>) => Promise<SocketResults[C]>;
export type CommandHandlers = { [C in Exclude<SocketCommand, "login">]?: CommandHandler<C> };

export interface SocketDeps {
  tokens: Tokens;
  handlers: CommandHandlers;
  /** Share-link visitors (`login { shareToken }`, share-socket.ts). */
  shares: ShareSockets;
  clients: ClientRegistry;
  /** Signed-in sockets by user, for events pushed to them (a new notice). */
  userSockets?: UserSockets;
  /** The client's address (http/client-address.ts): a share visitor's, for the owner's notices. */
  clientAddress: (req: IncomingMessage) => string | null;
  /** Throws 1091 when the address is outside the user's IP login whitelist (server/auth/ip-whitelist.ts). */
  requireWhitelisted: (userId: number, ip: string | null) => Promise<void>;
  log: Logger;
}

function reply<T>(id: number, code: number, lang: Lang, data: T | null = null, vars?: Record<string, string | number>): SocketReply<T | null> {
  return { id, ...(envelope(code, lang, data, vars) as Omit<SocketReply<T | null>, "id">) };
}

function validationError(error: z.ZodError, input: unknown): FerryError {
  const first = error.issues[0];
  const missing = first?.code === "invalid_type" && first.path.reduce<unknown>((v, k) => (v == null ? undefined : (v as Record<PropertyKey, unknown>)[k]), input) === undefined;
  return new FerryError(missing ? "BadRequired" : "ParameterError", { issues: error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message })) });
}

export function handleSocket(socket: WebSocket, req: IncomingMessage, deps: SocketDeps): void {
  const lang = langFromHeader(req.headers["accept-language"]);
  let token: string | null = null;
  /** Set instead of `token` while a share-link visitor is logged in. */
  let shareToken: string | null = null;
  /** Set while this socket is a desktop client counted as online. */
  let clientId: string | null = null;
  let closed = false;
  /** Ends the walks of this socket's commands once the client is gone. */
  const gone = new AbortController();
  let queue: Promise<void> = Promise.resolve();
  /** Forgets this socket in `userSockets` (set while a user, not a share visitor, is logged in). */
  let unlisten: (() => void) | null = null;

  const send = (message: SocketReply<unknown> | SocketEvent) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };

  const socketId = ++socketSeq;
  /** Events in the order pushed: each waits for the one before (a signal's SDP before its candidates). */
  let pushed: Promise<void> = Promise.resolve();
  /** Sends an event while the socket's token still holds for `userId`. */
  const pushAs = (userId: number, event: SocketEvent) => {
    const held = token;
    if (!held) return;
    pushed = pushed.then(() =>
      deps.tokens.authenticateSocket(held).then(
        (auth) => {
          if (token !== held) return;
          if (auth?.user.id === userId) send(event);
          else socket.close(4001, "invalid token");
        },
        (error: unknown) => deps.log.warn({ err: error }, "checking a socket before an event failed"),
      ),
    );
  };

  /** Listens for the user's events; an event is sent only while the socket's token still holds. */
  const listenAs = (userId: number) => {
    unlisten?.();
    unlisten = deps.userSockets?.add(userId, { push: (event) => pushAs(userId, event) }) ?? null;
  };

  async function run(raw: string): Promise<void> {
    let id = 0;
    try {
      let parsedJson: unknown;
      try {
        parsedJson = JSON.parse(raw);
      } catch {
        throw new FerryError("ParameterError", { reason: "not JSON" });
      }
      const request = socketRequest.safeParse(parsedJson);
      if (!request.success) throw validationError(request.error, parsedJson);
      id = request.data.id;
      const cmd = request.data.cmd as SocketCommand;
      if (!Object.prototype.hasOwnProperty.call(socketCommands, cmd)) throw new FerryError("RouteNotFound", { cmd: request.data.cmd });
      const args = socketCommands[cmd].safeParse(request.data.args ?? {});
      if (!args.success) throw validationError(args.error, request.data.args);

      if (cmd === "login") {
        const login = args.data as Args<"login">;
        if (login.shareToken !== undefined) {
          // The visitor's form is `{ shareToken }` alone; the share is then the socket's only space.
          if (login.token !== undefined || login.client) throw new FerryError("ParameterError", { reason: "shareToken comes alone" });
          const data = await deps.shares.login(login.shareToken);
          if (clientId) await deps.clients.release(clientId);
          clientId = null;
          token = null;
          unlisten?.();
          unlisten = null;
          shareToken = login.shareToken;
          send(reply(id, 200, lang, data));
          return;
        }
        if (login.token === undefined) throw new FerryError("BadRequired", { issues: [{ path: "token", message: "token or shareToken is required" }] });
        const auth = await deps.tokens.authenticateSocket(login.token);
        if (!auth) throw new FerryError("InvalidToken");
        await deps.requireWhitelisted(auth.user.id, deps.clientAddress(req));
        const client = (args.data as Args<"login">).client;
        // Over the edition's limit this throws 4110 and the socket stays logged out.
        if (client && !clientId) {
          clientId = await deps.clients.admit(auth.user.id, client.version, { sessionId: auth.sessionId, address: deps.clientAddress(req) });
          if (closed) await deps.clients.release(clientId);
        }
        token = login.token;
        shareToken = null;
        if (!closed) listenAs(auth.user.id);
        send(reply(id, 200, lang, { account: auth.user.account, userId: auth.user.id }));
        return;
      }
      if (shareToken) {
        const outcome = await deps.shares.command(shareToken, cmd, args.data, { lang, ip: deps.clientAddress(req), signal: gone.signal });
        if ("gone" in outcome) {
          // The link was cancelled, deleted or expired, or its owner lost the right to share: the visitor is out.
          send(reply(id, outcome.gone, lang));
          socket.close(4001, "share link no longer usable");
          return;
        }
        send(reply(id, 200, lang, outcome.data));
        return;
      }
      if (!token) throw new FerryError("NotLoggedIn");
      const auth = await deps.tokens.authenticateSocket(token);
      if (!auth) {
        send(reply(id, ErrorCode.InvalidToken, lang));
        socket.close(4001, "invalid token");
        return;
      }
      const handler = deps.handlers[cmd] as CommandHandler<typeof cmd> | undefined;
      if (!handler) throw new FerryError("FeatureNotSupported", { cmd });
      const channel: SocketChannel = { id: socketId, closed: gone.signal, push: (event) => pushAs(auth.user.id, event) };
      const data = await handler({ user: auth.user, sessionId: auth.sessionId, lang, signal: gone.signal, address: deps.clientAddress(req), client: clientId !== null, channel }, args.data as never);
      send(reply(id, 200, lang, data));
    } catch (error) {
      if (error instanceof FerryError) {
        send(reply(id, error.code, lang, error.data, error.vars));
        return;
      }
      deps.log.error({ err: error }, "file server command failed");
      send(reply(id, ErrorCode.UnknownException, lang));
    }
  }

  socket.on("message", (data, isBinary) => {
    if (isBinary) {
      send(reply(0, ErrorCode.ParameterError, lang, { reason: "binary frames are not commands" }));
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
    queue = queue.then(() => run(text));
  });
  socket.on("error", (error) => deps.log.debug({ err: error }, "file server socket error"));
  socket.on("close", () => {
    closed = true;
    gone.abort();
    unlisten?.();
    unlisten = null;
    if (clientId) deps.clients.release(clientId).catch((error: unknown) => deps.log.warn({ err: error }, "releasing a desktop client failed"));
  });
}
