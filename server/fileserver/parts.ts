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

export type FileServerPart = (services: Services, log: FastifyBaseLogger) => FileServerParts | Promise<FileServerParts>;
