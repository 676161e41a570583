import type { FastifyInstance, FastifyRequest } from "fastify";
import * as z from "zod";
import type { Tokens } from "../auth/tokens";
import { FerryError } from "../errors";
import { INSTALLER_MEDIA_TYPES, type Installers, PLATFORMS } from "./service";

const params = z.object({ platform: z.enum(PLATFORMS) });

// RFC 5987 attr-char: everything else is percent-encoded in filename*.
const encodeRfc5987 = (value: string) =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment` with the name twice (RFC 6266): `filename*` carries it exactly in UTF-8, `filename`
 * is a plain-ASCII fallback for old clients with quotes, backslashes, controls and non-ASCII replaced.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** The access token from `?token=` (a browser navigation cannot send a header) or `Authorization: Bearer`. */
function accessToken(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
  if (match) return match[1]!;
  const { token } = request.query as Record<string, unknown>;
  return typeof token === "string" && token ? token : null;
}

/**
 * GET /download/:platform: the desktop client installer as a file download. Not a JSON route, so it
 * is not made with route(); failures still answer the envelope through the API's error handler.
 */
export function installerRoutes(app: FastifyInstance, deps: { installers: Installers; tokens: Tokens }) {
  app.route({
    // HEAD answers the headers without reading the file (Fastify's automatic HEAD would read it all).
    method: ["GET", "HEAD"],
    url: "/download/:platform",
    handler: async (request, reply) => {
      const token = accessToken(request);
      const auth = token ? await deps.tokens.authenticateAccess(token) : null;
      if (!auth) throw new FerryError("InvalidToken");
      const parsed = params.safeParse(request.params);
      if (!parsed.success) throw new FerryError("ParameterError", { issues: [{ path: "platform", message: `one of ${PLATFORMS.join(", ")}` }] });
      const { platform } = parsed.data;

      const installer = await deps.installers.open(platform);
      if (!installer) throw new FerryError("InstallerNotAvailable");
      reply
        .header("content-type", INSTALLER_MEDIA_TYPES[platform])
        .header("content-disposition", contentDisposition(installer.name))
        .header("content-length", String(installer.size))
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "no-store");
      if (request.method === "HEAD") {
        await installer.handle.close();
        return reply.send();
      }
      return reply.send(installer.handle.createReadStream());
    },
  });
}
