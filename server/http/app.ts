import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import type * as z from "zod";
import { langFromHeader, type Envelope } from "../../contract/envelope";
import { type ErrorName, ErrorCode, errorByCode } from "../../contract/errors";
import type { AuthContext, Tokens } from "../auth/tokens";
import type { ShareAccess } from "../shares/access";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import { RawReply, type RouteDef } from "./route";

export interface ApiOptions {
  bodyLimit: number;
  trustedProxies: string[];
  /** The client's address of a request (server/http/client-address.ts), shared with the file server. */
  clientAddress: (req: IncomingMessage) => string | null;
  logLevel: string;
  tokens: Tokens;
  /** Share tokens (auth "visitor", "userOrVisitor"): the access they give now, or the catalogue error. */
  shareTokens: (token: string) => Promise<{ access: ShareAccess } | { error: ErrorName }>;
  routes: RouteDef[];
}

/** Maps zod issues to the catalogue's 400 family: 401 a required field is missing, 402 a wrong type, 400 anything else. */
function validationFailure(error: z.ZodError, input: unknown): FerryError {
  const first = error.issues[0];
  let name: ErrorName = "ParameterError";
  if (first?.code === "invalid_type") {
    let value: unknown = input;
    for (const key of first.path) value = value == null ? undefined : (value as Record<PropertyKey, unknown>)[key];
    name = value === undefined ? "BadRequired" : "ParameterTypeError";
  }
  // A check can name the catalogue error it stands for (refine's params.ferryError, e.g. 4019 for an IP whitelist).
  for (const issue of error.issues) {
    const named: unknown = issue.code === "custom" ? issue.params?.ferryError : undefined;
    if (typeof named === "string" && Object.prototype.hasOwnProperty.call(ErrorCode, named)) {
      name = named as ErrorName;
      break;
    }
  }
  const issues = error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
  return new FerryError(name, { issues });
}

function parse<T extends z.ZodType>(schema: T | undefined, input: unknown): z.infer<T> {
  if (!schema) return undefined as z.infer<T>;
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailure(result.error, input);
  return result.data;
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1]! : null;
}

type Caller = { auth: AuthContext | null; visitor: ShareAccess | null };
const NOBODY: Caller = { auth: null, visitor: null };

async function authenticate(def: RouteDef, request: FastifyRequest, { tokens, shareTokens }: ApiOptions): Promise<Caller> {
  if (def.auth === "public") return NOBODY;
  const token = bearer(request);
  if (!token) {
    if (def.auth === "optional") return NOBODY;
    throw new FerryError("InvalidToken");
  }
  if (def.auth === "visitor" || def.auth === "userOrVisitor") {
    const user = def.auth === "userOrVisitor" ? await tokens.authenticateAccess(token) : null;
    if (user) return { auth: user, visitor: null };
    const checked = await shareTokens(token);
    // A visitor's route says why the link no longer opens; for "either kind" it is just not a token.
    if ("error" in checked) throw new FerryError(def.auth === "visitor" ? checked.error : "InvalidToken");
    return { auth: null, visitor: checked.access };
  }
  const auth =
    def.auth === "refresh"
      ? await tokens.authenticateRefresh(token)
      : def.auth === "session"
        ? ((await tokens.authenticateAccess(token)) ?? (await tokens.authenticateRefresh(token)))
        : await tokens.authenticateAccess(token);
  if (!auth) throw new FerryError("InvalidToken");
  if (def.auth === "admin" && auth.user.role !== "admin") throw new FerryError("PermissionDenied");
  return { auth, visitor: null };
}

/**
 * Fastify logs two JSON lines per request at info ("incoming request", "request completed"). Here a
 * request is one line, and only at debug: at the default level (info) the log holds start-up,
 * warnings and errors, not every call the web makes while someone uses it. A failed response is
 * still logged at error.
 */
class RequestLog extends LogController {
  override incomingRequest() {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = { method: request.method, url: request.url.split("?")[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.debug(line, "request");
  }
}

/** The REST API: a thin shell that parses with the contract's schemas, calls a service, wraps the envelope. */
export function buildApi(options: ApiOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    logController: new RequestLog(),
    logger: {
      level: options.logLevel,
      redact: { paths: ["req.headers.authorization", "req.headers.cookie", "res.headers['set-cookie']"], censor: "[redacted]" },
      serializers: {
        // Query strings can carry tokens (download links); log the path only.
        req: (req: FastifyRequest) => ({ method: req.method, url: req.url.split("?")[0], ip: req.ip }),
      },
    },
  });

  // The API speaks JSON only; any other body type is refused as bad input. Every body is read through
  // a parser with bodyLimit, which refuses a declared Content-Length over it before reading and stops
  // a chunked body as soon as it passes it (also on unknown routes: the 404 handler parses too).
  app.removeContentTypeParser("text/plain");
  app.removeContentTypeParser("application/json");
  const parseJson = app.getDefaultJsonParser("error", "error");
  // Some clients send `Content-Type: application/json` with no body (PUT /api/user/auth): that is an
  // empty object, so a route without required fields runs and one with them answers 401.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if ((body as string).trim() === "") return done(null, {});
    parseJson(request, body as string, done);
  });

  const clientIp = (request: FastifyRequest): string | null => options.clientAddress(request.raw);

  const langOf = (request: FastifyRequest) => langFromHeader(request.headers["accept-language"]);
  const send = (reply: FastifyReply, status: number, body: Envelope) =>
    reply.code(status).header("cache-control", "no-store").header("x-content-type-options", "nosniff").send(body);

  for (const def of options.routes) {
    app.route({
      method: def.method,
      url: def.url,
      handler: async (request, reply) => {
        const { auth, visitor } = await authenticate(def, request, options);
        const params = parse(def.params, request.params);
        const query = parse(def.query, request.query);
        const body = parse(def.body, request.body);
        const data = await def.handler({ body, query, params, auth, visitor, ip: clientIp(request), lang: langOf(request), bearer: bearer(request) });
        if (data instanceof RawReply) return reply.code(200).headers({ ...data.headers, "cache-control": "no-store", "x-content-type-options": "nosniff" }).send(typeof data.body === "string" ? data.body : Readable.from(data.body));
        return send(reply, 200, envelope(200, langOf(request), data ?? null));
      },
    });
  }

  app.setNotFoundHandler((request, reply) => send(reply, 404, envelope(ErrorCode.RouteNotFound, langOf(request))));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const lang = langOf(request);
    if (error instanceof FerryError) {
      const def = errorByCode(error.code)!;
      return send(reply, def.status, envelope(error.code, lang, error.data, error.vars));
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      // The rest of the body is never read: close the connection instead of draining it.
      reply.header("connection", "close");
      return send(reply, 413, envelope(ErrorCode.RequestTooLarge, lang, { limit: options.bodyLimit }, { limit: options.bodyLimit }));
    }
    // Fastify's own request errors (malformed JSON, wrong content type) are bad input.
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, error.statusCode, envelope(ErrorCode.ParameterError, lang, { reason: error.code ?? "bad request" }));
    }
    request.log.error({ err: error }, "unhandled error");
    return send(reply, 500, envelope(ErrorCode.UnknownException, lang));
  });

  return app;
}
