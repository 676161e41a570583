import type { LoaderFunctionArgs } from "@remix-run/node";
import { type FileServerValue, uploadSettingsOf } from "~/files/file-server-context";
import { fileServerInfo, issueToken } from "~/shares/page/share-page.server";
import { deviceFingerprint, getShareToken, setShareToken } from "~/utils/share-session.server";
import { shareIdOf } from "../../contract/share";
import { refusePost } from "~/utils/form.server";

/**
 * GET /share/<id>/socket — for the share page's script only: the visitor's share token and where
 * the file server answers, so the file browser can open its socket (as the signed-in shell gets
 * its socket token). Kept out of the page's HTML: a visitor without JavaScript never receives the
 * token. Same-origin fetches only; nothing is changed but the renewed token.
 *
 * Answers are plain Responses: the page fetches this address itself, and a resource route's `data()`
 * would lose its status and headers (no-store, the renewed cookie) on such a direct request.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const headers = new Headers({ "Cache-Control": "no-store" });
  const site = request.headers.get("Sec-Fetch-Site");
  if (site && site !== "same-origin") return Response.json({ code: 403 }, { status: 403, headers });
  const shareId = shareIdOf(params.shareId ?? "");
  const token = shareId ? await getShareToken(request, shareId) : null;
  if (!shareId || !token) return Response.json({ code: 1009 }, { status: 401, headers });

  const { fingerprint } = await deviceFingerprint(request);
  const renewed = await issueToken(request, shareId, fingerprint, { token });
  if (renewed.code !== 200 || !renewed.data) {
    headers.append("Set-Cookie", await setShareToken(request, shareId, null));
    return Response.json({ code: renewed.code }, { status: 401, headers });
  }
  const service = await fileServerInfo(request, renewed.data.token);
  if (service.code !== 200 || !service.data) return Response.json({ code: service.code }, { status: 502, headers });
  const server = service.data.server;
  const fileServer: FileServerValue = {
    info: { token: renewed.data.token, port: server.no_ssl_port, sslPort: server.ssl_port, host: server.host, share: true },
    tcpFileSizeLimit: server.TCPFileSizeLimit * 1024,
    syncSwitch: false,
    // A visitor has no desktop client to be pointed to.
    uploads: { ...uploadSettingsOf(server), clientPromptMB: 0 },
  };
  return Response.json({ fileServer }, { headers });
}

/** Takes no posts: 405, the body discarded. */
export const action = refusePost;
