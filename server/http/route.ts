import * as z from "zod";
import type { Lang } from "../../contract/envelope";
import type { AuthContext } from "../auth/tokens";
import type { ShareAccess } from "../shares/access";

/**
 * public: no token; user/admin: access token (admin role); refresh: refresh token; session: either;
 * optional: access token if sent; visitor: a share link's token (docs/shares.md), checked with its
 * link at every call; userOrVisitor: an access token or else a share token.
 */
export type AuthMode = "public" | "user" | "admin" | "refresh" | "session" | "optional" | "visitor" | "userOrVisitor";

export interface RequestContext<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  /** The caller's session; present for "user", "admin" and "refresh", maybe for "optional" and "userOrVisitor". */
  auth: AuthContext | null;
  /** A share visitor's access; present for "visitor", and for "userOrVisitor" when the token is a share token. */
  visitor: ShareAccess | null;
  /** The client's address; null when a trusted proxy forwarded none (see app.ts). */
  ip: string | null;
  lang: Lang;
  /** The raw bearer token, for routes whose services check a token themselves (auth "public"). */
  bearer: string | null;
}

/**
 * One REST route: its schemas validate the request, document it in OpenAPI, and type the handler.
 * The handler returns the envelope's `data`; it never sees Fastify.
 */
export interface RouteDef<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  summary: string;
  tag: string;
  auth: AuthMode;
  body?: B;
  query?: Q;
  params?: P;
  response?: z.ZodType;
  handler(ctx: RequestContext<z.infer<B>, z.infer<Q>, z.infer<P>>): Promise<unknown>;
}

/**
 * A handler's answer that is not the JSON envelope (a CSV export): `body` is streamed as it is, with
 * `headers` (content type, disposition) and no-store, nosniff. Errors thrown before it is returned
 * still answer the envelope.
 */
export class RawReply {
  constructor(
    readonly body: AsyncIterable<string> | string,
    readonly headers: Record<string, string>,
  ) {}
}

/** The response of a route whose envelope carries `data: null` (deletes, password changes). */
export const nullData = z.null();

export function route<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType>(
  def: RouteDef<B, Q, P>,
): RouteDef {
  return def as unknown as RouteDef;
}
