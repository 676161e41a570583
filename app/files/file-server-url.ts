import { FILE_SERVER_PATHS } from "../../contract/files";
import type { FileServerInfo } from "./file-server-context";

/**
 * Where the file server answers for a page at `location`: a configured URL, or the host (the page's
 * own when none is set) with the plain port on http pages and the TLS port on https pages (and on
 * every page while the plain port is 0, disabled). Used by
 * the browser's connection and by the share page's server-side download redirect.
 */
export function fileServerUrls(info: Pick<FileServerInfo, "httpUrl" | "host" | "port" | "sslPort">, location: Pick<Location, "protocol" | "hostname">): { httpUrl: string; wsUrl: string } {
  let httpUrl: string;
  if (info.httpUrl) {
    httpUrl = info.httpUrl.replace(/\/+$/, "");
  } else {
    // A plain port of 0: non-TLS connections are disabled on the server, so even an http page
    // goes to the TLS port (docs/file-server.md, "TLS").
    const secure = location.protocol === "https:" || !info.port;
    const host = info.host.trim() || location.hostname;
    // An IPv6 literal needs brackets in a URL.
    const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    httpUrl = `${secure ? "https" : "http"}://${hostPart}:${secure ? info.sslPort : info.port}`;
  }
  return { httpUrl, wsUrl: `${httpUrl.replace(/^http/, "ws")}${FILE_SERVER_PATHS.socket}` };
}
