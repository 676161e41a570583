import * as z from "zod";
import { envelopeSchema } from "../../contract/envelope";
import { errors } from "../../contract/errors";
import { FILE_SERVER_TAG, fileServerPaths, fileServerSchemas, type ServerEntry } from "../fileserver/openapi";
import type { RouteDef } from "./route";

const toJson = (schema: z.ZodType, io: "input" | "output") => z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;

/**
 * The address the engine serves, as a client on this machine reaches it: the configured host, or
 * the loopback address of its family when it listens on every interface (0.0.0.0, ::).
 */
export function apiServerUrl(host: string, port: number, scheme: "http" | "https" = "http"): string {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  return `${scheme}://${reachable.includes(":") && !reachable.startsWith("[") ? `[${reachable}]` : reachable}:${port}`;
}

/** The file server's addresses for the document: its plain port and, when it listens with TLS, its TLS port. */
export function fileServerEntries(host: string, ports: { plain: number | null; tls: number | null }): ServerEntry[] {
  const entries: ServerEntry[] = [];
  if (ports.plain !== null) entries.push({ url: apiServerUrl(host, ports.plain), description: "File server (FERRY_FILE_PORT)" });
  if (ports.tls !== null) entries.push({ url: apiServerUrl(host, ports.tls, "https"), description: "File server with TLS (FERRY_FILE_TLS_PORT)" });
  return entries;
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests; `serverUrl`
 * is where the engine's API answers, `fileServers` where its file server does (its paths, tagged
 * `file-server`, carry them as their own `servers`).
 */
export function openApiDocument(routes: RouteDef[], version: string, serverUrl = apiServerUrl("0.0.0.0", 8090), fileServers = fileServerEntries("0.0.0.0", { plain: 2480, tls: null })) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const url = r.url.replace(/:(\w+)/g, "{$1}");
    const parameters: unknown[] = [];
    for (const [where, schema] of [["path", r.params], ["query", r.query]] as const) {
      if (!schema) continue;
      const json = toJson(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(json.properties ?? {})) {
        parameters.push({ name, in: where, required: where === "path" || (json.required ?? []).includes(name), schema: s });
      }
    }
    const secured = r.auth !== "public";
    paths[url] ??= {};
    paths[url][r.method.toLowerCase()] = {
      tags: [r.tag],
      summary: r.summary,
      ...(secured ? { security: [{ bearer: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: toJson(r.body, "input") } } } } : {}),
      responses: {
        "200": { description: "Success envelope (code 200).", content: { "application/json": { schema: toJson(envelopeSchema(r.response ?? z.unknown()), "output") } } },
        "400": { description: "Error envelope; `code` is from the catalogue (components.x-error-codes)." },
      },
    };
  }
  Object.assign(paths, fileServerPaths(fileServers));
  return {
    openapi: "3.1.0",
    info: {
      title: "Ferry engine API",
      version,
      description:
        "REST API of the Ferry engine: every response is the envelope { code, value, result, message, data }. The paths tagged file-server answer on the file server's port (their own `servers`, default 2480): tus uploads with Ferry's extensions (parallel chunks, batches) and signed ranged downloads (docs/file-server.md).",
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: FILE_SERVER_TAG, description: "The file server (port 2480, 2481 with TLS): tus 1.0 uploads with Ferry's parallel chunks (Ferry-Chunk, Ferry-Ranges) and small-file batches, and signed ranged downloads. WebSocket commands (/ws) are in docs/file-server.md." }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        socketToken: { type: "http", scheme: "bearer", description: "The file server's token: a sign-in's `websocket_token` (from login), or a share visitor's token for tus uploads into an invitation." },
      },
      schemas: fileServerSchemas(),
      "x-error-codes": errors.map((e) => ({ code: e.code, name: e.name, value: e.value, en: e.en, zh: e.zh })),
    },
  };
}
