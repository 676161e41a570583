import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { Services } from "../services";
import type { HttpHandler } from "./server";
import type { CommandHandlers } from "./socket";

/** What a capability adds to the file server: HTTP handlers (by path prefix) and socket commands. */
export interface FileServerParts {
  handlers: HttpHandler[];
  commands: CommandHandlers;
  /** Called once when the engine stops (timers, open files). */
  close?(): Promise<void>;
}

/** `clientAddress` reads a request's client address as the REST API does (server/http/client-address.ts). */
export type FileServerPart = (services: Services, log: FastifyBaseLogger, clientAddress?: (req: IncomingMessage) => string | null) => FileServerParts | Promise<FileServerParts>;
