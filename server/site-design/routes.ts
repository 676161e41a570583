import type { FastifyInstance, FastifyRequest } from "fastify";
import * as z from "zod";
import { langFromHeader } from "../../contract/envelope";
import { ErrorCode } from "../../contract/errors";
import { SITE_ASSET_RULES, SITE_ASSETS, siteDesign, siteDesignBody } from "../../contract/site-design";
import type { Tokens } from "../auth/tokens";
import { envelope } from "../envelope";
import { FerryError } from "../errors";
import { route } from "../http/route";
import type { SiteDesignService } from "./service";

const assetParams = z.object({ asset: z.enum(SITE_ASSETS) });

/** The administrator API of the site design (docs/admin-api.md, "Site design"); changes need the enterprise edition (4460). */
export function siteDesignRoutes(design: SiteDesignService) {
  const base = "/api/admin/site-design";
  return [
    route({ method: "GET", url: base, tag: "admin", summary: "Site design: whether the edition allows it, the branding fields and the uploaded images (icon, logo, login background, watermark).", auth: "admin", response: siteDesign, handler: () => design.read() }),
    route({ method: "PATCH", url: base, tag: "admin", summary: "Change branding fields (colours #RRGGBB, position 1–9, opacity 30–100, names, official sites). 4460 outside the enterprise edition.", auth: "admin", body: siteDesignBody, response: siteDesign, handler: ({ body }) => design.update(body) }),
    route({ method: "DELETE", url: `${base}/:asset`, tag: "admin", summary: "Remove the icon, logo, login background or watermark image (the default comes back; without a watermark image the viewer's account and the time are drawn). 4460 outside the enterprise edition.", auth: "admin", params: assetParams, response: siteDesign, handler: ({ params }) => design.removeAsset(params.asset) }),
    route({ method: "POST", url: `${base}/reset`, tag: "admin", summary: "Every branding field and image back to the defaults. 4460 outside the enterprise edition.", auth: "admin", response: siteDesign, handler: () => design.reset() }),
  ];
}

function bearer(request: FastifyRequest): string | null {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? null;
}

/**
 * Routes with bodies or answers that are not JSON: PUT /api/admin/site-design/<asset> takes the
 * image's bytes (any image/* or application/octet-stream type; the type is read from the bytes), each
 * capped at its asset's limit before it is read; GET /customize/<name> serves a stored image.
 */
export function siteDesignFileRoutes(app: FastifyInstance, deps: { design: SiteDesignService; tokens: Tokens }) {
  const { design, tokens } = deps;
  app.register(async (scope) => {
    scope.addContentTypeParser(/^(application\/octet-stream|image\/[\w.+-]+)$/, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { code?: string }, request, reply) => {
      if (error.code !== "FST_ERR_CTP_BODY_TOO_LARGE") throw error;
      const asset = (request.params as { asset?: string }).asset as keyof typeof SITE_ASSET_RULES;
      const limit = SITE_ASSET_RULES[asset]?.maxBytes ?? 0;
      // The rest of the body is never read: close the connection instead of draining it.
      return reply
        .code(413)
        .header("connection", "close")
        .header("cache-control", "no-store")
        .header("x-content-type-options", "nosniff")
        .send(envelope(ErrorCode.ImageFileTooLarge, langFromHeader(request.headers["accept-language"]), { limit }, { limit }));
    });
    for (const asset of SITE_ASSETS) {
      scope.route({
        method: "PUT",
        url: `/api/admin/site-design/${asset}`,
        // One byte over the limit is read, so the service itself says it is too large.
        bodyLimit: SITE_ASSET_RULES[asset].maxBytes + 1,
        handler: async (request, reply) => {
          const token = bearer(request);
          const auth = token ? await tokens.authenticateAccess(token) : null;
          if (!auth) throw new FerryError("InvalidToken");
          if (auth.user.role !== "admin") throw new FerryError("PermissionDenied");
          if (!Buffer.isBuffer(request.body)) throw new FerryError("ParameterError", { reason: "send the image's bytes with an image/* or application/octet-stream Content-Type" });
          const data = await design.upload(asset, request.body);
          const lang = langFromHeader(request.headers["accept-language"]);
          return reply.code(200).header("cache-control", "no-store").header("x-content-type-options", "nosniff").send(envelope(200, lang, data));
        },
      });
    }
  });

  app.route({
    method: ["GET", "HEAD"],
    url: "/customize/:name",
    handler: async (request, reply) => {
      const { name } = request.params as { name: string };
      const found = await design.open(name);
      if (!found) {
        const lang = langFromHeader(request.headers["accept-language"]);
        return reply.code(404).header("cache-control", "no-store").header("x-content-type-options", "nosniff").send(envelope(ErrorCode.RouteNotFound, lang));
      }
      reply
        .header("content-type", found.mediaType)
        .header("content-length", String(found.bytes.length))
        .header("x-content-type-options", "nosniff")
        // Nothing in an image may run or load anything, even when opened on its own.
        .header("content-security-policy", "default-src 'none'; sandbox")
        // The name carries the content's hash: a new upload is a new URL.
        .header("cache-control", "public, max-age=31536000, immutable");
      return reply.send(request.method === "HEAD" ? undefined : found.bytes);
    },
  });
}
