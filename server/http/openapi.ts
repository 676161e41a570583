import * as z from "zod";
import { envelopeSchema } from "../../contract/envelope";
import { errors } from "../../contract/errors";
import type { RouteDef } from "./route";

const toJson = (schema: z.ZodType, io: "input" | "output") => z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;

/**
 * The address the engine serves, as a client on this machine reaches it: the configured host, or
 * the loopback address of its family when it listens on every interface (0.0.0.0, ::).
 */
export function apiServerUrl(host: string, port: number): string {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  return `http://${reachable.includes(":") && !reachable.startsWith("[") ? `[${reachable}]` : reachable}:${port}`;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests; `serverUrl` is where the engine answers. */
export function openApiDocument(routes: RouteDef[], version: string, serverUrl = apiServerUrl("0.0.0.0", 8090)) {
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
  return {
    openapi: "3.1.0",
    info: { title: "Ferry engine API", version, description: "REST API of the Ferry engine. Every response is the envelope { code, value, result, message, data }." },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      "x-error-codes": errors.map((e) => ({ code: e.code, name: e.name, value: e.value, en: e.en, zh: e.zh })),
    },
  };
}
