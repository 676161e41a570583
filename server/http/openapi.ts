import * as z from "zod";
import { envelopeSchema } from "../../contract/envelope";
import { errors } from "../../contract/errors";
import type { RouteDef } from "./route";

const toJson = (schema: z.ZodType, io: "input" | "output") => z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function openApiDocument(routes: RouteDef[], version: string) {
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
    servers: [{ url: "http://127.0.0.1:8090" }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      "x-error-codes": errors.map((e) => ({ code: e.code, name: e.name, value: e.value, en: e.en, zh: e.zh })),
    },
  };
}
